"""A PNG line chart of running balances by hands played, drawn with Pillow (no plotting library).

    png = balance_chart([Series("alice", [(1, 8), (2, -4)]), ...], title="余额走势", x_label="局数")

x is how many hands a player had played, y the balance after them: lines of players who play at different
hours still compare hand for hand, and a night of fifty hands is not squeezed next to a quiet week. Balances
change in jumps, so each line is drawn as steps: it starts at 0 before the first hand, moves at each hand, and
moves again at the same x for money outside a hand (cash paid back with /kwx pay). It ends at its player's
last hand with a dot; the legend prints the latest balance. The zero line is drawn brighter than the grid.

The colours are Discord's dark theme (its embed background #2b2d31 and text greys), the theme most members use,
so the picture sits in its embed without a white box. Drawn at twice the size and scaled down, for smooth
lines. Names may be Chinese: a CJK font is used when one is installed (see kwx.present.fonts.find_cjk_font), else
Pillow's built-in font.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from kwx.present.fonts import find_cjk_font
from kwx.present.ledger_text import signed_money, truncate

BACKGROUND = (43, 45, 49)  # Discord's dark embed background
TEXT = (219, 222, 225)
MUTED = (148, 155, 164)
GRID = (63, 65, 71)
ZERO = (128, 132, 142)
PALETTE = (  # bright enough to stand out on the dark background
    (88, 166, 255), (255, 107, 107), (87, 242, 135), (254, 231, 92), (235, 130, 255), (0, 212, 212),
    (255, 159, 67), (186, 190, 255), (255, 121, 198), (170, 220, 90),
)
SCALE = 2  # supersampling factor
MAX_SERIES = len(PALETTE)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[int, int]]  # (hands played, balance then), in order


@lru_cache(maxsize=8)
def _font(size: int) -> Font:
    spec = find_cjk_font()
    if spec is not None:
        try:
            return ImageFont.truetype(spec[0], size, index=spec[1])
        except OSError:
            pass
    return ImageFont.load_default(size)


def nice_ticks(low: int, high: int, count: int = 5) -> list[int]:
    """Round tick values (1, 2 or 5 × 10^k apart) covering [low, high], zero included when in range."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    step = max(1, int(step))
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    return list(range(int(first), int(last) + 1, step))


def balance_chart(series: Sequence[Series], *, title: str = "", x_label: str = "", width: int = 800,
                  height: int = 450, empty_text: str = "—") -> bytes:
    """The chart as PNG bytes of exactly `width` × `height` pixels. At most MAX_SERIES lines are drawn."""
    series = [s for s in series if s.points][:MAX_SERIES]
    s = SCALE
    image = Image.new("RGB", (width * s, height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_font, label_font, legend_font = _font(18 * s), _font(15 * s), _font(16 * s)  # read on a phone too

    top = 14 * s
    if title:
        draw.text((16 * s, top), title, font=title_font, fill=TEXT)
        top += 34 * s
    legend_rows = math.ceil(len(series) / 2) if series else 0
    bottom = height * s - 50 * s - legend_rows * 24 * s
    left, right = 64 * s, width * s - 24 * s

    if not series:
        draw.text((left, (top + bottom) // 2), empty_text, font=legend_font, fill=MUTED)
        return _png(image, width, height)

    x_ticks = nice_ticks(0, max(1, max(p[0] for one in series for p in one.points)), 6)
    values = [0] + [v for one in series for _, v in one.points]
    ticks = nice_ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]

    def x_of(hands: int) -> float:
        return left + (right - left) * (hands / x_ticks[-1])

    def y_of(value: int) -> float:
        return bottom - (bottom - top) * ((value - low) / (high - low))

    for value in ticks:  # grid and y labels
        y = y_of(value)
        draw.line([(left, y), (right, y)], fill=ZERO if value == 0 else GRID, width=(2 if value == 0 else 1) * s)
        text = f"{value:,}"
        box = draw.textbbox((0, 0), text, font=label_font)
        draw.text((left - 8 * s - (box[2] - box[0]), y - (box[3] - box[1]) / 2 - box[1]), text,
                  font=label_font, fill=MUTED)
    for hands in x_ticks:  # x labels: hand numbers, and under their middle what they count
        text = f"{hands:,}"
        box = draw.textbbox((0, 0), text, font=label_font)
        draw.text((x_of(hands) - (box[2] - box[0]) / 2, bottom + 6 * s), text, font=label_font, fill=MUTED)
    if x_label:
        box = draw.textbbox((0, 0), x_label, font=label_font)
        draw.text(((left + right - (box[2] - box[0])) / 2, bottom + 24 * s), x_label, font=label_font, fill=MUTED)

    for index, one in enumerate(series):
        colour = PALETTE[index]
        path = [(x_of(0), y_of(0))]
        previous = 0
        for hands, value in one.points:
            x = x_of(hands)
            path += [(x, y_of(previous)), (x, y_of(value))]
            previous = value
        draw.line(path, fill=colour, width=3 * s, joint="curve")
        end_x, end_y, dot = path[-1][0], path[-1][1], 4 * s
        draw.ellipse([end_x - dot, end_y - dot, end_x + dot, end_y + dot], fill=colour)

    legend_top = bottom + 48 * s
    column = (right - left) // 2
    for index, one in enumerate(series):
        x = left + (index % 2) * column
        y = legend_top + (index // 2) * 24 * s
        colour = PALETTE[index]
        draw.rectangle([x, y + 5 * s, x + 14 * s, y + 17 * s], fill=colour)
        label = f"{truncate(one.label, 18)}  {signed_money(one.points[-1][1])}"
        draw.text((x + 20 * s, y), label, font=legend_font, fill=TEXT)
    return _png(image, width, height)


def _png(image: Image.Image, width: int, height: int) -> bytes:
    out = io.BytesIO()
    image.resize((width, height), Image.Resampling.LANCZOS).save(out, format="PNG", optimize=True)
    return out.getvalue()
