"""docs/rules.md §6: 亮倒 — declaring, the locked hand's automatic play, 包胡, the 荒庄 penalty, forbid_feeding."""

from __future__ import annotations

import pytest

from kwx.engine.actions import Action, IllegalAction
from kwx.engine.fan import WinContext, score
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile, parse_tiles
from tests.support.hands import (
    DEALER,
    JUNK_WITH_5P,
    READY_9S,
    WAIT_5P,
    deal,
    declared_hand,
    drain,
    of_kind,
    payments_json,
    play,
)


def test_only_ready_discards_may_declare() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s")
    play(hand, "0 discard 7p")
    assert [a.tile for a in hand.legal_actions(1) if a.verb == "liangdao"] == [Tile.S3]
    with pytest.raises(IllegalAction, match="not ready"):
        hand.apply(Action(1, "liangdao", Tile.P1))


def test_baohu_when_an_undeclared_player_feeds() -> None:
    hand = declared_hand()
    play(hand, "2 discard 5p")
    events = play(hand, "1 hu")
    win = of_kind(events, "hu")[0].winners[0]
    assert win.fan == 4 and set(win.patterns) == {"kawuxing", "liangdao"} and win.baohu
    assert payments_json(hand) == [(2, 1, 8, "baohu")]


def test_no_baohu_when_the_discarder_declared_too() -> None:
    hand = declared_hand(READY_9S, draws="3s 4s 2p 3p 5p")
    play(hand, "2 liangdao 4s", "0 discard 2p")
    # seat 1 draws 3p and seat 2 draws 5p: both are discarded automatically, and 5p wins for seat 1
    assert hand.to_act() == {1}
    auto = [e for e in hand.events if e.kind == "discard" and e.auto]
    assert [(e.seat, e.tile) for e in auto] == [(1, Tile.P3), (2, Tile.P5)]
    play(hand, "1 hu")
    assert payments_json(hand) == [(2, 1, 4, "hu")]


def test_locked_hand_may_not_peng_and_draws_are_discarded() -> None:
    hand = declared_hand()
    play(hand, "2 discard 7z")  # seat 1 holds 77z but has declared: no 碰
    assert hand.turn == 0 and hand.phase == "turn"
    with pytest.raises(IllegalAction):
        hand.apply(Action(1, "discard", Tile.P1))


def test_locked_hand_may_kong_its_draw_when_waits_stay() -> None:
    hand = declared_hand(draws="3s 2p 9p 1s")
    play(hand, "2 discard 2p", "0 discard 9p")  # seat 1 then draws the fourth 1s
    assert hand.legal_actions(1) == [Action(1, "gang", Tile.S1), Action(1, "pass")]
    events = play(hand, "1 gang 1s")
    gang = of_kind(events, "gang")[0]
    assert gang.gang == "angang" and payments_json(hand) == [(0, 1, 2, "angang"), (2, 1, 2, "angang")]
    assert hand.liangdao_waits(1) == (Tile.P5,)


def test_locked_hand_may_add_its_draw_to_an_exposed_pung() -> None:
    hand = deal(DEALER, "123p456s11s9s77z44p", "1369p2468s1379s5p", draws="2p 8s 7z")
    play(hand, "0 discard 7z", "1 peng", "1 liangdao 9s", "2 discard 2p", "0 discard 8s")
    assert hand.drawn == Tile.RED and hand.legal_actions(1) == [Action(1, "gang", Tile.RED), Action(1, "pass")]
    events = play(hand, "1 gang 7z")  # a 补杠: the waits on 1s and 4p stay
    assert of_kind(events, "gang")[0].gang == "bugang" and hand.liangdao_waits(1) == (Tile.P4, Tile.S1)


def test_locked_hand_may_not_add_its_winning_draw_to_a_pung() -> None:
    hand = deal("123p456p789p1s2s3s7z9s", "11s23s456p789p55z6z", "2p3p5p6p8p9p4s5s6s7s8s5z6z", draws="9s 8s 1s")
    play(hand, "0 discard 1s", "1 peng", "1 liangdao 6z", "2 discard 9s", "0 discard 8s")
    assert hand.liangdao_waits(1) == (Tile.S1, Tile.S4) and hand.drawn == Tile.S1
    # the fourth 1s wins (123s); as a 补杠 it would leave the hand waiting on 4s alone
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]


def test_locked_hand_may_kong_a_discard_when_waits_stay() -> None:
    hand = declared_hand(draws="3s 1s")
    play(hand, "2 discard 1s")  # seat 1 holds 111s apart from its wait on 5p: a 直杠 keeps the wait
    assert hand.legal_actions(1) == [Action(1, "gang"), Action(1, "pass")]


def test_locked_hand_may_not_kong_a_discard_that_changes_its_waits() -> None:
    hand = deal(DEALER, "11123s456p789p77z", "35p347s258s69s5z6z7z", draws="3p 1s")
    play(hand, "0 discard 7p", "1 liangdao 3p")
    assert hand.liangdao_waits(1) == (Tile.S1, Tile.S4, Tile.RED)
    play(hand, "2 discard 1s")  # 111s is part of the waits: a kong of it would leave 1s 4s only
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]


