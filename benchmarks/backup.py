"""Online backups under load: `python -m benchmarks.backup [--tables 50] [--seconds 10] [--entries N] [--json]`.

A SQLite store holding a ledger of --entries entries (default 100,000, a 23 MB file: a copy takes real time) has
--tables AI tables (default 50) playing on it without pause, on the real table service. Measured, per action,
from its arrival to its event-log record committed and its front-end calls queued (what a table waits for a
write): p50 / p99 / max over --seconds without a backup, then over --seconds while backups (SQLite's backup
API, then PRAGMA integrity_check, kwx.store.backup) run back to back, then again without. Goal: no action
waits longer during the backups than the usual p99 (without backups) + 50 ms. Also reported: the backups
made, their seconds and size, and that each one verifies (kwx.store.verify).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import ledger as ledger_bench
from kwx.store import Store
from kwx.store.backup import BackupResult, back_up
from kwx.store.verify import verify_store
from kwx.table import PlayerRef, TableService

GUILD = "bench"
ALLOWANCE_MS = 50.0  # what a backup may add to the usual p99


class QuietFrontEnd:
    """Takes every front-end call at once and does nothing with it."""

    async def board_changed(self, view: Any) -> None: ...
    async def hand_changed(self, player: Any, view: Any, *, prompt: bool) -> None: ...
    async def liangdao_revealed(self, view: Any, seat: int) -> None: ...
    async def notice(self, table_id: int, key: str, **fmt: object) -> None: ...
    async def hand_finished(self, result: Any, view: Any) -> None: ...
    async def table_paused(self, view: Any, reason: str) -> None: ...
    async def table_closed(self, summary: Any) -> None: ...


def _summary(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies) or [0.0]
    return {"actions": len(latencies), "p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 2),
            "max_ms": round(ordered[-1] * 1000, 2)}


async def _window(service: TableService, seconds: float) -> list[float]:
    """The latencies of the actions made during the next `seconds`."""
    latencies = service.stats.latencies
    assert latencies is not None
    start = len(latencies)
    await asyncio.sleep(seconds)
    return latencies[start:]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kwx-bench-backup-") as tmp:
        path = Path(tmp) / "kwx.sqlite3"
        built = await ledger_bench.build(path, args.entries, 50, 1)
        folder = Path(tmp) / "backups"
        made: list[BackupResult] = []
        async with await Store.open(path) as store:
            service = TableService(store, QuietFrontEnd(), ai_delay=0, between_hands=0, claim_pause=0,
                                   demo_hands=None, record_latency=True)
            for i in range(args.tables):
                host = PlayerRef(f"bench-host-{i}", "Bench host", args.level)
                table = await service.open_table(GUILD, f"c{i}", host, seed=f"backup-{i}")
                await service.add_ai(table, args.level)
                await service.add_ai(table, args.level)
                await service.start_game(table, by=host.player_id)
            await asyncio.sleep(args.warmup)
            before = await _window(service, args.seconds)
            stop = asyncio.Event()

            async def backups() -> None:
                while not stop.is_set():
                    made.append(await back_up(path, folder, keep=3))

            copier = asyncio.create_task(backups())
            during = await _window(service, args.seconds)
            stop.set()
            await copier
            after = await _window(service, args.seconds)
            await service.shutdown()
            hands, errors = service.stats.hands, service.stats.errors
        kept = sorted(folder.glob("*.sqlite3"))
        verified = all([(await verify_store(p)).ok for p in kept])
    usual = _summary(before + after)
    under = _summary(during)
    limit = usual["p99_ms"] + ALLOWANCE_MS
    return {
        "tables": args.tables, "level": args.level, "ledger_entries": args.entries,
        "ledger_build_s": built["build_s"], "seconds_per_window": args.seconds, "hands": hands, "errors": errors,
        "without_backups": usual, "during_backups": under,
        "before_backups": _summary(before), "after_backups": _summary(after),
        "backups": len(made), "backup_s_mean": round(statistics.mean(b.seconds for b in made), 3) if made else None,
        "backup_mb": round(made[-1].size / 1e6, 1) if made else None,
        "backups_verified": verified,
        "goal_max_ms": round(limit, 2),
        "ok": bool(made) and verified and errors == 0 and under["max_ms"] <= limit,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.backup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measured window")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--entries", type=int, default=100_000, help="ledger entries in the store (its size)")
    parser.add_argument("--level", default="standard", help="AI level of the seats")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = asyncio.run(run(args))
    result["total_s"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
