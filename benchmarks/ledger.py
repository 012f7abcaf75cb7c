"""Ledger query speed on a big ledger: `python -m benchmarks.ledger [--entries N] [--json]`.

Builds a temporary database with N ledger entries (default 1,000,000) among ~50 players of one server spread
over a year, through the store's bulk path (`Store.import_entries`, which also fills the summary tables), then
times the queries the front ends call most: the leaderboard for each period and balances (median of several
runs, milliseconds). The target is ≤ 50 ms each. Also times one `finish_hand` on the big database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kwx.store import LedgerEntry, LedgerHand, LedgerPayment, SeatResult, Store

GUILD = "bench"
START = datetime(2025, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=365)
NOW = START + SPAN - timedelta(days=10)  # a Monday-to-Sunday week and a month well inside the data
TARGET_MS = 50.0
# Roughly how often each reason appears in play.
REASONS = [("hu", 60), ("baohu", 4), ("angang", 8), ("bugang", 6), ("zhigang", 6), ("piao", 6), ("maima", 5),
           ("draw_liangdao", 2), ("chajiao", 1), ("settlement", 1), ("pay", 1)]


def generate(entries: int, players: int, seed: int) -> list[LedgerEntry]:
    rng = random.Random(seed)
    names = [f"{100000000000000000 + i * 7919}" for i in range(players)]  # snowflake-like ids
    reasons = rng.choices([r for r, _ in REASONS], [w for _, w in REASONS], k=entries)
    step = SPAN / entries
    out = []
    for i in range(entries):
        payer, payee = rng.sample(names, 2)
        out.append(LedgerEntry(id=None, guild=GUILD, from_player=payer, to_player=payee,
                               amount=rng.choice((1, 2, 2, 4, 4, 8, 16, 32)), reason=reasons[i],
                               created_at=START + step * i))
    return out


async def build(path: Path, entries: int, players: int, seed: int, chunk: int = 200_000) -> dict[str, Any]:
    data = generate(entries, players, seed)
    expected = Counter()
    for e in data:
        expected[e.to_player] += e.amount
        expected[e.from_player] -= e.amount
    started = time.perf_counter()
    async with await Store.open(path) as store:
        for i in range(0, len(data), chunk):
            await store.import_entries(GUILD, data[i:i + chunk])
        for player in list(expected)[:players]:
            await store.set_player_name(GUILD, player, f"Player {player[-4:]}")
    elapsed = time.perf_counter() - started
    return {"build_s": round(elapsed, 2), "expected": expected}


async def _median_ms(call, runs: int) -> float:
    await call()  # warm the page cache and the statement cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


async def measure(path: Path, expected: Counter, runs: int) -> dict[str, Any]:
    async with await Store.open(path) as store:
        players = sorted(expected)
        per_period = {}
        for period in ("all", "month", "week"):
            per_period[period] = await _median_ms(lambda p=period: store.leaderboard(GUILD, p, now=NOW), runs)
        balance_ms = await _median_ms(lambda: store.balance(GUILD, random.choice(players)), runs)
        balances_ms = await _median_ms(lambda: store.balances(GUILD), runs)
        settle_ms = await _median_ms(lambda: store.settle_up(GUILD), runs)
        # The numbers must also be right: every balance as summed in Python, and sums to zero.
        sheet = await store.balances(GUILD)
        correct = {r.player: r.balance for r in sheet.rows} == dict(expected) and sum(expected.values()) == 0
        a, b, c = players[:3]
        table = await store.create_table(GUILD, rules={}, seed="bench", seats=[])
        hand_no = iter(range(1, 10_000))

        async def one_hand() -> None:
            await store.finish_hand(LedgerHand(
                GUILD, table, next(hand_no), seats=[SeatResult(a, 0, won=True, fan=4), SeatResult(b, 1),
                                                    SeatResult(c, 2)],
                payments=[LedgerPayment(b, a, 4, "hu"), LedgerPayment(c, b, 2, "angang")], at=NOW))

        finish_ms = await _median_ms(one_hand, runs)
        history_ms = await _median_ms(lambda: store.history(GUILD, a, limit=20), runs)
        stats_ms = await _median_ms(lambda: store.player_stats(GUILD, a), runs)
    return {
        "leaderboard_ms": max(per_period.values()),
        "leaderboard_period_ms": per_period,
        "balance_ms": max(balance_ms, balances_ms),
        "balance_one_player_ms": balance_ms,
        "balances_all_players_ms": balances_ms,
        "settle_up_ms": settle_ms,
        "finish_hand_ms": finish_ms,
        "history_ms": history_ms,
        "stats_ms": stats_ms,
        "balances_correct": correct,
    }


async def run(entries: int, players: int, runs: int, seed: int, keep: Path | None,
              database: str | None = None) -> dict[str, Any]:
    """`database`: a postgresql:// URL to run on PostgreSQL instead (in a scratch schema, dropped after)."""
    if database is not None:
        from kwx.store.postgres import drop_schema, with_schema

        url = with_schema(database, f"kwx_bench_ledger_{os.getpid()}")
        await drop_schema(url)
        try:
            built = await build(url, entries, players, seed)
            result = await measure(url, built["expected"], runs)
        finally:
            await drop_schema(url)
        size_mb = 0.0
    else:
        with tempfile.TemporaryDirectory(prefix="kwx-bench-") as tmp:
            path = keep or Path(tmp) / "ledger.sqlite3"
            built = await build(path, entries, players, seed)
            result = await measure(path, built["expected"], runs)
            size_mb = sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6
    return {"entries": entries, "players": players, "runs": runs, "build_s": built["build_s"],
            "db_mb": round(size_mb, 1), **result, "target_ms": TARGET_MS,
            "ok": result["balances_correct"] and max(result["leaderboard_ms"], result["balance_ms"]) <= TARGET_MS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ledger", description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--runs", type=int, default=15, help="timed runs per query (median)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="build the database here and keep it")
    parser.add_argument("--database", default=None, metavar="URL",
                        help="run on PostgreSQL (postgresql://…; a scratch schema, dropped after)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.entries, args.players, args.runs, args.seed, args.keep, args.database))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
