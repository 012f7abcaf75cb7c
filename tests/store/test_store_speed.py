"""Balances and leaderboards read only the summary tables, and the benchmark still runs (small size). How fast
they are is the benchmark's to say (benchmarks/ledger.py: `ok` against its TARGET_MS), not the unit suite's."""

from __future__ import annotations

import json

import pytest

from benchmarks import ledger as bench
from tests.support.players import GUILD


@pytest.mark.sqlite_only  # reads SQLite's statement trace; the SQL is the same on PostgreSQL
async def test_balance_and_leaderboard_queries_never_read_the_ledger(store, table, hand):
    await store.finish_hand(hand(table, 1, [("b", "a", 8, "hu")], winners={"a": 8}))
    statements: list[str] = []
    on_writer: list[str] = []
    await store._reader.set_trace_callback(statements.append)  # reads go through the read connection
    await store._db.set_trace_callback(on_writer.append)
    try:
        await store.balance(GUILD, "a")
        await store.balances(GUILD)
        await store.settle_up(GUILD)
        for period in ("all", "month", "week"):
            await store.leaderboard(GUILD, period)
    finally:
        await store._reader.set_trace_callback(None)
        await store._db.set_trace_callback(None)
    assert statements and not [s for s in statements if "ledger_entries" in s or "hand_seats" in s]
    assert on_writer == []


def test_benchmark_reports_the_documented_keys(capsys):
    code = bench.main(["--entries", "3000", "--players", "10", "--runs", "3", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["entries"] == 3000 and result["balances_correct"] is True
    assert set(result["leaderboard_period_ms"]) == {"all", "month", "week"}
    assert result["leaderboard_ms"] >= 0 and result["balance_ms"] >= 0 and result["target_ms"] == bench.TARGET_MS
    assert code == (0 if result["ok"] else 1)  # `ok`: correct and within the target, on this machine
