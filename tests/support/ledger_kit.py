"""A small bot for the ledger, tools and config cogs on the fake Discord, with a real temporary SQLite store.

    kit = await ledger_kit(tmp_path)                  # alice, bob, carol, dave in one server; language zh-CN
    out = await kit.slash(kit.alice, "kwx balance")
    await kit.set_lang("en")
    kit.no_manage_server()                            # members lose Manage Server from now on

It builds only what these cogs use from the runtime (the store and the languages), so the tests do not start
the table service. `tests/cogs/test_translator.py` runs the real KwxBot for the whole command tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
from discord.ext import commands

from cogs.emoji import TileFormatter
from cogs.fake_discord import FakeDiscord, Outcome, Sent, World, make_world
from cogs.languages import Languages
from cogs.operations import Rest
from kwx.store import Store
from kwx.table.manual import ManualWin, manual_payments, manual_record

EXTENSIONS = ("cogs.ledger", "cogs.tools", "cogs.config")


class LedgerBot(commands.Bot):
    def __init__(self, store: Store, extensions: tuple[str, ...] = EXTENSIONS) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None,
                         allowed_mentions=discord.AllowedMentions.none())
        self.kwx = SimpleNamespace(store=store, languages=Languages(store), tiles=TileFormatter(), rest=Rest())
        self._extensions = extensions

    async def setup_hook(self) -> None:
        await self.kwx.languages.load()
        for extension in self._extensions:
            await self.load_extension(extension)


@dataclass
class LedgerKit:
    bot: LedgerBot
    world: World
    store: Store
    others: list[World] = field(default_factory=list)

    @property
    def fake(self) -> FakeDiscord:
        return self.world.fake

    @property
    def guild(self) -> str:
        return str(self.world.guild.id)

    @property
    def alice(self) -> discord.Member:
        return self.world.members[0]

    @property
    def bob(self) -> discord.Member:
        return self.world.members[1]

    @property
    def carol(self) -> discord.Member:
        return self.world.members[2]

    @property
    def dave(self) -> discord.Member:
        return self.world.members[3]

    def id(self, member: discord.abc.User) -> str:
        return str(member.id)

    async def slash(self, who: discord.abc.User, command: str, *, channel: Any = None, **options: Any) -> Outcome:
        return await self.fake.slash(who, channel or self.world.channel, command, **options)

    async def press(self, who: discord.abc.User, message: Any, label: str) -> Outcome:
        return await self.fake.press(who, message, label=label)

    async def set_lang(self, lang: str, guild: Any = None) -> None:
        await self.bot.kwx.languages.set((guild or self.world.guild).id, lang)

    def no_manage_server(self) -> None:
        """Interactions from now on carry member permissions without Manage Server."""
        self.fake.members_without(manage_guild=False)

    def add_guild(self, names: tuple[str, ...] = ("erin",)) -> tuple[discord.Guild, discord.TextChannel,
                                                                      list[discord.Member]]:
        """A second server on the same bot; members of the first may be added to it with `join`."""
        guild = self.fake.add_guild()
        channel = self.fake.add_text_channel(guild)
        members = [self.fake.add_member(guild, name=n) for n in names]
        return guild, channel, members

    def join(self, guild: discord.Guild, member: discord.Member) -> discord.Member:
        """The same user as a member of another server."""
        data: Any = self.fake._member_payload(member.id)
        twin = discord.Member(data=data, guild=guild, state=self.fake.state)
        guild._add_member(twin)
        return twin


async def ledger_kit(tmp_path: Path, *, names: tuple[str, ...] = ("alice", "bob", "carol", "dave"),
                     extensions: tuple[str, ...] = EXTENSIONS) -> LedgerKit:
    store = await Store.open(tmp_path / "ledger.sqlite3")
    bot = LedgerBot(store, extensions)
    world = await make_world(bot, names=names, run_setup_hook=True)
    return LedgerKit(bot, world, store)


async def close_kit(kit: LedgerKit) -> None:
    for cog in list(kit.bot.cogs.values()):
        flow = getattr(cog, "_flow", None)
        if flow is not None:
            flow.close()
    await kit.fake.close()
    await kit.store.close()


async def play(kit: LedgerKit, winner: discord.Member, payer: discord.Member, third: discord.Member | None = None,
               *, fan: int = 2, self_draw: bool = False, guild: str | None = None, base: int = 1) -> int:
    """A hand written straight to the store (as a finished table would)."""
    win = ManualWin(str(winner.id), str(payer.id), str(third.id) if third else None, self_draw=self_draw, fan=fan)
    names = {str(m.id): m.display_name for m in (winner, payer, third) if m is not None}
    record = manual_record(guild or kit.guild, win, manual_payments(win, base=base), names, by="test")
    return await kit.store.record_manual_hand(record)


def block_rows(text: str, *, header: bool = True, marker: bool = True) -> list[list[str]]:
    """The rows of the first code block of `text`, split on runs of spaces. With `marker`, a row's first
    character (the ```diff sign: '+', '-' or ' ') is its first cell; with `header`, the first line is dropped."""
    found = re.search(r"```(?:diff)?\n(.*?)\n```", text, re.S)
    assert found, text
    lines = [line for line in found.group(1).split("\n")[1 if header else 0:] if line.strip()]
    return [[line[0], *line[1:].split()] if marker else line.split() for line in lines]


def no_pings(sent: Sent) -> bool:
    mentions = sent.raw.get("allowed_mentions")
    return mentions is not None and mentions.get("parse") == [] and not mentions.get("users")
