"""复盘 as a picture: one step of a review drawn with the project's tile art (kwx.present.art).

Every seat's hand face up (the drawn tile set apart), its melds, its discards in order in rows of six (a
claimed discard dimmed, with a red bar), 亮倒 waits, the tile under claim, and at the end the winning tile with
a gold bar; above, the step and the wall; below, the action taken and, at the reviewed seat's decisions, the
AI's view. The text is the same as kwx.present.review_text's, in one language.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from kwx.engine.review import Review
from kwx.present.art import GOLD, RED, to_png
from kwx.present.fonts import find_cjk_font
from kwx.present.hand_row import tile_image
from kwx.present.i18n import tr
from kwx.present.review_text import ReviewText

TILE_H = 48  # hand tiles
POND_H = 34  # discards
POND_ROW = 6  # discards per row, as a table lays them
PAD = 16
BG = (24, 60, 44)  # the felt
TEXT = (240, 240, 232)
MUTED = (176, 196, 184)
HIGHLIGHT = (255, 214, 92)
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=4)
def _font(size: int) -> Font:
    spec = find_cjk_font()
    if spec is not None:
        return ImageFont.truetype(spec[0], size, index=spec[1])
    return ImageFont.load_default(size=size)


def _row(canvas: Image.Image, x: int, y: int, tiles: Sequence[int | None], height: int, *,
         dim: Sequence[bool] = (), gap_before_last: bool = False,
         bars: Sequence[tuple[int, int, int] | None] = ()) -> int:
    """Draw tiles left to right from (x, y); return the x after the last."""
    draw = ImageDraw.Draw(canvas)
    for i, tile in enumerate(tiles):
        if gap_before_last and i == len(tiles) - 1:
            x += height // 3
        face = tile_image(tile, height)
        if i < len(dim) and dim[i]:
            face = face.copy()
            face.putalpha(face.getchannel("A").point(lambda a: a * 45 // 100))
        canvas.alpha_composite(face, (x, y))
        if i < len(bars) and bars[i] is not None:
            draw.rounded_rectangle([x + 3, y + height + 2, x + face.width - 3, y + height + 6], radius=2,
                                   fill=bars[i])
        x += face.width + 1
    return x


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Font, width: int) -> list[str]:
    """`text` in lines that fit `width` pixels, broken at spaces (or anywhere in a long unspaced run)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if draw.textlength(trial, font=font) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
        while draw.textlength(line, font=font) > width and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and draw.textlength(line[:cut], font=font) > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    return [*lines, line] if line else lines


def render_step(review: Review, names: Sequence[str], index: int, lang: str, *, hand_id: int | None = None) -> bytes:
    """A PNG of step `index` of `review` (the last frame: the end of the hand)."""
    words = ReviewText(review, names, lang, hand_id=hand_id)
    frame = review.frames[index]
    big, small = _font(20), _font(16)
    tile_w = tile_image(0, TILE_H).width + 1
    pond_w = tile_image(0, POND_H).width + 1
    width = PAD * 2 + max(19 * tile_w, 200 + 3 * POND_ROW * pond_w)
    rows = max(1, *(-(-len(v.discards) // POND_ROW) for v in frame.seats))
    seat_h = TILE_H + 46 + rows * (POND_H + 8)
    measure = ImageDraw.Draw(Image.new("RGBA", (1, 1)))
    footer = [part for line in words.frame_lines(index)[4:] if line
              for part in _wrap(measure, line.replace("❗", "!!"), small, width - 2 * PAD)]
    height = PAD * 2 + 64 + 3 * seat_h + 26 * len(footer) + 8
    canvas = Image.new("RGBA", (width, height), BG + (255,))
    draw = ImageDraw.Draw(canvas)
    draw.text((PAD, PAD), words.title(), font=big, fill=TEXT)
    draw.text((PAD, PAD + 30), words.frame_lines(index)[0], font=small, fill=MUTED)
    y = PAD + 64
    end = frame.action is None
    for seat, view in enumerate(frame.seats):
        label = names[seat] + (tr("review.dealer_mark", words.lang) if seat == review.dealer else "")
        colour = HIGHLIGHT if seat in frame.to_act or (end and seat in review.result.winners) else TEXT
        x0 = PAD
        if seat in frame.to_act:  # drawn, not a glyph: the fallback font has no ▶
            draw.polygon([(PAD, y + 6), (PAD, y + 20), (PAD + 12, y + 13)], fill=HIGHLIGHT)
            x0 += 18
        draw.text((x0, y), label, font=big, fill=colour)
        if view.declared:
            draw.text((PAD + 260, y + 4), words.seat_line(frame, seat).rsplit(" · ", 1)[-1], font=small, fill=HIGHLIGHT)
        y += 30
        hand = [int(x) for x in view.concealed]
        if view.drawn is not None and int(view.drawn) in hand:
            hand.remove(int(view.drawn))
            hand.append(int(view.drawn))
        winner = end and seat in review.result.winners and review.win_tile is not None
        drawn_win = [None] * (len(hand) - 1) + [GOLD] if winner and view.drawn is not None else []
        x = _row(canvas, PAD, y, hand, TILE_H, gap_before_last=view.drawn is not None, bars=drawn_win)
        for meld in view.melds:
            tiles: list[int | None] = [int(meld.tile)] * meld.size
            x = _row(canvas, x + TILE_H // 2, y, tiles, TILE_H)
        if winner and view.drawn is None:  # won on a discard: the tile is not in the hand
            _row(canvas, x + TILE_H // 2, y, [int(review.win_tile)], TILE_H, bars=[GOLD])  # type: ignore[arg-type]
        y += TILE_H + 12
        pond = list(view.discards)
        pending = frame.pending is not None and frame.pending[0] == seat
        for r in range(0, max(1, len(pond)), POND_ROW):
            chunk = pond[r:r + POND_ROW]
            last_row = r + POND_ROW >= len(pond)
            bars = [RED if c else HIGHLIGHT if pending and last_row and i == len(chunk) - 1 else None
                    for i, (_, c) in enumerate(chunk)]
            _row(canvas, PAD, y, [int(x) for x, _ in chunk], POND_H, dim=[c for _, c in chunk], bars=bars)
            y += POND_H + 8
        y += (rows - max(1, -(-len(pond) // POND_ROW))) * (POND_H + 8) + 4
    for line in footer:
        draw.text((PAD, y), line, font=small, fill=HIGHLIGHT if line.startswith("!!") else TEXT)
        y += 26
    return to_png(canvas.convert("RGB"))
