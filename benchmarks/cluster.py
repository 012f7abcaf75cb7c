"""A cluster of service processes on one PostgreSQL database: `python -m benchmarks.cluster [--json]`.

Three worker processes (`--processes`), each a TableService with a `kwx.cluster.ClusterNode` over its own
servers, play `--tables` AI tables (default 300, 10 per server) of `--hands` hands each, with a small AI delay
so hands take a while. Each board render draws on the shared REST bucket (40/s and a burst of 10 for all, the
rule of cogs.ratelimit.discord_budget), like the Discord front end. Mid-hand (when the first of its hands is
recorded), worker 1 is killed with SIGKILL; the others take its leases over when they expire and resume its
tables from the event log. Meanwhile this process plays shard 0: it forwards presses to the owner of a random
table's server over LISTEN/NOTIFY, and the owner checks it does hold that server.

Keys: processes, tables, hands (recorded), failover_s (kill → first move of a taken-over table),
hands_lost (hands never recorded), hands_duplicated (tables resumed by more than one process, plus hands
recorded twice), misrouted_presses, forwarded_press_p99_ms (unacknowledged_presses: sent to an owner that had
just died, its lease not yet expired), global_429 (seconds in which the processes together went over 50 REST
calls). This is the service without the Discord gateway: the loopback Discord's cluster run, DM presses
forwarded from shard 0's process, is `tests/e2e/test_loopback_cluster.py`.
Goals: failover_s ≤ 15, hands_lost = hands_duplicated = misrouted_presses = global_429 = 0,
forwarded_press_p99_ms ≤ 500.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import sys
import time
from collections import Counter
from typing import Any

from cogs.ratelimit import discord_budget
from kwx.cluster import ClusterNode, PressRouter, SharedBucket
from kwx.store import Store
from kwx.table import PlayerRef, TableService
from kwx.table.errors import TableError

DEFAULT_URL = "postgresql://127.0.0.1:5432/test"
TTL = 3.0
RATE = 40.0  # REST calls/s for the whole bot, as `python bot.py` runs it


def _emit(**event: Any) -> None:
    print(json.dumps({"t": time.time(), **event}), flush=True)


class WorkerFrontEnd:
    """Renders boards through the shared bucket; stops a table once its `hands`-th hand is over.

    Like the Discord front end, a board is rendered by a worker of its own that draws the newest state when it
    gets a token; changes meanwhile are coalesced. (Waiting for a token inside the service's calls queues every
    change of a table behind the budget, and the `hand_finished` that stops it arrives many hands late.)"""

    def __init__(self, hands: int, bucket: SharedBucket) -> None:
        self.hands, self.bucket = hands, bucket
        self.service: TableService | None = None
        self.moved: set[int] = set()
        self._dirty: set[int] = set()
        self._renderers: dict[int, asyncio.Task[None]] = {}

    async def _render(self, table_id: int) -> None:
        while table_id in self._dirty:
            self._dirty.discard(table_id)
            await self.bucket.take(urgent=False)  # a board edit, as in cogs.board_delivery
            _emit(event="rest")
        self._renderers.pop(table_id, None)

    async def board_changed(self, view: Any) -> None:
        table_id = view.table_id
        if table_id not in self.moved:
            self.moved.add(table_id)
            _emit(event="move", table=table_id, pid=os.getpid())
        self._dirty.add(table_id)
        if table_id not in self._renderers:
            self._renderers[table_id] = asyncio.get_running_loop().create_task(self._render(table_id))

    async def hand_changed(self, player: Any, view: Any, *, prompt: bool) -> None:
        return None

    async def liangdao_revealed(self, view: Any, seat: int) -> None:
        return None

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        return None

    async def hand_finished(self, result: Any, view: Any) -> None:
        if result.hand_no >= self.hands and self.service is not None:
            with contextlib.suppress(TableError):  # closed meanwhile
                await self.service.stop(result.table_id, "bench-host", force=True)

    async def table_paused(self, view: Any, reason: str) -> None:
        pass

    async def table_closed(self, summary: Any) -> None:
        pass


async def worker(args: argparse.Namespace) -> None:
    guilds = set(args.guilds.split(","))
    store = await Store.open(args.database)
    burst, reserve = discord_budget(RATE)  # never more than 50 in a second, as bot.py's cluster
    bucket = SharedBucket(store, "discord-global", rate=RATE, burst=burst, reserve=reserve)
    fe = WorkerFrontEnd(args.hands, bucket)
    svc = TableService(store, fe, ai_delay=args.ai_delay, between_hands=0, claim_pause=0)
    fe.service = svc
    node = ClusterNode(store, svc, f"worker-{args.node}", serves=lambda g: g in guilds, ttl=TTL)
    original_start = svc.start

    async def start(include=None):  # report every table this process resumes
        rebuilt = await original_start(include=include)
        for table in rebuilt:
            _emit(event="resumed", table=table, node=args.node)
        return rebuilt

    svc.start = start  # type: ignore[method-assign]
    await node.start()
    for g in sorted(guilds):
        assert await node.claim(g)
    router = PressRouter(store, f"worker-{args.node}")

    async def on_press(press: dict[str, Any]) -> None:
        ok = f"guild:{press['guild']}" in node.leases.held
        _emit(event="press", ok=ok, node=args.node)

    await router.start(on_press)
    for g in sorted(guilds):
        for i in range(args.per_guild):
            host = PlayerRef("bench-host", "Bench host", "standard")
            table = await svc.open_table(g, f"c{i}", host, seed=f"cluster-{g}-{i}")
            await svc.add_ai(table, "standard")
            await svc.add_ai(table, "standard")
            await svc.start_game(table, by="bench-host")
    _emit(event="ready", node=args.node)
    await asyncio.Event().wait()  # until killed or terminated


async def coordinate(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from kwx.store.postgres import drop_schema, with_schema

    url = with_schema(args.database, f"kwx_bench_cluster_{os.getpid()}")
    await drop_schema(url)
    store = await Store.open(url)  # migrates once, before the workers start
    guild_ids = [str((n + 1) << 22) for n in range(args.tables // args.per_guild)]
    shares = [guild_ids[i::args.processes] for i in range(args.processes)]
    log: list[dict[str, Any]] = []
    procs = []

    async def read(proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        async for line in proc.stdout:
            with_event = line.decode().strip()
            if with_event.startswith("{"):
                log.append(json.loads(with_event))

    readers = []
    for n, share in enumerate(shares):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.cluster", "--worker", "--node", str(n), "--guilds", ",".join(share),
            "--database", url, "--hands", str(args.hands), "--per-guild", str(args.per_guild),
            "--ai-delay", str(args.ai_delay), stdout=asyncio.subprocess.PIPE)
        procs.append(proc)
        readers.append(asyncio.create_task(read(proc)))
    router = PressRouter(store, "shard-0")

    async def no_press(press: dict[str, Any]) -> None:
        return None

    await router.start(no_press)
    result: dict[str, Any] = {"processes": args.processes, "tables": len(guild_ids) * args.per_guild}
    try:
        while sum(e["event"] == "ready" for e in log) < args.processes:
            await asyncio.sleep(0.2)
        victim_tables = set()
        rows = await store._all("SELECT id, guild FROM tables")
        owner_of = {r["id"]: r["guild"] for r in rows}
        victim_tables = {t for t, g in owner_of.items() if g in set(shares[1])}
        kill_by = time.time() + args.kill_after
        while time.time() < kill_by and not await store.pool.fetchval(  # mid-hand: its tables are all playing
                "SELECT count(*) FROM hands WHERE table_id = ANY($1::bigint[])", list(victim_tables)):
            await asyncio.sleep(0.1)
        killed_at = time.time()
        procs[1].send_signal(signal.SIGKILL)
        forward_ms: list[float] = []
        unacknowledged = 0
        pool = store.pool
        deadline = time.time() + args.timeout
        while time.time() < deadline:
            table = random.choice(list(owner_of))
            owner = await pool.fetchval("SELECT owner FROM kwx_leases WHERE resource = $1 AND expires_at > now()",
                                        f"guild:{owner_of[table]}")
            if owner is not None:
                started = time.perf_counter()
                if await router.forward(owner, {"table": table, "guild": owner_of[table], "custom_id": "bench"}):
                    forward_ms.append((time.perf_counter() - started) * 1000)
                else:  # the owner died with its lease still live: the presser is told to press again
                    unacknowledged += 1
            if not await pool.fetchval("SELECT count(*) FROM tables WHERE status = 'open'"):
                break
            await asyncio.sleep(0.05)
        moves_after = [e["t"] for e in log if e["event"] == "move" and e["table"] in victim_tables
                       and e["t"] > killed_at]
        resumed = Counter(e["table"] for e in log if e["event"] == "resumed")
        hands = await pool.fetchval("SELECT count(*) FROM hands")
        short = await pool.fetchval(  # a table whose process died after its last hand may play one more
            "SELECT COALESCE(SUM(GREATEST(0, $1 - n)), 0) FROM (SELECT t.id, count(h.id) AS n FROM tables t"
            " LEFT JOIN hands h ON h.table_id = t.id GROUP BY t.id) s", args.hands)
        double = await pool.fetchval("SELECT count(*) FROM (SELECT table_id, hand_no FROM hands"
                                     " GROUP BY 1, 2 HAVING count(*) > 1) d")
        per_second = Counter(int(e["t"]) for e in log if e["event"] == "rest")
        presses = [e for e in log if e["event"] == "press"]
        result.update({
            "hands": hands,
            "failover_s": round(min(moves_after) - killed_at, 2) if moves_after else None,
            "hands_lost": int(short),
            "hands_duplicated": sum(n - 1 for n in resumed.values() if n > 1) + double,
            "misrouted_presses": sum(not e["ok"] for e in presses),
            "forwarded_presses": len(forward_ms),
            "unacknowledged_presses": unacknowledged,
            "forwarded_press_p99_ms": round(sorted(forward_ms)[int(0.99 * (len(forward_ms) - 1))], 1)
            if forward_ms else None,
            "forwarded_press_p50_ms": round(statistics.median(forward_ms), 1) if forward_ms else None,
            "global_429": sum(1 for n in per_second.values() if n > 50),
            "rest_calls_peak_per_s": max(per_second.values(), default=0),
            "taken_over_tables": len(victim_tables),
        })
    finally:
        await router.close()
        for proc in procs:
            if proc.returncode is None:
                proc.terminate()
        await asyncio.gather(*(p.wait() for p in procs))
        for r in readers:
            r.cancel()
        await store.close()
        with contextlib.suppress(asyncpg.PostgresError):
            await drop_schema(url)
    result["ok"] = (result.get("failover_s") is not None and result["failover_s"] <= 15
                    and result.get("hands_lost") == 0 and result.get("hands_duplicated") == 0
                    and result.get("misrouted_presses") == 0 and result.get("global_429") == 0
                    and (result.get("forwarded_press_p99_ms") or 1e9) <= 500)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default=os.environ.get("KWX_DATABASE_URL") or DEFAULT_URL, metavar="URL")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--per-guild", type=int, default=10)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--ai-delay", type=float, default=0.05, help="seconds an AI seat thinks per move")
    parser.add_argument("--kill-after", type=float, default=30.0,
                        help="SIGKILL worker 1 when its first hand is recorded, or after this many seconds of play")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--node", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--guilds", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        asyncio.run(worker(args))
        return 0
    result = asyncio.run(coordinate(args))
    print(json.dumps(result) if args.json else "\n".join(f"{k:>24}: {v}" for k, v in result.items()))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
