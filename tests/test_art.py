"""Tile pictures: the committed emoji PNGs, the classic layouts a player counts, and hand rows."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from kwx.engine.tiles import ALL_TILES, Tile, parse_tile, parse_tiles
from kwx.present import art
from kwx.present.art import MeldArt, draw_tile, render_hand, tile_png_path


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
    image = _png(data)
    assert image.size == (128, 128)
    assert image.getpixel((2, 64))[3] == 0  # transparent padding left and right of the 96-px tile
    assert image.getpixel((64, 64))[3] == 255


def _coloured_blobs(image: Image.Image) -> int:
    """Connected areas of strong colour on the face (coins, sticks), ignoring the ivory and the back edge."""
    px = image.load()
    coloured = {
        (x, y)
        for y in range(6, 113)
        for x in range(20, 109)
        if px[x, y][3] > 200 and max(px[x, y][:3]) - min(px[x, y][:3]) > 50
    }
    blobs = 0
    while coloured:
        blobs += 1
        stack = [coloured.pop()]
        while stack:
            x, y = stack.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in coloured:
                    coloured.remove(n)
                    stack.append(n)
    return blobs


@pytest.mark.parametrize("n", range(2, 10))
def test_dots_show_n_coins(n: int) -> None:
    # each coin is a coloured ring around a coloured centre: two blobs per coin
    assert _coloured_blobs(draw_tile(parse_tile(f"{n}p"), font=None)) == 2 * n


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 9])
def test_bamboo_shows_n_separate_sticks(n: int) -> None:
    assert _coloured_blobs(draw_tile(parse_tile(f"{n}s"), font=None)) == n


def test_eight_bamboo_is_two_uprights_each_side_of_a_lambda_over_a_v() -> None:
    assert _coloured_blobs(draw_tile(Tile.S8, font=None)) == 4 + 2  # the slanted pairs touch at their tips


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


def test_concealed_kong_shows_two_tiles_face_down() -> None:
    kong = parse_tiles("6666z")
    shown = _png(render_hand([Tile.P1], melds=[MeldArt(tuple(kong), concealed=True)], tile_height=64))
    opened = _png(render_hand([Tile.P1], melds=[kong], tile_height=64))
    assert shown.size == opened.size
    # 4 px padding, the 48-px concealed tile, a 24-px gap, the first kong tile and 2 px: the second kong tile
    x_second = 4 + 48 + 24 + 48 + 2 + 24
    r, g, b, _ = shown.getpixel((x_second, 28))
    assert g > r + 40  # the green back
    assert min(opened.getpixel((x_second, 28))[:3]) > 200  # an ivory face when the kong is open


def test_render_hand_draws_missing_files_on_the_fly(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(art, "TILE_DIR", tmp_path)
    art._tile_image.cache_clear()
    try:
        image = _png(render_hand(parse_tiles("19p19s"), tile_height=40))
    finally:
        art._tile_image.cache_clear()
    assert image.height == 48 and list(tmp_path.iterdir()) == []


def test_render_hand_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        render_hand([21])
    with pytest.raises(ValueError):
        render_hand([])
    with pytest.raises(ValueError):
        render_hand([Tile.P1], melds=[[Tile.P2, Tile.P2]])
