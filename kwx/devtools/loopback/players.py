"""The real bot process against the loopback Discord, and scripted players who use it as people do.

    async with LoopbackDiscord() as discord_:
        world = World.build(discord_, players=("alice",))
        async with BotProcess(discord_, db=tmp / "kwx.sqlite3") as bot:  # `python bot.py --sync`
            alice = world.players[0]
            await alice.command(world.channel, "kwx new")
            ...
            await alice.play_until(lambda: world.results(), timeout=60)

A player reads only what Discord shows them (the channel, their DMs, their ephemeral messages) and acts by
pressing buttons there, which the loopback sends to the bot as INTERACTION_CREATE.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwx.devtools.loopback.model import Interaction, Message
from kwx.devtools.loopback.server import LoopbackDiscord

ROOT = Path(__file__).resolve().parents[3]
ACT = re.compile(r"kwx:act:(\d+):(\d+):(\d+):([a-z]+):([0-9a-z-]+)")
# What a scripted player picks when several buttons are offered: win, then 漂 0, then a discard (no claims).
# A discard that feeds a laid-down hand asks first (the panel's confirm mode): the player confirms it ("dok"),
# as a person who meant it would; a player who knew only "discard" would wait on that question for ever.
PREFERENCE = ("hu", "piao", "pass", "dok", "discard")


def buttons(m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for c in items:
            if c.get("type") == 2:
                out.append(c)
            walk(c.get("components") or [])

    walk(m.payload.get("components") or [])
    return out


def text_of(m: Message) -> str:
    parts = [m.payload.get("content") or ""]
    for e in m.payload.get("embeds") or []:
        parts += [e.get("title") or "", e.get("description") or ""]
        parts += [f"{f.get('name')}\n{f.get('value')}" for f in e.get("fields") or []]
        parts.append((e.get("footer") or {}).get("text") or "")
    return "\n".join(p for p in parts if p)


def choose(options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The button a simple player presses on a prompt: the newest step's win, 漂 0, pass, a confirmed discard,
    else a discard."""
    acts = [(b, m) for b in options if not b.get("disabled") and (m := ACT.fullmatch(b.get("custom_id") or ""))]
    if not acts:
        return None
    newest = max((int(m[2]), int(m[3])) for _, m in acts)
    acts = [(b, m) for b, m in acts if (int(m[2]), int(m[3])) == newest]
    for verb in PREFERENCE:
        found = [b for b, m in acts if m[4] == verb]
        if verb == "piao":
            found = [b for b, m in acts if m[4] == verb and m[5] == "0"]
        if found:
            return found[-1]
    return None


@dataclass
class Player:
    discord: LoopbackDiscord
    uid: int
    name: str
    pressed: set[str] = field(default_factory=set)
    presses: int = 0

    async def command(self, channel_id: int, command: str, *, timeout: float = 10.0, **options: Any) -> Interaction:
        """Run a slash command and wait until the bot answered it (or was refused answering)."""
        inter = self.discord.model.slash(self.uid, channel_id, command, **options)
        await asyncio.wait_for(inter.answered.wait(), timeout)
        return inter

    async def press(self, message: Message, custom_id: str, *, timeout: float = 10.0) -> Interaction:
        self.pressed.add(custom_id)
        self.presses += 1
        inter = self.discord.model.press(self.uid, message.id, custom_id)
        await asyncio.wait_for(inter.answered.wait(), timeout)
        return inter

    def reply(self, inter: Interaction) -> str:
        """The text of the bot's answer to an interaction."""
        m = self.discord.model.messages.get(inter.original_id or 0)
        if m is None:
            return ""
        later = [x for x in self.discord.model.messages.values() if x.ephemeral_to == self.uid and x.id > m.id]
        return "\n".join(text_of(x) for x in [m, *later])

    def prompt(self) -> tuple[Message, dict[str, Any]] | None:
        """The newest panel (a DM or an ephemeral My-hand panel) with a button this player would press."""
        recent = [m for m in self.discord.model.inbox.get(self.uid, [])[-8:] if not m.deleted]
        for m in sorted(recent, key=lambda x: x.edited, reverse=True):
            b = choose([x for x in buttons(m) if x.get("custom_id") not in self.pressed])
            if b is not None:
                return m, b
        return None

    async def step(self) -> bool:
        """Press what the newest prompt asks for; False when nothing is asked of this player."""
        found = self.prompt()
        if found is None:
            return False
        m, b = found
        await self.press(m, b["custom_id"])
        return True


