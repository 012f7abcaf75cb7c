"""docs/rules.md §2–§3 and the kong rules of §8: dealing, your turn, kongs and 杠上杠 chains, 杠上开花 / 杠上炮,
the last tile (海底捞月 / 海底炮), min_fan."""

from __future__ import annotations

import pytest

from kwx.engine.actions import Action, IllegalAction
from kwx.engine.hand import HandState
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile, TileError, parse_tiles
from kwx.engine.wall import wall_from_seed
from tests.support.hands import build_wall, deal, drain, kinds, of_kind, payments_json, play

DEALER = "57899p23s555z666z7z"
WAIT_5P_A = "12346p789s111s77z"
WAIT_5P_B = "46p234s567s888s99s"


def test_deal_follows_the_wall_and_the_dealer_acts_first() -> None:
    wall = build_wall(DEALER, WAIT_5P_A, WAIT_5P_B)
    hand = HandState(dealer=2, wall=wall)
    assert hand.concealed(2) == sorted(parse_tiles(DEALER))
    assert hand.concealed(0) == sorted(parse_tiles(WAIT_5P_A))
    assert hand.concealed(1) == sorted(parse_tiles(WAIT_5P_B))
    assert hand.to_act() == {2} and hand.wall_remaining == 44
    assert hand.remaining_wall() == wall[40:]
    deal_event = hand.events[0]
    assert deal_event.for_viewer(0)["hands"][1] is None and deal_event.for_viewer(0)["hands"][0] is not None


def test_draws_come_from_the_front_and_are_hidden_from_others() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B, draws="9s")
    events = play(hand, "0 discard 7p")
    draw = of_kind(events, "draw")[0]
    assert (draw.seat, draw.tile, draw.from_back) == (1, Tile.S9, False)
    assert draw.for_viewer(1)["tile"] == "9s" and draw.for_viewer(2)["tile"] is None
    assert draw.public_json()["tile"] is None


def test_wall_must_be_the_84_tiles() -> None:
    with pytest.raises(TileError):
        HandState(wall=wall_from_seed("x")[:-1])
    bad = wall_from_seed("x")
    bad[0] = bad[1] if bad[0] != bad[1] else bad[2]
    with pytest.raises(TileError, match="four of each"):
        HandState(wall=bad)


def test_out_of_turn_and_not_held() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        hand.apply(Action(1, "discard", Tile.P1))
    with pytest.raises(IllegalAction, match="holds no 1p"):
        hand.apply(Action(0, "discard", Tile.P1))
    assert hand.step == 0


def test_dealer_first_turn_may_win() -> None:
    hand = deal("123p456p789s111s77z", "57899p23s555z666z", "46p234s567s888s9s7z")
    assert hand.drawn is None and Action(0, "hu") in hand.legal_actions(0)
    play(hand, "0 hu")
    # no drawn tile: the 天胡 is scored with the winning tile worth most — 5p of 456p, 卡五星
    assert hand.result.patterns[0] == ("kawuxing",)
    assert payments_json(hand) == [(1, 0, 2, "hu"), (2, 0, 2, "hu")]
    assert hand.result.self_draw and hand.result.next_dealer == 0


def test_a_dealer_win_with_equal_readings_is_on_the_lowest_tile() -> None:
    hand = deal("123p789p123s789s77z", "57899p23s555z666z", "46p234s567s888s9s7z")
    events = play(hand, "0 hu")  # every tile of a plain hand could be the last: each pays 1, the first counts
    assert [e.tile for e in events if e.kind == "hu"] == [Tile.P1]
    assert payments_json(hand) == [(1, 0, 1, "hu"), (2, 0, 1, "hu")]


SEVEN_PAIRS_6Z = "11p33p55p77s99s55z6z"  # six pairs and a lone 6z: 七对 on 6z
SEVEN_PAIRS_OTHER = "2p4p6p8p2s5s6s7s8s9s5s6s7s"


