"""A whole kwx bot on the fake Discord: the real KwxBot, TableService and a temp SQLite store, no delays.

    async with bot_kit(tmp_path, closed_dms=("bob",), seed="s1") as kit:    # stopped when the block ends
        await kit.slash(kit.alice, "kwx new")
        ...
        await kit.restart()                # a new bot on the same database and the same Discord, in place
    ...
    await kit.settle()                     # until the AI, the service and the front end are all quiet
    panel = kit.live_panel(kit.alice)      # alice's newest DM (or ephemeral) with enabled buttons
    await kit.press(kit.alice, panel, "discard", "5p")

Players in tests act only through what they were sent: `live_panel` reads the fake's messages as they stand
now, so pressing a button proves the panel showed it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord

from cogs.bot import BotSettings, KwxBot, Pace
from cogs.fake_discord import Component, FakeDiscord, Outcome, StoredMessage, World, make_world
from cogs.runtime import Runtime
from kwx.devtools.polling import eventually
from kwx.engine.ai import choose, observe
from kwx.table import TableService
from kwx.table.deal import Deal

ACT = re.compile(r"kwx:act:(\d+):(\d+):(\d+):([a-z]+):([0-9a-z-]+)")


@dataclass
class Kit:
    """The bot and the Discord it talks to. `restart` swaps both in place, so whoever holds the kit (the
    `bot_kit` block that stops it) holds the bot running now."""

    bot: KwxBot
    world: World

    @property
    def clock(self) -> Any:
        """The table clock the bot was given (a test's FakeClock, which it moves)."""
        return self.bot.clock

    @property
    def fake(self) -> FakeDiscord:
        return self.world.fake

    @property
    def rt(self) -> Runtime:
        """The running bot's collaborators (store, service, front end ...): set up by its setup_hook."""
        assert self.bot.kwx is not None, "the bot was not set up"
        return self.bot.kwx

    @property
    def service(self) -> TableService:
        return self.rt.service

    @property
    def channel(self) -> discord.TextChannel:
        return self.world.channel

    @property
    def members(self) -> list[discord.Member]:
        return self.world.members

    @property
    def alice(self) -> discord.Member:
        return self.members[0]

    @property
    def bob(self) -> discord.Member:
        return self.members[1]

    @property
    def carol(self) -> discord.Member:
        return self.members[2]

    async def settle(self, rounds: int = 400) -> None:
        """Let the AI, the service and the front end run until nothing more happens."""
        last = -1
        for _ in range(rounds):
            await self.service.flush()
            await self.rt.frontend.idle()
            await asyncio.sleep(0.001)
            busy = self.service.busy
            if len(self.fake.log) == last and not busy:
                return
            last = len(self.fake.log)
        raise AssertionError("the table never settled")

    async def until(self, condition: Callable[[], object], *, timeout: float = 30.0) -> None:
        """Settle until `condition()` holds; fail after `timeout` seconds instead of waiting for ever."""
        await eventually(condition, between=self.settle, timeout=timeout, what="what the test waits for")

    async def until_asked(self, member: discord.abc.User) -> Any:
        """Settle until `member` has a live DM panel (a decision to make); return it."""
        await self.until(lambda: self.live_panel(member) is not None)
        return self.live_panel(member)

    def table_state(self, table_id: int) -> tuple[int, int]:
        """(step, last event-log seq) of a table: both stay put when a press changed nothing."""
        live = self.service.live_table(table_id)
        return live.step, live.seq

    async def stop(self) -> None:
        await self.bot.shutdown_kwx()
        await self.fake.close()

    async def restart(self, **bot_options: Any) -> None:
        """Stop this bot and start a new KwxBot + TableService on the same database, talking to the same
        Discord (messages, DM channels, emojis, members carried over into a new fake; its log starts empty)."""
        fresh = await restarted(self, **bot_options)
        self.bot, self.world = fresh.bot, fresh.world

    @staticmethod
    def reply(out: Outcome) -> str:
        """What the person who used the command or button was answered (not what the table did after)."""
        return "\n".join(r.text for r in out.records
                         if r.kind in ("response", "followup") and r.interaction_id == out.interaction.id)

    async def slash(self, member: discord.abc.User, command: str, **options: Any) -> Outcome:
        out = await self.fake.slash(member, self.channel, command, **options)
        await self.settle()
        return out

    async def press_id(self, member: discord.abc.User, message: Any, custom_id: str, **kw: Any) -> Outcome:
        out = await self.fake.press(member, message, custom_id, **kw)
        await self.settle()
        return out

    # -- reading what players see ----------------------------------------------------------------------------
    def table_messages(self) -> list[StoredMessage]:
        return self.fake.channel_messages(self.channel.id)

    def board(self, hand: int | None = None) -> StoredMessage:
        """The board message of `hand` (default: the newest board) as it stands now."""
        found = [m for m in self.table_messages()
                 if m.embeds and _is_board(m) and (hand is None or _hand_of(m) == hand)]
        assert found, f"no board for hand {hand}"
        return found[-1]

    def results(self) -> list[StoredMessage]:
        return [m for m in self.table_messages() if m.payload.get("attachments") or _is_result(m)]

    def dm_messages(self, member: discord.abc.User) -> list[StoredMessage]:
        return [m for m in self.fake.messages.values() if m.dm_to == member.id and not m.deleted]

    def live_panel(self, member: discord.abc.User, *, ephemeral: bool = False) -> StoredMessage | None:
        """The member's newest panel (DM, or ephemeral) that has enabled action buttons now."""
        if ephemeral:
            mine = [m for m in self.fake.messages.values() if m.ephemeral_to == member.id and not m.deleted]
        else:
            mine = self.dm_messages(member)
        for m in reversed(mine):
            if any(c.custom_id and ACT.fullmatch(c.custom_id) and not c.disabled for c in m.components):
                return m
        return None

    def acts(self, message: StoredMessage) -> list[tuple[str, str, Component]]:
        """(verb, arg, button) of the enabled action buttons on a message."""
        out = []
        for c in message.components:
            m = ACT.fullmatch(c.custom_id or "")
            if m and not c.disabled:
                out.append((m[4], m[5], c))
        return out

    async def press(self, member: discord.abc.User, message: StoredMessage, verb: str, arg: str | None = None,
                    **kw: Any) -> Outcome:
        for v, a, c in self.acts(message):
            if v == verb and (arg is None or a == arg):
                return await self.press_id(member, message, c.custom_id or "", **kw)
        raise AssertionError(f"no {verb} {arg} button; there are {[(v, a) for v, a, _ in self.acts(message)]}")

    async def play_turn(self, member: discord.abc.User, message: StoredMessage) -> str:
        """A simple player: win when offered, pass claims, otherwise discard the drawn tile (or the first)."""
        acts = self.acts(message)
        verbs = {v for v, _, _ in acts}
        for verb in ("hu", "piao"):
            if verb in verbs:
                await self.press(member, message, verb, "0" if verb == "piao" else None)
                return verb
        if "pass" in verbs and "discard" not in verbs:
            await self.press(member, message, "pass")
            return "pass"
        discards = [(a, c) for v, a, c in acts if v == "discard"]
        if discards:
            drawn = [a for a, c in discards if c.style == discord.ButtonStyle.primary.value]
            await self.press(member, message, "discard", drawn[0] if drawn else discards[0][0])
            await self.confirm_if_asked(member, message)
            return "discard"
        verb = acts[0][0]
        await self.press(member, message, verb, acts[0][1])
        return verb

    def ai_choice(self, member: discord.abc.User, table_id: int) -> tuple[str, str]:
        """(verb, arg) the standard AI would play in this member's seat now (the test player's brain)."""
        live = self.service.live_table(table_id)
        seat = live.seat_of(str(member.id))
        if live.status == "piao":
            return "piao", "1"
        assert live.hand is not None and seat is not None, f"{member.name} has no seat in a hand in play"
        action = choose(observe(live.hand, seat), "standard")
        return action.verb, action.tile.compact if action.tile is not None else "-"

    async def play_smart(self, member: discord.abc.User, message: StoredMessage) -> str:
        """Play the AI's choice, found among the panel's buttons (亮倒 through the panel's 亮倒 mode)."""
        acts = self.acts(message)
        found = ACT.fullmatch(acts[0][2].custom_id or "")
        assert found is not None
        table_id = int(found[1])
        verb, arg = self.ai_choice(member, table_id)
        if verb == "liangdao":
            await self.press(member, message, "ld")
            message = self.fake.message(message.id)
        elif verb == "piao" and not any(v == "piao" and a == arg for v, a, _ in acts):
            arg = "0"
        await self.press(member, message, verb, arg)
        await self.confirm_if_asked(member, message)
        return verb

    async def confirm_if_asked(self, member: discord.abc.User, message: StoredMessage) -> None:
        """The panel asks once before 亮倒 and before feeding a 亮倒 hand: go ahead."""
        asked = self.acts(self.fake.message(message.id))
        for verb in ("lok", "dok"):
            if any(v == verb for v, _, _ in asked):
                await self.press(member, self.fake.message(message.id), verb)
                return

    async def play_hand(self, players: Iterable[discord.abc.User], *, max_presses: int = 400,
                        ephemeral_for: Iterable[discord.abc.User] = (), smart: bool = True) -> int:
        """Play until a new result post appears; humans act from their live panels. Returns presses made."""
        players = list(players)
        by_ephemeral = {m.id for m in ephemeral_for}
        results_before = len(self.results())
        presses = 0
        while len(self.results()) == results_before:
            assert presses < max_presses, "the hand did not end"
            moved = False
            for member in players:
                panel = self.live_panel(member, ephemeral=member.id in by_ephemeral)
                if panel is None:
                    continue
                await (self.play_smart if smart else self.play_turn)(member, panel)
                presses += 1
                moved = True
                break
            if not moved:
                await self.settle()
                if len(self.results()) == results_before and not any(
                        self.live_panel(m, ephemeral=m.id in by_ephemeral) for m in players):
                    raise AssertionError("nobody can act and the hand is not over")
        return presses


def _footer(m: StoredMessage) -> str:
    return (m.embeds[0].footer.text or "") if m.embeds else ""


def _hand_of(m: StoredMessage) -> int | None:
    numbers = re.findall(r"\d+", _footer(m))
    return int(numbers[1]) if len(numbers) >= 2 else None


def _is_board(m: StoredMessage) -> bool:
    title = m.embeds[0].title or ""
    return bool(re.search(r"第 \d+ 局 · 庄家|Hand \d+ · Dealer", title))


def _is_result(m: StoredMessage) -> bool:
    title = (m.embeds[0].title or "") if m.embeds else ""
    return bool(re.search(r"第 \d+ 局结果|Result of hand", title))


def kit_bot(settings: BotSettings, *, clock: Callable[[], float] | None = None, deal: Deal | None = None,
            **changes: Any) -> KwxBot:
    """A KwxBot with `settings`, some changed: a pace's fields by name (`claim_pause=0.5`), others as they are
    named on BotSettings (`rate_limit=42`); `clock` is the table clock (default: the real one), `deal` where
    the hands come from (default: the table seed; `Deal.scripted(wall, dealer=0)` plays a scripted hand)."""
    pace = {k: changes.pop(k) for k in list(changes) if k in Pace.__dataclass_fields__}
    settings = dataclasses.replace(settings, pace=dataclasses.replace(settings.pace, **pace), **changes)
    return KwxBot(settings, deal=deal) if clock is None else KwxBot(settings, clock=clock, deal=deal)


async def start_kit(tmp_path: Path, *, names: Iterable[str] = ("alice", "bob", "carol"),
                    closed_dms: Iterable[str] = (), seed: str | None = "kwx-test", db_name: str = "kwx.sqlite3",
                    locale: str = "zh-CN", **bot_options: Any) -> Kit:
    bot = kit_bot(BotSettings(database=tmp_path / db_name, pace=Pace.instant(), table_seed=seed), **bot_options)
    world = await make_world(bot, names=names, closed_dms=closed_dms, locale=locale, run_setup_hook=True)
    return Kit(bot, world)


async def stop_kit(kit: Kit) -> None:
    await kit.stop()


@asynccontextmanager
async def bot_kit(tmp_path: Path, **options: Any) -> AsyncIterator[Kit]:
    """`start_kit` for the length of an `async with` block: the kit (restarted or not) is stopped at its end."""
    kit = await start_kit(tmp_path, **options)
    try:
        yield kit
    finally:
        await kit.stop()


async def seat_table(kit: Kit, humans: Iterable[discord.abc.User], ais: int = 0, **new_options: Any) -> int:
    """/kwx new by the first human, the others join, AI seats fill the rest; returns the table id."""
    humans = list(humans)
    await kit.slash(humans[0], "kwx new", **new_options)
    for member in humans[1:]:
        await kit.slash(member, "kwx join")
    for _ in range(ais):
        await kit.slash(humans[0], "kwx addbot")
    table = kit.service.table_in_channel(str(kit.world.guild.id), str(kit.channel.id))
    assert table is not None
    return table


async def alice_played_a_hand(kit: Kit) -> int:
    """Alice and two AI seats play hand 1 to the end (hand 2 is then dealt and in play); returns the table."""
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.play_hand([kit.alice])
    return table


async def alice_asked(kit: Kit) -> tuple[int, StoredMessage, Any, Any]:
    """Alice at a table with two AI seats, dealt in with a live DM panel: (the table, that panel, her latest
    private view as the front end holds it, her seat on the board)."""
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.until_asked(kit.alice)
    latest = kit.rt.frontend.panels.get(table, str(kit.alice.id)).latest
    seat = next(s for s in kit.rt.service.public_view_as_shown(table).seats if s.player.player_id == str(kit.alice.id))
    panel = kit.live_panel(kit.alice)
    assert panel is not None
    return table, panel, latest, seat


async def restarted(kit: Kit, **bot_options: Any) -> Kit:
    """A new Kit: `kit`'s bot stopped, a new one on the same database and Discord (see `Kit.restart`)."""
    old, bot = kit.fake, kit.bot
    await bot.shutdown_kwx()
    await old.close()
    new_bot = kit_bot(bot.settings, **({"clock": bot.clock, "deal": bot.deal} | bot_options))
    fake = FakeDiscord(new_bot, model=old.model)
    await fake.start()
    guild = fake.add_guild(kit.world.guild.id, locale=str(kit.world.guild.preferred_locale))
    channel = fake.add_text_channel(guild, kit.channel.id)
    members = [fake.add_member(guild, m.id, m.name, locale=old.user_locale[m.id]) for m in kit.members]
    await new_bot.setup_hook()
    return Kit(new_bot, World(fake, guild, channel, members))


async def dispatch(kit: Kit, event: str, *args: Any) -> None:
    """A gateway event, as discord.py delivers it: each listener runs as its own task."""
    kit.bot.dispatch(event, *args)
    for _ in range(5):
        await asyncio.sleep(0.01)
        await kit.settle()


def count_failures(kit: Kit, channel_id: int) -> list[int]:
    """From now on, count (in the returned one-item list) the requests to a channel's routes that Discord
    refused, including the ones a test injected."""
    failed = [0]

    def counting(ex: Any) -> None:
        if ex.params.get("channel_id") == str(channel_id) and ex.answer is not None and ex.answer.status >= 400:
            failed[0] += 1

    kit.fake.on_exchange(counting)
    return failed
