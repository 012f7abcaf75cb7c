"""Two processes (two Store objects on one database, each with its own connections) racing on the same money."""

from __future__ import annotations

import asyncio

from kwx.store import Store
from tests.support.players import GUILD


async def test_a_hand_finished_by_two_processes_at_once_is_recorded_once(store, table, hand, database, clock):
    other = await Store.open(database, clock=clock.utc)
    try:
        record = hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 8, "hu")], winners={"a": 8})
        results = await asyncio.gather(*(s.finish_hand(record) for _ in range(4) for s in (store, other)))
        assert results.count(True) == 1
        hand_id = await store.hand_id(table, 1)
        reversals = await asyncio.gather(*(s.reverse_hand(GUILD, hand_id, by="a", why="misdeal")
                                           for s in (store, other)), return_exceptions=True)
        assert sum(isinstance(r, list) for r in reversals) == 1
        assert [str(r) for r in reversals if isinstance(r, Exception)] == [f"hand {hand_id} was already reversed"]
    finally:
        await other.close()
    sheet = await store.balances(GUILD)
    assert {r.player: r.balance for r in sheet.rows} == {"a": 0, "b": 0, "c": 0} and sheet.hands == 0
    assert len(await store.entries(GUILD)) == 4  # two payments and their two reversals, nothing twice
