"""Table pages under load: `python -m benchmarks.web [--tables 300] [--hands 1] [--think 0.5] [--json]`.

N tables (default 300) of three web players each run on the real service, the real store (a temporary SQLite
file, on a RAM disk by default: `--store-dir`) and the real web root; the players are WebSocket clients in a
second process speaking the page's protocol (no browser): each waits `--think` seconds (2 on average, uniformly
0.5–1.5×: a person's pace) after its seat is asked, then wins when it may, passes a claim, or discards its drawn
tile. Measured, as one JSON line:

- `p99_ms` / `p50_ms`: from a press leaving a player's socket until every seat's socket of that table has the
  board that follows it (goal ≤ 150 ms): discards, wins and 漂 (a pass changes no board by itself: the board
  moves on when the last seat has answered, which is that seat's press);
- `errors`: presses refused or sockets lost (goal 0); `leaked`: messages that carried a concealed tile of
  another seat (every message is checked; goal 0);
- `page_bytes`: what a first load of the page fetches: the page, its script and styles, the Activity's SDK and
  every tile picture (goal ≤ 500 KB).
- `messages` / `frames`: what the sockets were sent, and in how many WebSocket frames (a change's messages for one
  page share one);
- `server_cpu_share` / `players_cpu_share`: CPU seconds a second of the server's process (the service, the store,
  the web root) and of the players' process, and `load_avg`, the machine's (others' work on its two cores shows
  in p99). `--profile FILE` writes a cProfile of the server's side there.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from kwx.engine.tiles import Tile
from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import PlayerRef
from kwx.web.hub import WebFrontEnd
from kwx.web.seats import SeatLinks
from kwx.web.server import WebServer

GOAL_P99_MS = 150.0
# The store's own commit time (an fsync each) is benchmarks.tables' subject; this one measures the web path, so
# its store sits on a RAM disk where there is one (--store-dir /tmp puts it on the disk).
DEFAULT_STORE_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
GOAL_PAGE_BYTES = 500_000
PAGE_FILES = ("", "static/table.css", "static/table.js", "static/discord-sdk.js",
              *(f"tiles/{t.compact}.png" for t in Tile), "tiles/back.png")


@dataclass
class TableRun:
    table_id: int
    hands: int
    pending: list[tuple[tuple[int, int], float, set[int], str]] = field(default_factory=list)
    finished: set[int] = field(default_factory=set)
    done: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    leaked: int = 0
    messages: int = 0
    frames: int = 0
    presses: int = 0
    by_verb: dict[str, list[float]] = field(default_factory=dict)


def leaks(message: dict[str, Any], seat: int) -> int:
    """How many concealed tiles of other seats one message carries."""
    if message["t"] == "hand":
        return len(message["view"]["concealed"]) if message["view"]["seat"] != seat else 0
    if message["t"] != "board":
        return 0
    n = 0
    for s in message["view"]["seats"]:
        if s["seat"] != seat and not s["liangdao"]:
            n += len(s["revealed"]) + sum(1 for m in s["melds"] if m["kind"] == "ankong" and m["tile"])
    return n


def decide(view: dict[str, Any]) -> dict[str, Any] | None:
    choices = view["choices"]
    verbs = {c["verb"]: c for c in choices}
    if "hu" in verbs:
        return {"verb": "hu"}
    if "piao" in verbs:
        return {"verb": "piao", "amount": 0}
    if "pass" in verbs:
        return {"verb": "pass"}
    discards = [c["tile"] for c in choices if c["verb"] == "discard"]
    if discards:
        return {"verb": "discard", "tile": view["drawn"] if view["drawn"] in discards else discards[0]}
    return None


async def player(http: aiohttp.ClientSession, base: str, link: str, run: TableRun, index: int, tally: Tally,
                 think: float, rng: random.Random) -> None:
    ws = await http.ws_connect(base + "ws")
    await ws.send_json({"t": "hello", "link": link, "lang": "zh-CN"})
    seat = -1
    acted: set[tuple[int, int]] = set()
    pressing: asyncio.Task[None] | None = None
    sent: dict[str, dict[str, Any]] = {}

    async def press(view: dict[str, Any], choice: dict[str, Any]) -> None:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        if choice["verb"] != "pass":  # a pass changes no board until the last seat has answered
            run.pending.append(((view["hand"], view["step"]), time.perf_counter(), set(), choice["verb"]))
        tally.presses += 1
        sent[f"{view['hand']}-{view['step']}"] = {"t": "act", "step": view["step"], "hand": view["hand"], **choice}
        await ws.send_json({"id": f"{view['hand']}-{view['step']}", **sent[f"{view['hand']}-{view['step']}"]})

    async def handle(data: dict[str, Any], now: float) -> None:
        nonlocal seat, pressing
        tally.messages += 1
        if data["t"] == "welcome":
            return
        if data["t"] == "hand":
            seat = data["view"]["seat"] if seat < 0 else seat
        tally.leaked += leaks(data, seat)
        if data["t"] == "board":
            # The first board a socket gets after a press is the one it caused: one seat acts at a time,
            # and a board's step is not the hand's (the public step does not count claim answers).
            for entry in list(run.pending):
                _, at, seen, verb = entry
                if at < now and index not in seen:
                    seen.add(index)
                    if len(seen) == 3:
                        tally.latencies.append((now - at) * 1000)
                        tally.by_verb.setdefault(verb, []).append((now - at) * 1000)
                        run.pending.remove(entry)
        elif data["t"] == "hand":
            view = data["view"]
            key = (view["hand"], view["step"])
            choice = decide(view)
            if choice is not None and key not in acted and view["hand"] not in run.finished:
                acted.add(key)
                pressing = asyncio.ensure_future(press(view, choice))
        elif data["t"] == "answer" and not data["ok"]:
            tally.errors += 1
        elif data["t"] == "answer" and data.get("ask") and data["id"] in sent:
            # The service asks before a costly discard: the player goes ahead, as most would
            await ws.send_json({**sent.pop(data["id"]), "id": data["id"] + "-ok", "confirmed": True})
        elif data["t"] == "result":
            run.finished.add(data["result"]["hand"])
            if len(run.finished) >= run.hands:
                run.done.set()

    try:
        while not run.done.is_set():
            msg = await ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                tally.errors += 1
                return
            frame = json.loads(msg.data)  # one message, or an array of those a change brought at once
            now = time.perf_counter()
            tally.frames += 1
            for data in frame if isinstance(frame, list) else [frame]:
                await handle(data, now)
    finally:
        if pressing is not None:
            pressing.cancel()
        await ws.close()


async def page_bytes(http: aiohttp.ClientSession, base: str) -> int:
    total = 0
    for path in PAGE_FILES:
        async with http.get(base + path) as response:
            response.raise_for_status()
            total += len(await response.read())
    return total


async def run_players(plan: dict[str, Any]) -> dict[str, Any]:
    """The players' side (its own process): every table's three sockets, until each table has played its hands."""
    rng = random.Random(plan["seed"])
    tally = Tally()
    runs = [TableRun(n, plan["hands"]) for n in range(len(plan["tables"]))]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        clients = [asyncio.ensure_future(player(http, plan["base"], link, run, k, tally, plan["think"],
                                                random.Random(rng.random())))
                   for run, links in zip(runs, plan["tables"], strict=True) for k, link in enumerate(links)]
        await asyncio.sleep(1.0)  # every page has said hello
        gc.collect()
        gc.freeze()
        print("ready", flush=True)
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.wait_for(asyncio.gather(*(r.done.wait() for r in runs)), timeout=900)
        cpu_share = (time.process_time() - cpu) / (time.perf_counter() - started)
        for c in clients:
            c.cancel()
        await asyncio.gather(*clients, return_exceptions=True)
    return {"latencies": tally.latencies, "by_verb": tally.by_verb, "errors": tally.errors, "leaked": tally.leaked,
            "messages": tally.messages, "frames": tally.frames, "presses": tally.presses,
            "cpu_share": cpu_share}


async def measure(tables: int, hands: int, think: float, seed: int = 1, store_dir: str | None = None,
                  profile: Path | None = None) -> dict[str, Any]:
    """The server (the service, the store, the web root) here; the players in a child process, as browsers
    would be elsewhere: the two share the machine's two cores, not one event loop."""
    with tempfile.TemporaryDirectory(dir=store_dir) as folder:
        store = await Store.open(Path(folder) / "bench.sqlite3")
        hub = WebFrontEnd()
        service = TableService(store, hub, ai_delay=0.0, between_hands=0.0, claim_pause=0.0, demo_hands=None)
        links = SeatLinks(b"benchmark secret, not for use")
        server = WebServer(service, hub, links, default_lang="zh-CN")
        port = await server.start("127.0.0.1", 0)
        base = f"http://127.0.0.1:{port}/"
        async with aiohttp.ClientSession() as http:
            size = await page_bytes(http, base)
        table_ids, seat_links = [], []
        for n in range(tables):
            players = [PlayerRef(f"{n}-{k}", f"P{n}-{k}") for k in range(3)]
            t = await service.open_table("bench", f"c{n}", players[0], seed=f"web-{n}", turn_seconds=0,
                                         claim_seconds=0)
            for p in players[1:]:
                await service.join(t, p)
            table_ids.append(t)
            seat_links.append([links.issue(t, p.player_id) for p in players])
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.web", "--players", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, limit=2**26)
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps({"base": base, "tables": seat_links, "hands": hands, "think": think,
                                      "seed": seed}).encode() + b"\n")
        await child.stdin.drain()
        if (await child.stdout.readline()).strip() != b"ready":
            raise RuntimeError("the players' process did not start")
        gc.collect()
        gc.freeze()  # as the bot does once it has started (KwxBot: freeze_gc): no full passes over the tables
        gc.set_threshold(700, 10, 100)
        profiler = cProfile.Profile() if profile is not None else None
        if profiler is not None:
            profiler.enable()
        started, cpu, load = time.perf_counter(), time.process_time(), os.getloadavg()[0]
        for n, t in enumerate(table_ids):
            await service.start_game(t, by=f"{n}-0")
        tally = json.loads(await child.stdout.readline())
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        await child.wait()
        await server.stop()
        await service.shutdown()
        await store.close()
    lat = sorted(tally["latencies"])
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan")
    return {"benchmark": "web", "tables": tables, "players": tables * 3, "hands": hands, "think_s": think,
            "store_dir": store_dir or tempfile.gettempdir(),
            "presses": tally["presses"], "measured": len(lat),
            "p50_ms": round(statistics.median(lat), 1) if lat else None, "p99_ms": round(p99, 1),
            "errors": tally["errors"], "leaked": tally["leaked"], "messages": tally["messages"],
            "frames": tally["frames"],
            "page_bytes": size, "seconds": round(elapsed, 1),
            "server_cpu_share": round(cpu / elapsed, 2), "players_cpu_share": round(tally["cpu_share"], 2),
            "load_avg": round(os.getloadavg()[0], 1),  # the machine's: other work on its two cores shows in p99
            "load_avg_start": round(load, 1),
            "p99_ms_by_verb": {v: round(sorted(x)[min(len(x) - 1, int(len(x) * 0.99))], 1)
                               for v, x in sorted(tally["by_verb"].items())},
            "ok": bool(lat) and p99 <= GOAL_P99_MS and tally["errors"] == 0 and tally["leaked"] == 0
            and size <= GOAL_PAGE_BYTES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--think", type=float, default=2.0, help="seconds a player waits before a press (mean)")
    parser.add_argument("--store-dir", default=DEFAULT_STORE_DIR,
                        help="where the benchmark's SQLite store lives (default: a RAM disk when there is one)")
    parser.add_argument("--json", action="store_true", help="one JSON line (the default prints it indented)")
    parser.add_argument("--profile", type=Path, help="profile the server's side (cProfile) and write its stats there")
    parser.add_argument("--players", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args(argv)
    if args.players:
        print(json.dumps(asyncio.run(run_players(json.loads(sys.stdin.readline())))), flush=True)
        return 0
    result = asyncio.run(measure(args.tables, args.hands, args.think, store_dir=args.store_dir, profile=args.profile))
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
