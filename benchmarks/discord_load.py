"""The Discord front end under load: `python -m benchmarks.discord_load [--tables 100] [--hands 1] [--json]`.

Everything real but the network: KwxBot (cogs, DynamicItems, the Discord front end), the TableService and a
temporary SQLite store, over the fake Discord of cogs/fake_discord/ (discord.py's real Interaction, View and
message code; the HTTP layer answers from memory and records every call).

Two phases, each with `--tables` tables in their own channels, all at once:
1. human tables: three simulated players per table act from their DMs (the newest DM with enabled buttons),
   after a think time drawn from `--think` seconds: win when offered, pass claims, discard the drawn tile;
2. all-AI tables: three AI seats at the production pace (`--ai-delay`), nobody pressing anything.
Timings are scaled by `--scale` (think times, AI delay, the board's coalescing intervals alike, so the number
of calls per hand is that of real time; only the load per second grows as 1/scale).

Reported (one JSON object with --json):
- public_calls_per_hand / dm_calls_per_hand: Discord API calls (sends + edits) to the channel and to DMs
  between the start of a hand and its result post, per hand, human tables;
- public_edits_per_action: board edits per player or AI action at human pace (goal ≤ 1);
- ai_public_calls_per_hand: the same for all-AI tables (goal ≤ 30);
- p50_ms / p99_ms: per action, from the button press to the moment every send it causes is queued in the
  front end (the press answered and the board change received), milliseconds (goal p99 ≤ 25). The board
  change is the first the front end hears of with a public step past the one the board showed at the press
  (a board change, or for a win the hand's end);
  a pass shows nothing on the board (how many seats answered a claim is not told), so it is timed by its answer.

The tables are spread over servers of TABLES_PER_SERVER (a server's default cap on open tables), as many as
`--tables` needs: a server refuses `/kwx new` beyond its cap, and a refused table is counted out rather than
waited on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogs.bot import BotSettings, KwxBot, Pace
from cogs.fake_discord import FakeDiscord, Recorder, Sent
from kwx.table.defaults import DEFAULTS, MAX_TABLES
from kwx.table.views import PlayerRef

ACT = re.compile(r"kwx:act:(\d+):(\d+):(\d+):([a-z]+):([0-9a-z-]+)")
RESULT_TITLE = re.compile(r"第 \d+ 局结果")
TABLES_PER_SERVER = DEFAULTS[MAX_TABLES]


@dataclass
class Tally:
    """Calls per table, counted from each table's start to its last counted result post."""

    public: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    public_edits: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    dm: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    responses: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    results: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    counting: set[int] = field(default_factory=set)


class CountingRecorder(Recorder):
    """The fake's log, counting each table's calls and waking the players a message concerns. It keeps no
    records (nor old DMs, see Bench.seen): the harness's own memory must not slow the bot under test down
    with long garbage-collection pauses."""

    def __init__(self, bench: Bench) -> None:
        super().__init__()
        self.bench = bench

    def append(self, rec: Sent) -> None:
        self.bench.seen(rec)


