"""kwx.engine.reads: who throws a declared hand's winning tiles, learned from what every seat saw."""

from __future__ import annotations

from kwx.engine.reads import FeedReads, FeedRecord, hand_feed_records
from kwx.engine.rules import RuleSet
from kwx.engine.table import TableState
from tests.support.hands import DEALER, JUNK_WITH_5P, WAIT_5P, build_wall, declared_hand, play


def test_feeding_a_declared_wait_is_on_the_feeders_record() -> None:
    hand = declared_hand()  # seat 1 declared, waiting on 5p; seat 2 holds a 5p
    play(hand, "2 discard 5p", "1 hu")
    dealer, declarer, feeder = hand_feed_records(hand.events)
    assert feeder.feeds == 1
    # one spot to feed: the live 5p among the tiles nobody had seen (4 copies, none shown)
    assert 0.04 < feeder.expected < 0.1
    assert (declarer.feeds, declarer.expected) == (0, 0.0)  # a declared hand's discards are not choices
    assert (dealer.feeds, dealer.expected) == (0, 0.0)  # it has not discarded since the 亮倒


def test_holding_a_declared_wait_back_counts_the_spot_but_no_feed() -> None:
    hand = declared_hand()
    play(hand, "2 discard 3p")
    record = hand_feed_records(hand.events)[2]
    assert record.feeds == 0 and record.expected > 0


def test_a_table_keeps_each_players_record_across_hands_and_seats() -> None:
    table = TableState(RuleSet.preset("standard"), first_dealer=0)
    for _ in range(2):
        hand = table.start_hand("0", wall=build_wall(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s 2p"))
        seated = table.seated
        d = hand.dealer
        play(hand, f"{d} discard 7p", f"{(d + 1) % 3} liangdao 3s", f"{(d + 2) % 3} discard 5p",
             f"{(d + 1) % 3} hu")
        feeder = seated[(d + 2) % 3]
        table.finish_hand(hand)
        assert table.reads.by_player[feeder].feeds >= 1
    known = table.reads.for_seats(table.seated)
    assert sum(feeds for feeds, _ in known.values()) == 2  # one feed in each hand, kept per player
    restored = TableState.from_json(table.to_json())
    assert restored.reads.for_seats(restored.seated) == known


def test_old_saved_tables_have_no_records() -> None:
    data = TableState(RuleSet.preset("standard"), first_dealer=0).to_json()
    del data["feed_reads"], data["balance_reads"]
    restored = TableState.from_json(data)
    assert restored.reads.by_player == {} and restored.balances.by_player == {}


def test_records_add_up() -> None:
    reads = FeedReads({0: FeedRecord(1, 0.5)})
    reads.by_player[0] = reads.by_player[0].plus(FeedRecord(2, 1.0))
    assert reads.for_seats((2, 0, 1)) == {1: (3, 1.5)}


def test_a_tables_balances_count_win_payments_received_against_paid() -> None:
    table = TableState(RuleSet.preset("standard"), first_dealer=0)
    hand = table.start_hand("0", wall=build_wall(DEALER, WAIT_5P, JUNK_WITH_5P, draws="3s 2p"))
    d = hand.dealer
    winner, feeder = (d + 1) % 3, (d + 2) % 3
    play(hand, f"{d} discard 7p", f"{winner} liangdao 3s", f"{feeder} discard 5p", f"{winner} hu")
    seated = table.seated
    table.finish_hand(hand)  # 包胡: the feeder alone pays, one win payment
    by_player = table.balances.by_player
    assert by_player[seated[winner]] == (1, 0, 1)
    assert by_player[seated[feeder]] == (1, 0, -1)
    assert by_player[seated[d]] == (1, 1, 0)  # the dealer paid nothing and is on record as the dealer
    restored = TableState.from_json(table.to_json())
    assert restored.balances.by_player == by_player
    restored.forget_player(seated[winner])  # someone else takes that seat: nothing is known of them
    assert seated[winner] not in restored.balances.by_player and seated[winner] not in restored.reads.by_player
