"""What the Discord front end keeps of each table: where it is (server, channel, found in the store once), its
recent boards and lines, its channel queue and whether its channel still answers; and the count of Discord
calls made. The channel side (cogs/board_delivery.py) and the DM side (cogs/dm_panels.py) both read it."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from cogs import board as boards
from cogs.languages import Languages
from kwx.store import NotFound, Store
from kwx.store.settings import MessageRef
from kwx.table.views import PublicView

BOARD_REF = "board"
DMS_CLOSED_REF = "dmclosed:"  # + player id: this table has said that player's DMs are closed (kept over restarts)


@dataclass
class FrontEndStats:
    """Discord calls made, by kind (for the benchmark and the logs)."""

    public_sends: int = 0
    public_edits: int = 0
    dm_sends: int = 0
    dm_edits: int = 0
    dm_token_edits: int = 0  # panel edits through a press's interaction token (exempt from the global limit)
    ephemeral_edits: int = 0
    refused_dms: int = 0
    board_ends_skipped: int = 0  # finished hands' last board edits left to their result post (a crowded budget)


@dataclass
class DiscordTable:
    id: int
    guild: str | None = None
    channel: int | None = None
    loaded: bool = False
    load_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    views: dict[int, PublicView] = field(default_factory=dict)  # the latest view of each recent hand
    lines: dict[int, list[boards.Line]] = field(default_factory=dict)  # recent actions and notices, per hand
    queue: deque[tuple[Any, ...]] = field(default_factory=deque)
    marked: set[int] = field(default_factory=set)  # hands with a board mark in the queue
    marked_at: dict[int, float] = field(default_factory=dict)  # hand -> when its queued mark was made
    boards: dict[int, int] = field(default_factory=dict)  # hand -> board message id
    board_hand: int | None = None  # the newest hand that has a board message
    versions: dict[int, int] = field(default_factory=dict)  # hand -> count of its board's changes
    shown_versions: dict[int, int | None] = field(default_factory=dict)  # hand -> the version its message shows
    last_call: float = float("-inf")
    dm_notices: set[str] = field(default_factory=set)
    failures: int = 0  # failed channel requests in a row
    lost: bool = False  # the channel is gone or closed to the bot: no channel requests until a resume
    host_told: bool = False  # the host was told by DM that the channel is lost
    closed: bool = False
    task: asyncio.Task[None] | None = None


class FrontTables:
    """The tables the front end knows, by id. `restore` is given each message ref of a table that is not its
    board (the DM side's panels and closed-DM notes), once, when the table is first located."""

    def __init__(self, bot: discord.Client, store: Store, languages: Languages,
                 restore: Callable[[DiscordTable, MessageRef], None]) -> None:
        self.bot = bot
        self.store = store
        self.languages = languages
        self.restore = restore
        self.by_id: dict[int, DiscordTable] = {}

    def get(self, table_id: int) -> DiscordTable:
        """The table's state, made on first use."""
        tc = self.by_id.get(table_id)
        if tc is None:
            tc = self.by_id[table_id] = DiscordTable(table_id)
        return tc

    def find(self, table_id: int) -> DiscordTable | None:
        return self.by_id.get(table_id)

    def current(self, tc: DiscordTable) -> bool:
        """Whether `tc` is still the table's state and the table is open (not forgotten meanwhile)."""
        return self.by_id.get(tc.id) is tc and not tc.closed

    async def locate(self, tc: DiscordTable) -> None:
        """The table's guild and channel, and where its messages are (after a restart), from the store."""
        if tc.loaded:
            return
        async with tc.load_lock:
            if tc.loaded:
                return
            try:
                row = await self.store.get_table(tc.id)
                refs = await self.store.message_refs(tc.id)
            except NotFound:
                tc.loaded = True
                return
            tc.guild = row.guild
            tc.channel = int(row.channel) if row.channel and row.channel.isdigit() else None
            for ref in refs.values():
                if ref.ref == BOARD_REF:
                    hand = int(ref.data.get("hand", 0))
                    tc.boards[hand] = int(ref.message_id)
                    tc.board_hand = hand
                    continue
                if ref.ref.startswith(DMS_CLOSED_REF):  # said before a restart: not said again
                    tc.dm_notices.add(ref.ref[len(DMS_CLOSED_REF):])
                self.restore(tc, ref)
            tc.loaded = True

    def lang(self, tc: DiscordTable) -> str:
        return self.languages.of(tc.guild)

    def channel(self, tc: DiscordTable) -> discord.PartialMessageable | None:
        if tc.channel is None:
            return None
        guild_id = int(tc.guild) if tc.guild and tc.guild.isdigit() else None
        return self.bot.get_partial_messageable(tc.channel, guild_id=guild_id)