class Bench:
    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args = args
        self.scale = args.scale
        pace = Pace(ai_delay=args.ai_delay * args.scale, between_hands=args.between_hands * args.scale,
                    board_interval=args.board_interval * args.scale, ai_board_interval=args.ai_board_interval * args.scale)
        self.bot = KwxBot(BotSettings(database=tmp / "load.sqlite3", pace=pace, upload_emojis=True,
                                      freeze_gc=True))  # as `python bot.py` runs it
        self.fake = FakeDiscord(self.bot)
        self.fake.log = CountingRecorder(self)
        self.tally = Tally()
        self.channel_table: dict[int, int] = {}
        self.user_table: dict[int, int] = {}
        self.dm_messages: dict[int, list[int]] = defaultdict(list)  # user -> their DM message ids
        self.wake: dict[int, asyncio.Event] = {}
        self.done: dict[int, asyncio.Event] = {}
        self.press_times: list[tuple[int, int | None, float, float]] = []  # table, board step then, start, answered
        self.guilds: dict[int, Any] = {}  # server number -> guild
        self.refused = 0  # tables a server would not open
        self.last_token: dict[int, str] = {}  # player -> the token of their latest press
        self.board_arrivals: dict[int, list[tuple[int, float]]] = defaultdict(list)  # table -> (step, time)
        self.actions: dict[int, int] = defaultdict(int)
        self.rng = random.Random(args.seed)

    # -- counting ------------------------------------------------------------------------------------------
    def seen(self, rec: Sent) -> None:
        stored = self.fake.messages.get(rec.message_id or 0)
        dm_user = stored.dm_to if stored is not None else (rec.user_id if rec.kind == "refused" else None)
        if rec.kind == "dm" and rec.user_id is not None:
            mine = self.dm_messages[rec.user_id]
            mine.append(rec.message_id or 0)
            if len(mine) > 4:  # players only ever press their newest DMs
                self.fake.messages.pop(mine.pop(0), None)
        if dm_user is not None and rec.kind in ("dm", "edit", "refused"):
            table = self.user_table.get(dm_user)
            if table in self.tally.counting:
                if rec.interaction_id is None:
                    self.tally.dm[table] += 1
                else:  # a press answered by editing the pressed DM: an interaction response
                    self.tally.responses[table] += 1
            event = self.wake.get(dm_user)
            if event is not None:
                event.set()
            return
        table = self.channel_table.get(rec.channel_id or 0)
        if table is None or table not in self.tally.counting:
            return
        if rec.kind in ("send", "edit") and (stored is None or stored.ephemeral_to is None):
            if rec.interaction_id is None:
                self.tally.public[table] += 1
                self.tally.public_edits[table] += rec.kind == "edit"
        elif rec.kind in ("response", "followup", "edit", "defer"):
            self.tally.responses[table] += 1
        if rec.kind == "send" and rec.embeds and RESULT_TITLE.fullmatch(rec.embeds[0].title or ""):
            self.tally.results[table] += 1
            if self.tally.results[table] >= self.args.hands:
                self.tally.counting.discard(table)
                self.done[table].set()

    # -- setting up -----------------------------------------------------------------------------------------
    async def start(self) -> None:
        await self.fake.start(run_setup_hook=True)
        rt = self.bot.kwx
        original = rt.frontend.board_changed

        finished = rt.frontend.hand_finished

        def arrived(view: Any) -> None:  # when the front end hears of each change
            self.board_arrivals[view.table_id].append((view.step, time.perf_counter()))

        async def board_changed(view: Any) -> None:
            arrived(view)
            self.actions[view.table_id] += bool(view.last_events)
            await original(view)

        async def hand_finished(result: Any, view: Any) -> None:  # a win's board change is the hand's end
            arrived(view)
            await finished(result, view)

        rt.frontend.board_changed = board_changed  # type: ignore[method-assign]
        rt.frontend.hand_finished = hand_finished  # type: ignore[method-assign]
        rt.service.context.frontend = rt.frontend

    def guild(self, n: int) -> Any:
        """The server of table `n`: TABLES_PER_SERVER tables to a server."""
        key = n // TABLES_PER_SERVER
        if key not in self.guilds:
            self.guilds[key] = self.fake.add_guild()
        return self.guilds[key]

    async def human_table(self, n: int) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.args.stagger) * self.scale)  # tables open over a while
        guild = self.guild(n)
        channel = self.fake.add_text_channel(guild, name=f"t{n}")
        players = [self.fake.add_member(guild, name=f"p{n}-{i}") for i in range(3)]
        await self.fake.slash(players[0], channel, "kwx new")
        table = self.bot.kwx.service.table_in_channel(str(guild.id), str(channel.id))
        if table is None:  # the server would not open another table
            self.refused += 1
            return
        self.channel_table[channel.id] = table
        for p in players:
            self.user_table[p.id] = table
            self.wake[p.id] = asyncio.Event()
        for p in players[1:]:
            await self.fake.slash(p, channel, "kwx join")
        self.done[table] = asyncio.Event()
        self.tally.counting.add(table)
        await self.fake.slash(players[0], channel, "kwx start")
        await asyncio.gather(*(self.player(p, table) for p in players))

    async def ai_table(self, n: int) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.args.stagger) * self.scale)
        guild = self.guild(self.args.tables + n)  # servers of their own, after the human tables'
        channel = self.fake.add_text_channel(guild, name=f"ai{n}")
        service = self.bot.kwx.service
        host = PlayerRef(f"ai:standard:h{n}", f"AI host {n}", "standard")
        table = await service.open_table(str(guild.id), str(channel.id), host)
        self.channel_table[channel.id] = table
        await service.add_ai(table, "standard", by=host.player_id)
        await service.add_ai(table, "simple", by=host.player_id)
        self.done[table] = asyncio.Event()
        self.tally.counting.add(table)
        await service.start_game(table, by=host.player_id)
        await self.done[table].wait()

    # -- a simulated player ----------------------------------------------------------------------------------
    def live_panel(self, user_id: int) -> Any:
        for mid in reversed(self.dm_messages[user_id][-3:]):
            message = self.fake.messages.get(mid)
            if message is None or message.deleted:
                continue
            acts = []
            for row in message.payload.get("components") or ():  # raw payload: cheaper than .components
                for c in row.get("components") or ():
                    m = ACT.fullmatch(c.get("custom_id") or "")
                    if m and not c.get("disabled"):
                        acts.append((c, m))
            if acts:
                return message, acts
        return None

    async def player(self, member: Any, table: int) -> None:
        lo, hi = self.args.think
        while not self.done[table].is_set():
            found = self.live_panel(member.id)
            if found is None:
                self.wake[member.id].clear()
                waiter = asyncio.ensure_future(self.wake[member.id].wait())
                finished = asyncio.ensure_future(self.done[table].wait())
                await asyncio.wait({waiter, finished}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                finished.cancel()
                continue
            # Nothing of the harness's is held across the think time (found, and the last press's outcome below):
            # what lives that long costs the bot's garbage collector, which the timings would count as the bot's.
            found = None
            await asyncio.sleep(self.rng.uniform(lo, hi) * self.scale)
            found = self.live_panel(member.id)
            if found is None or self.done[table].is_set():
                continue
            message, acts = found
            custom_id = choose(acts)
            # The board's own step, not the button's: the board does not count claim answers (their number
            # would tell how many seats could claim), so the two drift apart within a hand.
            shown = None if ":pass:" in custom_id else self.bot.kwx.service.public_view_as_shown(table).step
            start = time.perf_counter()
            out = await self.fake.press(member, message, custom_id, raise_errors=False, timeout=30)
            self.press_times.append((table, shown, start, time.perf_counter()))
            # The harness keeps no history, but a player's latest press stays: the bot edits their panel through
            # its token (and posts the next hand's panel as its followup), as Discord allows for 15 minutes.
            previous = self.last_token.get(member.id)
            if previous is not None:
                self.fake.model.interactions.pop(previous, None)
            self.last_token[member.id] = out.interaction.token
            del out, message, acts

    # -- results ---------------------------------------------------------------------------------------------
    def latencies(self) -> list[float]:
        out = []
        for table, step, start, answered in self.press_times:
            arrivals = [t for s, t in self.board_arrivals[table] if step is not None and s > step and t >= start]
            queued = min(arrivals) if arrivals else answered
            out.append((max(answered, queued) - start) * 1000)
        return out


def choose(acts: list[tuple[dict[str, Any], re.Match[str]]]) -> str:
    """A simple player's custom id: win when offered, pass claims, otherwise discard the drawn tile."""
    verbs = {m[4]: c for c, m in acts}
    for verb in ("hu", "piao"):
        if verb in verbs:
            return verbs[verb]["custom_id"]
    discards = [c for c, m in acts if m[4] == "discard"]
    if not discards:
        return (verbs.get("pass") or acts[0][0])["custom_id"]
    drawn = [c for c in discards if c.get("style") == 1]  # primary: the drawn tile
    return (drawn or discards)[0]["custom_id"]


def per_hand(counts: dict[int, int], tables: list[int], hands: int) -> float:
    return round(sum(counts.get(t, 0) for t in tables) / (len(tables) * hands), 2)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(args, Path(tmp))
        await bench.start()
        t0 = time.perf_counter()
        await asyncio.gather(*(bench.human_table(n) for n in range(args.tables)))
        human_s = time.perf_counter() - t0
        human_tables = sorted(set(bench.user_table.values()))
        t1 = time.perf_counter()
        await asyncio.gather(*(bench.ai_table(n) for n in range(args.ai_tables)))
        ai_s = time.perf_counter() - t1
        ai_tables = sorted(t for t in bench.channel_table.values() if t not in human_tables)
        stats = bench.bot.kwx.frontend.stats
        await bench.bot.shutdown_kwx()
        await bench.fake.close()
    lat = sorted(bench.latencies())
    actions = sum(bench.actions[t] for t in human_tables)
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [lat[0] if lat else 0.0] * 99
    return {
        "tables": args.tables,
        "ai_tables": args.ai_tables,
        "hands_per_table": args.hands,
        "scale": args.scale,
        "public_calls_per_hand": per_hand(bench.tally.public, human_tables, args.hands),
        "dm_calls_per_hand": per_hand(bench.tally.dm, human_tables, args.hands),
        "interaction_responses_per_hand": per_hand(bench.tally.responses, human_tables, args.hands),
        "actions_per_hand": round(actions / max(1, len(human_tables) * args.hands), 1),
        "public_edits_per_action": round(sum(bench.tally.public_edits[t] for t in human_tables) / max(1, actions), 3),
        "ai_public_calls_per_hand": per_hand(bench.tally.public, ai_tables, args.hands) if ai_tables else None,
        "presses": len(lat),
        "p50_ms": round(q[49], 2) if lat else None,
        "p99_ms": round(q[98], 2) if lat else None,
        "max_ms": round(lat[-1], 2) if lat else None,
        "refused_tables": bench.refused,
        "human_phase_s": round(human_s, 1),
        "ai_phase_s": round(ai_s, 1),
        "front_end_calls": {"public_sends": stats.public_sends, "public_edits": stats.public_edits,
                            "dm_sends": stats.dm_sends, "dm_edits": stats.dm_edits,
                            "dm_token_edits": stats.dm_token_edits,
                            "ephemeral_edits": stats.ephemeral_edits, "refused_dms": stats.refused_dms},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.discord_load", description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=100, help="human tables (3 simulated players each)")
    p.add_argument("--ai-tables", type=int, default=100, help="all-AI tables")
    p.add_argument("--hands", type=int, default=1, help="hands played at each table")
    p.add_argument("--think", type=lambda s: tuple(float(x) for x in s.split(":")), default=(1.0, 3.0),
                   metavar="LO:HI", help="a player's think time in seconds (default 1:3)")
    p.add_argument("--ai-delay", type=float, default=0.8, help="seconds an AI waits before acting (production 0.8)")
    p.add_argument("--board-interval", type=float, default=3.0, help="seconds between board edits (production 3)")
    p.add_argument("--ai-board-interval", type=float, default=3.0, help="the same for all-AI tables (production 3)")
    p.add_argument("--between-hands", type=float, default=4.0)
    p.add_argument("--stagger", type=float, default=10.0, help="tables open at random within this many seconds")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every time above by this (default 1: real time; 0.25 = four times the load)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object")
    args = p.parse_args(argv)
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    ok = (result["p99_ms"] or 0) <= 25 and (result["ai_public_calls_per_hand"] or 0) <= 30 and \
        result["public_edits_per_action"] <= 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
