"""Draw the 21 tile faces and the tile back into data/tiles/ (128×128 PNGs for Discord application emojis).

    .venv/bin/python scripts/draw_tiles.py              # writes data/tiles/1p.png … 7z.png, back.png
    .venv/bin/python scripts/draw_tiles.py --no-font    # 中/发 as strokes even if a CJK font is installed
    .venv/bin/python scripts/draw_tiles.py --sheet /tmp/sheet.png   # also a contact sheet to look at

The drawing code lives in kwx/art.py so the bot can draw a missing file on the fly with the same code.
中 and 发 use a CJK font when found (Debian: fonts-noto-cjk or fonts-wqy-microhei; or set $KWX_CJK_FONT).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from kwx.engine.tiles import ALL_TILES  # noqa: E402
from kwx.present.art import BACK_NAME, EMOJI_SIZE, TILE_DIR, draw_tile, find_cjk_font, to_png  # noqa: E402

MAX_EMOJI_BYTES = 256 * 1024  # Discord's limit for an emoji image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TILE_DIR, help="output folder (default: data/tiles)")
    parser.add_argument("--no-font", action="store_true", help="draw 中 and 发 with strokes, not a font")
    parser.add_argument("--sheet", type=Path, help="also write all tiles side by side to this PNG")
    args = parser.parse_args(argv)

    font = None if args.no_font else find_cjk_font()
    print(f"中/发 drawn with {'font ' + font[0] + f' (face {font[1]})' if font else 'strokes (no CJK font)'}")
    args.out.mkdir(parents=True, exist_ok=True)
    images = []
    for tile in (*ALL_TILES, None):
        image = draw_tile(tile, font=font)
        data = to_png(image)
        if len(data) >= MAX_EMOJI_BYTES:
            raise SystemExit(f"{tile}: {len(data)} bytes is over Discord's emoji limit")
        name = BACK_NAME if tile is None else tile.compact
        (args.out / f"{name}.png").write_bytes(data)
        images.append(image)
        print(f"  {name}.png  {len(data):6d} bytes")
    if args.sheet:
        sheet = Image.new("RGBA", (EMOJI_SIZE * 11, EMOJI_SIZE * 2), (54, 57, 63, 255))  # Discord dark grey
        for i, image in enumerate(images):
            sheet.alpha_composite(image, ((i % 11) * EMOJI_SIZE, (i // 11) * EMOJI_SIZE))
        sheet.save(args.sheet)
        print(f"sheet: {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
