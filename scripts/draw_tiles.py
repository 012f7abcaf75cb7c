"""Draw the 21 tile faces and the tile back into data/tiles/ (128×128 PNGs for Discord application emojis).

    .venv/bin/python scripts/draw_tiles.py              # writes data/tiles/1p.png … 7z.png, back.png, and
                                                        # data/tiles/claimed/1p.png …: the faded faces
    .venv/bin/python scripts/draw_tiles.py --no-font    # 中/发 as strokes even if a CJK font is installed
    .venv/bin/python scripts/draw_tiles.py --sheet /tmp/sheet.png   # also a contact sheet to look at

The drawing code lives in kwx/present/art.py so the bot can draw a missing file on the fly with the same code.
中 and 发 use a CJK font when found (Debian: fonts-noto-cjk or fonts-wqy-microhei; or set $KWX_CJK_FONT). The
committed 中 and 发 were drawn with fonts-noto-cjk's Noto Serif CJK Bold; without a CJK font the script leaves
them as they are (--no-font redraws them with strokes). Everything else, the numerals included, is drawn
without a font and comes out the same on every machine.
The bot uploads changed pictures as new emojis on its next start (cogs/emoji.py names them by content).

The sheet shows every tile at full size, then as Discord shows it inline (22 px in message text, 19 px in an
embed) on the dark and the light theme, each pixel enlarged so that what a player sees can be judged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from kwx.engine.tiles import ALL_TILES, Tile  # noqa: E402
from kwx.present.art import (  # noqa: E402
    BACK_NAME,
    CLAIMED_DIR,
    EMOJI_SIZE,
    TILE_DIR,
    draw_tile,
    faded,
    to_png,
)
from kwx.present.fonts import find_cjk_font  # noqa: E402

MAX_EMOJI_BYTES = 256 * 1024  # Discord's limit for an emoji image
INLINE_SIZES = (22, 19)  # Discord's emoji at 1.375em: message text (16 px) and embed text (14 px)
THEMES = ((49, 51, 56), (255, 255, 255))  # Discord's dark and light message backgrounds
ZOOM = 4  # how much the inline rows are enlarged on the sheet


def contact_sheet(images: list[Image.Image]) -> Image.Image:
    """The tiles side by side at full size, then at each inline size on each theme, pixels enlarged."""
    rows = []
    for size in INLINE_SIZES:
        for theme in THEMES:
            row = Image.new("RGBA", (size * len(images), size), (*theme, 255))
            for i, image in enumerate(images):
                small = image.convert("RGBa").resize((size, size), Image.LANCZOS).convert("RGBA")
                row.alpha_composite(small, (i * size, 0))
            rows.append(row.resize((row.width * ZOOM, row.height * ZOOM), Image.NEAREST))
    width = max(EMOJI_SIZE * len(images), *(row.width for row in rows))
    sheet = Image.new("RGBA", (width, EMOJI_SIZE + sum(row.height + 8 for row in rows)), (*THEMES[0], 255))
    for i, image in enumerate(images):
        sheet.alpha_composite(image, (i * EMOJI_SIZE, 0))
    y = EMOJI_SIZE + 8
    for row in rows:
        sheet.alpha_composite(row, (0, y))
        y += row.height + 8
    return sheet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TILE_DIR, help="output folder (default: data/tiles)")
    parser.add_argument("--no-font", action="store_true", help="draw 中 and 发 with strokes, not a font")
    parser.add_argument("--sheet", type=Path, help="also write a contact sheet (full size, 22 px, 19 px) here")
    args = parser.parse_args(argv)

    font = None if args.no_font else find_cjk_font()
    keep_glyphs = font is None and not args.no_font  # strokes would replace the committed font-drawn 中/发
    if font:
        print(f"中/发 drawn with font {font[0]} (face {font[1]})")
    else:
        print("中/发 " + ("left as they are: no CJK font (--no-font draws strokes)" if keep_glyphs else "as strokes"))
    args.out.mkdir(parents=True, exist_ok=True)
    images = []
    for tile in (*ALL_TILES, None):
        image = draw_tile(tile, font=font)
        data = to_png(image)
        if len(data) >= MAX_EMOJI_BYTES:
            raise SystemExit(f"{tile}: {len(data)} bytes is over Discord's emoji limit")
        path = args.out / f"{BACK_NAME if tile is None else tile.compact}.png"
        if keep_glyphs and tile in (Tile.RED, Tile.GREEN) and path.is_file():
            images.append(Image.open(path).convert("RGBA"))
            print(f"  {path.name:9} kept")
            continue
        changed = not path.is_file() or path.read_bytes() != data
        if changed:
            path.write_bytes(data)
        images.append(image)
        print(f"  {path.name:9} {len(data):6d} bytes{'  (changed)' if changed else ''}")
    claimed_dir = args.out / CLAIMED_DIR
    claimed_dir.mkdir(exist_ok=True)
    for tile, image in zip(ALL_TILES, images):
        data = to_png(faded(image))
        path = claimed_dir / f"{tile.compact}.png"
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
            print(f"  {CLAIMED_DIR}/{path.name} {len(data):6d} bytes  (changed)")
    if args.sheet:
        contact_sheet(images).save(args.sheet)
        print(f"sheet: {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
