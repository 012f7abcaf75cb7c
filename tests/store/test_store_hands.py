"""Finishing a hand: one transaction, idempotent, money that adds up."""

from __future__ import annotations

import pytest

from kwx.store import LedgerPayment, NotFound, payments_from_seats
from kwx.store.summaries import SummaryChanges
from tests.support.players import GUILD

DISCARD_WIN = [("b", "a", 8, "hu"), ("c", "a", 2, "angang"), ("b", "a", 2, "angang")]


async def _balances(store, guild=GUILD):
    return {row.player: row.balance for row in (await store.balances(guild)).rows}


async def test_finishing_twice_records_once(store, table, hand):
    record = hand(table, 1, DISCARD_WIN, winners={"a": 4})
    assert await store.finish_hand(record) is True
    assert await store.finish_hand(record) is False
    sheet = await store.balances(GUILD)
    assert sheet.hands == 1
    assert {r.player: (r.balance, r.hands) for r in sheet.rows} == {"a": (12, 1), "b": (-10, 1), "c": (-2, 1)}
    assert len(await store.entries(GUILD)) == 3
    assert len(await store.history(GUILD, "a")) == 1
    assert await store.hand_id(table, 1) is not None and await store.hand_id(table, 2) is None
    assert await store.hand_numbers(table) == [1]


async def test_a_failure_inside_the_transaction_leaves_nothing(store, table, hand, monkeypatch):
    async def explode(self, db, guild):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(SummaryChanges, "write", explode)  # fails after the hand and its entries were inserted
    with pytest.raises(RuntimeError):
        await store.finish_hand(hand(table, 1, DISCARD_WIN, winners={"a": 4}))
    monkeypatch.undo()
    assert await store.hand_id(table, 1) is None
    assert await store.entries(GUILD) == []
    assert await _balances(store) == {}
    # The same hand can still be recorded afterwards.
    assert await store.finish_hand(hand(table, 1, DISCARD_WIN, winners={"a": 4})) is True
    assert await _balances(store) == {"a": 12, "b": -10, "c": -2}


@pytest.mark.parametrize(("payments", "kwargs", "message"), [
    (DISCARD_WIN, {"nets": {"a": 12, "b": -10, "c": -1}}, "sum to zero"),
    (DISCARD_WIN, {"nets": {"a": 11, "b": -10, "c": -1}}, "payments come to"),
    ([("b", "a", 2.5, "hu")], {}, "ints"),
    ([("b", "a", -3, "hu")], {}, "non-negative"),
    ([("b", "z", 3, "hu")], {}, "not seated"),
    ([("b", "a", 3, "tip")], {}, "reason"),
    ([("a", "a", 3, "hu")], {}, "themselves"),
])
async def test_inconsistent_hands_are_refused_and_change_nothing(store, table, hand, payments, kwargs, message):
    with pytest.raises(ValueError, match=message):
        await store.finish_hand(hand(table, 1, payments, winners={"a": 4}, **kwargs))
    assert await store.hand_id(table, 1) is None
    assert await _balances(store) == {}


async def test_given_nets_that_add_up_are_accepted(store, table, hand):
    assert await store.finish_hand(hand(table, 1, DISCARD_WIN, winners={"a": 4}, nets={"a": 12, "b": -10, "c": -2}))


async def test_a_hand_of_another_server_or_unknown_table_is_refused(store, table, hand):
    with pytest.raises(ValueError, match="another server"):
        await store.finish_hand(hand(table, 1, DISCARD_WIN, winners={"a": 4}, guild="g2"))
    with pytest.raises(NotFound):
        await store.finish_hand(hand(table + 1, 1, DISCARD_WIN, winners={"a": 4}))


async def test_deal_ins_are_derived_from_who_paid_a_discard_win(store, table, hand):
    await store.finish_hand(hand(table, 1, DISCARD_WIN, winners={"a": 4}))  # b discarded
    await store.finish_hand(hand(table, 2, [("b", "c", 4, "hu"), ("a", "c", 4, "hu")], winners={"c": 4},
                                 self_draw="c"))  # a self-draw: nobody dealt in
    await store.finish_hand(hand(table, 3, [("a", "b", 16, "baohu")], winners={"b": 8}, liangdao="b"))
    await store.finish_hand(hand(table, 4, [("c", "a", 2, "hu"), ("c", "b", 2, "hu")], winners={"a": 2, "b": 2}))
    by_hand = {(h.hand_no, p): h.dealt_in for p in "abc" for h in await store.history(GUILD, p)}
    assert [p for p in "abc" if by_hand[1, p]] == ["b"]
    assert [p for p in "abc" if by_hand[2, p]] == []
    assert [p for p in "abc" if by_hand[3, p]] == ["a"]
    assert [p for p in "abc" if by_hand[4, p]] == ["c"]  # one deal-in for a double win


async def test_draw_without_payments_counts_a_hand(store, table, hand):
    assert await store.finish_hand(hand(table, 1, []))
    sheet = await store.balances(GUILD)
    assert sheet.hands == 1 and all(r.hands == 1 and r.balance == 0 for r in sheet.rows)
    (h,) = await store.history(GUILD, "a")
    assert h.outcome == "draw" and h.winners == []


async def test_manual_hands_are_numbered_and_name_who_recorded_them(store, hand):
    first = await store.record_manual_hand(hand(None, 0, [("b", "a", 3, "hu")], winners={"a": 3}, created_by="d"))
    second = await store.record_manual_hand(hand(None, 0, [("a", "b", 1, "hu")], winners={"b": 1}, created_by="d"))
    assert first != second
    assert [h.hand_no for h in await store.history(GUILD, "a")] == [2, 1]
    assert {e.created_by for e in await store.entries(GUILD)} == {"d"}
    assert await _balances(store) == {"a": 2, "b": -2, "c": 0}
    with pytest.raises(ValueError, match="created_by"):
        await store.record_manual_hand(hand(None, 0, [], created_by=None))


def test_engine_payments_by_seat_become_player_payments():
    class SeatPayment:
        def __init__(self, from_seat, to_seat, amount, reason):
            self.from_seat, self.to_seat, self.amount, self.reason = from_seat, to_seat, amount, reason

    assert payments_from_seats([SeatPayment(2, 0, 4, "hu")], ["x", "y", "z"]) == [LedgerPayment("z", "x", 4, "hu")]
