"""A PNG line chart of running balances over time, drawn with Pillow (no plotting library).

    png = balance_chart([Series("alice", [(t1, 8), (t2, -4)]), ...], title="Balances", width=800, height=450)

Balances change in jumps (one ledger entry at a time), so each line is drawn as steps: flat until the next
entry, then straight up or down. Every line starts at 0 just before its first entry and runs on to the right
edge at its latest balance, which the legend also prints. The zero line is drawn darker than the grid.
Drawn at twice the size and scaled down, for smooth lines. Names may be Chinese: a CJK font is used when one
is installed (see kwx.present.art.find_cjk_font), else Pillow's built-in font.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from kwx.present.art import find_cjk_font
from kwx.present.ledger_text import signed, truncate

BACKGROUND = (255, 255, 255)
TEXT = (40, 40, 46)
MUTED = (120, 124, 132)
GRID = (228, 230, 235)
ZERO = (150, 154, 162)
PALETTE = (
    (46, 125, 230), (229, 57, 53), (67, 160, 71), (251, 140, 0), (142, 36, 170), (0, 150, 136),
    (216, 27, 96), (93, 64, 55), (84, 110, 122), (192, 202, 51),
)
SCALE = 2  # supersampling factor
MAX_SERIES = len(PALETTE)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[datetime, int]]  # (time, running balance after that moment), oldest first


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


def _time_label(moment: datetime, span: timedelta) -> str:
    if span <= timedelta(days=1):
        return moment.strftime("%H:%M")
    if span <= timedelta(days=366):
        return moment.strftime("%m-%d")
    return moment.strftime("%Y-%m")


def balance_chart(series: Sequence[Series], *, title: str = "", width: int = 800, height: int = 450,
                  empty_text: str = "—") -> bytes:
    """The chart as PNG bytes of exactly `width` × `height` pixels. At most MAX_SERIES lines are drawn."""
    series = [s for s in series if s.points][:MAX_SERIES]
    s = SCALE
    image = Image.new("RGB", (width * s, height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_font, label_font, legend_font = _font(18 * s), _font(12 * s), _font(13 * s)

    top = 14 * s
    if title:
        draw.text((16 * s, top), title, font=title_font, fill=TEXT)
        top += 34 * s
    legend_rows = math.ceil(len(series) / 2) if series else 0
    bottom = height * s - 30 * s - legend_rows * 22 * s
    left, right = 64 * s, width * s - 20 * s

    if not series:
        draw.text((left, (top + bottom) // 2), empty_text, font=legend_font, fill=MUTED)
        return _png(image, width, height)

    start = min(p[0] for one in series for p in one.points)
    end = max(p[0] for one in series for p in one.points)
    if end - start < timedelta(minutes=1):
        start, end = start - timedelta(minutes=30), end + timedelta(minutes=30)
    start -= (end - start) * 0.02  # room for each line's step up from zero
    span = end - start
    values = [0] + [v for one in series for _, v in one.points]
    ticks = nice_ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]

    def x_of(moment: datetime) -> float:
        return left + (right - left) * ((moment - start) / span)

    def y_of(value: int) -> float:
        return bottom - (bottom - top) * ((value - low) / (high - low))

    for value in ticks:  # grid and y labels
        y = y_of(value)
        draw.line([(left, y), (right, y)], fill=ZERO if value == 0 else GRID, width=(2 if value == 0 else 1) * s)
        text = f"{value:,}"
        box = draw.textbbox((0, 0), text, font=label_font)
        draw.text((left - 8 * s - (box[2] - box[0]), y - (box[3] - box[1]) / 2 - box[1]), text,
                  font=label_font, fill=MUTED)
    for fraction in (0.0, 0.5, 1.0):  # x labels: first, middle, last moment
        moment = start + span * fraction
        text = _time_label(moment, span)
        box = draw.textbbox((0, 0), text, font=label_font)
        w = box[2] - box[0]
        x = min(max(x_of(moment) - w / 2, left), right - w)
        draw.text((x, bottom + 6 * s), text, font=label_font, fill=MUTED)

    for index, one in enumerate(series):
        colour = PALETTE[index]
        path = [(x_of(one.points[0][0] - span * 0.01), y_of(0))]
        previous = 0
        for moment, value in one.points:
            x = x_of(moment)
            path += [(x, y_of(previous)), (x, y_of(value))]
            previous = value
        path.append((right, y_of(previous)))
        draw.line(path, fill=colour, width=3 * s, joint="curve")

    legend_top = bottom + 28 * s
    column = (right - left) // 2
    for index, one in enumerate(series):
        x = left + (index % 2) * column
        y = legend_top + (index // 2) * 22 * s
        colour = PALETTE[index]
        draw.rectangle([x, y + 4 * s, x + 14 * s, y + 14 * s], fill=colour)
        label = f"{truncate(one.label, 18)}  {signed(one.points[-1][1])}"
        draw.text((x + 20 * s, y), label, font=legend_font, fill=TEXT)
    return _png(image, width, height)


def _png(image: Image.Image, width: int, height: int) -> bytes:
    out = io.BytesIO()
    image.resize((width, height), Image.Resampling.LANCZOS).save(out, format="PNG", optimize=True)
    return out.getvalue()
