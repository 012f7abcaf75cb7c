"""Settle-up: transfers that square everyone, at most n-1 of them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kwx.store import settle_up
from tests.support.players import GUILD

balances_strategy = st.lists(st.integers(-10_000, 10_000), min_size=0, max_size=12).map(
    lambda amounts: {f"p{i}": amount for i, amount in enumerate([*amounts, -sum(amounts)])})


@settings(max_examples=300, deadline=None)
@given(balances_strategy)
def test_transfers_zero_every_balance_with_at_most_n_minus_1(balances):
    transfers = settle_up(balances)
    after = dict(balances)
    for t in transfers:
        assert t.amount > 0
        assert balances[t.from_player] < 0 < balances[t.to_player]  # debtors pay creditors, never the reverse
        after[t.from_player] += t.amount
        after[t.to_player] -= t.amount
    assert all(value == 0 for value in after.values())
    owing = sum(1 for value in balances.values() if value)
    assert len(transfers) <= max(owing - 1, 0)


def test_largest_debtor_pays_largest_creditor_first():
    transfers = settle_up({"a": 10, "b": 5, "c": -12, "d": -3})
    assert [t.to_json() for t in transfers] == [
        {"from": "c", "to": "a", "amount": 10}, {"from": "d", "to": "b", "amount": 3},
        {"from": "c", "to": "b", "amount": 2}]


def test_unbalanced_input_is_refused():
    with pytest.raises(ValueError):
        settle_up({"a": 1})


async def test_recording_the_settle_up_squares_the_server(store):
    for payer, payee, amount in [("a", "b", 7), ("c", "b", 3), ("d", "a", 11), ("b", "e", 2), ("e", "c", 9)]:
        await store.transfer(GUILD, payer, payee, amount, by=payer)
    transfers = await store.settle_up(GUILD)
    assert 0 < len(transfers) <= 4
    for t in transfers:
        await store.record_settlement(GUILD, payer=t.from_player, payee=t.to_player, amount=t.amount, by="bot")
    assert {r.balance for r in (await store.balances(GUILD)).rows} == {0}
    assert await store.settle_up(GUILD) == []
