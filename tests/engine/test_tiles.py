"""Tiles (docs/rules.md §1): both notations in, display order out, and one clear message per kind of bad input."""

from __future__ import annotations

import pytest

from kwx.engine.tiles import (
    ALL_TILES,
    WALL_SIZE,
    Tile,
    TileError,
    check_counts,
    format_chinese,
    format_compact,
    from_counts,
    full_set,
    parse_tile,
    parse_tiles,
    to_counts,
)


def test_compact_notation_reads_digits_before_their_suit_letter() -> None:
    assert parse_tiles("1123p") == [Tile.P1, Tile.P1, Tile.P2, Tile.P3]
    assert parse_tiles("456s") == [Tile.S4, Tile.S5, Tile.S6]
    assert parse_tiles("567z") == [Tile.WHITE, Tile.GREEN, Tile.RED]
    assert parse_tiles("19p19s7z") == [Tile.P1, Tile.P9, Tile.S1, Tile.S9, Tile.RED]


def test_separators_and_upper_case_are_accepted() -> None:
    assert parse_tiles(" 1p, 2p，3p、4P\t5S ") == [Tile.P1, Tile.P2, Tile.P3, Tile.P4, Tile.S5]


@pytest.mark.parametrize(("text", "tile"), [
    ("五筒", Tile.P5), ("五饼", Tile.P5), ("5饼", Tile.P5), ("九餅", Tile.P9),
    ("七条", Tile.S7), ("七索", Tile.S7), ("一條", Tile.S1),
    ("中", Tile.RED), ("红中", Tile.RED), ("紅中", Tile.RED),
    ("发", Tile.GREEN), ("發", Tile.GREEN), ("发财", Tile.GREEN), ("發財", Tile.GREEN),
    ("白", Tile.WHITE), ("白板", Tile.WHITE),
])
def test_chinese_names(text: str, tile: Tile) -> None:
    assert parse_tile(text) == tile


def test_chinese_and_compact_mix_in_one_hand() -> None:
    assert parse_tiles("五筒 七条 红中中 发财 白板 12p") == [
        Tile.P5, Tile.S7, Tile.RED, Tile.RED, Tile.GREEN, Tile.WHITE, Tile.P1, Tile.P2]


def test_display_order_is_dots_bamboo_then_red_green_white() -> None:
    tiles = parse_tiles("白发中9s1s9p1p")
    assert format_compact(tiles) == "19p19s765z"
    assert format_chinese(tiles) == "1筒 9筒 1条 9条 中 发 白"
    assert [t.compact for t in ALL_TILES[:3]] == ["1p", "2p", "3p"]
    assert [t.compact for t in ALL_TILES[-3:]] == ["7z", "6z", "5z"]


def test_tile_properties() -> None:
    assert (Tile.P5.suit, Tile.P5.number, Tile.P5.chinese, str(Tile.P5)) == ("p", 5, "五筒", "5p")
    assert (Tile.S9.suit, Tile.S9.number, Tile.S9.is_dragon) == ("s", 9, False)
    assert (Tile.RED.suit, Tile.RED.number, Tile.RED.chinese, Tile.RED.is_dragon) == ("z", 7, "红中", True)
    assert f"{Tile.WHITE:>3}" == " 5z"


def test_counts_round_trip_and_the_full_set() -> None:
    tiles = parse_tiles("1122334456677p")
    counts = to_counts(tiles)
    assert counts[Tile.P1] == 2 and counts[Tile.P5] == 1 and sum(counts) == 13
    assert from_counts(counts) == tiles
    wall = full_set()
    assert len(wall) == WALL_SIZE == 84
    assert all(n == 4 for n in to_counts(wall))


# -- errors: the message names the bad token and says what would be right ----------------------------------------
@pytest.mark.parametrize(("text", "message"), [
    ("8z", '"8z" is not a tile: dragons are 5z 白, 6z 发, 7z 中'),
    ("123p8z", '"8z" is not a tile: dragons are 5z 白, 6z 发, 7z 中'),
    ("0p", '"0p" is not a tile: suited tiles are numbered 1–9'),
    ("11111p", '"1p" appears 5 times: there are only four of each tile'),
    ("中中中中中", '"7z" appears 5 times: there are only four of each tile'),
    ("hello", '"hello" is not a tile: use compact notation (1123p 456s 77z) or names like 五筒 七条 红中'),
    ("123", '"123" is not a tile: write digits then a suit letter, e.g. 1123p 456s 77z'),
    ("1 2 3p", '"1" is not a tile: write digits then a suit letter, e.g. 1123p 456s 77z'),
    ("1m", '"1m" is not a tile: Ka Wu Xing has no 万 (characters); suits are p 筒 and s 条'),
    ("1x", '"1x" is not a tile: suits are p 筒, s 条 and z (dragons 5z 白, 6z 发, 7z 中)'),
    ("十筒", '"十筒" is not a tile: use compact notation (1123p 456s 77z) or names like 五筒 七条 红中'),
])
def test_parse_errors_have_exact_messages(text: str, message: str) -> None:
    with pytest.raises(TileError) as err:
        parse_tiles(text)
    assert str(err.value) == message


def test_fifth_copy_check_can_be_left_to_the_caller() -> None:
    assert len(parse_tiles("11111p", check_copies=False)) == 5
    with pytest.raises(TileError, match='"5p" appears 5 times'):
        check_counts(parse_tiles("555p"), parse_tiles("55p"))


def test_parse_tile_wants_exactly_one() -> None:
    with pytest.raises(TileError, match="^no tile given$"):
        parse_tile("  ")
    with pytest.raises(TileError, match='^"12p" is not one tile$'):
        parse_tile("12p")
