"""docs/rules.md §4: claims on a discard — 胡 before 杠/碰, 一炮双响, 漏胡, 抢杠胡, the last discard."""

from __future__ import annotations

import pytest

from kwx.engine.actions import Action, IllegalAction
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile
from tests.support.hands import deal, drain, kinds, of_kind, payments_json, play

# Seat 1 and seat 2 both wait on 5p (卡五星); the dealer holds one 5p to discard.
DEALER = "57899p23s555z666z7z"
WAIT_5P_A = "12346p789s111s77z"
WAIT_5P_B = "46p234s567s888s99s"


def test_double_win_discarder_pays_each_winner_and_deals_next() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    play(hand, "0 discard 5p")
    assert hand.to_act() == {1, 2}
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]
    events = play(hand, "2 hu")
    assert events == [] and hand.to_act() == {1}  # nothing resolves before every claimant answered
    events = play(hand, "1 hu")
    hu = of_kind(events, "hu")[0]
    assert [w.seat for w in hu.winners] == [1, 2]
    assert all(w.patterns == ("kawuxing",) and w.fan == 2 for w in hu.winners)
    assert payments_json(hand) == [(0, 1, 2, "hu"), (0, 2, 2, "hu")]
    assert hand.result.outcome == "win" and hand.result.winners == (1, 2)
    assert hand.result.double_win and hand.result.next_dealer == 0
    assert hand.result.net == (-4, 2, 2)


def test_single_winner_when_the_other_passes() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    events = play(hand, "0 discard 5p", "1 pass", "2 hu")
    assert kinds(events)[-3:] == ["hu", "reveal", "settlement"]
    assert hand.result.winners == (2,) and hand.result.next_dealer == 2
    assert payments_json(hand) == [(0, 2, 2, "hu")]


def test_hu_beats_peng() -> None:
    # seat 1 holds 55p and could pung the 5p; seat 2 wins on it
    hand = deal(DEALER, "55p123s456s789s77z", WAIT_5P_B)
    play(hand, "0 discard 5p")
    assert Action(1, "peng") in hand.legal_actions(1)
    play(hand, "1 peng", "2 hu")
    assert hand.result.winners == (2,)
    assert hand.melds(1) == ()


def test_claim_from_a_seat_without_a_claim_is_refused() -> None:
    hand = deal(DEALER, WAIT_5P_A, "13579p13579s5z6z7z")
    play(hand, "0 discard 5p")
    assert hand.to_act() == {1}
    with pytest.raises(IllegalAction, match="seat 2 has no claim"):
        hand.apply(Action(2, "pass"))
    with pytest.raises(IllegalAction, match="waiting for the others"):
        hand.apply(Action(0, "discard", Tile.P7))


# -- 漏胡 ---------------------------------------------------------------------------------------------
# Seat 1 waits on 3p (暗四归一, 4 fan) and 7z (屁胡, 1 fan).
LOUHU_HAND = "12333p456s789s77z"


LOUHU_DEALER = "2p1p5p9p1s2s4s5s8s5z5z6z6z6z"
LOUHU_SEAT2 = "7z4p6p8p3s6s7s9s8s1s2s5z9p"


def louhu_hand(draws: str, **options: object):
    # dealer discards 2p; seat 1 draws 4p and discards it; seat 2 draws 1p and discards 7z: seat 1 could win
    # (1 fan) and passes; the dealer then draws and discards before seat 1 draws again.
    hand = deal(LOUHU_DEALER, LOUHU_HAND, LOUHU_SEAT2, draws=draws, rules=RuleSet.preset("standard", **options))
    play(hand, "0 discard 2p", "1 discard 4p", "2 discard 7z")
    assert Action(1, "hu") in hand.legal_actions(1)
    events = play(hand, "1 pass")
    assert of_kind(events, "pass")[0].louhu and hand.louhu(1)
    return hand


def test_louhu_blocks_discard_wins_until_own_draw() -> None:
    hand = louhu_hand("4p 1p 3p")
    play(hand, "0 discard 3p")  # a 4-fan win for seat 1, but it is under 漏胡
    assert hand.to_act() == {1}
    assert Action(1, "hu") not in hand.legal_actions(1)  # still offered its kong and pung
    play(hand, "1 pass")
    assert hand.turn == 1 and hand.phase == "turn" and not hand.louhu(1)  # its own draw lifts 漏胡


def test_louhu_bigger_ok_allows_a_bigger_win() -> None:
    hand = louhu_hand("4p 1p 3p", louhu_bigger_ok=True)
    play(hand, "0 discard 3p")
    assert Action(1, "hu") in hand.legal_actions(1)
    play(hand, "1 hu")
    assert hand.result.fan[1] == 4 and "ansigui" in hand.result.patterns[1]


def test_louhu_bigger_ok_still_blocks_an_equal_win() -> None:
    # after passing 7z (1 fan), the fourth 7z would again be 1 fan: not offered even with the option
    hand = louhu_hand("4p 1p 7z", louhu_bigger_ok=True)
    play(hand, "0 discard 7z")
    assert hand.legal_actions(1) == [Action(1, "peng"), Action(1, "pass")]


def test_louhu_still_allows_self_draw() -> None:
    hand = louhu_hand("4p 1p 9p 3p")
    play(hand, "0 discard 9p")
    assert hand.drawn == Tile.P3 and Action(1, "hu") in hand.legal_actions(1)


