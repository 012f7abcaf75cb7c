"""Hand analysis (docs/rules.md §5): the table-driven win check, readings, waits and shanten, checked against a plain
search written here."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kwx.engine.analysis import (
    Meld,
    is_seven_pairs,
    is_standard_win,
    is_win,
    readings,
    shanten,
    waits,
)
from kwx.engine.tiles import NUM_KINDS, Tile, parse_tile, parse_tiles, to_counts

PROPERTY = settings(max_examples=200, deadline=None)
SUITED = range(18)
SET_SHAPES = [(t, t, t) for t in range(NUM_KINDS)] + [(o + r, o + r + 1, o + r + 2) for o in (0, 9) for r in range(7)]


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def melds_of(*specs: str) -> list[Meld]:
    return [Meld(kind, parse_tile(tile)) for kind, tile in (s.split(":") for s in specs)]


def names(tiles: list[Tile]) -> list[str]:
    return [t.compact for t in tiles]


# -- a plain recursive search, the reference ------------------------------------------------------------------
def plain_sets(c: list[int]) -> bool:
    i = next((t for t in range(NUM_KINDS) if c[t]), -1)
    if i < 0:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = plain_sets(c)
        c[i] += 3
        if ok:
            return True
    if i < 18 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = plain_sets(c)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        if ok:
            return True
    return False


def plain_is_win(counts: list[int], n_melds: int = 0) -> bool:
    c = list(counts)
    if n_melds == 0 and sum(c) == 14 and all(n % 2 == 0 for n in c):
        return True
    for t in range(NUM_KINDS):
        if c[t] >= 2:
            c[t] -= 2
            ok = plain_sets(c)
            c[t] += 2
            if ok:
                return True
    return False


def plain_waits(counts: list[int], melds: list[Meld]) -> list[int]:
    used = list(counts)
    for m in melds:
        used[m.tile] += m.size
    out = []
    for t in range(NUM_KINDS):
        if used[t] >= 4:
            continue
        c = list(counts)
        c[t] += 1
        if plain_is_win(c, len(melds)):
            out.append(t)
    return out


# -- strategies ---------------------------------------------------------------------------------------------
@st.composite
def complete_hands(draw: st.DrawFn, max_melds: int = 4) -> tuple[list[int], list[Meld]]:
    """Random sets and a pair (some sets declared as melds), or seven pairs; never a fifth copy."""
    if draw(st.integers(0, 4)) == 0:
        kinds = draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=7, max_size=7))
        counts = [0] * NUM_KINDS
        for k in kinds:
            counts[k] += 2
        assume(max(counts) <= 4)
        return counts, []
    n_melds = draw(st.integers(0, max_melds))
    counts = [0] * NUM_KINDS
    melds = []
    for _ in range(n_melds):
        melds.append(Meld(draw(st.sampled_from(("pung", "kong", "ankong"))), Tile(draw(st.integers(0, 20)))))
    for _ in range(4 - n_melds):
        for t in draw(st.sampled_from(SET_SHAPES)):
            counts[t] += 1
    counts[draw(st.integers(0, NUM_KINDS - 1))] += 2
    used = list(counts)
    for m in melds:
        used[m.tile] += m.size
    assume(max(used) <= 4)
    return counts, melds


@st.composite
def random_hands(draw: st.DrawFn, size: int) -> list[int]:
    """`size` tiles: often a complete hand with a few tiles swapped (near wins), else any tiles."""
    if draw(st.booleans()):
        counts, _ = draw(complete_hands(max_melds=0))
        tiles = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
        swaps = draw(st.integers(0, 2))
        for _ in range(swaps):
            tiles[draw(st.integers(0, len(tiles) - 1))] = draw(st.integers(0, NUM_KINDS - 1))
        tiles = tiles[:size]
    else:
        tiles = draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=size, max_size=size))
    counts = to_counts(tiles)
    assume(max(counts) <= 4)
    return counts


# -- examples -----------------------------------------------------------------------------------------------
def test_sets_and_a_pair_win() -> None:
    assert is_win(counts_of("123p456p789s11s555z"))
    assert is_win(counts_of("111222333p555s77z"))


def test_dragons_never_form_sequences() -> None:
    assert not is_win(counts_of("567z123p456p789s11s"))


def test_seven_pairs_win_only_concealed_and_four_of_a_kind_is_two_pairs() -> None:
    assert is_win(counts_of("1133p5577s7755z99p"))
    assert is_seven_pairs(counts_of("11112233p4455s66z"))
    assert not is_standard_win(counts_of("11112233p4455s66z"))
    assert not is_win(counts_of("1133p5577s55z99p"), n_melds=1)


def test_melds_stand_outside_the_counts() -> None:
    assert is_win(counts_of("123p55s"), n_melds=3)
    assert not is_win(counts_of("123p56s"), n_melds=3)


def test_readings_list_every_way_to_read_a_win() -> None:
    rs = readings(counts_of("111222333p555s77z"))
    assert sorted((names(list(r.sequences)), names(list(r.triplets))) for r in rs) == [
        ([], ["1p", "2p", "3p", "5s"]), (["1p", "1p", "1p"], ["5s"])]
    assert {r.pair for r in rs} == {Tile.RED}
    both = readings(counts_of("1122334455667p7p"))
    assert {r.kind for r in both} == {"qidui", "sets"}
    assert readings(counts_of("123p456p789s11s556z")) == []


def test_waits_in_display_order() -> None:
    assert names(waits(counts_of("1122334456677p"))) == ["5p", "8p"]
    assert names(waits(counts_of("1112345678999p"))) == [f"{n}p" for n in range(1, 10)]  # 九莲宝灯
    assert names(waits(counts_of("123p456p789s11s55z"))) == ["1s", "5z"]
    assert names(waits(counts_of("123p456p789s1s555z"))) == ["1s"]
    assert waits(counts_of("123p456p789s1s6z55z")) == []


def test_waits_leave_out_a_tile_the_hand_already_holds_four_of() -> None:
    assert names(waits(counts_of("1111p"), melds_of("pung:2p", "pung:3p", "kong:4p"))) == []
    # 4444s + a 3s 5s: the 4s that would make 345s is all in hand
    assert names(waits(counts_of("123p456p789p4444s"))) == []
    assert names(waits(counts_of("4445p"), melds_of("pung:7z", "pung:1s", "pung:9s"))) == ["3p", "5p", "6p"]
    assert names(waits(counts_of("4445p"), melds_of("kong:3p", "pung:1s", "pung:9s"))) == ["5p", "6p"]


def test_waits_with_melds() -> None:
    assert names(waits(counts_of("4556p"), melds_of("pung:7z", "ankong:1s", "kong:9p"))) == ["5p"]
    assert names(waits(counts_of("11p22s"), melds_of("pung:7z", "pung:1s", "kong:9p"))) == ["1p", "2s"]


def test_shanten_examples() -> None:
    assert shanten(counts_of("1122334456677p")) == 0
    assert shanten(counts_of("1122334456677p5p")) == -1
    assert shanten(counts_of("123p456s789s55z12p")) == 0
    assert shanten(counts_of("123p456s789s55z13p")) == 0
    assert shanten(counts_of("123p456s789s5z12p")) == 1
    assert shanten(counts_of("1p4p7p1s4s7s5z6z7z2p5p8p3s")) == 4  # four partial sets: 12p 45p 78p 13s
    assert shanten(counts_of("1133p5577s5z6z7z9p1s")) == 2  # seven pairs is nearer than sets


# -- properties ---------------------------------------------------------------------------------------------
@PROPERTY
@given(complete_hands())
def test_random_complete_hands_win(hand: tuple[list[int], list[Meld]]) -> None:
    counts, melds = hand
    assert sum(counts) == 14 - 3 * len(melds)
    assert is_win(counts, len(melds))
    assert readings(counts, len(melds))
    assert shanten(counts, len(melds)) == -1


@PROPERTY
@given(random_hands(14))
def test_table_win_check_agrees_with_plain_search(counts: list[int]) -> None:
    assert is_win(counts) == plain_is_win(counts)
    assert bool(readings(counts)) == plain_is_win(counts)


@PROPERTY
@given(random_hands(11))
def test_table_win_check_agrees_with_plain_search_with_a_meld(counts: list[int]) -> None:
    assert is_win(counts, 1) == plain_is_win(counts, 1)


@PROPERTY
@given(random_hands(13))
def test_waits_agree_with_trying_every_tile(counts: list[int]) -> None:
    assert [int(t) for t in waits(counts)] == plain_waits(counts, [])


@PROPERTY
@given(complete_hands(), st.data())
def test_waits_with_melds_agree_with_trying_every_tile(hand: tuple[list[int], list[Meld]], data: st.DataObject) -> None:
    counts, melds = hand
    drop = data.draw(st.sampled_from([t for t in range(NUM_KINDS) if counts[t]]))
    counts[drop] -= 1
    found = [int(t) for t in waits(counts, melds)]
    assert found == plain_waits(counts, melds)
    assert drop in found or sum(m.size for m in melds if m.tile == drop) + counts[drop] >= 4


@PROPERTY
@given(random_hands(14))
def test_shanten_is_minus_one_exactly_for_wins(counts: list[int]) -> None:
    assert (shanten(counts) == -1) == plain_is_win(counts)
    assert shanten(counts) >= -1


@PROPERTY
@given(random_hands(13))
def test_shanten_is_zero_exactly_for_hands_with_waits(counts: list[int]) -> None:
    assume(max(counts) <= 3)  # with four of a tile a hand can be shaped to wait on a fifth copy
    assert (shanten(counts) == 0) == bool(plain_waits(counts, []))
    assert shanten(counts) >= 0
