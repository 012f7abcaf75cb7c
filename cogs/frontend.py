"""`DiscordFrontEnd`: the table service's FrontEnd port (kwx/table/ports.py) for Discord.

The service calls these methods for every action (each table's calls in order, from its own sender task). They
only record what changed and wake a worker; the workers talk to Discord:

- one worker per table for the channel, working through a queue of "board of hand N" marks and posts (hand
  results, notices) in order; a 亮倒 shows on the board alone. The board is one message per hand, edited in
  place; edits are coalesced: at most one per `board_interval` seconds (tables without a human seat:
  `ai_board_interval`), the latest state always last. At a table with a human an edit also waits
  `board_settle` seconds after the first change it carries (the claim pause after a discard, a little more): a
  discard and the draw or claim window that follows it are one edit, and since every discard is held the same
  time whatever the concealed tiles, the edit's timing tells nothing. The lobby message becomes the board of
  hand 1; hands 2+ get a new message (after the previous result), so the board stays at the bottom.
- one worker per (table, player) for the private panel: one DM per player per hand, edited in place. The hand's
  first panel (the 漂 choice or the deal) is a new message, so Discord notifies the player; every later prompt
  edits it, buttons and all, and between prompts it shows the hand without buttons. A press is answered by
  editing the panel as the interaction's response, the panel's next edits go through that interaction's token
  (15 minutes), and the next hand's panel is posted as a followup of the player's last press while its token
  lives: none of these counts toward the bot's global limit, so steady play costs the bot's token nothing in
  DMs. When the result is posted, each player's panel of that hand collapses to one line: who won, how, the
  player's net, and a link to the result. A claim offer that holds no win is passed at once for a player who
  turned auto-pass on. A refused DM (DMs closed) is said once in the channel; the player then uses the board's
  "My hand" button, whose ephemeral panel is kept up to date here for as long as its interaction token lives.

Where the board and each player's panel are is kept in the store (message_refs), so a restarted bot edits the
same messages, and an unchanged prompt is left as it is (its buttons still work: they are dynamic items).
Every Discord call goes through cogs/operations.py, so a failure is logged and the table goes on.

A lost channel: a board send or edit answered 10003/50001/50013 (`operations.channel_lost`), or
MAX_CHANNEL_FAILURES failed channel requests in a row, and the table makes no more channel requests: the
service pauses it ("channel_lost") and its host is told once by DM. When it closes, its summary goes to the
channel, or to the host by DM when the channel is gone. A player in 托管 gets no new DM per move made for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import discord

from cogs import board as boards
from cogs.buttons import release
from cogs.emoji import TileFormatter
from cogs.languages import Languages
from cogs.operations import (
    channel_lost,
    dms_closed,
    last_failure,
    message_gone,
    safe_edit,
    safe_edit_followup,
    safe_edit_original,
    safe_fetch_user,
    safe_followup,
    safe_send_channel,
    safe_send_dm,
    transient,
    wait_for_limit,
)
from cogs.panels import PanelMessage, panel_key, panel_message
from kwx.present.i18n import tr
from kwx.store import NotFound, Store
from kwx.store.settings import AUTO_PASS_CLAIMS, MessageRef
from kwx.table.errors import TableError
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary

logger = logging.getLogger(__name__)

BOARD_REF = "board"
DMS_CLOSED_REF = "dmclosed:"  # + player id: this table has said that player's DMs are closed (kept over restarts)
RETRY_LATER = 5.0  # seconds before a board edit, a post or a DM that failed for a passing reason is tried again
HANDS_KEPT = 3  # boards and action lines of the last few hands, for late edits
LINES_KEPT = 32  # recent events and notices kept per hand (the board shows the last few)
LOBBY_INTERVAL = 1.0  # seconds between lobby edits at most
MAX_CHANNEL_FAILURES = 3  # failed channel requests in a row after which a table stops trying (and pauses)
# An interaction's token edits its message for 15 minutes; later edits use the bot's own token. The margin covers
# an edit that waits a little and clocks that differ.
TOKEN_LIFETIME = datetime.timedelta(minutes=14)


@dataclass
class FrontEndStats:
    """Discord calls made, by kind (for the benchmark and the logs)."""

    public_sends: int = 0
    public_edits: int = 0
    dm_sends: int = 0
    dm_edits: int = 0
    dm_token_edits: int = 0  # panel edits through a press's interaction token (exempt from the global limit)
    auto_passes: int = 0
    ephemeral_edits: int = 0
    refused_dms: int = 0


@dataclass
class Shown:
    """What one panel message shows now."""

    channel_id: int
    message_id: int
    hand: int
    step: int
    key: str
    live: bool  # it has enabled buttons
    dealt: bool  # it shows tiles (not just the 漂 choice)
    view: PrivateView | None = None
    ended: bool = False  # collapsed to the hand's one-line end
    # The interaction whose token may edit this message (exempt from the global limit, for 15 minutes): a press
    # answered by updating it (its @original), or the press whose followup posted it (`followup`).
    token: discord.Interaction | None = None
    followup: bool = False

    def data(self) -> dict[str, Any]:
        return {"hand": self.hand, "step": self.step, "key": self.key, "live": self.live, "dealt": self.dealt,
                "ended": self.ended}


@dataclass
class _Panel:
    table_id: int
    player_id: str
    latest: PrivateView | None = None
    prompt: bool = False
    dirty: bool = False
    hold: int = 0  # button presses in flight: their interaction answers update the panel themselves
    dm: Shown | None = None  # the panel of the current hand
    past: dict[int, Shown] = field(default_factory=dict)  # earlier hands' panels, until their end line is shown
    endings: dict[int, str] = field(default_factory=dict)  # hand -> its one-line end, not yet shown
    eph: discord.Interaction | None = None  # the latest ephemeral panel (My hand), while its token lives
    eph_shown: Shown | None = None
    refused_hand: int | None = None  # the hand in which a DM to this player was refused (retried next hand)
    task: asyncio.Task[None] | None = None


@dataclass
class _Table:
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


class DiscordFrontEnd:
    def __init__(self, bot: discord.Client, store: Store, *, tiles: TileFormatter, languages: Languages,
                 board_interval: float = 3.0, ai_board_interval: float = 3.0, board_settle: float = 0.0,
                 clock: Callable[[], float] = time.monotonic,
                 channel_lost: Callable[[int], Awaitable[object]] | None = None) -> None:
        self.bot = bot
        self.store = store
        self.tiles = tiles
        self.languages = languages
        self.board_interval = board_interval
        self.ai_board_interval = ai_board_interval
        self.board_settle = board_settle
        self.clock = clock
        # (table, player, step) -> pass that claim: how an auto-pass is made (set by the bot to the service's act)
        self.pass_claim: Callable[[int, str, int], Awaitable[object]] | None = None
        self._auto_pass: dict[tuple[str, str], bool] = {}  # (server, player) -> the player's auto-pass toggle
        # Asks the table service to pause a table whose channel is gone (the service's `pause`). With pass_claim,
        # all the front end asks of the service; it holds no handle on it: what it shows is in the views.
        self.channel_lost = channel_lost
        self.stats = FrontEndStats()
        self._tables: dict[int, _Table] = {}
        self._panels: dict[tuple[int, str], _Panel] = {}
        self._dm_closed: set[str] = set()
        self._dm_owner: dict[int, str] = {}  # DM channel id -> player id
        self._dm_channel: dict[str, int] = {}  # player id -> DM channel id
        self._refs: dict[tuple[int, str], MessageRef] = {}  # where messages are, not yet written to the store
        self._refs_task: asyncio.Task[None] | None = None
        self.refs_interval = 1.0

    # == the FrontEnd port ================================================================================
    async def board_changed(self, view: PublicView) -> None:
        tc = self._table(view.table_id)
        if tc.lost and view.paused is None and view.phase != "closed":  # resumed: try the channel again
            tc.lost = tc.host_told = False
            tc.failures = 0
        self._take(tc, view)

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        if player.is_ai or not player.player_id.isdigit():
            return
        p = self._panel(view.table_id, player.player_id)
        if p.latest is not None and (view.hand_no, view.step) < (p.latest.hand_no, p.latest.step):
            return  # an older state than one already shown (a button answer overtook the service's call)
        if prompt and self.pass_claim is not None and _claim_without_win(view) and not view.autoplay:
            tc = self._table(view.table_id)
            await self._locate(tc)
            if await self.auto_pass(tc.guild, player.player_id):
                # passed at once, never shown: no thinking time for the table to read
                self.stats.auto_passes += 1
                asyncio.get_running_loop().create_task(self._pass(view))
                return
        p.latest = view
        p.prompt = p.prompt or prompt
        self._kick_panel(p)

    async def _pass(self, view: PrivateView) -> None:
        assert self.pass_claim is not None
        try:
            await self.pass_claim(view.table_id, view.player_id, view.step)
        except Exception:  # the window closed meanwhile (another seat's win): nothing to pass
            logger.debug("table %s: auto-pass of %s not made", view.table_id, view.player_id, exc_info=True)

    async def auto_pass(self, guild: str | None, player_id: str) -> bool:
        """The player's auto-pass toggle in this server (read from the store once, then kept)."""
        if guild is None:
            return False
        key = (guild, player_id)
        if key not in self._auto_pass:
            try:
                self._auto_pass[key] = await self.store.player_setting(guild, player_id, AUTO_PASS_CLAIMS) == "on"
            except Exception:
                logger.exception("could not read the auto-pass setting of %s", player_id)
                return False
        return self._auto_pass[key]

    def auto_pass_set(self, guild: str, player_id: str, on: bool) -> None:
        """The cog changed the toggle (and wrote it to the store)."""
        self._auto_pass[(guild, player_id)] = on

    def panel(self, view: PrivateView, lang: str, **options: Any) -> PanelMessage:
        """The panel's message for `view`, with what the front end knows of the table: its board (for the context
        line) and the player's auto-pass toggle."""
        tc = self._tables.get(view.table_id)
        board = tc.views.get(view.hand_no) if tc is not None else None
        guild = tc.guild if tc is not None else None
        on = self._auto_pass.get((guild, view.player_id), False) if guild is not None else False
        return panel_message(view, lang, self.tiles, piao_max=view.piao_max, board=board,
                             auto_pass=on, **options)

    def panel_key(self, view: PrivateView) -> str:
        tc = self._tables.get(view.table_id)
        guild = tc.guild if tc is not None else None
        return panel_key(view, self._auto_pass.get((guild, view.player_id), False) if guild is not None else False)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        """Nothing to post: a 亮倒 lives on the board, whose view (already taken) shows the hand, its waits and
        the 亮倒 line. A post of its own would push the board up the channel three times a hand."""

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        tc = self._table(view.table_id)
        self._take(tc, view)
        tc.queue.append(("result", result, view))
        self._kick_table(tc)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        tc = self._table(table_id)
        hand = max(tc.views, default=0)
        tc.lines.setdefault(hand, []).append(("notice", key, fmt))
        if hand in tc.views:
            self._mark(tc, hand)
        else:
            tc.queue.append(("notice", key, fmt))
            self._kick_table(tc)

    async def table_paused(self, view: PublicView, reason: str) -> None:
        """The board shows the pause and its Resume button; a lost channel is told to the host once by DM."""
        tc = self._table(view.table_id)
        if reason == "channel_lost" and not tc.host_told:
            tc.host_told = True
            await self._locate(tc)
            host = view.host.player_id if view.host is not None else None
            lang = self._lang(tc)
            where = f"<#{tc.channel}>" if tc.channel else "?"
            await self._dm_player(host, content=tr("dm.channel_lost", lang, table=tc.id, channel=where))

    async def table_closed(self, summary: TableSummary) -> None:
        """The close summary: in the channel, or to the host by DM when the channel is gone."""
        tc = self._table(summary.table_id)
        await self._locate(tc)
        tc.closed = True
        if tc.lost or summary.reason == "channel_gone" or tc.channel is None:
            tc.queue.clear()
            lang = self._lang(tc)
            host = summary.host.player_id if summary.host is not None else None
            await self._dm_player(host, embeds=[boards.summary_embed(summary, lang)])
            if tc.task is None or tc.task.done():
                await self._forget(tc)
            return
        tc.queue.append(("summary", summary))
        self._kick_table(tc)

    async def _dm_player(self, player_id: str | None, **message: Any) -> None:
        if player_id is None or not player_id.isdigit():
            return
        user = self.bot.get_user(int(player_id)) or await safe_fetch_user(self.bot, int(player_id))
        if user is not None:
            self.stats.dm_sends += 1
            await safe_send_dm(user, **message)

    def _channel_result(self, tc: _Table, ok: bool) -> bool:
        """Count a channel request. False when the table has lost its channel: send nothing more there."""
        if ok:
            tc.failures = 0
            return True
        tc.failures += 1
        if channel_lost(last_failure()) or tc.failures >= MAX_CHANNEL_FAILURES:
            self._lose(tc)
            return False
        return True

    def _lose(self, tc: _Table) -> None:
        if tc.lost:
            return
        tc.lost = True
        tc.queue.clear()
        tc.marked.clear()
        logger.warning("table %s: its channel %s is gone or closed to the bot; pausing it", tc.id, tc.channel)
        if self.channel_lost is not None and not tc.closed:
            asyncio.get_running_loop().create_task(self._pause_lost(self.channel_lost, tc.id))

    @staticmethod
    async def _pause_lost(pause: Callable[[int], Awaitable[object]], table_id: int) -> None:
        try:
            await pause(table_id)
        except TableError:  # closed meanwhile
            logger.info("table %s: not paused after its channel was lost", table_id, exc_info=True)

    # == what the cogs tell the front end =================================================================
    @contextlib.asynccontextmanager
    async def pressing(self, table_id: int, player_id: str) -> AsyncIterator[None]:
        """While a panel button is being answered, the panel worker leaves that player alone (the answer
        edits the pressed message); afterwards it catches up with anything newer."""
        p = self._panel(table_id, player_id)
        p.hold += 1
        try:
            yield
        finally:
            p.hold -= 1
            if p.hold == 0:
                self._kick_panel(p)

    def shown_by_interaction(self, interaction: discord.Interaction, view: PrivateView, *, live: bool) -> None:
        """A button answer or a My-hand panel now shows `view` (live: with its buttons)."""
        p = self._panel(view.table_id, str(interaction.user.id))
        if p.latest is None or (view.hand_no, view.step) >= (p.latest.hand_no, p.latest.step):
            p.latest = view
        message = interaction.message
        if interaction.guild_id is None and message is not None:  # a DM panel
            old = p.dm
            if old is not None and old.message_id != message.id and not old.ended:
                p.past[old.hand] = old  # pressed on an earlier hand's panel: that one is kept for its end line
            p.dm = Shown(interaction.channel_id or 0, message.id, view.hand_no, view.step, self.panel_key(view), live,
                         bool(view.concealed), view, token=interaction)
            self._remember_dm(p)
            self._dm_owner[p.dm.channel_id] = p.player_id
            self._dm_channel[p.player_id] = p.dm.channel_id
        else:  # an ephemeral panel: keep its interaction to edit it later
            p.eph = interaction
            p.eph_shown = Shown(interaction.channel_id or 0, message.id if message else 0, view.hand_no, view.step,
                                self.panel_key(view), live, bool(view.concealed), view)

    def dm_owner(self, channel_id: int | None) -> str | None:
        """Whose hand panels are in this DM channel (None: not one we know)."""
        return None if channel_id is None else self._dm_owner.get(channel_id)

    def refresh(self, table_id: int) -> None:
        """Render the table's board again (something it shows changed without a service call: spectators)."""
        tc = self._tables.get(table_id)
        if tc is not None and tc.views:
            self._mark(tc, max(tc.views))

    def table_guild(self, table_id: int) -> str | None:
        """The server of a table the front end has located (for the language of a DM press)."""
        tc = self._tables.get(table_id)
        return tc.guild if tc is not None else None

    def dms_closed(self, player_id: str) -> bool:
        return player_id in self._dm_closed

    async def idle(self, timeout: float = 10.0) -> None:
        """Wait until every worker has nothing left to do (tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        while True:
            workers: list[_Table | _Panel] = [*self._tables.values(), *self._panels.values()]
            tasks = [x.task for x in workers if x.task is not None and not x.task.done()]
            if not tasks:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the Discord front end is still busy")
            await asyncio.wait(tasks, timeout=left)

    async def close(self) -> None:
        """Stop the workers and write down where the messages are (call before closing the store)."""
        workers: list[_Table | _Panel] = [*self._tables.values(), *self._panels.values()]
        tasks = [x.task for x in workers if x.task is not None and not x.task.done()]
        if self._refs_task is not None and not self._refs_task.done():
            tasks.append(self._refs_task)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._write_refs(0)

    # == bookkeeping ======================================================================================
    def _table(self, table_id: int) -> _Table:
        tc = self._tables.get(table_id)
        if tc is None:
            tc = self._tables[table_id] = _Table(table_id)
        return tc

    def _panel(self, table_id: int, player_id: str) -> _Panel:
        key = (table_id, player_id)
        p = self._panels.get(key)
        if p is None:
            p = self._panels[key] = _Panel(table_id, player_id)
        return p

    def _take(self, tc: _Table, view: PublicView) -> None:
        hand = view.hand_no
        previous = tc.views.get(hand)
        tc.views[hand] = view
        if view.last_events:
            lines = tc.lines.setdefault(hand, [])
            lines.extend(("event", e) for e in view.last_events)
            del lines[: -LINES_KEPT]
        elif previous is not None and replace(previous, last_events=()) == view:
            return  # the same board again (e.g. with the hand's result): nothing to edit
        for old in [h for h in tc.views if h < hand - HANDS_KEPT]:
            tc.views.pop(old, None)
            tc.lines.pop(old, None)
        self._mark(tc, hand)

    def _mark(self, tc: _Table, hand: int) -> None:
        tc.versions[hand] = tc.versions.get(hand, 0) + 1
        if hand not in tc.marked:
            tc.marked.add(hand)
            tc.marked_at[hand] = self.clock()
            tc.queue.append(("board", hand))
        self._kick_table(tc)

    def _kick_table(self, tc: _Table) -> None:
        if tc.task is None or tc.task.done():
            tc.task = asyncio.get_running_loop().create_task(self._run_table(tc), name=f"kwx-board-{tc.id}")

    def _kick_panel(self, p: _Panel) -> None:
        p.dirty = True
        if p.hold == 0 and (p.task is None or p.task.done()):
            p.task = asyncio.get_running_loop().create_task(self._run_panel(p),
                                                            name=f"kwx-panel-{p.table_id}-{p.player_id}")

    async def _locate(self, tc: _Table) -> None:
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
                data = ref.data
                if ref.ref == BOARD_REF:
                    hand = int(data.get("hand", 0))
                    tc.boards[hand] = int(ref.message_id)
                    tc.board_hand = hand
                elif ref.ref.startswith("dm:"):
                    pid = ref.ref[3:]
                    p = self._panel(tc.id, pid)
                    if p.dm is None:
                        p.dm = Shown(int(ref.channel_id), int(ref.message_id), int(data.get("hand", 0)),
                                     int(data.get("step", 0)), str(data.get("key", "")), bool(data.get("live")),
                                     bool(data.get("dealt", True)), ended=bool(data.get("ended")))
                    self._dm_owner[int(ref.channel_id)] = pid
                    self._dm_channel.setdefault(pid, int(ref.channel_id))
                elif ref.ref.startswith(DMS_CLOSED_REF):  # said before a restart: not said again
                    pid = ref.ref[len(DMS_CLOSED_REF):]
                    tc.dm_notices.add(pid)
                    self._dm_closed.add(pid)
            tc.loaded = True

    def _lang(self, tc: _Table) -> str:
        return self.languages.of(tc.guild)

    def _channel(self, tc: _Table) -> discord.PartialMessageable | None:
        if tc.channel is None:
            return None
        guild_id = int(tc.guild) if tc.guild and tc.guild.isdigit() else None
        return self.bot.get_partial_messageable(tc.channel, guild_id=guild_id)

    # == the channel worker ===============================================================================
    async def _run_table(self, tc: _Table) -> None:
        await self._locate(tc)
        while tc.queue:
            if tc.lost:  # no more channel requests for a table whose channel is gone
                tc.queue.clear()
                tc.marked.clear()
                break
            item = tc.queue[0]
            try:
                if item[0] == "board":
                    await self._coalesce(tc, item[1])
                    tc.queue.popleft()
                    tc.marked.discard(item[1])
                    await self._flush_board(tc, item[1])
                else:
                    tc.queue.popleft()
                    await self._post(tc, item)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("table %s: could not update the channel (%s)", tc.id, item[0])
        if tc.closed:
            await self._forget(tc)

    async def _coalesce(self, tc: _Table, hand: int) -> None:
        """Wait out the table's edit interval when this would be an edit; new messages go out at once."""
        if hand not in tc.boards and not (hand == 1 and 0 in tc.boards):
            return
        view = tc.views.get(hand)
        humans = view is None or view.phase == "lobby" or any(not s.player.is_ai for s in view.seats)
        interval = self.board_interval if humans else self.ai_board_interval
        if view is None or view.phase == "lobby":
            interval = min(interval, LOBBY_INTERVAL)  # people joining want to see themselves seated
        due = tc.last_call + interval
        if humans and view is not None and view.phase != "lobby":
            due = max(due, tc.marked_at.get(hand, 0.0) + self.board_settle)
        wait = due - self.clock()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _flush_board(self, tc: _Table, hand: int) -> None:
        view = tc.views.get(hand)
        channel = self._channel(tc)
        if view is None or channel is None:
            return
        if hand == 0 and 1 in tc.views and tc.board_hand == 0:
            return  # the game has begun: the lobby message is about to become the board of hand 1
        lang = self._lang(tc)
        if view.phase == "closed":
            tc.closed = True
        message_id = tc.boards.get(hand)
        from_lobby = message_id is None and hand == 1 and tc.board_hand == 0
        if from_lobby:
            message_id = tc.boards.get(0)  # the lobby message becomes the board of hand 1
        if message_id is not None:
            if tc.shown_versions.get(hand) == tc.versions.get(hand):
                return  # the previous edit, rendered after its wait, already showed this change
            # The token first, the rendering after it: under load an edit waits its turn behind other tables',
            # and then shows everything that happened meanwhile (one edit, never a stale one and then another).
            await wait_for_limit(urgent=False)
            version, kwargs = self._render_board(tc, hand, view, lang)
            if from_lobby:
                tc.boards.pop(0, None)
            tc.last_call = self.clock()
            self.stats.public_edits += 1
            edited = await safe_edit(channel.get_partial_message(message_id), token_taken=True, **kwargs)
            release(kwargs["view"])
            if not self._channel_result(tc, edited is not None):
                return
            if edited is not None:
                tc.shown_versions[hand] = version
                tc.boards[hand] = message_id
                if from_lobby:
                    tc.board_hand = 1
                    await self._save_board_ref(tc, hand, channel.id, message_id)
                return
            if not message_gone(last_failure()):  # a 5xx, a timeout, a refusal: edit it again later, never repost
                self._later(tc, lambda: self._mark(tc, hand))
                return
            tc.boards.pop(hand, None)  # deleted (10008, by a moderator?): post the board again below
        if tc.board_hand is not None and hand < tc.board_hand:
            return  # an older hand whose board is gone: nothing to update
        version, kwargs = self._render_board(tc, hand, view, lang)
        tc.last_call = self.clock()
        self.stats.public_sends += 1
        message = await safe_send_channel(channel, **kwargs)
        release(kwargs["view"])
        if not self._channel_result(tc, message is not None) or message is None:
            return
        tc.boards[hand] = message.id
        tc.board_hand = hand
        tc.shown_versions[hand] = version
        for old in [h for h in tc.boards if h < hand - HANDS_KEPT]:
            tc.boards.pop(old, None)
        await self._save_board_ref(tc, hand, channel.id, message.id)

    def _render_board(self, tc: _Table, hand: int, view: PublicView, lang: str) -> tuple[int | None, dict[str, Any]]:
        """The board as it stands now (a call that waited for its token shows the changes made meanwhile), with
        the version of the board it shows."""
        view = tc.views.get(hand, view)
        tc.closed = tc.closed or view.phase == "closed"
        return tc.versions.get(hand), self._board_message(tc, view, lang)

    def _board_message(self, tc: _Table, view: PublicView, lang: str) -> dict[str, Any]:
        lines = boards.render_lines(tc.lines.get(view.hand_no, ()), view, lang, self.tiles)
        if view.phase == "lobby" and view.hand_no == 0:
            seated = {s.player.player_id: s.player for s in view.seats}
            host = seated.get(view.host.player_id) if view.host is not None else None
            embed = boards.lobby_embed(view, lang, lines, host=host, spectators=list(view.spectators),
                                       capacity=view.capacity)
            return {"embeds": [embed], "view": boards.lobby_buttons(tc.id, lang)}
        if view.phase == "closed" and view.hand_no == 0:
            embed = boards.lobby_embed(view, lang, lines)
            embed.description = tr("phase.closed", lang)
            return {"embeds": [embed], "view": None}
        return {"embeds": boards.board_embeds(view, lang, self.tiles, lines),
                "view": boards.board_buttons(view, lang)}

    async def _save_board_ref(self, tc: _Table, hand: int, channel_id: int, message_id: int) -> None:
        self._remember(tc.id, BOARD_REF, channel_id, message_id, {"hand": hand})

    def _remember_dm(self, p: _Panel) -> None:
        if p.dm is not None:
            self._remember(p.table_id, f"dm:{p.player_id}", p.dm.channel_id, p.dm.message_id, p.dm.data())

    def _remember(self, table_id: int, ref: str, channel_id: int, message_id: int, data: dict[str, Any]) -> None:
        """Note where a message is; written to the store behind, at most once per `refs_interval` for all
        tables in one transaction (a crash loses at most that: the bot then posts a board or a prompt anew)."""
        self._refs[(table_id, ref)] = MessageRef(ref, str(channel_id), str(message_id), data)
        if self._refs_task is None or self._refs_task.done():
            self._refs_task = asyncio.get_running_loop().create_task(self._write_refs(self.refs_interval))

    async def _write_refs(self, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        batch, self._refs = self._refs, {}
        try:
            await self.store.set_message_refs([(table_id, ref) for (table_id, _), ref in batch.items()])
        except Exception:
            logger.exception("could not remember where %d message(s) are", len(batch))

    async def _post(self, tc: _Table, item: tuple[Any, ...]) -> None:
        channel = self._channel(tc)
        if channel is None:
            return
        lang = self._lang(tc)
        kind = item[0]
        kwargs: dict[str, Any]
        if kind == "result":
            _, result, view = item
            try:
                images = await asyncio.to_thread(boards.winner_images, result)
            except Exception:
                logger.exception("table %s: could not draw the winning hand", tc.id)
                images = []
            kwargs = {"embeds": boards.result_embeds(result, view, lang, self.tiles, [n for n, _ in images]),
                      "files": boards.files_of(images), "view": boards.result_buttons(result, lang)}
        elif kind == "notice":
            _, key, fmt = item
            kwargs = {"content": boards.notice_line(key, fmt, None, lang)}
        elif kind == "text":
            kwargs = {"content": item[1], "allowed_mentions": discord.AllowedMentions(users=True)}
        elif kind == "summary":
            kwargs = {"embeds": [boards.summary_embed(item[1], lang)]}
        else:  # pragma: no cover - every kind is above
            return
        self.stats.public_sends += 1
        sent = await safe_send_channel(channel, **kwargs)
        release(kwargs.get("view"))
        if kind == "result" and (sent is not None or not transient(last_failure())):
            self._end_panels(tc, item[1], item[2], sent, lang)
        ok = self._channel_result(tc, sent is not None)
        if sent is None and ok and transient(last_failure()) and not tc.closed:
            # Discord had a bad moment (5xx, timeout, already retried): a result or notice is never lost, it goes
            # out again, before anything after it
            tc.queue.appendleft(item)
            await asyncio.sleep(RETRY_LATER)

    def _end_panels(self, tc: _Table, result: ResultView, view: PublicView, sent: discord.Message | None,
                    lang: str) -> None:
        """Each player's panel of this hand becomes its one-line end, linking to the result post."""
        link = ""
        if sent is not None and tc.guild and tc.channel:
            url = f"https://discord.com/channels/{tc.guild}/{tc.channel}/{sent.id}"
            link = f" · [{tr('dm.result_link', lang)}]({url})"
        for seat in view.seats:
            pid = seat.player.player_id
            if seat.player.is_ai or not pid.isdigit() or (tc.id, pid) not in self._panels:
                continue
            p = self._panels[(tc.id, pid)]
            p.endings[result.hand_no] = hand_over_line(result, view, seat.seat, lang, self.tiles) + link
            self._kick_panel(p)

    def _later(self, tc: _Table, action: Callable[[], None]) -> None:
        """Run `action` after RETRY_LATER seconds unless the table is gone by then."""
        def run() -> None:
            if self._tables.get(tc.id) is tc and not tc.closed:
                action()
        asyncio.get_running_loop().call_later(RETRY_LATER, run)

    async def _forget(self, tc: _Table) -> None:
        """A closed table: take the buttons off its players' live prompts and forget its messages."""
        for key, p in list(self._panels.items()):
            if key[0] != tc.id:
                continue
            if p.dm is not None and p.dm.live:
                await self._disable_dm(p, p.dm)
            self._panels.pop(key, None)
        self._tables.pop(tc.id, None)
        for key in [k for k in self._refs if k[0] == tc.id]:
            self._refs.pop(key, None)
        try:
            await self.store.delete_message_refs(tc.id)
        except Exception:
            logger.exception("table %s: could not forget its messages", tc.id)

    # == the panel worker =================================================================================
    async def _run_panel(self, p: _Panel) -> None:
        while p.dirty and p.hold == 0:
            p.dirty = False
            try:
                await self._flush_panel(p)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("table %s: could not update the hand of player %s", p.table_id, p.player_id)

    async def _flush_panel(self, p: _Panel) -> None:
        view = p.latest
        tc = self._table(p.table_id)
        await self._locate(tc)
        for hand in sorted(p.endings):
            await self._end_dm(p, hand, p.endings.pop(hand))
        if view is None:
            return
        prompt, p.prompt = p.prompt, False
        if tc.closed:
            return
        lang = self._lang(tc)
        key = self.panel_key(view)
        await self._update_dm(tc, p, view, key, prompt, lang)
        await self._update_ephemeral(p, view, key, lang)

    async def _end_dm(self, p: _Panel, hand: int, line: str) -> None:
        """Collapse the hand's panel to its end line (no embed, no buttons)."""
        if p.dm is not None and p.dm.hand == hand:
            shown = p.dm
        elif hand in p.past:
            shown = p.past.pop(hand)
        else:
            return  # no panel of that hand (DMs closed, or a restart lost it)
        if shown.ended:
            return
        if await self._edit_dm(shown, urgent=False, content=line, embeds=[], view=None):
            shown.ended = True
            shown.live = False
            if shown is p.dm:
                self._remember_dm(p)

    async def _edit_dm(self, shown: Shown, *, urgent: bool, **message: Any) -> bool:
        """Edit a panel: through the token of the interaction that may edit it while that lives (exempt from the
        global limit), else with the bot's token."""
        token = shown.token
        if token is not None and _alive(token):
            self.stats.dm_token_edits += 1
            if shown.followup:
                edited = await safe_edit_followup(token, shown.message_id, **message) is not None
            else:
                edited = await safe_edit_original(token, **message) is not None
            if edited:
                return True
            shown.token = None  # expired or refused: the bot's token from now on
        self.stats.dm_edits += 1
        return await safe_edit(self._dm_message(shown), urgent=urgent, **message) is not None

    async def _update_dm(self, tc: _Table, p: _Panel, view: PrivateView, key: str, prompt: bool, lang: str) -> None:
        shown = p.dm
        if shown is not None and shown.key == key:
            return
        choices = bool(view.choices)
        if p.player_id in self._dm_closed and p.refused_hand == view.hand_no:
            return  # refused this hand already: the player uses My hand (tried again next hand)
        if shown is None or shown.hand != view.hand_no:
            if not choices and not view.concealed:
                return  # nothing of this hand to show yet
            # The hand's one new DM (Discord notifies the player); the previous hand's panel waits for its end line.
            # Posted as a followup of the player's last press while its token lives (exempt from the global limit;
            # the same token then edits it), else by the bot.
            message = self.panel(view, lang)
            token = shown.token if shown is not None and shown.token is not None and _alive(shown.token) else None
            if token is None or not await self._followup_dm(p, view, key, message, token):
                await self._send_dm(tc, p, view, key, message)
            if shown is not None and p.dm is not shown and not shown.ended:
                p.past[shown.hand] = shown
                for old in [h for h in p.past if h < view.hand_no - HANDS_KEPT]:
                    p.past.pop(old, None)
            return
        if shown.ended:
            return  # the hand is over and its panel says so
        if view.autoplay and shown.view is not None and shown.view.autoplay and not shown.live:
            return  # 托管: the AI moves for the player; the panel said so once
        if not (shown.live or choices or (not shown.dealt and view.concealed)):
            return  # between prompts the panel keeps the hand the player's last press showed
        # The same panel, edited: the next prompt (buttons and all), or the hand without buttons when nothing is asked.
        message = self.panel(view, lang)
        edited = await self._edit_dm(shown, urgent=choices, **message)
        release(message["view"])
        if not edited:
            p.dm = None  # the DM is gone or Discord would not edit it: the next change sends a new one
            if choices:  # ...and a decision waits on this player now: send it as a new prompt at once
                p.prompt = True
                self._kick_panel(p)
            return
        p.dm = replace(shown, step=view.step, key=key, live=choices, dealt=bool(view.concealed), view=view)
        self._remember_dm(p)

    async def _followup_dm(self, p: _Panel, view: PrivateView, key: str, message: PanelMessage,
                           token: discord.Interaction) -> bool:
        """The hand's panel as a followup of the player's last press. False when Discord would not take it."""
        kwargs = {k: v for k, v in message.items() if k != "content" and not (k == "view" and v is None)}
        self.stats.dm_token_edits += 1
        sent = await safe_followup(token, **kwargs)
        release(message["view"])
        if sent is None:
            return False
        channel_id = token.channel_id or 0
        p.dm = Shown(channel_id, sent.id, view.hand_no, view.step, key, bool(view.choices), bool(view.concealed),
                     view, token=token, followup=True)
        self._remember_dm(p)
        return True

    async def _send_dm(self, tc: _Table, p: _Panel, view: PrivateView, key: str, message: PanelMessage) -> None:
        sent = None
        message.pop("content", None)
        # The deal paced: a hand dealt with nothing asked of this player yet leaves the reserve to those asked
        urgent = bool(view.choices)
        known = self._dm_channel.get(p.player_id)
        if known is not None:  # a DM channel we used before: one call, no user lookup, no "open DM" call
            self.stats.dm_sends += 1
            channel = self.bot.get_partial_messageable(known, type=discord.ChannelType.private)
            sent = await safe_send_channel(channel, urgent=urgent, **message)
        else:
            uid = int(p.player_id)
            user = self.bot.get_user(uid) or await safe_fetch_user(self.bot, uid)
            if user is not None:
                self.stats.dm_sends += 1
                sent = await safe_send_dm(user, urgent=urgent, **message)
        release(message["view"])
        if sent is None and not dms_closed(last_failure()):
            # Not the player's settings (a 5xx or a timeout, already retried; another refusal): no "DMs closed"
            # notice; a passing failure is tried again, as a new prompt.
            if transient(last_failure()):
                p.prompt = True
                self._later(tc, lambda: self._kick_panel(p))
            return
        if sent is None:
            self.stats.refused_dms += 1
            self._dm_closed.add(p.player_id)
            p.dm = None
            p.refused_hand = view.hand_no
            self._dms_refused(tc, p.player_id)
            return
        self._dm_closed.discard(p.player_id)
        p.dm = Shown(sent.channel.id, sent.id, view.hand_no, view.step, key, bool(view.choices),
                     bool(view.concealed), view)
        self._dm_owner[sent.channel.id] = p.player_id
        self._dm_channel[p.player_id] = sent.channel.id
        self._remember_dm(p)

    def _dm_message(self, shown: Shown) -> discord.PartialMessage:
        channel = self.bot.get_partial_messageable(shown.channel_id, type=discord.ChannelType.private)
        return channel.get_partial_message(shown.message_id)

    async def _disable_dm(self, p: _Panel, shown: Shown) -> None:
        """Take the buttons off a panel (its table closed)."""
        await self._edit_dm(shown, urgent=False, view=None)
        shown.live = False

    def _dms_refused(self, tc: _Table, player_id: str) -> None:
        if player_id in tc.dm_notices:
            return
        tc.dm_notices.add(player_id)
        self._remember(tc.id, DMS_CLOSED_REF + player_id, tc.channel or 0, 0, {})
        lang = self._lang(tc)
        text = tr("error.dms_closed", lang, player=f"<@{player_id}>", button=tr("action.my_hand", lang))
        tc.queue.append(("text", text))
        self._kick_table(tc)

    async def _update_ephemeral(self, p: _Panel, view: PrivateView, key: str, lang: str) -> None:
        shown, interaction = p.eph_shown, p.eph
        if interaction is None or shown is None or shown.key == key:
            return
        if interaction.is_expired():
            p.eph = p.eph_shown = None
            return
        if not (shown.live or p.player_id in self._dm_closed):
            return  # a snapshot the player opened; their DMs carry the prompts
        self.stats.ephemeral_edits += 1
        message = self.panel(view, lang)
        edited = await safe_edit_original(interaction, **message)
        release(message["view"])
        if edited is None:
            p.eph = p.eph_shown = None
            return
        p.eph_shown = replace(shown, step=view.step, key=key, live=bool(view.choices), view=view)


def _alive(token: discord.Interaction) -> bool:
    """Whether an interaction's token may still edit and follow up (with a margin)."""
    return discord.utils.utcnow() < token.created_at + TOKEN_LIFETIME


def _claim_without_win(view: PrivateView) -> bool:
    """A claim offer (碰, 杠 on another seat's discard) that holds no win: what auto-pass passes."""
    verbs = {c.verb for c in view.choices}
    return view.claim_tile is not None and "pass" in verbs and "hu" not in verbs


def hand_over_line(result: ResultView, view: PublicView, seat: int, lang: str, fmt: TileFormatter) -> str:
    """牌桌 7 · 第 3 局 · 本局结束：bob 自摸 5s · 你 −2 — the hand's end as one seat reads it."""
    def name(s: int | None) -> str:
        return tr("panel.you", lang) if s == seat else boards.seat_name(view, s, lang)

    wins = [tr("dm.won_self", lang, winner=name(w.seat), tile=fmt.tile(w.win_tile)) if w.self_draw else
            tr("dm.won_on", lang, winner=name(w.seat), loser=name(w.from_seat), tile=fmt.tile(w.win_tile))
            for w in result.winners]
    outcome = tr("common.list_sep", lang).join(wins) if wins else tr("dm.hand_draw", lang)
    net = result.net[seat] if 0 <= seat < len(result.net) else 0
    return tr("dm.hand_over", lang, where=boards.footer(result.table_id, result.hand_no, lang), outcome=outcome,
             net=boards.signed(net).replace("-", "−"))
