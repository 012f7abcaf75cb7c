"""The facts a player is told before a move (kwx.table.advice), read from the engine's own payments: what a
costly discard costs and who gains, and what a 自摸 would win."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from kwx.table.advice import FEED_KONG, FEED_WIN, Gain, MoveWarning, move_warnings, warning_for, zimo_gain
from tests.support.hands import READY_9S, declared_hand, play


def offered(hand, seat):
    return [(a.verb, a.tile) for a in hand.legal_actions(seat)]


def test_an_undeclared_discard_that_feeds_a_declared_hand_is_baohu_at_the_engines_price() -> None:
    hand = declared_hand()  # seat 1 laid down waiting on 5p; seat 2 holds a 5p
    warnings = move_warnings(hand, 2, offered(hand, 2))
    assert warnings == (MoveWarning("discard", Tile.P5, FEED_WIN, (Gain(1, 8),), baohu=True),)
    assert warnings[0].cost == 8 and warnings[0].seats == (1,)
    play(hand, "2 discard 5p", "1 hu")  # what the ledger then charges
    assert [(p.from_seat, p.to_seat, p.amount, p.reason) for p in hand.payments] == [(2, 1, 8, "baohu")]


def test_a_liangdao_discard_that_feeds_a_declared_hand_is_an_ordinary_win() -> None:
    hand = declared_hand(READY_9S, draws="3s 5p")  # seat 2 may lay down discarding 5p, which wins for seat 1
    warnings = move_warnings(hand, 2, offered(hand, 2))
    assert warning_for(warnings, "liangdao", Tile.P5) == MoveWarning("liangdao", Tile.P5, FEED_WIN, (Gain(1, 4),))
    assert warning_for(warnings, "discard", Tile.P5) == MoveWarning("discard", Tile.P5, FEED_WIN, (Gain(1, 8),),
                                                                     baohu=True)
    assert warning_for(warnings, "discard", Tile.S9) is None


def test_a_discard_a_declared_hand_may_kong_costs_its_kong_money() -> None:
    hand = declared_hand("35p347s258s69s5z6z1s")  # seat 1 shows 111s; seat 2 holds the fourth
    kong = warning_for(move_warnings(hand, 2, offered(hand, 2)), "discard", Tile.S1)
    assert kong == MoveWarning("discard", Tile.S1, FEED_KONG, (Gain(1, 2),))


def test_nothing_is_warned_off_turn_or_with_nobody_declared() -> None:
    hand = declared_hand()
    assert move_warnings(hand, 0, offered(hand, 2)) == ()  # not seat 0's turn
    assert move_warnings(hand, 1, offered(hand, 2)) == ()  # nor the declared seat's own


def test_what_a_zimo_would_win() -> None:
    hand = declared_hand(draws="3s 2p 9p 5p")
    play(hand, "2 discard 2p", "0 discard 9p")  # seat 1 draws its winning 5p
    assert zimo_gain(hand, 1) == 8 and zimo_gain(hand, 0) is None
    play(hand, "1 hu")
    assert sum(p.amount for p in hand.payments if p.to_seat == 1) == 8


def test_what_a_zimo_would_win_leaves_maima_out() -> None:
    hand = declared_hand(draws="3s 2p 9p 5p", maima=True)
    play(hand, "2 discard 2p", "0 discard 9p")  # seat 1 draws its winning 5p
    gain = zimo_gain(hand, 1)
    play(hand, "1 hu")
    won = [p for p in hand.payments if p.to_seat == 1]
    maima = sum(p.amount for p in won if p.reason == "maima")
    assert maima > 0  # the tile turned over after the win pays too, but it is still in the wall when asked
    assert gain == sum(p.amount for p in won) - maima == 8


def test_one_warning_per_move_however_often_it_is_offered() -> None:
    hand = declared_hand()
    once = move_warnings(hand, 2, offered(hand, 2))
    assert len(once) == 1 and move_warnings(hand, 2, [*offered(hand, 2), *offered(hand, 2)]) == once