def test_locked_pass_discards_the_draw() -> None:
    hand = declared_hand(draws="3s 2p 9p 1s")
    play(hand, "2 discard 2p", "0 discard 9p", "1 pass")
    assert hand.discards(1)[-1] == (Tile.S1, False)


def test_locked_zimo() -> None:
    hand = declared_hand(draws="3s 2p 9p 5p")
    play(hand, "2 discard 2p", "0 discard 9p")
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]
    play(hand, "1 hu")
    assert payments_json(hand) == [(0, 1, 4, "hu"), (2, 1, 4, "hu")]


@pytest.mark.parametrize(("penalty", "expected"), [
    ("each", [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]),
    ("first", [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]),
])
def test_huangzhuang_penalty_one_declarer(penalty: str, expected: list) -> None:
    hand = declared_hand(draw_liangdao_penalty=penalty)
    drain(hand)
    assert hand.result.end == "huangzhuang" and hand.result.outcome == "draw"
    assert payments_json(hand) == expected


@pytest.mark.parametrize(("penalty", "expected"), [
    ("each", [(1, 0, 1, "draw_liangdao"), (2, 0, 1, "draw_liangdao")]),
    ("first", [(1, 0, 1, "draw_liangdao"), (1, 2, 1, "draw_liangdao")]),
])
def test_huangzhuang_penalty_two_declarers(penalty: str, expected: list) -> None:
    hand = declared_hand(READY_9S, draws="3s 4s 2p 3p 6z", draw_liangdao_penalty=penalty)
    play(hand, "2 liangdao 4s")
    drain(hand)
    assert hand.result.end == "huangzhuang"
    assert payments_json(hand) == expected


def test_draw_dealer_first_liangdao() -> None:
    hand = declared_hand(draw_dealer="first_liangdao")
    drain(hand)
    assert hand.result.next_dealer == 1
    hand = declared_hand()
    drain(hand)
    assert hand.result.next_dealer == 0  # default: the dealer stays


def test_liangdao_min_wall() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s", rules=RuleSet.preset("standard", liangdao_min_wall=44))
    play(hand, "0 discard 7p")
    assert hand.wall_remaining == 43
    assert not any(a.verb == "liangdao" for a in hand.legal_actions(1))
    with pytest.raises(IllegalAction, match="liangdao_min_wall"):
        hand.apply(Action(1, "liangdao", Tile.S3))


def test_a_liangdao_counts_the_concealed_triplet_its_own_draw_would_make() -> None:
    # with 数坎, a self-drawn 5p or 7z makes a third concealed triplet: 2 (亮倒) + 3 = 5 fan, on a discard only 4
    for min_fan, allowed in ((5, True), (6, False)):
        rules = RuleSet.preset("standard", shukan=True, min_fan=min_fan)
        hand = deal("111p9p999s456s55p77z", "23468p78s123s66z5z", "4p6p234s567s888s5z5z", rules=rules)
        assert (Action(0, "liangdao", Tile.P9) in hand.legal_actions(0)) is allowed


def test_liangdao_needs_a_wait_reaching_min_fan() -> None:
    for min_fan, allowed in ((4, True), (8, False)):
        hand = deal(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s", rules=RuleSet.preset("standard", min_fan=min_fan))
        play(hand, "0 discard 7p")
        assert (Action(1, "liangdao", Tile.S3) in hand.legal_actions(1)) is allowed


# -- forbid_feeding -----------------------------------------------------------------------------------
def test_forbid_feeding_bars_the_winning_tile() -> None:
    hand = declared_hand(forbid_feeding=True)
    discards = {a.tile for a in hand.legal_actions(2) if a.verb == "discard"}
    assert Tile.P5 not in discards and Tile.P2 in discards
    with pytest.raises(IllegalAction, match="forbid_feeding"):
        hand.apply(Action(2, "discard", Tile.P5))
    play(hand, "2 discard 2p")


def test_forbid_feeding_stuck_player_pays_and_ends_the_hand() -> None:
    # seat 1 declares with 九莲 1112345678999p (waits 1p…9p); seat 2 then holds only 筒 tiles: stuck.
    nine_gates = "1112345678999p"
    rules = RuleSet.preset("standard", forbid_feeding=True)
    hand = deal("1357s2468s9s55z6z77z", nine_gates, "2234455667788p", draws="9s 1p", rules=rules)
    play(hand, "0 discard 9s")
    events = play(hand, "1 liangdao 9s")
    assert of_kind(events, "liangdao")[0].waits == tuple(parse_tiles("123456789p"))
    stuck = of_kind(events, "forbid_feeding")
    assert stuck and stuck[0].seat == 2
    assert hand.finished and hand.result.outcome == "draw" and hand.result.end == "forbid_feeding"
    held = set(parse_tiles("12345678p"))
    best = max(score(parse_tiles(nine_gates), t, (), WinContext(liangdao=True)).fan for t in held)
    assert best >= 8  # 清一色 × 亮倒 at least
    assert payments_json(hand) == [(2, 1, best, "forbid_feeding")]