# -- 抢杠胡 -------------------------------------------------------------------------------------------
ROB_DEALER = "5s789s13579p5z66z77z"
ROB_SEAT1 = "55s123p468p789p77z"
ROB_SEAT2 = "46s111s222s333s99s"


def rob_hand(seat2: str = ROB_SEAT2):
    # dealer discards 5s; seat 2 (waiting on 5s) passes; seat 1 pungs and discards 8p; seat 2 draws 1p…;
    # seat 1 later draws the fourth 5s and adds it to its pung.
    return deal(ROB_DEALER, ROB_SEAT1, seat2, draws="9p 2p 5s", back="1p 2p")


def test_robbing_a_bugang_voids_the_kong_money() -> None:
    hand = rob_hand()
    play(hand, "0 discard 5s")
    assert hand.to_act() == {1, 2}
    play(hand, "2 pass", "1 peng", "1 discard 8p", "2 discard 9p", "0 discard 2p")
    assert hand.drawn == Tile.S5 and Action(1, "gang", Tile.S5) in hand.legal_actions(1)
    events = play(hand, "1 gang 5s")
    assert kinds(events) == ["rob_window"] and hand.to_act() == {2}
    assert hand.legal_actions(2) == [Action(2, "hu"), Action(2, "pass")]
    events = play(hand, "2 hu")
    hu = of_kind(events, "hu")[0]
    assert hu.rob_kong and hu.from_seat == 1
    assert set(hu.winners[0].patterns) == {"qiangganghu", "kawuxing", "qingyise"} and hu.winners[0].fan == 16
    assert payments_json(hand) == [(1, 2, 16, "hu")]  # no bugang money
    assert not of_kind(hand.events, "gang")


def test_unrobbed_bugang_pays_and_draws_a_replacement() -> None:
    hand = rob_hand()
    play(hand, "0 discard 5s", "2 pass", "1 peng", "1 discard 8p", "2 discard 9p", "0 discard 2p", "1 gang 5s")
    events = play(hand, "2 pass")
    gang = of_kind(events, "gang")[0]
    assert (gang.gang, gang.tile, gang.chain) == ("bugang", Tile.S5, 1)
    assert payments_json(hand) == [(0, 1, 1, "bugang"), (2, 1, 1, "bugang")]
    draw = of_kind(events, "draw")[0]
    assert draw.from_back and draw.tile == Tile.P1
    assert hand.louhu(2)  # passing a robbable kong is a missed win


def test_no_rob_window_when_nobody_wins_on_the_tile() -> None:
    hand = rob_hand("46s111s222s333s9s6z")
    play(hand, "0 discard 5s", "1 peng", "1 discard 8p", "2 discard 9p", "0 discard 2p")
    events = play(hand, "1 gang 5s")
    assert kinds(events)[:2] == ["gang", "draw"]


def test_bugang_only_with_the_tile_just_drawn() -> None:
    hand = rob_hand("46s111s222s333s9s6z")
    play(hand, "0 discard 5s", "1 peng", "1 discard 8p", "2 discard 9p", "0 discard 2p")
    play(hand, "1 discard 1p")  # keeps the fourth 5s in hand instead of adding it
    drain(hand, until=lambda h: h.turn == 1 and h.phase == "turn")
    assert hand.drawn != Tile.S5
    assert not any(a.verb == "gang" for a in hand.legal_actions(1))
    with pytest.raises(IllegalAction, match="only with the tile just drawn"):
        hand.apply(Action(1, "gang", Tile.S5))


def test_no_kong_after_peng_in_the_same_turn() -> None:
    # seat 1 holds 2222p and 55s; after its pung of 5s it must discard
    hand = deal(ROB_DEALER, "55s6s2222p3p468p9p7z", "46s111s222s333s9s6z")
    play(hand, "0 discard 5s", "1 peng")
    assert {a.verb for a in hand.legal_actions(1)} <= {"discard", "liangdao"}
    with pytest.raises(IllegalAction, match="no kong after a pung"):
        hand.apply(Action(1, "gang", Tile.P2))
    play(hand, "1 discard 9p")
    drain(hand, until=lambda h: h.turn == 1 and h.phase == "turn")
    assert Action(1, "gang", Tile.P2) in hand.legal_actions(1)  # on its next turn the 暗杠 is fine


# -- the last tile ------------------------------------------------------------------------------------
def test_last_discard_can_only_be_won_on() -> None:
    # seat 2 draws the last tile (44th draw) and discards 9s; seat 1 holds 99s (could pung) and waits on 5p
    hand = deal(DEALER, "12346p799s111s77z", "1358p1368s2456s6z", back="9s")
    drain(hand, until=lambda h: h.wall_remaining == 0)
    assert hand.turn == 2 and hand.drawn == Tile.S9
    events = play(hand, "2 discard 9s")
    assert not any(e.kind == "pass" for e in events)
    assert hand.finished and hand.result.end == "huangzhuang"


def test_no_kong_after_drawing_the_last_tile() -> None:
    # seat 2 holds 999s and draws the fourth 9s as the last tile: no 暗杠
    hand = deal(DEALER, "12346p788s111s77z", "999s1358p2456s7z6z", back="9s")
    drain(hand, until=lambda h: h.wall_remaining == 0)
    assert hand.turn == 2 and hand.drawn == Tile.S9
    assert not any(a.verb == "gang" for a in hand.legal_actions(2))
    with pytest.raises(IllegalAction, match="last tile"):
        hand.apply(Action(2, "gang", Tile.S9))
    drain(hand)
    assert hand.result.end == "huangzhuang"

