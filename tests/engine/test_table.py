"""docs/rules.md §2 and §9: a sequence of hands — dealer succession, 上楼, rotation, running net."""

from __future__ import annotations

import random

import pytest

from kwx.engine.rules import RuleSet
from kwx.engine.table import LEGACY_MAX_SHANGLOU_LEVEL, TableState
from kwx.engine.wall import dice_from_seed
from tests.support.hands import build_wall, choose, drain, play

DEALER = "57899p23s555z666z7z"
WAIT_5P_A = "12346p789s111s77z"
WAIT_5P_B = "46p234s567s888s99s"
JUNK = "35p347s258s69s5z6z7z"
PLAIN_DICE = "0"  # a seed whose dice differ
DOUBLE_DICE = "1"  # a seed whose dice match


def seat_after(table: TableState, k: int) -> int:
    return (table.dealer_seat + k) % 3


def test_seeds_used_here() -> None:
    assert dice_from_seed(PLAIN_DICE)[0] != dice_from_seed(PLAIN_DICE)[1]
    assert dice_from_seed(DOUBLE_DICE)[0] == dice_from_seed(DOUBLE_DICE)[1]


def test_winner_deals_next_and_net_accumulates() -> None:
    table = TableState(RuleSet.preset("standard"), first_dealer=0)
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    play(hand, "0 discard 5p", "1 hu")
    record = table.finish_hand(hand)
    assert table.dealer == 1 and record.net == {0: -2, 1: 2, 2: 0} and table.net == [-2, 2, 0]
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    assert hand.dealer == 1  # seat 1 deals: it got the dealer's 14
    d, n = seat_after(table, 0), seat_after(table, 1)
    play(hand, f"{d} discard 5p", f"{n} hu")
    table.finish_hand(hand)
    assert table.dealer == n == 2 and table.net == [-2, 0, 2]
    assert sum(table.net) == 0 and table.hands_played == 2


def test_double_win_discarder_deals_next() -> None:
    table = TableState(RuleSet.preset("standard"), first_dealer=0)
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, WAIT_5P_B))
    play(hand, "0 discard 5p", "1 hu", "2 hu")
    table.finish_hand(hand)
    assert table.dealer == 0


@pytest.mark.parametrize(("draw_dealer", "expected"), [("stay", 0), ("first_liangdao", 1)])
def test_dealer_after_huangzhuang(draw_dealer: str, expected: int) -> None:
    table = TableState(RuleSet.preset("standard", draw_dealer=draw_dealer), first_dealer=0)
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK, draws="3s"))
    play(hand, "0 discard 7p", "1 liangdao 3s")
    drain(hand)
    table.finish_hand(hand)
    assert table.dealer == expected


def test_shanglou_doubles_after_huangzhuang_and_double_win_and_matching_dice() -> None:
    table = TableState(RuleSet.preset("shiyan"), first_dealer=0)
    assert table.base_multiplier(PLAIN_DICE) == 1 and table.base_multiplier(DOUBLE_DICE) == 2
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    drain(hand)  # 荒庄
    table.finish_hand(hand)
    assert table.base_multiplier(PLAIN_DICE) == 2 and table.base_multiplier(DOUBLE_DICE) == 4
    hand = table.start_hand(DOUBLE_DICE, wall=build_wall(DEALER, WAIT_5P_A, WAIT_5P_B))
    assert hand.base == 4  # both doublings stack
    play(hand, "0 discard 5p", "1 hu", "2 hu")  # 一炮双响: the next hand is doubled, not doubled again
    assert [p.amount for p in hand.result.payments] == [8, 8]
    table.finish_hand(hand)
    assert table.base_multiplier(PLAIN_DICE) == 2
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    play(hand, "0 discard 5p", "1 hu")  # an ordinary win comes back down
    table.finish_hand(hand)
    assert table.base_multiplier(PLAIN_DICE) == 1


def draw_with_a_declarer(table: TableState, seed: str) -> None:
    """A hand in which seat 1 lays down and the wall runs out: seat 1 pays the others 1 × base each."""
    hand = table.start_hand(seed, wall=build_wall(DEALER, WAIT_5P_A, JUNK, draws="3s"))
    play(hand, "0 discard 7p", "1 liangdao 3s")
    drain(hand)
    assert hand.result.end == "huangzhuang"
    table.finish_hand(hand)


