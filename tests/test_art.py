"""Tile pictures: the committed emoji PNGs, the classic layouts a player counts, and hand rows."""

from __future__ import annotations

import io
from dataclasses import dataclass
from itertools import combinations

import pytest
from PIL import Image, ImageChops, ImageStat

from kwx.engine.tiles import ALL_TILES, Tile, parse_tile, parse_tiles
from kwx.present import art, hand_row
from kwx.present.art import draw_tile, tile_png_path
from kwx.present.hand_row import MeldArt, render_hand


def _png(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGBA")


def test_file_names_use_compact_notation() -> None:
    assert tile_png_path(Tile.P1).name == "1p.png"
    assert tile_png_path(Tile.S9).name == "9s.png"
    assert [tile_png_path(t).name for t in (Tile.RED, Tile.GREEN, Tile.WHITE)] == [
        "7z.png",
        "6z.png",
        "5z.png",
    ]


@pytest.mark.parametrize("path", [tile_png_path(t) for t in ALL_TILES] + [art.back_png_path()], ids=str)
def test_committed_pngs_fit_discord_emoji_limits(path) -> None:
    data = path.read_bytes()
    assert len(data) < 256 * 1024
    assert Image.open(io.BytesIO(data)).format == "PNG"
    image = _png(data)
    assert image.size == (128, 128)
    assert image.getpixel((2, 64))[3] == 0  # transparent padding left and right of the 96-px tile
    assert image.getpixel((64, 64))[3] == 255


Box = tuple[int, int, int, int]


def _shapes(image: Image.Image) -> list[Box]:
    """The bounding boxes of the separate coloured shapes on the face (a coin with its rings, a stick, a digit):
    strongly coloured pixels, with whatever they enclose (a coin's ivory ring, the loops of an 8)."""
    px = image.load()
    x0, y0, x1, y1 = 20, 6, 109, 113
    region = {(x, y) for y in range(y0, y1) for x in range(x0, x1)}
    ink = {(x, y) for x, y in region if px[x, y][3] > 200 and max(px[x, y][:3]) - min(px[x, y][:3]) > 50}
    outside = {(x, y) for x, y in region - ink if x in (x0, x1 - 1) or y in (y0, y1 - 1)}
    stack = list(outside)
    while stack:  # the face around the shapes: what the region's border reaches without crossing colour
        x, y = stack.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in region and n not in ink and n not in outside:
                outside.add(n)
                stack.append(n)
    inside = region - outside
    boxes: list[Box] = []
    while inside:
        stack = [inside.pop()]
        xs, ys = [stack[0][0]], [stack[0][1]]
        while stack:
            x, y = stack.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in inside:
                    inside.remove(n)
                    stack.append(n)
                    xs.append(n[0])
                    ys.append(n[1])
        boxes.append((min(xs), min(ys), max(xs) + 1, max(ys) + 1))
    return boxes


def _numeral_and_pattern(tile: Tile) -> tuple[list[Box], list[Box]]:
    """The shapes in the top-left corner where the numeral stands, and the others."""
    boxes = _shapes(draw_tile(tile, font=None))
    corner = [b for b in boxes if b[2] <= 56 and b[3] <= 56]
    return corner, [b for b in boxes if b not in corner]


@pytest.mark.parametrize("n", range(1, 10))
def test_dots_show_n_coins_and_the_numeral(n: int) -> None:
    numeral, coins = _numeral_and_pattern(parse_tile(f"{n}p"))
    assert (len(numeral), len(coins)) == (1, n)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 9])
def test_bamboo_shows_n_separate_sticks_and_the_numeral(n: int) -> None:
    numeral, sticks = _numeral_and_pattern(parse_tile(f"{n}s"))
    assert (len(numeral), len(sticks)) == (1, n)


def test_eight_bamboo_is_two_uprights_each_side_of_a_lambda_over_a_v() -> None:
    numeral, sticks = _numeral_and_pattern(Tile.S8)
    assert (len(numeral), len(sticks)) == (1, 4 + 2)  # the slanted pairs touch at their tips


# -- at Discord's size ---------------------------------------------------------------------------------
# Discord draws an inline emoji 1.375em square: 22 px in message text, 19 px in an embed's 14-px text (18 px
# in some renderings). There a tile is 14 px wide: six to nine coins or sticks can no longer be counted, so a
# player reads the numeral in the corner.
INLINE_SIZES = (18, 19, 22)
DISCORD_BACKGROUNDS = ((49, 51, 56), (43, 45, 49), (255, 255, 255), (242, 243, 245))  # dark, light; chat, embed
NUMBER_TILES = [t for t in ALL_TILES if t.suit in "ps"]


def _inline(image: Image.Image, size: int, background: tuple[int, int, int] = art.IVORY) -> Image.Image:
    small = image.convert("RGBA").convert("RGBa").resize((size, size), Image.LANCZOS).convert("RGBA")
    shown = Image.new("RGBA", small.size, (*background, 255))
    shown.alpha_composite(small)
    return shown.convert("RGB")


