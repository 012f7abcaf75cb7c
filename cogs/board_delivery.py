"""The channel side of the Discord front end: one worker per table works through a queue of "board of hand N"
marks and posts (hand results, notices, texts, the close summary) in order.

The board is one message per hand, edited in place; edits are coalesced: at most one per `board_interval`
seconds (tables without a human seat: `ai_board_interval`), the latest state always last. When more boards are
busy than the bot's budget can edit that often, every board waits longer alike (`Budget.board_interval`: the
busy boards over what prompts and posts leave of the budget), so the boards slow down before anything a
player must answer does; results, notices and 亮倒 (a board line) are never dropped, only shown later. While
the budget is crowded, a finished hand's board is left at its last edit and its result post says how the hand
ended (`_result_says_it`). At a table with a
human an edit also waits `board_settle` seconds after the first change it carries (the claim pause after a
discard, a little more): a discard and the draw or claim window that follows it are one edit, and since every
discard is held the same time whatever the concealed tiles, the edit's timing tells nothing. The lobby message
becomes the board of hand 1; hands 2+ get a new message (after the previous result), so the board stays at the
bottom.

A lost channel: a board send or edit answered 10003/50001/50013 (`operations.channel_lost`), or
MAX_CHANNEL_FAILURES failed channel requests in a row, and the table makes no more channel requests: the
service pauses it ("channel_lost").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from cogs import board as boards
from cogs import result_post
from cogs.buttons import release
from cogs.emoji import TileFormatter
from cogs.front_tables import BOARD_REF, DiscordTable, FrontEndStats, FrontTables
from cogs.message_refs import MessageRefs
from cogs.operations import Failed, Rest, channel_lost, message_gone, transient
from cogs.ratelimit import Priority
from cogs.web import web_buttons
from kwx.present.i18n import tr
from kwx.table.errors import TableError
from kwx.table.views import PublicView, ResultView

logger = logging.getLogger(__name__)

FINISHED = "finished"  # a hand's phase once it is over (its result is posted)
RETRY_LATER = 5.0  # seconds before a board edit, a post or a DM that failed for a passing reason is tried again
HANDS_KEPT = 3  # boards and action lines of the last few hands, for late edits
LINES_KEPT = 32  # recent events and notices kept per hand (the board shows the last few)
LOBBY_INTERVAL = 1.0  # seconds between lobby edits at most
MAX_CHANNEL_FAILURES = 3  # failed channel requests in a row after which a table stops trying (and pauses)
RECHECK_S = 1.0  # seconds between looks at a waiting board's interval (the budget's load changes meanwhile)

# A hand's result was posted (the message, or None when Discord would not take it for good): the DM side
# collapses that hand's panels to their end line.
HandEnded = Callable[[DiscordTable, ResultView, PublicView, "discord.Message | None", str], None]


class BoardDelivery:
    def __init__(self, tables: FrontTables, refs: MessageRefs, stats: FrontEndStats, tiles: TileFormatter,
                 rest: Rest, *, board_interval: float, ai_board_interval: float, board_settle: float, clock: Callable[[], float],
                 channel_lost: Callable[[int], Awaitable[object]] | None, hand_ended: HandEnded,
                 closing: Callable[[int], Awaitable[None]]) -> None:
        self.tables = tables
        self.refs = refs
        self.stats = stats
        self.tiles = tiles
        self.rest = rest
        self.board_interval = board_interval
        self.ai_board_interval = ai_board_interval
        self.board_settle = board_settle
        self.clock = clock
        self.channel_lost = channel_lost  # the service's pause, for a table whose channel is gone
        self.hand_ended = hand_ended
        self.closing = closing  # the DM side lets go of a closed table's panels

    # == what the port's calls queue ======================================================================
    def board_changed(self, view: PublicView) -> None:
        tc = self.tables.get(view.table_id)
        if tc.lost and view.paused is None and view.phase != "closed":  # resumed: try the channel again
            tc.lost = tc.host_told = False
            tc.failures = 0
        self.take(tc, view)

    def hand_finished(self, result: ResultView, view: PublicView) -> None:
        tc = self.tables.get(view.table_id)
        self.take(tc, view)
        self.post(tc, ("result", result, view))

    def notice(self, table_id: int, key: str, fmt: dict[str, object]) -> None:
        tc = self.tables.get(table_id)
        hand = max(tc.views, default=0)
        tc.lines.setdefault(hand, []).append(("notice", key, fmt))
        if hand in tc.views:
            self.mark(tc, hand)
        else:
            self.post(tc, ("notice", key, fmt))

    def refresh(self, table_id: int) -> None:
        tc = self.tables.find(table_id)
        if tc is not None and tc.views:
            self.mark(tc, max(tc.views))

    def post(self, tc: DiscordTable, item: tuple[Any, ...]) -> None:
        """Queue a post: ("result", result, view), ("notice", key, fmt), ("text", text), ("summary", summary)."""
        tc.queue.append(item)
        self.kick(tc)

    def take(self, tc: DiscordTable, view: PublicView) -> None:
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
        self.mark(tc, hand)

    def mark(self, tc: DiscordTable, hand: int) -> None:
        tc.versions[hand] = tc.versions.get(hand, 0) + 1
        self.rest.budget.board_changed(tc.id)
        if hand not in tc.marked:
            tc.marked.add(hand)
            tc.marked_at[hand] = self.clock()
            tc.queue.append(("board", hand))
        self.kick(tc)

    def kick(self, tc: DiscordTable) -> None:
        if not self.busy(tc):
            tc.task = asyncio.get_running_loop().create_task(self._run(tc), name=f"kwx-board-{tc.id}")

    @staticmethod
    def busy(tc: DiscordTable) -> bool:
        return tc.task is not None and not tc.task.done()

    def later(self, tc: DiscordTable, action: Callable[[], None]) -> None:
        """Run `action` after RETRY_LATER seconds unless the table is gone by then."""
        def run() -> None:
            if self.tables.current(tc):
                action()
        asyncio.get_running_loop().call_later(RETRY_LATER, run)

    async def forget(self, tc: DiscordTable) -> None:
        """A closed table: take the buttons off its players' live prompts and forget its messages."""
        await self.closing(tc.id)
        self.rest.budget.board_gone(tc.id)
        self.tables.by_id.pop(tc.id, None)
        await self.refs.forget(tc.id)

    # == counting channel requests ========================================================================
    def channel_result(self, tc: DiscordTable, failure: Failed | None) -> bool:
        """Count a channel request (`failure`: what failed, None when it went through). False when the table has
        lost its channel: send nothing more there."""
        if failure is None:
            tc.failures = 0
            return True
        tc.failures += 1
        if channel_lost(failure) or tc.failures >= MAX_CHANNEL_FAILURES:
            self._lose(tc)
            return False
        return True

    def _lose(self, tc: DiscordTable) -> None:
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

    # == the channel worker ===============================================================================
    async def _run(self, tc: DiscordTable) -> None:
        await self.tables.locate(tc)
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
            await self.forget(tc)

    async def _coalesce(self, tc: DiscordTable, hand: int) -> None:
        """Wait out the table's edit interval when this would be an edit; new messages go out at once. A busy
        bot's interval is looked at again every RECHECK_S while the board waits: one stretched during a burst
        (the deals of many tables) shrinks back as soon as the budget has room, not after the whole stretch."""
        if hand not in tc.boards and not (hand == 1 and 0 in tc.boards):
            return
        if self._result_says_it(tc, hand):
            return  # not edited (see `_flush_board`): the result goes out without waiting for it
        while (wait := self._due(tc, hand) - self.clock()) > 0:
            await asyncio.sleep(min(wait, RECHECK_S))

    def _due(self, tc: DiscordTable, hand: int) -> float:
        """When the board of `hand` may be edited, by the budget as it stands now."""
        view = tc.views.get(hand)
        humans = view is None or view.phase == "lobby" or any(not s.player.is_ai for s in view.seats)
        interval = self.board_interval if humans else self.ai_board_interval
        if view is not None and view.phase != "lobby":  # a busy bot edits every board less often, alike
            interval = self.rest.budget.board_interval(interval)
        if view is None or view.phase == "lobby":
            interval = min(interval, LOBBY_INTERVAL)  # people joining want to see themselves seated
        due = tc.last_call + interval
        if humans and view is not None and view.phase != "lobby":
            due = max(due, tc.marked_at.get(hand, 0.0) + self.board_settle)
        return due

    def _result_says_it(self, tc: DiscordTable, hand: int) -> bool:
        """While the budget is crowded, a finished hand's board is not edited to its end: the result post queued
        with it shows how the hand ended (every hand face up), and the edit would cost a request that
        the boards of the hands in play are waiting for (hand ends come in waves: the tables of an evening
        start together). A board not yet shown at all, a table closing, or a change after the end (a notice)
        is still edited."""
        view = tc.views.get(hand)
        lines = tc.lines.get(hand) or []
        noticed = bool(lines) and lines[-1][0] == "notice"  # after the hand's last event: after its end
        return (view is not None and view.phase == FINISHED and not noticed
                and tc.shown_versions.get(hand) is not None and self.rest.budget.crowded())

    async def _flush_board(self, tc: DiscordTable, hand: int) -> None:
        view = tc.views.get(hand)
        channel = self.tables.channel(tc)
        if view is None or channel is None:
            return
        if self._result_says_it(tc, hand):
            self.stats.board_ends_skipped += 1
            return
        if hand == 0 and 1 in tc.views and tc.board_hand == 0:
            return  # the game has begun: the lobby message is about to become the board of hand 1
        lang = self.tables.lang(tc)
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
            await self.rest.wait(Priority.BOARD)
            version, kwargs = self._render_board(tc, hand, view, lang)
            if from_lobby:
                tc.boards.pop(0, None)
            tc.last_call = self.clock()
            self.stats.public_edits += 1
            edited = await self.rest.edit(channel.get_partial_message(message_id), token_taken=True, **kwargs)
            release(kwargs["view"])
            failure = edited if isinstance(edited, Failed) else None
            if not self.channel_result(tc, failure):
                return
            if failure is None:
                tc.shown_versions[hand] = version
                tc.boards[hand] = message_id
                if from_lobby:
                    tc.board_hand = 1
                    await self._save_board_ref(tc, hand, channel.id, message_id)
                return
            if not message_gone(failure):  # a 5xx, a timeout, a refusal: edit it again later, never repost
                self.later(tc, lambda: self.mark(tc, hand))
                return
            tc.boards.pop(hand, None)  # deleted (10008, by a moderator?): post the board again below
        if tc.board_hand is not None and hand < tc.board_hand:
            return  # an older hand whose board is gone: nothing to update
        version, kwargs = self._render_board(tc, hand, view, lang)
        tc.last_call = self.clock()
        self.stats.public_sends += 1
        message = await self.rest.send_channel(channel, **kwargs)
        release(kwargs["view"])
        if not self.channel_result(tc, message if isinstance(message, Failed) else None) or isinstance(message, Failed):
            return
        tc.boards[hand] = message.id
        tc.board_hand = hand
        tc.shown_versions[hand] = version
        for old in [h for h in tc.boards if h < hand - HANDS_KEPT]:
            tc.boards.pop(old, None)
        await self._save_board_ref(tc, hand, channel.id, message.id)

    def _render_board(self, tc: DiscordTable, hand: int, view: PublicView, lang: str) -> tuple[int | None, dict[str, Any]]:
        """The board as it stands now (a call that waited for its token shows the changes made meanwhile), with
        the version of the board it shows."""
        view = tc.views.get(hand, view)
        tc.closed = tc.closed or view.phase == "closed"
        return tc.versions.get(hand), self._board_message(tc, view, lang)

    def _board_message(self, tc: DiscordTable, view: PublicView, lang: str) -> dict[str, Any]:
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
                "view": boards.board_buttons(view, lang, web_buttons(self.tables.bot, tc.id, lang))}

    async def _save_board_ref(self, tc: DiscordTable, hand: int, channel_id: int, message_id: int) -> None:
        self.refs.remember(tc.id, BOARD_REF, channel_id, message_id, {"hand": hand})

    async def _post(self, tc: DiscordTable, item: tuple[Any, ...]) -> None:
        channel = self.tables.channel(tc)
        if channel is None:
            return
        lang = self.tables.lang(tc)
        kind = item[0]
        kwargs: dict[str, Any]
        if kind == "result":
            _, result, view = item
            try:
                images = await asyncio.to_thread(result_post.winner_images, result)
            except Exception:
                logger.exception("table %s: could not draw the winning hand", tc.id)
                images = []
            kwargs = {"embeds": result_post.result_embeds(result, view, lang, self.tiles, [n for n, _ in images]),
                      "files": result_post.files_of(images), "view": result_post.result_buttons(result, lang)}
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
        sent = await self.rest.send_channel(channel, **kwargs)
        release(kwargs.get("view"))
        failure = sent if isinstance(sent, Failed) else None
        if kind == "result" and not transient(failure):
            self.hand_ended(tc, item[1], item[2], None if isinstance(sent, Failed) else sent, lang)
        ok = self.channel_result(tc, failure)
        if failure is not None and ok and transient(failure) and not tc.closed:
            # Discord had a bad moment (5xx, timeout, already retried): a result or notice is never lost, it goes
            # out again, before anything after it
            tc.queue.appendleft(item)
            await asyncio.sleep(RETRY_LATER)