def test_shanglou_two_draws_and_a_dice_pair_play_at_four_not_eight() -> None:
    """The text: "当出现一炮双响，或荒庄时，下局结算的底分x2；…若两粒骰子的点数相同，则本局结算的底分x2"."""
    table = TableState(RuleSet.preset("shiyan"), first_dealer=0)
    draw_with_a_declarer(table, PLAIN_DICE)  # at × 1
    draw_with_a_declarer(table, PLAIN_DICE)  # at × 2: after one draw
    assert [r.base for r in table.history] == [1, 2]
    assert table.net == [3, -6, 3]  # seat 1 paid 1 × base to each, then 2 × base
    hand = table.start_hand(DOUBLE_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    assert hand.base == 4  # after two draws: × 2 once, × 2 for the dice
    play(hand, "0 discard 5p", "1 hu")  # 卡五星, 2 fan
    table.finish_hand(hand)
    assert table.history[-1].net == {0: -8, 1: 8, 2: 0}
    assert table.net == [-5, 2, 3]


def test_three_draws_in_a_row_double_each_next_hand_once() -> None:
    table = TableState(RuleSet.preset("shiyan"), first_dealer=0)
    for _ in range(3):
        draw_with_a_declarer(table, PLAIN_DICE)
    assert [r.base for r in table.history] == [1, 2, 2]
    assert table.base_multiplier(PLAIN_DICE) == 2 and table.base_multiplier(DOUBLE_DICE) == 4


def test_shanglou_after_a_forbid_feeding_ending_the_next_hand_is_not_doubled() -> None:
    """Nobody won, but the wall did not run out either: no 荒庄, so nothing doubles the next hand."""
    table = TableState(RuleSet.preset("shiyan", forbid_feeding=True), first_dealer=0)
    draw_with_a_declarer(table, PLAIN_DICE)
    hand = table.start_hand(PLAIN_DICE, wall=build_wall("1357s2468s9s55z6z77z", "1112345678999p",
                                                        "2234455667788p", draws="9s 1p"))
    assert hand.base == 2
    play(hand, "0 discard 9s", "1 liangdao 9s")
    assert hand.result.end == "forbid_feeding"
    table.finish_hand(hand)
    assert table.base_multiplier(PLAIN_DICE) == 1


def test_tables_of_edition_1_keep_climbing() -> None:
    """A table that dealt before the fix (pinned to edition 1 in the store) plays on as it began."""
    table = TableState(RuleSet.from_json({"preset": "shiyan", "options": {}, "edition": 1}), first_dealer=0)
    for level in range(LEGACY_MAX_SHANGLOU_LEVEL + 2):
        assert table.base_multiplier(PLAIN_DICE) == 2 ** min(level, LEGACY_MAX_SHANGLOU_LEVEL)
        draw_with_a_declarer(table, PLAIN_DICE)
    assert table.base_multiplier(PLAIN_DICE) == 8 and table.base_multiplier(DOUBLE_DICE) == 16
    restored = TableState.from_json(table.to_json())
    assert restored.rules.edition == 1 and restored.base_multiplier(PLAIN_DICE) == 8


def test_a_table_saved_while_climbing_loads_doubled_once() -> None:
    table = TableState(RuleSet.preset("shiyan"), first_dealer=0)
    saved = {**table.to_json(), "shanglou_level": 3}  # written by an engine that let 上楼 climb
    assert TableState.from_json(saved).base_multiplier(PLAIN_DICE) == 2


def test_no_shanglou_without_the_option() -> None:
    table = TableState(RuleSet.preset("standard"), first_dealer=0)
    hand = table.start_hand(DOUBLE_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    assert hand.base == 1


def test_rotation_winner_sits_out_and_the_waiting_player_deals() -> None:
    table = TableState(RuleSet.preset("standard", rotation=True), first_dealer=2)
    assert table.n_players == 4 and table.seated == (2, 0, 1) and table.waiting == 3
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    assert hand.dealer == 0  # player 2 sits in seat 0
    play(hand, "0 discard 5p", "1 hu")  # seat 1 = player 0 wins
    record = table.finish_hand(hand)
    assert record.net == {2: -2, 0: 2, 1: 0}
    assert table.seated == (2, 3, 1) and table.waiting == 0 and table.dealer == 3 and table.dealer_seat == 1
    assert table.net == [2, 0, -2, 0]


def test_rotation_nobody_moves_after_huangzhuang_or_double_win() -> None:
    table = TableState(RuleSet.preset("standard", rotation=True), first_dealer=0)
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, WAIT_5P_B))
    play(hand, "0 discard 5p", "1 hu", "2 hu")
    table.finish_hand(hand)
    assert table.seated == (0, 1, 2) and table.waiting == 3 and table.dealer == 0
    hand = table.start_hand(PLAIN_DICE, wall=build_wall(DEALER, WAIT_5P_A, JUNK))
    drain(hand)
    table.finish_hand(hand)
    assert table.seated == (0, 1, 2) and table.waiting == 3 and table.dealer == 0


def test_players_must_match_rotation() -> None:
    with pytest.raises(ValueError):
        TableState(RuleSet.preset("standard"), players=4)
    with pytest.raises(ValueError):
        TableState(RuleSet.preset("standard", rotation=True), players=3)


def test_piao_picks_by_player_and_hand_cycle_checks() -> None:
    table = TableState(RuleSet.preset("standard", piao=3, rotation=True), first_dealer=0)
    hand = table.start_hand("x", piao_picks={0: 1, 1: 2, 2: 3, 3: 0})
    assert hand.piao == (1, 2, 3)
    with pytest.raises(ValueError):
        table.start_hand("y")
    with pytest.raises(ValueError):
        table.finish_hand(hand)  # not finished yet


def test_random_tables_keep_books_straight() -> None:
    rng = random.Random(7)
    for rules in (RuleSet.preset("standard"), RuleSet.preset("shiyan", rotation=True), RuleSet.preset("online-3d")):
        table = TableState(rules, first_dealer=rng.randrange(4 if rules.rotation else 3))
        for k in range(15):
            hand = table.start_hand(f"seed{k}", piao_picks=[rng.randint(0, rules.piao or 0) for _ in range(3)])
            while not hand.finished:
                hand.apply(choose(rng, hand.legal_actions(min(hand.to_act()))))
            result = hand.result
            before = table.seated
            table.finish_hand(hand)
            assert sum(table.net) == 0
            if not rules.rotation or result.outcome != "win" or result.double_win:
                assert table.dealer == before[result.next_dealer]
        assert table.hands_played == 15
        restored = TableState.from_json(table.to_json())
        assert restored.to_json() == table.to_json()