@dataclass
class World:
    discord: LoopbackDiscord
    guild: int
    channel: int
    players: list[Player]

    @classmethod
    def build(cls, discord: LoopbackDiscord, names: tuple[str, ...] = ("alice",), *, locale: str = "en",
              closed_dms: tuple[str, ...] = ()) -> World:
        guild = discord.model.add_guild(locale=locale)
        channel = discord.model.add_channel(guild)
        players = [Player(discord, discord.model.add_user(n, guild_id=guild, locale=locale, dms_open=n not in closed_dms,
                                                    manager=i == 0), n)
                   for i, n in enumerate(names)]
        return cls(discord, guild, channel, players)

    def board(self) -> list[Message]:
        return self.discord.model.channel_messages(self.channel)

    def results(self) -> list[Message]:
        return [m for m in self.board() if any((e.get("title") or "").startswith("Result of hand")
                                               for e in m.payload.get("embeds") or [])]


async def play(players: list[Player], until: Callable[[], bool], *, timeout: float, think: float = 0.0) -> None:
    """Every player presses what they are asked, `think` seconds after it appears, until `until()`."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("the game did not get there in time")
        acted = False
        for p in players:
            if p.prompt() is not None:
                if think:
                    await asyncio.sleep(think)
                acted = await p.step() or acted
        if not acted:
            await players[0].discord.model.changed(0.5)


class BotProcess:
    """`python bot.py --sync` as a separate process, pointed at the loopback by DISCORD_API_BASE."""

    def __init__(self, discord: LoopbackDiscord, *, db: Path, args: tuple[str, ...] = ("--delay", "0", "--claim-pause", "0"),
                 env: dict[str, str] | None = None, log: Path | None = None, profile: Path | None = None) -> None:
        self.discord = discord
        self.profile = profile  # run the bot under cProfile, its stats written there when it exits
        self.db = db
        self.args = args
        self.env = env or {}
        self.log = log or db.with_suffix(".log")
        self.proc: asyncio.subprocess.Process | None = None
        self._log_file: Any = None

    async def start(self, *, timeout: float = 30.0) -> BotProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "KWX_"))}
        env |= {"DISCORD_TOKEN": "loopback-token", "DISCORD_API_BASE": self.discord.api_base,
                "KWX_DB": str(self.db), "KWX_LANG": "en", "PYTHONUNBUFFERED": "1"} | self.env
        self._log_file = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.discord.ready.clear()
        profiler = ("-m", "cProfile", "-o", str(self.profile)) if self.profile is not None else ()
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, *profiler, str(ROOT / "bot.py"), "--sync", *self.args, cwd=str(self.db.parent), env=env,
            stdout=self._log_file, stderr=asyncio.subprocess.STDOUT)
        waiter = asyncio.ensure_future(self.discord.ready.wait())
        died = asyncio.ensure_future(self.proc.wait())
        done, _ = await asyncio.wait({waiter, died}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        died.cancel()
        if waiter not in done:
            raise RuntimeError(f"the bot did not connect: see {self.log}\n{self.output()[-3000:]}")
        await asyncio.sleep(0.3)  # READY, then GUILD_CREATE processed
        return self

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    async def stop(self, sig: int | None = None, *, timeout: float = 15.0) -> int | None:
        """SIGTERM (or `sig`) and wait; SIGKILL if it does not exit in time. The exit status."""
        import signal

        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig or signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        if self._log_file is not None:
            self._log_file.close()
        return proc.returncode

    async def __aenter__(self) -> BotProcess:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()
