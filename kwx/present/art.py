"""Tile pictures: the 21 tile faces and the back, drawn with Pillow, and hand rows composed from them.

The faces are our own drawings (circles, sticks, a bird, a frame), and each number tile carries its numeral in a
corner, drawn as strokes, so that it reads at Discord's inline emoji size; 中 and 发 are glyphs of a CJK font
when one is installed (Noto CJK, WenQuanYi) and simple strokes otherwise, so drawing never depends on a font.
`scripts/draw_tiles.py` writes them to data/tiles/ (1p.png … 7z.png, back.png) for the Discord application
emojis; `kwx.present.hand_row.render_hand` composes a hand row from those files, drawing any missing one on the fly.

Geometry: a tile is 96×128 px, centred on a transparent 128×128 square (Discord emojis are square).
Everything is drawn at 4× and scaled down, which gives smooth edges.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageEnhance, ImageFont

from kwx.engine.tiles import Tile
from kwx.present.fonts import FontSpec, find_cjk_font

# data/tiles, through the link kwx/present/tiles, which also carries the art into an installed copy.
TILE_DIR = Path(__file__).resolve().parent / "tiles"
EMOJI_SIZE = 128
TILE_BOX = (16, 0, 112, 128)  # where the tile sits inside the emoji square: 96×128
BACK_NAME = "back"
CLAIMED_DIR = "claimed"  # data/tiles/claimed/5p.png …: the faded faces (see `faded`)
# A claimed discard: its colours washed halfway to grey and darkened, nearly opaque. It reads as taken (a grey
# body beside the ivory ones) and still as its tile at 19 px: the numeral keeps its suit's blue or green (a grey,
# see-through face lost both, and 7筒 read like 7条).
CLAIMED_SATURATION = 0.55
CLAIMED_BRIGHTNESS = 0.78
CLAIMED_ALPHA = 235  # of 255

_SS = 4  # supersampling factor
IVORY = (255, 250, 236)
IVORY_SHADE = (238, 228, 204)
EDGE = (170, 158, 130)
BACK_GREEN = (28, 120, 78)
BACK_GREEN_DARK = (16, 84, 54)
BLUE = (28, 86, 168)
GREEN = (22, 130, 70)
GREEN_DARK = (12, 84, 44)
GREEN_LIGHT = (96, 186, 128)
RED = (200, 30, 45)
RED_DARK = (132, 16, 28)
RED_LIGHT = (236, 110, 118)
GOLD = (224, 168, 0)

STICK_WIDTH = 10.5

# -- files ----------------------------------------------------------------------------------------------
def tile_png_path(tile: int) -> Path:
    """data/tiles/<compact>.png, e.g. 5p.png, 7z.png (中)."""
    return TILE_DIR / f"{Tile(tile).compact}.png"


def back_png_path() -> Path:
    return TILE_DIR / f"{BACK_NAME}.png"


def claimed_png_path(tile: int) -> Path:
    """data/tiles/claimed/<compact>.png: the faded face a pond shows for a discard another seat took."""
    return TILE_DIR / CLAIMED_DIR / f"{Tile(tile).compact}.png"


def tile_png_bytes(tile: int | None, *, claimed: bool = False) -> bytes:
    """The PNG of a tile face (None: the back; claimed: its faded form) from data/tiles, drawn now if the file
    is missing."""
    if claimed and tile is not None:
        path = claimed_png_path(tile)
        return path.read_bytes() if path.is_file() else to_png(faded(Image.open(io.BytesIO(tile_png_bytes(tile)))))
    path = back_png_path() if tile is None else tile_png_path(tile)
    if path.is_file():
        return path.read_bytes()
    return to_png(draw_tile(None if tile is None else Tile(tile)))


def faded(face: Image.Image) -> Image.Image:
    """A tile as a pond shows a discard another seat took: greyer and darker, so it reads as taken on the dark
    and the light theme alike, while its numeral, in its suit's colour, still tells what it was."""
    face = face.convert("RGBA")
    alpha = face.getchannel("A").point(lambda a: a * CLAIMED_ALPHA // 255)
    washed = ImageEnhance.Color(face.convert("RGB")).enhance(CLAIMED_SATURATION)
    washed = ImageEnhance.Brightness(washed).enhance(CLAIMED_BRIGHTNESS).convert("RGBA")
    washed.putalpha(alpha)
    return washed


def to_png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=True)
    return buf.getvalue()


