"""`DiscordFrontEnd`: the table service's FrontEnd port (kwx/table/ports.py) for Discord.

The service calls these methods for every action (each table's calls in order, from its own sender task). They
only record what changed and wake a worker; the workers talk to Discord. The work is split by where it goes:

- cogs/board_delivery.py, the channel: one worker per table posts and edits the board (one message per hand,
  edits coalesced and held through the claim pause), posts results, notices and the close summary, and notices
  a lost channel;
- cogs/dm_panels.py, the DMs: one worker per (table, player) keeps the player's one panel a hand (edits through
  the last press's token, the hand's end line, auto-pass, the My-hand panel when DMs are closed);
- cogs/front_tables.py: what both keep of a table (server, channel, recent boards, its queue) and the counts of
  Discord calls; cogs/message_refs.py: where the messages are, written to the store behind, so a restarted bot
  edits the same messages (an unchanged prompt is left as it is: its buttons are dynamic items and still work).

Every Discord call goes through cogs/operations.py, so a failure is logged and the table goes on. A table whose
channel is lost pauses and its host is told once by DM; when it closes, its summary goes to the channel, or to
the host by DM when the channel is gone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from cogs import board as boards
from cogs.board_delivery import BoardDelivery
from cogs.dm_panels import DmPanels
from cogs.emoji import TileFormatter
from cogs.front_tables import DiscordTable, FrontEndStats, FrontTables
from cogs.languages import Languages
from cogs.message_refs import MessageRefs
from cogs.operations import Rest
from cogs.panels import NORMAL, PanelMessage
from kwx.present.i18n import tr
from kwx.store import Store
from kwx.store.settings import MessageRef
from kwx.table.views import ActionChoice, PlayerRef, PrivateView, PublicView, ResultView, TableSummary


class DiscordFrontEnd:
    def __init__(self, bot: discord.Client, store: Store, *, tiles: TileFormatter, languages: Languages,
                 board_interval: float = 3.0, ai_board_interval: float = 3.0, board_settle: float = 0.0,
                 clock: Callable[[], float] = time.monotonic, rest: Rest | None = None,
                 channel_lost: Callable[[int], Awaitable[object]] | None = None) -> None:
        self.bot = bot
        self.rest = rest if rest is not None else Rest()  # the bot token's calls, on its one budget
        self.store = store
        self.tiles = tiles
        self.languages = languages
        self.stats = FrontEndStats()
        self.refs = MessageRefs(store)
        self.tables = FrontTables(bot, store, languages, restore=self._restore)
        # `channel_lost` asks the table service to pause a table whose channel is gone (the service's `pause`):
        # all the front end asks of the service; it holds no handle on it: what it shows is in the views.
        self.board = BoardDelivery(self.tables, self.refs, self.stats, tiles, self.rest, board_interval=board_interval,
                                   ai_board_interval=ai_board_interval, board_settle=board_settle, clock=clock,
                                   channel_lost=channel_lost, hand_ended=self._hand_ended, closing=self._closing)
        self.panels = DmPanels(bot, store, self.tables, self.board, self.refs, self.stats, tiles, self.rest)

    # The DM side and the channel side call each other only through these two hooks, wired here.
    def _restore(self, tc: DiscordTable, ref: MessageRef) -> None:
        self.panels.restore(tc, ref)

    def _hand_ended(self, tc: DiscordTable, result: ResultView, view: PublicView, sent: discord.Message | None,
                    lang: str) -> None:
        self.panels.hand_ended(tc, result, view, sent, lang)

    async def _closing(self, table_id: int) -> None:
        await self.panels.closing(table_id)

    @property
    def prompt_reached(self) -> Callable[[int, str, int], None] | None:
        """(table, player, step) -> that prompt is in front of the player (set by the bot to the service's
        `prompt_delivered`, which starts or stretches the turn's timer from then)."""
        return self.panels.prompt_reached

    @prompt_reached.setter
    def prompt_reached(self, prompt_reached: Callable[[int, str, int], None] | None) -> None:
        self.panels.prompt_reached = prompt_reached

    # == the FrontEnd port ================================================================================
    async def board_changed(self, view: PublicView) -> None:
        self.board.board_changed(view)

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        await self.panels.hand_changed(player, view, prompt=prompt)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        """Nothing to post: a 亮倒 lives on the board, whose view (already taken) shows the hand, its waits and
        the 亮倒 line. A post of its own would push the board up the channel three times a hand."""

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        self.board.hand_finished(result, view)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        self.board.notice(table_id, key, fmt)

    async def table_paused(self, view: PublicView, reason: str) -> None:
        """The board shows the pause and its Resume button; a lost channel is told to the host once by DM."""
        tc = self.tables.get(view.table_id)
        if reason == "channel_lost" and not tc.host_told:
            tc.host_told = True
            await self.tables.locate(tc)
            host = view.host.player_id if view.host is not None else None
            lang = self.tables.lang(tc)
            where = f"<#{tc.channel}>" if tc.channel else "?"
            await self.panels.dm_player(host, content=tr("dm.channel_lost", lang, table=tc.id, channel=where))

    async def table_closed(self, summary: TableSummary) -> None:
        """The close summary: in the channel, or to the host by DM when the channel is gone."""
        tc = self.tables.get(summary.table_id)
        await self.tables.locate(tc)
        tc.closed = True
        if tc.lost or summary.reason == "channel_gone" or tc.channel is None:
            tc.queue.clear()
            lang = self.tables.lang(tc)
            host = summary.host.player_id if summary.host is not None else None
            await self.panels.dm_player(host, embeds=[boards.summary_embed(summary, lang)])
            if not self.board.busy(tc):
                await self.board.forget(tc)
            return
        self.board.post(tc, ("summary", summary))

    # == what the cogs tell the front end =================================================================
    def panel(self, view: PrivateView, lang: str, **options: Any) -> PanelMessage:
        """The panel's message for `view`, with what the front end knows of the table: its board (for the context
        line) and the player's auto-pass toggle."""
        return self.panels.panel(view, lang, **options)

    def panel_key(self, view: PrivateView) -> str:
        return self.panels.panel_key(view)

    def seated(self, interaction: discord.Interaction, table_id: int) -> None:
        """A player's /kwx new, join or start at the table, answered (its token may show them their first panel)."""
        self.panels.seated(interaction, table_id)

    def press_arrived(self, interaction: discord.Interaction, table_id: int) -> None:
        """A panel press, before the service answers it: the panel's next edit goes through its token."""
        self.panels.press_arrived(interaction, table_id)

    async def pressed(self, interaction: discord.Interaction, view: PrivateView, *, mode: str = NORMAL,
                      confirm: ActionChoice | None = None) -> None:
        """A panel press the service accepted: the DM worker answers it with `view` in `mode` and edits the panel
        through its token from then on (cogs/dm_panels.py)."""
        await self.panels.pressed(interaction, view, mode=mode, confirm=confirm)

    def shown_by_interaction(self, interaction: discord.Interaction, view: PrivateView, *, live: bool) -> None:
        """A button answer or a My-hand panel now shows `view` (live: with its buttons)."""
        self.panels.shown_by_interaction(interaction, view, live=live)

    def dm_owner(self, channel_id: int | None) -> str | None:
        """Whose hand panels are in this DM channel (None: not one we know)."""
        return self.panels.dm_owner(channel_id)

    def refresh(self, table_id: int) -> None:
        """Render the table's board again (something it shows changed without a service call: spectators)."""
        self.board.refresh(table_id)

    def table_guild(self, table_id: int) -> str | None:
        """The server of a table the front end has located (for the language of a DM press)."""
        tc = self.tables.find(table_id)
        return tc.guild if tc is not None else None

    def dms_closed(self, player_id: str) -> bool:
        return self.panels.dms_closed(player_id)

    async def idle(self, timeout: float = 10.0) -> None:
        """Wait until every worker has nothing left to do (tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        while True:
            tasks = self._workers()
            if not tasks:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the Discord front end is still busy")
            await asyncio.wait(tasks, timeout=left)

    async def close(self) -> None:
        """Stop the workers and write down where the messages are (call before closing the store)."""
        tasks = self._workers()
        writer = self.refs.writer()
        if writer is not None:
            tasks.append(writer)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.refs.write()

    def _workers(self) -> list[asyncio.Task[None]]:
        boards_ = [tc.task for tc in self.tables.by_id.values() if tc.task is not None and not tc.task.done()]
        return [*boards_, *self.panels.tasks()]