def _distance(a: Image.Image, b: Image.Image) -> float:
    """The mean difference per pixel and colour channel, 0-255."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def _corner(image: Image.Image, size: int) -> Image.Image:
    """The pixels of the top-left corner where the numeral stands, as shown at `size` px."""
    x0, y0, x1, y1 = art.NUMERAL_BOX
    half = art.NUMERAL_WIDTH / 2
    box = tuple(round(v * size / art.EMOJI_SIZE) for v in (x0 - half, y0 - half, x1 + half, y1 + half))
    return _inline(image, size).crop(box)


def _digit_alone(n: int, suit: str) -> Image.Image:
    """A face with nothing but the numeral: what a reader compares a corner with."""
    image = Image.new("RGBA", (art.EMOJI_SIZE * 4, art.EMOJI_SIZE * 4), (*art.IVORY, 255))
    art._draw_numeral(art._Pen(image), n, art.NUMERAL_COLORS[suit])
    return image.resize((art.EMOJI_SIZE, art.EMOJI_SIZE), Image.LANCZOS)


@dataclass(frozen=True)
class Reading:
    clutter: float  # how far the corner is from the numeral alone (0: nothing else there)
    margin: float  # how much nearer it is to its own numeral than to any other, of either suit (< 0: misread)


def _read_corners(tiles: dict[Tile, Image.Image], size: int) -> dict[Tile, Reading]:
    """How each number tile's top-left corner reads at `size` px against the 18 numerals (1-9, both colours)."""
    digits = {(n, suit): _corner(_digit_alone(n, suit), size) for n in range(1, 10) for suit in "ps"}
    readings: dict[Tile, Reading] = {}
    for tile, image in tiles.items():
        corner = _corner(image, size)
        distances = {key: _distance(corner, digit) for key, digit in digits.items()}
        own = distances.pop((tile.number, tile.suit))
        readings[tile] = Reading(own, min(distances.values()) - own)
    return readings


def _ink_box(image: Image.Image) -> Box:
    """Where an RGB picture of the face clearly differs from plain ivory."""
    ink = ImageChops.difference(image, Image.new("RGB", image.size, art.IVORY)).convert("L")
    box = ink.point(lambda v: 255 if v > 60 else 0).getbbox()
    assert box is not None
    return box


@pytest.mark.parametrize("size", INLINE_SIZES)
def test_at_discord_size_every_number_tile_reads_as_its_number_and_suit(size: int) -> None:
    # Measured on the committed art at 19 px: margins 15 (7条 against a blue 7) to 25, clutter at most 5.
    # Before the numerals none reached 10 and 16 of 18 were misread (8条 -43, 9条 -54, 2条 -46, 4条 -19): the
    # number had to be counted from coins and sticks that merge at this size.
    readings = _read_corners({t: _png(tile_png_path(t).read_bytes()) for t in NUMBER_TILES}, size)
    assert min(r.margin for r in readings.values()) > 10, sorted(readings.items(), key=lambda kv: kv[1].margin)[:3]
    assert max(r.clutter for r in readings.values()) < 9, max(readings.items(), key=lambda kv: kv[1].clutter)
    x0, y0, x1, y1 = _ink_box(_inline(_digit_alone(8, "p"), size))
    assert x1 - x0 >= 0.22 * size and y1 - y0 >= 0.36 * size  # big enough to read: 5 × 7 px at 19 px


def test_at_discord_size_every_two_emojis_differ_on_dark_and_light_themes() -> None:
    images = {t: _png(tile_png_path(t).read_bytes()) for t in ALL_TILES}
    images[None] = _png(art.back_png_path().read_bytes())
    for background in DISCORD_BACKGROUNDS:
        shown = {t: _inline(image, 19, background) for t, image in images.items()}
        closest = min((_distance(shown[a], shown[b]), str(a), str(b)) for a, b in combinations(shown, 2))
        assert closest[0] > 6, closest  # measured: 8.2 (2筒 and 2条: two coins or two sticks, blue or green 2)


def _faded_corners(size: int) -> dict[Tile, Reading]:
    """How each claimed number tile's corner reads at `size` px against the 18 numerals faded the same way."""
    digits = {(n, suit): _corner(art.faded(_digit_alone(n, suit)), size) for n in range(1, 10) for suit in "ps"}
    readings: dict[Tile, Reading] = {}
    for tile in NUMBER_TILES:
        corner = _corner(_png(art.claimed_png_path(tile).read_bytes()), size)
        distances = {key: _distance(corner, digit) for key, digit in digits.items()}
        own = distances.pop((tile.number, tile.suit))
        readings[tile] = Reading(own, min(distances.values()) - own)
    return readings


@pytest.mark.parametrize("size", (19, 48))
def test_a_claimed_discard_still_reads_as_its_number_and_suit(size: int) -> None:
    # Measured at 19 px: margin 8.8 (7条 against a blue 7) with the suit's colour kept; the grey, see-through
    # fade read 2.4, 7筒 and 7条 nearly the same grey.
    readings = _faded_corners(size)
    assert min(r.margin for r in readings.values()) > 6, sorted(readings.items(), key=lambda kv: kv[1].margin)[:3]