def test_seven_pairs_win_by_self_draw_and_on_a_discard() -> None:
    drawn = deal("123p456p789p1234s7z", SEVEN_PAIRS_6Z, SEVEN_PAIRS_OTHER, draws="6z")
    play(drawn, "0 discard 7z")
    assert Action(1, "hu") in drawn.legal_actions(1)
    play(drawn, "1 hu")
    assert drawn.result is not None and drawn.result.patterns[1] == ("qidui",)
    fed = deal("123p456p789p1234s6z", SEVEN_PAIRS_6Z, SEVEN_PAIRS_OTHER)
    play(fed, "0 discard 6z")
    assert fed.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]


# -- kongs and chains ----------------------------------------------------------------------------------
KONG_DEALER = "1111p9999s234p56s7z"  # two 暗杠 possible on the first turn
KONG_SEAT1 = "23468p78s111s66z5z"


def test_angang_then_second_angang_is_a_chain() -> None:
    hand = deal(KONG_DEALER, KONG_SEAT1, "4p6p234s567s888s5z5z", back="3s 8p")
    assert {a.tile for a in hand.legal_actions(0) if a.verb == "gang"} == {Tile.P1, Tile.S9}
    events = play(hand, "0 gang 1p")
    assert kinds(events) == ["gang", "draw"] and of_kind(events, "draw")[0].from_back
    assert of_kind(events, "gang")[0].for_viewer(1)["tile"] is None  # 暗杠 tile hidden from others
    events = play(hand, "0 gang 9s")
    assert of_kind(events, "gang")[0].chain == 2
    assert payments_json(hand) == [(1, 0, 2, "angang"), (2, 0, 2, "angang"), (1, 0, 4, "angang"), (2, 0, 4, "angang")]


def test_zhigang_of_the_discard_after_a_kong_continues_the_chain() -> None:
    # dealer 暗杠 1p, replacement 3s, discards 7z; seat 2 holds 777z and makes a 直杠 (second in the chain)
    hand = deal(KONG_DEALER, KONG_SEAT1, "4p6p234s568s5z5z777z", back="3s 6z")
    play(hand, "0 gang 1p", "0 discard 7z")
    assert hand.legal_actions(2) == [Action(2, "gang"), Action(2, "peng"), Action(2, "pass")]
    events = play(hand, "2 gang")
    gang = of_kind(events, "gang")[0]
    assert (gang.gang, gang.chain, gang.from_seat) == ("zhigang", 2, 0)
    assert payments_json(hand)[-1] == (0, 2, 4, "zhigang")
    assert hand.discards(0)[-1] == (Tile.RED, True)


def test_chain_ends_with_any_other_action() -> None:
    hand = deal(KONG_DEALER, KONG_SEAT1, "4p6p234s568s5z5z777z", draws="9p 2s 7p", back="3s")
    play(hand, "0 gang 1p", "0 discard 3s", "1 discard 9p", "2 discard 2s", "0 discard 7z", "2 gang")
    assert payments_json(hand)[-1] == (0, 2, 2, "zhigang")  # a fresh chain: first kong, × 1


@pytest.mark.parametrize(("pay", "amount"), [(2, 2), (1, 1)])
def test_zhigang_pay_option(pay: int, amount: int) -> None:
    hand = deal("13579p2468s5z6z7z1s3s", "2468p3579s5z6z246s", "777z123p456s789s1s",
                rules=RuleSet.preset("standard", zhigang_pay=pay))
    play(hand, "0 discard 7z", "2 gang")
    assert payments_json(hand) == [(0, 2, amount, "zhigang")]


def test_gangshangkaihua() -> None:
    hand = deal("1111p234p567s88s99s", KONG_SEAT1, "45679p23446s5z5z7z", back="9s")
    play(hand, "0 gang 1p")
    assert hand.drawn == Tile.S9 and Action(0, "hu") in hand.legal_actions(0)
    events = play(hand, "0 hu")
    win = of_kind(events, "hu")[0].winners[0]
    assert "gangshangkaihua" in win.patterns and win.fan == 2
    assert payments_json(hand) == [(1, 0, 2, "angang"), (2, 0, 2, "angang"), (1, 0, 2, "hu"), (2, 0, 2, "hu")]