# -- drawing one tile -----------------------------------------------------------------------------------
class _Pen:
    """Draws on the supersampled canvas in 128-px emoji coordinates."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)

    @staticmethod
    def s(v: float) -> int:
        return round(v * _SS)

    def box(self, x0: float, y0: float, x1: float, y1: float) -> list[int]:
        return [self.s(x0), self.s(y0), self.s(x1), self.s(y1)]

    def circle(self, cx: float, cy: float, r: float, fill: tuple[int, ...]) -> None:
        self.draw.ellipse(self.box(cx - r, cy - r, cx + r, cy + r), fill=fill)

    def line(self, points: Sequence[tuple[float, float]], fill: tuple[int, ...], width: float) -> None:
        pts = [(self.s(x), self.s(y)) for x, y in points]
        self.draw.line(pts, fill=fill, width=self.s(width), joint="curve")
        for x, y in (points[0], points[-1]):  # round caps
            self.circle(x, y, width / 2, fill)


def _tile_body(pen: _Pen, face_down: bool) -> None:
    x0, y0, x1, y1 = TILE_BOX
    x0, x1 = x0 + 1, x1 - 1
    r = 12
    # the back layer shows as a band under the face; a face-down tile shows the back on top and ivory below
    under, top = (IVORY_SHADE, BACK_GREEN) if face_down else (BACK_GREEN, IVORY)
    pen.draw.rounded_rectangle(
        pen.box(x0, y0 + 9, x1, y1 - 1),
        radius=pen.s(r),
        fill=under,
        outline=EDGE if face_down else BACK_GREEN_DARK,
        width=pen.s(1),
    )
    pen.draw.rounded_rectangle(
        pen.box(x0, y0 + 1, x1, y1 - 9),
        radius=pen.s(r),
        fill=top,
        outline=BACK_GREEN_DARK if face_down else EDGE,
        width=pen.s(1.5),
    )
    if face_down:
        pen.draw.rounded_rectangle(
            pen.box(x0 + 7, y0 + 8, x1 - 7, y1 - 16),
            radius=pen.s(8),
            outline=(60, 160, 110),
            width=pen.s(1.5),
        )
    else:  # a soft shade along the lower edge of the face gives it some depth
        pen.draw.rounded_rectangle(
            pen.box(x0 + 3, y1 - 16, x1 - 3, y1 - 11), radius=pen.s(3), fill=IVORY_SHADE
        )


def _coin(pen: _Pen, cx: float, cy: float, r: float, color: tuple[int, int, int]) -> None:
    """One 筒 dot: a coloured coin with an ivory ring and centre."""
    pen.circle(cx, cy, r, color)
    pen.circle(cx, cy, r * 0.74, IVORY)
    pen.circle(cx, cy, r * 0.58, color)
    pen.circle(cx, cy, r * 0.2, IVORY)


# Coin layouts (centre, radius, colour), drawn full size and then shrunk beside the numeral (PATTERN_SCALE): the
# first coins of 3 and 5 sit a little inwards so that they stay clear of it.
_DOTS: dict[int, list[tuple[float, float, float, tuple[int, int, int]]]] = {
    2: [(64, 33, 19, GREEN), (64, 87, 19, BLUE)],
    3: [(44, 31, 14, BLUE), (64, 60, 14, RED), (84, 89, 14, GREEN)],
    4: [(44, 36, 17, BLUE), (84, 36, 17, GREEN), (44, 84, 17, GREEN), (84, 84, 17, BLUE)],
    5: [(43, 32, 14.5, BLUE), (85, 32, 14.5, GREEN), (64, 60, 14.5, RED), (43, 88, 14.5, GREEN), (85, 88, 14.5, BLUE)],
    6: [
        (44, 25, 13, GREEN),
        (84, 25, 13, GREEN),
        (44, 65, 13, RED),
        (84, 65, 13, RED),
        (44, 96, 13, RED),
        (84, 96, 13, RED),
    ],
    7: [
        (37, 20, 10.5, GREEN),
        (64, 32, 10.5, GREEN),
        (91, 44, 10.5, GREEN),
        (46, 71, 12, RED),
        (82, 71, 12, RED),
        (46, 98, 12, RED),
        (82, 98, 12, RED),
    ],
    8: [(x, y, 11, BLUE) for y in (22.5, 48.5, 74, 99.5) for x in (46, 82)],
    9: [(x, y, 11, color) for y, color in ((27, BLUE), (60, RED), (93, GREEN)) for x in (38, 64, 90)],
}


def _draw_dots(pen: _Pen, n: int) -> None:
    if n == 1:  # one big flower-like coin
        for r, color in (
            (35, BLUE),
            (31, IVORY),
            (28, RED),
            (21, IVORY),
            (18, GREEN),
            (11, IVORY),
            (6.5, RED),
        ):
            pen.circle(64, 60, r, color)
        for k in range(12):
            a = k * math.pi / 6
            pen.circle(64 + 24.5 * math.cos(a), 60 + 24.5 * math.sin(a), 2.4, IVORY)
        return
    for cx, cy, r, color in _DOTS[n]:
        _coin(pen, cx, cy, r, color)


def _stick(
    pen: _Pen, x0: float, y0: float, x1: float, y1: float, red: bool = False, width: float = STICK_WIDTH
) -> None:
    """One 条 bamboo stick from (x0, y0) to (x1, y1): a capsule with a highlight and three nodes."""
    color, dark, light = (RED, RED_DARK, RED_LIGHT) if red else (GREEN, GREEN_DARK, GREEN_LIGHT)
    pen.line([(x0, y0), (x1, y1)], dark, width)
    pen.line([(x0, y0), (x1, y1)], color, width - 2.5)
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    nx, ny = -uy, ux  # across the stick
    inset = width * 0.15
    pen.line(
        [
            (x0 + nx * inset * 2 + ux * 3, y0 + ny * inset * 2 + uy * 3),
            (x1 + nx * inset * 2 - ux * 3, y1 + ny * inset * 2 - uy * 3),
        ],
        light,
        width * 0.18,
    )
    for t in (0.12, 0.5, 0.88):
        cx, cy = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
        half = width * 0.62
        pen.draw.line(
            [(pen.s(cx - nx * half), pen.s(cy - ny * half)), (pen.s(cx + nx * half), pen.s(cy + ny * half))],
            fill=dark,
            width=pen.s(1.8),
        )


def _v(x: float, y: float, length: float, red: bool = False) -> tuple[float, float, float, float, bool]:
    """A vertical stick centred on (x, y), `length` long from cap to cap."""
    half = length / 2 - STICK_WIDTH / 2
    return x, y - half, x, y + half, red


# Stick layouts; the rows leave a visible gap so 2条 reads as two sticks, not one long one.
_STICKS: dict[int, list[tuple[float, float, float, float, bool]]] = {
    2: [_v(64, 35, 42), _v(64, 85, 42)],
    3: [_v(64, 35, 42), _v(44, 85, 42), _v(84, 85, 42)],
    4: [_v(46, 35, 42), _v(82, 35, 42), _v(46, 85, 42), _v(82, 85, 42)],
    5: [_v(39, 35, 42), _v(89, 35, 42), _v(64, 60, 42, True), _v(39, 85, 42), _v(89, 85, 42)],
    6: [_v(x, y, 42) for y in (35, 85) for x in (40, 64, 88)],
    7: [_v(64, 24, 26, True)] + [_v(x, y, 28) for y in (59, 94) for x in (40, 64, 88)],
    # the middle four form a Λ over a V (their tips touch), between upright sticks
    8: [
        _v(34, 35, 42),
        _v(94, 35, 42),
        (51, 52, 61, 18, False),
        (77, 52, 67, 18, False),
        _v(34, 85, 42),
        _v(94, 85, 42),
        (51, 68, 61, 102, False),
        (77, 68, 67, 102, False),
    ],
    9: [_v(x, y, 26, x == 64) for y in (26, 60, 94) for x in (40, 64, 88)],
}


def _draw_bird(pen: _Pen) -> None:
    """1条: a stylised bird (body, wing, head with crest, beak, fanned tail, legs)."""
    d = pen.draw
    for (tx, ty), color in (((28, 94), BLUE), ((37, 102), RED), ((48, 106), GREEN)):  # tail feathers
        d.polygon(
            [(pen.s(52), pen.s(72)), (pen.s(tx - 6), pen.s(ty - 4)), (pen.s(tx + 6), pen.s(ty + 4))],
            fill=color,
        )
        pen.circle(tx, ty, 5, color)
        pen.circle(tx, ty, 2.2, IVORY)
    pen.line([(56, 84), (54, 104)], RED_DARK, 2.5)  # legs
    pen.line([(66, 84), (68, 104)], RED_DARK, 2.5)
    pen.line([(48, 104), (60, 104)], RED_DARK, 2.5)
    pen.line([(62, 104), (74, 104)], RED_DARK, 2.5)
    d.ellipse(pen.box(36, 50, 84, 88), fill=GREEN)  # body
    d.ellipse(pen.box(46, 58, 78, 80), fill=GREEN_DARK)  # wing
    d.ellipse(pen.box(50, 61, 74, 76), fill=(40, 150, 95))
    d.polygon(
        [(pen.s(72), pen.s(58)), (pen.s(80), pen.s(40)), (pen.s(88), pen.s(48)), (pen.s(82), pen.s(66))],
        fill=GREEN,
    )  # neck
    pen.circle(84, 38, 11, GREEN)  # head
    for cx, cy in ((78, 25), (84, 23), (90, 25)):  # crest
        pen.circle(cx, cy, 3.2, RED)
    d.polygon([(pen.s(93), pen.s(34)), (pen.s(106), pen.s(39)), (pen.s(93), pen.s(43))], fill=RED)  # beak
    pen.circle(87, 36, 3.4, IVORY)  # eye
    pen.circle(87.8, 36, 1.8, (20, 20, 20))


# Stroke fallbacks for 中 and 发 when no CJK font is installed: polylines in the unit square.
_GLYPH_STROKES: dict[str, list[list[tuple[float, float]]]] = {
    "中": [
        [(0.1, 0.27), (0.1, 0.68)],
        [(0.1, 0.27), (0.9, 0.27), (0.9, 0.68)],
        [(0.1, 0.66), (0.9, 0.66)],
        [(0.5, 0.04), (0.5, 0.98)],
    ],
    "发": [
        [(0.28, 0.06), (0.2, 0.33)],
        [(0.12, 0.33), (0.9, 0.33)],
        [(0.72, 0.08), (0.84, 0.22)],
        [(0.52, 0.05), (0.46, 0.48), (0.1, 0.96)],
        [(0.4, 0.56), (0.8, 0.56), (0.36, 0.95)],
        [(0.5, 0.66), (0.92, 0.96)],
    ],
}


def _draw_glyph(pen: _Pen, char: str, color: tuple[int, int, int], font: FontSpec | None) -> None:
    left, top, right, bottom = 26.0, 14.0, 102.0, 106.0  # the box the character fills
    if font is not None:
        probe = ImageFont.truetype(font[0], 100 * _SS, index=font[1])
        bx0, by0, bx1, by1 = probe.getbbox(char)
        scale = min((right - left) * _SS / (bx1 - bx0), (bottom - top) * _SS / (by1 - by0))
        real = ImageFont.truetype(font[0], max(1, round(100 * _SS * scale)), index=font[1])
        bx0, by0, bx1, by1 = real.getbbox(char)
        x = pen.s((left + right) / 2) - (bx0 + bx1) / 2
        y = pen.s((top + bottom) / 2) - (by0 + by1) / 2
        pen.draw.text((x, y), char, font=real, fill=color)
        return
    w, h = right - left, bottom - top
    for stroke in _GLYPH_STROKES[char]:
        pen.line([(left + px * w, top + py * h) for px, py in stroke], color, 9)


def _draw_white_frame(pen: _Pen) -> None:
    pen.draw.rounded_rectangle(pen.box(31, 16, 97, 104), radius=pen.s(6), outline=BLUE, width=pen.s(6))
    pen.draw.rounded_rectangle(pen.box(41, 26, 87, 94), radius=pen.s(3), outline=BLUE, width=pen.s(2))


# -- numerals -------------------------------------------------------------------------------------------
# Discord shows an inline emoji at 1.375em: 22 px in message text, 19 px in an embed, where a tile is 14 px
# wide and six to nine coins or sticks can only be counted, not seen. So a number tile carries its numeral in
# the top-left corner, in its suit's colour (筒 blue, 条 green), and its coins or sticks shrink towards the
# lower right, clear of it. The digits are strokes drawn here, not a font: the same pixels on every machine.


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float) -> list[tuple[float, float]]:
    """Points along an ellipse from angle `start` to `end` (degrees, clockwise on screen from +x)."""
    steps = max(2, round(abs(end - start) / 10))
    return [
        (cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
        for a in (start + (end - start) * i / steps for i in range(steps + 1))
    ]


def _curve(p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float]) -> list[tuple[float, float]]:
    """Points along the quadratic Bezier curve p0-p1-p2."""
    return [
        (
            (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0],
            (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1],
        )
        for t in (i / 12 for i in range(13))
    ]


# Centre lines of the digits 1-9 in a unit box (x right, y down).
_DIGITS: dict[int, list[list[tuple[float, float]]]] = {
    1: [[(0.18, 0.24), (0.58, 0.0), (0.58, 1.0)], [(0.2, 1.0), (0.96, 1.0)]],
    2: [_arc(0.5, 0.28, 0.46, 0.28, 195, 375) + [(0.02, 1.0), (1.0, 1.0)]],
    3: [_arc(0.5, 0.25, 0.43, 0.25, 200, 450), _arc(0.5, 0.75, 0.48, 0.25, 270, 520)],
    4: [[(0.74, 1.0), (0.74, 0.0), (0.0, 0.7), (1.0, 0.7)]],
    5: [[(0.95, 0.0), (0.16, 0.0), (0.1, 0.47)] + _arc(0.5, 0.7, 0.48, 0.3, 228, 512)],
    6: [_curve((0.88, 0.02), (0.08, 0.1), (0.03, 0.7)), _arc(0.5, 0.7, 0.47, 0.3, 0, 360)],
    7: [[(0.0, 0.0), (1.0, 0.0), (0.36, 1.0)]],
    8: [_arc(0.5, 0.24, 0.4, 0.24, 0, 360), _arc(0.5, 0.74, 0.47, 0.26, 0, 360)],
    9: [_arc(0.5, 0.3, 0.47, 0.3, 0, 360), _curve((0.97, 0.3), (0.92, 0.9), (0.12, 0.98))],
}
NUMERAL_BOX = (24.0, 8.0, 49.0, 51.0)  # where the digit's centre lines run: 6 px high at 19 px
NUMERAL_WIDTH = 8.0  # the stroke: more than a pixel at 19 px
NUMERAL_COLORS = {"p": BLUE, "s": GREEN_DARK}
PATTERN_SCALE = 0.7  # the coins and sticks, shrunk by this much ...
PATTERN_CENTRE = (80.0, 70.0)  # ... and moved so that the middle of the face lands here


def _draw_numeral(pen: _Pen, n: int, color: tuple[int, int, int]) -> None:
    """The digit n in the top-left corner, with a thin ivory halo where it comes near a coin or stick."""
    x0, y0, x1, y1 = NUMERAL_BOX
    strokes = [[(x0 + px * (x1 - x0), y0 + py * (y1 - y0)) for px, py in s] for s in _DIGITS[n]]
    for fill, width in ((IVORY, NUMERAL_WIDTH + 4), (color, NUMERAL_WIDTH)):
        for stroke in strokes:
            pen.line(stroke, fill, width)


def _draw_pattern(image: Image.Image, tile: Tile) -> None:
    """The coins, sticks or bird of a number tile, drawn full size on a layer and laid on the face shrunk."""
    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    pen = _Pen(layer)
    if tile.suit == "p":
        _draw_dots(pen, tile.number)
    elif tile.number == 1:
        _draw_bird(pen)
    else:
        for x0, y0, x1, y1, red in _STICKS[tile.number]:
            _stick(pen, x0, y0, x1, y1, red)
    size = round(image.width * PATTERN_SCALE)
    small = layer.convert("RGBa").resize((size, size), Image.Resampling.LANCZOS).convert("RGBA")
    cx, cy = PATTERN_CENTRE
    offset = (round((cx - 64 * PATTERN_SCALE) * _SS), round((cy - 64 * PATTERN_SCALE) * _SS))
    image.alpha_composite(small, offset)


_AUTO: Any = object()


def draw_tile(tile: Tile | None, *, font: FontSpec | None = _AUTO) -> Image.Image:
    """A 128×128 RGBA picture of `tile` (None: the back). font=None forces the stroke 中/发."""
    if font is _AUTO:
        font = find_cjk_font()
    image = Image.new("RGBA", (EMOJI_SIZE * _SS, EMOJI_SIZE * _SS), (0, 0, 0, 0))
    pen = _Pen(image)
    _tile_body(pen, face_down=tile is None)
    if tile is not None:
        tile = Tile(tile)
        if tile.suit in "ps":
            _draw_pattern(image, tile)
            _draw_numeral(pen, tile.number, NUMERAL_COLORS[tile.suit])
        elif tile == Tile.RED:
            _draw_glyph(pen, "中", RED, font)
        elif tile == Tile.GREEN:
            _draw_glyph(pen, "发", GREEN, font)
        else:
            _draw_white_frame(pen)
    # scale down with premultiplied alpha so the transparent surround does not darken the edges
    return image.convert("RGBa").resize((EMOJI_SIZE, EMOJI_SIZE), Image.Resampling.LANCZOS).convert("RGBA")
