"""Table service speed: `python -m benchmarks.tables [--tables N] [--hands N] [--skip-ledger] [--json]`.

N concurrent tables (default 200) of three AI seats with no thinking delay and no pause between hands run on
the real service and the real store (a temporary SQLite file) until each has finished --hands hands. Measured:
- per-action latency p50 / p99: from an action's arrival at the service (a human's `act` call; for an AI seat,
  the moment its decision is made) until its event-log record is committed and its front-end calls are queued;
- actions per second and SQLite write transactions per second (event-log transactions plus one ledger
  transaction per finished hand), and how many records a log transaction carried on average;
- unless --skip-ledger: the leaderboard and balance query times on a ledger of --entries entries (default one
  million), built and timed by benchmarks/ledger.py.
- unless --skip-reads: `p99_ms_under_reads`, the same per-action p99 while 10 `/kwx chart` loads (six players
  each, rendered to PNG) and one `/kwx-admin export` (gzip CSV) run again and again on a ledger of --entries entries,
  with the tables writing to that same database (the ledger is built once and shared with the queries above).
`--no-group-commit` writes one transaction per record instead of group commit; `--compare` runs both.
`--max-in-flight N` lets the AI decide while up to N actions are still being committed (default 1).
`--database postgresql://…` runs the same on PostgreSQL (scratch schemas, dropped after); the keys are the same.
Goals: p99 ≤ 20 ms (idle and under reads); leaderboard ≤ 50 ms on 1M entries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import ledger as ledger_bench
from cogs.drawing import ChartDrawer
from kwx.present.chart import Series
from kwx.store import Store
from kwx.table import PlayerRef, TableService

GUILD = "bench"
GOAL_P99_MS = 20.0
GOAL_LEADERBOARD_MS = ledger_bench.TARGET_MS


class CountingFrontEnd:
    """Takes every call like a fast front end would; stops a table once it has played its hands."""

    def __init__(self, hands: int) -> None:
        self.hands = hands
        self.finished: dict[int, int] = {}
        self.calls = 0
        self.service: TableService | None = None
        self.done = asyncio.Event()
        self.tables = 0
        self.stopped = 0

    async def board_changed(self, view: Any) -> None:
        self.calls += 1

    async def hand_changed(self, player: Any, view: Any, *, prompt: bool) -> None:
        self.calls += 1

    async def liangdao_revealed(self, view: Any, seat: int) -> None:
        self.calls += 1

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        self.calls += 1

    async def hand_finished(self, result: Any, view: Any) -> None:
        self.calls += 1
        n = self.finished[result.table_id] = self.finished.get(result.table_id, 0) + 1
        if n == self.hands:
            assert self.service is not None
            await self.service.stop(result.table_id, "bench-host", force=True)
            self.stopped += 1
            if self.stopped == self.tables:
                self.done.set()

    async def table_paused(self, view: Any, reason: str) -> None:
        pass

    async def table_closed(self, summary: Any) -> None:
        pass


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_tables(path: Path | str, tables: int, hands: int, *, group_commit: bool, level: str,
                     max_in_flight: int = 1) -> dict[str, Any]:
    async with await Store.open(path) as store:
        return await run_tables_on(store, tables, hands, group_commit=group_commit, level=level,
                                   max_in_flight=max_in_flight)


async def run_tables_on(store: Store, tables: int, hands: int, *, group_commit: bool, level: str,
                        max_in_flight: int = 1) -> dict[str, Any]:
    fe = CountingFrontEnd(hands)
    svc = TableService(store, fe, ai_delay=0, between_hands=0, group_commit=group_commit, record_latency=True,
                       max_in_flight=max_in_flight)
    fe.service = svc
    fe.tables = tables
    ids = []
    for i in range(tables):
        host = PlayerRef("bench-host", "Bench host", level)
        table = await svc.open_table(GUILD, f"c{i}", host, seed=f"bench-{i}")
        await svc.add_ai(table, level)
        await svc.add_ai(table, level)
        ids.append(table)
    journal_before = svc.journal.stats.transactions
    started = time.perf_counter()
    for table in ids:
        await svc.start_game(table, by="bench-host")
    await fe.done.wait()
    elapsed = time.perf_counter() - started
    await svc.shutdown()
    stats = svc.stats
    latencies = stats.latencies or [0.0]
    log_tx = svc.journal.stats.transactions - journal_before
    records = svc.journal.stats.records
    sheet = await store.balances(GUILD)
    return {
        "tables": tables,
        "hands": stats.hands,
        "actions": stats.actions,
        "elapsed_s": round(elapsed, 3),
        "p50_ms": round(statistics.median(latencies) * 1000, 3),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 3),
        "max_ms": round(max(latencies) * 1000, 3),
        "actions_per_s": round(stats.actions / elapsed, 1),
        "transactions_per_s": round((log_tx + stats.hands) / elapsed, 1),
        "log_records_per_transaction": round(records / max(1, svc.journal.stats.transactions), 2),
        "frontend_calls": fe.calls,
        "group_commit": group_commit,
        "max_in_flight": max_in_flight,
        "errors": stats.errors,
        "ledger_sums_to_zero": sum(r.balance for r in sheet.rows) == 0 and sheet.hands >= tables * hands,
    }


async def run_under_reads(path: Path | str, tables: int, hands: int, *, level: str, charts: int = 10,
                          chart_players: int = 6) -> dict[str, Any]:
    """Tables play on the database at `path` (a big ledger) while `charts` chart loads and one export repeat
    until the tables are done; returns the tables' latencies and what the readers managed."""
    stop = asyncio.Event()
    chart_ms: list[float] = []
    export_s: list[float] = []
    async with await Store.open(path) as store:
        players = [r.player for r in (await store.balances(ledger_bench.GUILD)).rows][:chart_players]

        drawer = ChartDrawer()

        async def chart_loop() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                series = [Series(p, [(hands, balance) for hands, _, balance in
                                     await store.chart_series(ledger_bench.GUILD, p)]) for p in players]
                await drawer.draw(series, title="bench")  # as /kwx chart draws it
                chart_ms.append((time.perf_counter() - started) * 1000)

        async def export_loop() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                with tempfile.TemporaryDirectory(prefix="kwx-bench-export-") as out:
                    await store.export_files(ledger_bench.GUILD, Path(out), "export", max_bytes=1 << 30)
                export_s.append(time.perf_counter() - started)

        readers = [asyncio.create_task(chart_loop()) for _ in range(charts)]
        readers.append(asyncio.create_task(export_loop()))
        await asyncio.sleep(0.5)  # the readers are under way before the first move
        try:
            played = await run_tables_on(store, tables, hands, group_commit=True, level=level)
        finally:
            stop.set()
            await asyncio.gather(*readers)
            drawer.close()
    return {"p99_ms_under_reads": played["p99_ms"], "p50_ms_under_reads": played["p50_ms"],
            "max_ms_under_reads": played["max_ms"], "charts_done": len(chart_ms),
            "chart_ms_p50": round(statistics.median(chart_ms), 1) if chart_ms else None,
            "exports_done": len(export_s), "export_s": round(statistics.median(export_s), 2) if export_s else None,
            "errors_under_reads": played["errors"]}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kwx-bench-tables-") as tmp:
        modes = [True, False] if args.compare else [not args.no_group_commit]
        runs = {}
        for i, group in enumerate(modes):
            if args.database:
                from kwx.store.postgres import drop_schema, with_schema

                target: Path | str = with_schema(args.database, f"kwx_bench_tables_{os.getpid()}_{i}")
                await drop_schema(target)
            else:
                target = Path(tmp) / f"tables-{i}.sqlite3"
            try:
                runs[group] = await run_tables(target, args.tables, args.hands, group_commit=group, level=args.level,
                                               max_in_flight=args.max_in_flight)
            finally:
                if args.database:
                    await drop_schema(str(target))
        result = dict(runs[modes[0]])
        result["backend"] = "postgresql" if args.database else "sqlite"
        if args.compare:
            result["without_group_commit"] = runs[False]
        result.update({"leaderboard_ms": None, "balance_ms": None, "p99_ms_under_reads": None})
        if not (args.skip_ledger and args.skip_reads):
            if args.database:
                from kwx.store.postgres import drop_schema, with_schema

                big: Path | str = with_schema(args.database, f"kwx_bench_ledger_{os.getpid()}")
                await drop_schema(big)
            else:
                big = Path(tmp) / "ledger.sqlite3"
            try:
                built = await ledger_bench.build(big, args.entries, 50, 1)
                result.update({"ledger_entries": args.entries, "ledger_build_s": built["build_s"]})
                if not args.skip_ledger:
                    led = await ledger_bench.measure(big, built["expected"], args.runs)
                    result.update({"leaderboard_ms": led["leaderboard_ms"], "balance_ms": led["balance_ms"]})
                if not args.skip_reads:
                    result.update(await run_under_reads(big, args.read_tables, args.hands, level=args.level))
            finally:
                if args.database:
                    await drop_schema(str(big))
        result["goals"] = {"p99_ms": GOAL_P99_MS, "leaderboard_ms": GOAL_LEADERBOARD_MS,
                           "p99_ms_under_reads": GOAL_P99_MS}
        result["ok"] = (result["p99_ms"] <= GOAL_P99_MS and result["errors"] == 0 and result["ledger_sums_to_zero"]
                        and (result["leaderboard_ms"] is None or result["leaderboard_ms"] <= GOAL_LEADERBOARD_MS)
                        and (result["p99_ms_under_reads"] is None or result["p99_ms_under_reads"] <= GOAL_P99_MS))
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--hands", type=int, default=3, help="hands each table plays before it is stopped")
    parser.add_argument("--level", default="standard", help="AI level of the seats")
    parser.add_argument("--max-in-flight", type=int, default=1,
                        help="actions in flight before the AI waits (TableService max_in_flight)")
    parser.add_argument("--no-group-commit", action="store_true", help="one transaction per log record")
    parser.add_argument("--compare", action="store_true", help="run with and without group commit")
    parser.add_argument("--skip-ledger", action="store_true", help="skip the 1M-entry ledger queries")
    parser.add_argument("--skip-reads", action="store_true", help="skip p99_ms_under_reads (charts and export)")
    parser.add_argument("--read-tables", type=int, default=50, help="tables playing while the reads run")
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=15, help="timed runs per ledger query (median)")
    parser.add_argument("--database", default=None, metavar="URL",
                        help="run on PostgreSQL (postgresql://…) in scratch schemas, dropped after; default SQLite")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
