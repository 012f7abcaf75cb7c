"""docs/rules.md §8 and the money options of §10: who pays whom, checked as functions and through played hands."""

from __future__ import annotations

import pytest

from kwx.engine.payments import (
    Payment,
    WinShare,
    chajiao_payments,
    check_payments,
    draw_liangdao_payments,
    forbid_feeding_payments,
    is_baohu,
    kong_payments,
    maima_value,
    net,
    win_payments,
)
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile
from tests.support.hands import deal, drain, of_kind, payments_json, play

STANDARD = RuleSet.preset("standard")


def rows(pays: list[Payment]) -> list[tuple[int, int, int, str]]:
    return [(p.from_seat, p.to_seat, p.amount, p.reason) for p in pays]


# -- as functions ---------------------------------------------------------------------------------------
def test_self_draw_each_other_pays() -> None:
    pays = win_payments([WinShare(1, 4, False)], self_draw=True, payer=None, payer_declared=False, base=2,
                        piao=(0, 0, 0))
    assert rows(pays) == [(0, 1, 8, "hu"), (2, 1, 8, "hu")]


def test_discard_win_discarder_pays_and_baohu_doubles() -> None:
    plain = win_payments([WinShare(2, 4, False)], self_draw=False, payer=0, payer_declared=False, base=1,
                         piao=(0, 0, 0))
    assert rows(plain) == [(0, 2, 4, "hu")]
    baohu = win_payments([WinShare(2, 4, True)], self_draw=False, payer=0, payer_declared=False, base=1,
                         piao=(0, 0, 0))
    assert rows(baohu) == [(0, 2, 8, "baohu")]
    both = win_payments([WinShare(2, 4, True)], self_draw=False, payer=0, payer_declared=True, base=1,
                        piao=(0, 0, 0))
    assert rows(both) == [(0, 2, 4, "hu")]
    assert is_baohu(True, False) and not is_baohu(True, True) and not is_baohu(False, False)


def test_double_win_pays_each_winner_separately() -> None:
    pays = win_payments([WinShare(1, 2, False), WinShare(2, 8, True)], self_draw=False, payer=0,
                        payer_declared=False, base=1, piao=(0, 0, 0))
    assert rows(pays) == [(0, 1, 2, "hu"), (0, 2, 16, "baohu")]


def test_piao_adds_both_picks_per_win_payment() -> None:
    pays = win_payments([WinShare(1, 1, False)], self_draw=True, payer=None, payer_declared=False, base=2,
                        piao=(1, 2, 0))
    assert rows(pays) == [(0, 1, 2, "hu"), (0, 1, 6, "piao"), (2, 1, 2, "hu"), (2, 1, 4, "piao")]


def test_maima_adds_to_each_self_draw_payment() -> None:
    assert maima_value(Tile.P7) == 7 and maima_value(Tile.S1) == 1 and maima_value(Tile.WHITE) == 10
    pays = win_payments([WinShare(0, 2, False)], self_draw=True, payer=None, payer_declared=False, base=1,
                        piao=(0, 0, 0), maima=10)
    assert rows(pays) == [(1, 0, 2, "hu"), (1, 0, 10, "maima"), (2, 0, 2, "hu"), (2, 0, 10, "maima")]


@pytest.mark.parametrize(("kind", "chain", "expected"), [
    ("angang", 1, [(1, 0, 2, "angang"), (2, 0, 2, "angang")]),
    ("angang", 2, [(1, 0, 4, "angang"), (2, 0, 4, "angang")]),
    ("bugang", 1, [(1, 0, 1, "bugang"), (2, 0, 1, "bugang")]),
    ("bugang", 3, [(1, 0, 4, "bugang"), (2, 0, 4, "bugang")]),
    ("zhigang", 1, [(2, 0, 2, "zhigang")]),
    ("zhigang", 2, [(2, 0, 4, "zhigang")]),
])
def test_kong_money_and_chains(kind: str, chain: int, expected: list) -> None:
    assert rows(kong_payments(kind, 0, from_seat=2, chain=chain, base=1, rules=STANDARD)) == expected


def test_kong_money_scales_with_base_and_zhigang_pay() -> None:
    rules = RuleSet.preset("standard", zhigang_pay=1)
    assert rows(kong_payments("zhigang", 1, from_seat=0, chain=1, base=5, rules=rules)) == [(0, 1, 5, "zhigang")]


def test_draw_liangdao_penalties() -> None:
    each = RuleSet.preset("standard")
    first = RuleSet.preset("standard", draw_liangdao_penalty="first")
    assert rows(draw_liangdao_payments([2], base=1, rules=each)) == [(2, 0, 1, "draw_liangdao"),
                                                                     (2, 1, 1, "draw_liangdao")]
    assert rows(draw_liangdao_payments([2, 0], base=3, rules=each)) == [(2, 1, 3, "draw_liangdao"),
                                                                        (0, 1, 3, "draw_liangdao")]
    assert rows(draw_liangdao_payments([2, 0], base=1, rules=first)) == [(2, 0, 1, "draw_liangdao"),
                                                                         (2, 1, 1, "draw_liangdao")]
    assert draw_liangdao_payments([0, 1, 2], base=1, rules=each) == []
    assert rows(draw_liangdao_payments([1, 2, 0], base=2, rules=first)) == [(1, 0, 2, "draw_liangdao"),
                                                                            (1, 2, 2, "draw_liangdao")]
    first_edition_1 = RuleSet.from_json({**first.to_json(), "edition": 1})  # a table that dealt before the fix
    assert draw_liangdao_payments([0, 1, 2], base=1, rules=first_edition_1) == []