def test_gangshangpao() -> None:
    # dealer 暗杠 1p, draws 3s, discards 7z; seat 1 waits on 7z alone
    hand = deal(KONG_DEALER, "234p567p123s456s7z", "4p6p234s568s666z5z5z", back="3s")
    play(hand, "0 gang 1p", "0 discard 7z", "1 hu")
    assert set(hand.result.patterns[1]) == {"gangshangpao"} and hand.result.fan[1] == 2
    assert payments_json(hand)[-1] == (0, 1, 2, "hu")


# -- the last tile -------------------------------------------------------------------------------------
def test_haidilao() -> None:
    hand = deal(DEALER, "1358p1368s2456s6z", WAIT_5P_B, back="5p")
    drain(hand, until=lambda h: h.wall_remaining == 0)
    assert hand.turn == 2 and hand.drawn == Tile.P5
    play(hand, "2 hu")
    assert set(hand.result.patterns[2]) == {"haidilao", "kawuxing"} and hand.result.fan[2] == 4


@pytest.mark.parametrize(("haidipao", "fan"), [(False, 2), (True, 4)])
def test_haidipao(haidipao: bool, fan: int) -> None:
    hand = deal(DEALER, WAIT_5P_A, "1358p1368s2456s6z", back="5p", rules=RuleSet.preset("standard", haidipao=haidipao))
    drain(hand, until=lambda h: h.wall_remaining == 0)
    assert hand.turn == 2 and hand.drawn == Tile.P5
    play(hand, "2 discard 5p")
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "pass")]
    play(hand, "1 hu")
    assert hand.result.fan[1] == fan and ("haidipao" in hand.result.patterns[1]) is haidipao


def test_huangzhuang_when_nobody_wins() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    events = drain(hand)
    assert kinds(events)[-3:] == ["huangzhuang", "reveal", "settlement"]
    assert hand.result.outcome == "draw" and hand.result.next_dealer == 0 and hand.result.net == (0, 0, 0)


# -- min_fan -------------------------------------------------------------------------------------------
PINGHU_WAIT = "123p456p789s11s77z"  # waits on 1s and 7z, 屁胡 either way


def test_min_fan_blocks_small_self_draw() -> None:
    for min_fan, offered in ((1, True), (2, False)):
        hand = deal(DEALER.replace("7z", "4s"), PINGHU_WAIT, "4p6p234s567s888s9s6z", draws="7z",
                    rules=RuleSet.preset("standard", min_fan=min_fan))
        play(hand, "0 discard 7p")
        assert (Action(1, "hu") in hand.legal_actions(1)) is offered


def test_min_fan_discard_blocks_small_discard_wins_only() -> None:
    rules = RuleSet.preset("standard", min_fan_discard=2)
    hand = deal(DEALER, PINGHU_WAIT, "4p6p234s567s888s9s5z", rules=rules)
    play(hand, "0 discard 7z")
    assert hand.legal_actions(1) == [Action(1, "peng"), Action(1, "pass")]  # no 胡: 1 fan < 2
    hand = deal(DEALER.replace("7z", "4s"), PINGHU_WAIT, "4p6p234s567s888s9s6z", draws="7z", rules=rules)
    play(hand, "0 discard 7p")
    assert Action(1, "hu") in hand.legal_actions(1)  # 自摸 needs only min_fan


def test_illegal_action_changes_nothing() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    before = (hand.step, hand.counts(0), hand.to_act(), len(hand.events))
    for bad in (Action(0, "peng"), Action(0, "hu"), Action(0, "pass"), Action(0, "gang", Tile.P5)):
        with pytest.raises(IllegalAction):
            hand.apply(bad)
    assert (hand.step, hand.counts(0), hand.to_act(), len(hand.events)) == before
    assert parse_tiles("5p")[0] in hand.concealed(0)