def test_a_claimed_discard_reads_as_taken_on_both_themes() -> None:
    for tile in ALL_TILES:
        face, claimed = _png(tile_png_path(tile).read_bytes()), _png(art.claimed_png_path(tile).read_bytes())
        assert claimed == art.faded(face) or _distance(claimed, art.faded(face)) < 1  # committed = drawn
        for background in DISCORD_BACKGROUNDS:
            assert _distance(_inline(face, 19, background), _inline(claimed, 19, background)) > 15, (tile, background)


@pytest.mark.parametrize("tile", NUMBER_TILES, ids=str)
def test_committed_number_tiles_are_what_the_code_draws_without_any_font(tile: Tile) -> None:
    # the numerals are strokes, not a font: a machine without CJK fonts draws the same tiles (regenerate
    # data/tiles with scripts/draw_tiles.py after changing the art)
    committed = _png(tile_png_path(tile).read_bytes())
    assert max(hi for _, hi in ImageChops.difference(committed, draw_tile(tile, font=None)).getextrema()) <= 8


def _colour_share(image: Image.Image) -> dict[str, int]:
    counts = {"red": 0, "green": 0, "blue": 0}
    px = image.load()
    for x in range(22, 106):
        for y in range(8, 110):
            r, g, b, a = px[x, y]
            if a <= 200 or max(r, g, b) - min(r, g, b) <= 60:
                continue
            counts["red" if r >= max(g, b) else "green" if g >= b else "blue"] += 1
    return counts


@pytest.mark.parametrize("font", ["auto", None])
def test_dragons_have_their_colours_with_or_without_a_cjk_font(font) -> None:
    kwargs = {} if font == "auto" else {"font": None}
    red, green, white = (_colour_share(draw_tile(t, **kwargs)) for t in (Tile.RED, Tile.GREEN, Tile.WHITE))
    assert red["red"] > 400 and red["green"] == red["blue"] == 0
    assert green["green"] > 400 and green["red"] == 0
    assert white["blue"] > 400 and white["red"] == white["green"] == 0


def test_every_face_is_different_and_the_back_is_green() -> None:
    faces = {draw_tile(t, font=None).tobytes() for t in ALL_TILES}
    assert len(faces) == 21
    back = draw_tile(None)
    r, g, b, _ = back.getpixel((64, 60))
    assert g > r and g > b


def test_render_hand_lays_out_hand_melds_and_the_winning_tile() -> None:
    hand = parse_tiles("1123p456s77z")
    plain = _png(render_hand(hand, tile_height=64))
    assert plain.height == 64 + 8
    one_tile = _png(render_hand(hand + [Tile.P9], tile_height=64)).width - plain.width
    assert 46 <= one_tile <= 52  # a 48-px tile plus the spacing
    with_meld = _png(render_hand(hand, melds=[parse_tiles("555s")], tile_height=64))
    assert with_meld.width > plain.width + 3 * one_tile  # three tiles and a gap
    won = _png(render_hand(hand, win_tile=Tile.RED, tile_height=64))
    assert won.width > plain.width + one_tile and won.height > plain.height
    r, g, b, a = won.getpixel((won.width - 4 - 24, won.height - 5))  # the gold bar under the winning tile
    assert (a, r > 200, b < 60) == (255, True, True)


def test_concealed_kong_shows_both_ends_face_down() -> None:
    kong = parse_tiles("6666z")
    shown = _png(render_hand([Tile.P1], melds=[MeldArt(tuple(kong), concealed=True)], tile_height=64))
    opened = _png(render_hand([Tile.P1], melds=[kong], tile_height=64))
    assert shown.size == opened.size
    # 4 px padding, the 48-px concealed tile, a 24-px gap: the kong's tiles, 48 px each and 2 px apart
    x_tiles = [4 + 48 + 24 + i * (48 + 2) + 24 for i in range(4)]
    backs = [shown.getpixel((x, 28))[1] > shown.getpixel((x, 28))[0] + 40 for x in x_tiles]  # green: a back
    assert backs == [True, False, False, True]  # ■66■
    assert all(min(opened.getpixel((x, 28))[:3]) > 200 for x in x_tiles)  # ivory faces when the kong is open


def test_render_hand_draws_missing_files_on_the_fly(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(art, "TILE_DIR", tmp_path)
    hand_row.tile_image.cache_clear()
    try:
        image = _png(render_hand(parse_tiles("19p19s"), tile_height=40))
    finally:
        hand_row.tile_image.cache_clear()
    assert image.height == 48 and list(tmp_path.iterdir()) == []


def test_render_hand_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        render_hand([21])
    with pytest.raises(ValueError):
        render_hand([])
    with pytest.raises(ValueError):
        render_hand([Tile.P1], melds=[[Tile.P2, Tile.P2]])