def test_chajiao_and_forbid_feeding() -> None:
    assert rows(chajiao_payments({1: 4, 2: 2}, base=1)) == [(0, 1, 4, "chajiao"), (0, 2, 2, "chajiao")]
    assert chajiao_payments({0: 1, 1: 1, 2: 1}, base=1) == []
    assert rows(forbid_feeding_payments(0, {2: 8, 1: 4}, base=2)) == [(0, 1, 8, "forbid_feeding"),
                                                                      (0, 2, 16, "forbid_feeding")]


def test_net_and_zero_sum() -> None:
    pays = [Payment(0, 1, 5, "hu"), Payment(2, 1, 3, "piao")]
    assert net(pays) == [-5, 8, -3]
    check_payments(pays)
    with pytest.raises(AssertionError):
        check_payments([Payment(0, 0, 5, "hu")])
    assert Payment.from_json(pays[0].to_json()) == pays[0]


# -- through hands -------------------------------------------------------------------------------------
DEALER = "57899p23s555z666z7z"
WAIT_5P = "12346p789s111s77z"  # 卡五星; 111s is a concealed triplet
JUNK = "35p347s258s69s5z6z7z"


def self_draw_hand(rules: RuleSet, back: str = "", piao=(0, 0, 0)):
    """Seat 1 draws 5p at once and wins by 自摸 (卡五星, 2 fan)."""
    hand = deal(DEALER, WAIT_5P, JUNK, draws="5p", back=back, rules=rules, piao=piao)
    play(hand, "0 discard 7p", "1 hu")
    return hand


def test_piao_in_a_played_hand() -> None:
    hand = self_draw_hand(RuleSet.preset("standard", piao=3), piao=(1, 2, 3))
    assert payments_json(hand) == [(0, 1, 2, "hu"), (0, 1, 3, "piao"), (2, 1, 2, "hu"), (2, 1, 5, "piao")]
    assert hand.events[0].piao == (1, 2, 3)


def test_piao_picks_are_checked() -> None:
    with pytest.raises(ValueError, match="漂"):
        deal(DEALER, WAIT_5P, JUNK, piao=(0, 4, 0), rules=RuleSet.preset("standard", piao=3))
    with pytest.raises(ValueError, match="漂"):
        deal(DEALER, WAIT_5P, JUNK, piao=(0, 1, 0))


def test_maima_in_a_played_hand() -> None:
    hand = self_draw_hand(RuleSet.preset("standard", maima=True), back="9s")
    maima = of_kind(hand.events, "maima")[0]
    assert maima.tile == Tile.S9 and maima.value == 9
    assert payments_json(hand) == [(0, 1, 2, "hu"), (0, 1, 9, "maima"), (2, 1, 2, "hu"), (2, 1, 9, "maima")]


def test_no_maima_on_a_discard_win() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK, draws="3s 2p", rules=RuleSet.preset("standard", maima=True))
    play(hand, "0 discard 5p", "1 hu")
    assert payments_json(hand) == [(0, 1, 2, "hu")] and not of_kind(hand.events, "maima")


def test_shukan_counts_concealed_triplets_after_the_cap() -> None:
    hand = self_draw_hand(RuleSet.preset("standard", shukan=True, fan_cap=1))
    assert hand.result.fan[1] == 1 + 1  # capped at 1, then +1 for the concealed 111s
    assert payments_json(hand) == [(0, 1, 2, "hu"), (2, 1, 2, "hu")]


def test_base_multiplies_every_amount() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK, draws="5p", rules=RuleSet.preset("standard", base=5), base_multiplier=2)
    play(hand, "0 discard 7p", "1 hu")
    assert payments_json(hand) == [(0, 1, 20, "hu"), (2, 1, 20, "hu")]


def test_draw_chajiao_at_huangzhuang() -> None:
    rules = RuleSet.preset("standard", draw_chajiao=True)
    hand = deal(DEALER, WAIT_5P, JUNK, rules=rules)
    drain(hand)
    assert hand.result.end == "huangzhuang"
    assert hand.best_ready_fan(1) == 2 and hand.best_ready_fan(0) == 0 and hand.best_ready_fan(2) == 0
    assert payments_json(hand) == [(0, 1, 2, "chajiao"), (2, 1, 2, "chajiao")]


def test_no_chajiao_without_the_option() -> None:
    hand = deal(DEALER, WAIT_5P, JUNK)
    drain(hand)
    assert hand.result.payments == ()
