"""docs/rules.md §8, the table of what is paid when a hand ends without a winner: one scripted hand per row.

The rows (kwx.present.rulebook.DRAW_ROWS) are checked here in the order the table lists them; a row without a
test here fails `test_every_row_of_the_table_has_a_scripted_hand`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kwx.engine.actions import Action
from kwx.engine.fan import WinContext, score
from kwx.engine.hand import HandState
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile, parse_tiles
from kwx.engine.wall import parse_wall
from kwx.present.rulebook import DRAW_ROWS
from tests.support.hands import deal, drain, of_kind, payments_json, play

SCRIPTS = Path(__file__).resolve().parent / "scripts"
DEALER = "57899p23s555z666z7z"  # never ready
WAIT_5P = "12346p789s111s77z"  # waits on 5p only: 卡五星, 2 fan (4 once laid down)
JUNK_WITH_5P = "35p347s258s69s5z6z7z"  # never ready
READY_9S = "123p678p234s567s9s"  # waits on 9s only: a plain win, 1 fan (2 once laid down)


def declared(seat2: str = JUNK_WITH_5P, draws: str = "3s 2p", piao: tuple[int, int, int] = (0, 0, 0),
             **options: object) -> HandState:
    """The dealer discards 7p; seat 1 draws 3s and lays down with it, waiting on 5p."""
    hand = deal(DEALER, WAIT_5P, seat2, draws=draws, rules=RuleSet.preset("standard", **options), piao=piao)
    play(hand, "0 discard 7p", "1 liangdao 3s")
    return hand


def to_the_draw(hand: HandState) -> HandState:
    """Every later turn discards its draw and passes every claim, until the wall runs out."""
    drain(hand)
    assert hand.result is not None and hand.result.end == "huangzhuang"
    return hand


def net(hand: HandState) -> list[int]:
    assert hand.result is not None
    return list(hand.result.net)


def all_three_declare(penalty: str, edition: int | None = None) -> HandState:
    """The scripted hand in which all three lay down (seat 0 first, then 1, then 2) and the wall runs out."""
    spec = json.loads((SCRIPTS / "draw_liangdao_first_all_declared.json").read_text(encoding="utf-8"))
    rules: dict[str, object] = {"preset": "standard", "options": {"draw_liangdao_penalty": penalty}}
    if edition is not None:
        rules["edition"] = edition
    hand = HandState(RuleSet.from_json(rules), spec["dealer"], parse_wall(spec["wall"]), spec["piao"])
    for raw in spec["actions"]:
        hand.apply(Action.from_json(raw))
    assert [e.seat for e in of_kind(hand.events, "liangdao")] == [0, 1, 2]
    return to_the_draw(hand)


# -- kong money ------------------------------------------------------------------------------------------
def test_kong_money_stands_at_a_draw() -> None:
    hand = declared(draws="3s 2p 9p 1s")
    play(hand, "2 discard 2p", "0 discard 9p", "1 gang 1s")  # seat 1's 暗杠 of its drawn 1s, waits unchanged
    to_the_draw(hand)
    assert payments_json(hand) == [(0, 1, 2, "angang"), (2, 1, 2, "angang"),
                                   (1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]
    assert net(hand) == [-1, 2, -1]


# -- the 亮倒 penalty ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("declarers", "expected"), [
    (1, [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]),
    (2, [(1, 0, 1, "draw_liangdao"), (2, 0, 1, "draw_liangdao")]),  # declarers never pay each other
    (3, []),  # nobody left to pay
])
def test_each_declarer_pays_each_player_who_did_not_declare(declarers: int, expected: list) -> None:
    if declarers == 3:
        hand = all_three_declare("each")
    else:
        hand = declared(READY_9S, draws="3s 4s 2p 3p 6z")
        if declarers == 2:
            play(hand, "2 liangdao 4s")
        to_the_draw(hand)
    assert payments_json(hand) == expected


@pytest.mark.parametrize("declarers", [1, 2, 3])
def test_first_the_first_declarer_pays_each_other_player_however_many_declared(declarers: int) -> None:
    if declarers == 3:
        hand = all_three_declare("first")
        assert payments_json(hand) == [(0, 1, 1, "draw_liangdao"), (0, 2, 1, "draw_liangdao")]
        assert net(hand) == [-2, 1, 1]
        return
    hand = declared(READY_9S, draws="3s 4s 2p 3p 6z", draw_liangdao_penalty="first")
    if declarers == 2:
        play(hand, "2 liangdao 4s")  # the second declarer is paid too
    to_the_draw(hand)
    assert payments_json(hand) == [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]
    assert net(hand) == [1, -2, 1]


def test_tables_of_edition_1_paid_nothing_when_all_three_declared() -> None:
    """A table that dealt before this reckoning replays its hands as they were played (kwx.engine.rules)."""
    assert net(all_three_declare("first", edition=1)) == [0, 0, 0]


# -- 查叫 ----------------------------------------------------------------------------------------------------
def test_chajiao_each_player_not_ready_pays_each_ready_player_its_largest_fan() -> None:
    hand = deal(DEALER, WAIT_5P, READY_9S, rules=RuleSet.preset("standard", draw_chajiao=True))
    play(hand, "0 discard 7p")
    to_the_draw(hand)
    assert [hand.best_ready_fan(s) for s in range(3)] == [0, 2, 1]
    assert payments_json(hand) == [(0, 1, 2, "chajiao"), (0, 2, 1, "chajiao")]
    assert net(hand) == [-3, 2, 1]


def test_chajiao_a_declared_player_is_paid_its_fan_with_the_liangdao_double_and_still_pays_its_penalty() -> None:
    hand = to_the_draw(declared(draw_chajiao=True))
    assert hand.best_ready_fan(1) == 4  # 卡五星 2 × 亮倒 2
    assert payments_json(hand) == [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao"),
                                   (0, 1, 4, "chajiao"), (2, 1, 4, "chajiao")]
    assert net(hand) == [-3, 6, -3]


def test_chajiao_nobody_pays_when_every_player_is_ready() -> None:
    ready_dealer = "13p234s567s888s99s6z"  # discards 6z and waits on 2p
    hand = deal(ready_dealer, WAIT_5P, READY_9S, rules=RuleSet.preset("standard", draw_chajiao=True))
    play(hand, "0 discard 6z")
    to_the_draw(hand)
    assert all(hand.best_ready_fan(s) for s in range(3))
    assert hand.result is not None and hand.result.payments == ()


def test_ready_means_a_win_reaching_min_fan_on_a_tile_the_hand_does_not_hold_four_of() -> None:
    # Seat 2 holds three sets and all four 9p: its shape waits on a fifth 9p, so it is not ready. Under
    # min_fan 2 seat 1's plain 9s wait is not ready either; the dealer's 卡五星 wait is.
    four_9p = "9999p333s666s555z"  # with a fifth 9p it would be 碰碰胡, 2 fan
    hand = deal(WAIT_5P + "5z", READY_9S, four_9p, rules=RuleSet.preset("standard", draw_chajiao=True, min_fan=2))
    play(hand, "0 discard 5z")
    to_the_draw(hand)
    assert [hand.best_ready_fan(s) for s in range(3)] == [2, 0, 0]
    assert payments_json(hand) == [(1, 0, 2, "chajiao"), (2, 0, 2, "chajiao")]


def test_ready_does_not_ask_whether_a_copy_of_the_wait_is_left() -> None:
    # The dealer and seat 2 throw their 5p at once, the other two come from the wall and are thrown too: at
    # the draw every 5p lies in the discards, and seat 1 still counts as ready.
    hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s", rules=RuleSet.preset("standard", draw_chajiao=True))
    play(hand, "0 discard 5p", "1 pass", "1 discard 3s", "2 discard 5p", "1 pass")
    to_the_draw(hand)
    thrown = [t for s in range(3) for t, _ in hand.discards(s) if t == Tile.P5]
    assert len(thrown) == 4
    assert payments_json(hand) == [(0, 1, 2, "chajiao"), (2, 1, 2, "chajiao")]


# -- forbid_feeding's dead end -------------------------------------------------------------------------------
def test_dead_end_pays_the_fan_with_the_liangdao_double_once_and_no_draw_money() -> None:
    # Seat 1 lays down 九莲 (waits 1p…9p); seat 2 then holds only 筒 tiles and may discard none of them.
    nine_gates = "1112345678999p"
    rules = RuleSet.preset("standard", forbid_feeding=True, draw_chajiao=True)
    hand = deal("1357s2468s9s55z6z77z", nine_gates, "2234455667788p", draws="9s 1p", rules=rules)
    play(hand, "0 discard 9s", "1 liangdao 9s")
    assert hand.result is not None and hand.result.end == "forbid_feeding"
    held = set(parse_tiles("12345678p"))
    laid_down = max(score(parse_tiles(nine_gates), t, (), WinContext(liangdao=True)).fan for t in held)
    concealed = max(score(parse_tiles(nine_gates), t, (), WinContext()).fan for t in held)
    assert laid_down == 2 * concealed  # the 亮倒 double is in the fan …
    assert payments_json(hand) == [(2, 1, laid_down, "forbid_feeding")]  # … paid once: no 包胡 double
    assert net(hand) == [0, laid_down, -laid_down]  # no 亮倒 penalty, no 查叫 from the dealer


# -- 漂 and 上楼 ----------------------------------------------------------------------------------------------
def test_no_piao_at_a_draw() -> None:
    """漂 grows win payments only: the 亮倒 penalty and 查叫 carry none, whatever the picks."""
    hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s 2p",
                rules=RuleSet.preset("standard", piao=3, draw_chajiao=True), piao=(3, 3, 3))
    play(hand, "0 discard 7p", "1 liangdao 3s")
    to_the_draw(hand)
    assert payments_json(hand) == [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao"),
                                   (0, 1, 4, "chajiao"), (2, 1, 4, "chajiao")]


def test_draw_money_is_counted_in_the_hands_base_shanglou_included() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s 2p", rules=RuleSet.preset("shiyan", draw_chajiao=True),
                base_multiplier=4)
    play(hand, "0 discard 7p", "1 liangdao 3s")
    to_the_draw(hand)
    assert payments_json(hand) == [(1, 0, 4, "draw_liangdao"), (1, 2, 4, "draw_liangdao"),
                                   (0, 1, 16, "chajiao"), (2, 1, 16, "chajiao")]


ROW_TESTS = {
    "kong": test_kong_money_stands_at_a_draw,
    "liangdao_each": test_each_declarer_pays_each_player_who_did_not_declare,
    "liangdao_first": test_first_the_first_declarer_pays_each_other_player_however_many_declared,
    "chajiao": test_chajiao_each_player_not_ready_pays_each_ready_player_its_largest_fan,
    "chajiao_declared": test_chajiao_a_declared_player_is_paid_its_fan_with_the_liangdao_double_and_still_pays_its_penalty,
    "chajiao_all_ready": test_chajiao_nobody_pays_when_every_player_is_ready,
    "ready": test_ready_means_a_win_reaching_min_fan_on_a_tile_the_hand_does_not_hold_four_of,
    "dead_end": test_dead_end_pays_the_fan_with_the_liangdao_double_once_and_no_draw_money,
    "piao": test_no_piao_at_a_draw,
    "base": test_draw_money_is_counted_in_the_hands_base_shanglou_included,
}


def test_every_row_of_the_table_has_a_scripted_hand() -> None:
    assert [row.id for row in DRAW_ROWS] == list(ROW_TESTS)
