"""Presence: who is at a table, and the end of a table's life.

Pause and resume (a hand nobody played, a seat left empty, a lost channel, a store that failed), leaving a
running game and taking a left seat, what the end of a hand decides (the ledger, then a pause or a close),
closing (stopped, idle, channel gone, empty, a demo's hand limit) and the summary of a sitting, the listings
of open tables, and the fresh deadlines of a restart.

- A hand in which a human was asked to decide but no human made a move of their own is the last one: the
  table pauses ("nobody") and makes no move and writes nothing until a seated player resumes it; a paused
  table closes after `idle_close_minutes`. A table with no human seat (a demo) closes after `demo_hands`
  hands (None: no limit). Pause and resume are event-log records, so a restart keeps a table paused.
- Leaving a started game takes effect at the end of the hand in play (the AI plays the seat until then);
  the table then pauses until someone takes the seat, and closes when no human is left.
- Closing tells the front end the table's summary: hands, each player's net here, the biggest hand, the
  fewest transfers that settle this table.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Collection

import kwx.table.oplog as oplog
from kwx.store import settle_up
from kwx.table.context import TableContext, check_open
from kwx.table.delivery import Delivery
from kwx.table.errors import SavingFailed, TableError
from kwx.table.live import LiveTable
from kwx.table.log_records import (
    CloseReason,
    LeaveRecord,
    PauseReason,
    PauseRecord,
    ResumeRecord,
    SeatRecord,
    StopRecord,
    parse_record,
)
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING
from kwx.table.record import Applied
from kwx.table.retry import StoreFailed
from kwx.table.scheduler import Scheduler
from kwx.table.viewbuild import public_view, result_view
from kwx.table.views import PlayerRef, TableInfo, TableSummary, TransferView
from kwx.table.writer import DurableWriter

logger = logging.getLogger(__name__)


class Presence:
    def __init__(self, ctx: TableContext, delivery: Delivery, writer: DurableWriter, scheduler: Scheduler, *,
                 demo_hands: int | None) -> None:
        self._ctx = ctx
        self._delivery = delivery
        self._writer = writer
        self._scheduler = scheduler
        self.demo_hands = demo_hands

    # == what players and front ends ask =================================================================
    async def pause(self, table_id: int, reason: str) -> bool:
        """Pause a table (e.g. "channel_lost" from a front end that can no longer post there): no move, no
        timeout and no write until `resume`; it closes after `idle_close_minutes`. False when it was already
        paused (or is in its lobby, where nothing is played)."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if t.paused is not None or t.status == LOBBY:
                return False
            await self._pause(t, reason)
            return True

    async def resume(self, table_id: int, by: str, *, force: bool = False) -> None:
        """A seated player (or the host; anyone with `force`) resumes a paused table: an open decision gets a
        full fresh deadline, a player of theirs in 托管 is back. Refused while a left seat is empty."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if t.paused is None:
                raise TableError("not_paused", "the table is not paused")
            if not force and by != t.host and by not in t.humans_seated():
                raise TableError("not_seated", "only a player of this table can resume it")
            if t.vacant:
                raise TableError("seat_empty", "a seat is empty: someone must /kwx join (or the host adds an AI)")
            await self.resume_locked(t, by)
            self._scheduler.arm(t)

    async def close_where(self, guild: str, channel: str | None = None, *, reason: str = "channel_gone") -> list[int]:
        """Close at once every open table of the guild (or of one channel/thread of it): the channel, thread or
        server went away. A hand in play is abandoned as `stop` abandons it. Returns the ids closed."""
        closed: list[int] = []
        for t in list(self._ctx.tables.values()):
            if t.guild != guild or (channel is not None and t.channel != channel):
                continue
            async with t.lock:
                if t.status == CLOSED or t.id not in self._ctx.tables:
                    continue
                try:
                    await self.close(t, reason=reason)
                except SavingFailed:  # logged: that table stays, paused
                    continue
                closed.append(t.id)
        return closed

    # == listings ========================================================================================
    def table_infos(self, guild: str | None = None) -> list[TableInfo]:
        """The open tables (of one guild), oldest first: for listing and finding them by id."""
        return [self._info(t) for t in sorted(self._ctx.tables.values(), key=lambda x: x.id)
                if t.status != CLOSED and (guild is None or t.guild == guild)]

    def tables_in(self, guilds: Collection[str]) -> list[int]:
        """The ids of the open tables of these guilds run here (cheap: nothing is summed up)."""
        return sorted(t.id for t in self._ctx.tables.values() if t.status != CLOSED and t.guild in guilds)

    def table_of(self, table_id: int) -> TableInfo | None:
        """One open table's listing line (None when there is no such open table)."""
        t = self._ctx.tables.get(table_id)
        if t is None or t.status == CLOSED:
            return None
        return self._info(t)

    def _info(self, t: LiveTable) -> TableInfo:
        ids = t.player_ids or tuple(p.player_id for p in t.lobby)
        return TableInfo(t.id, t.guild, t.channel, t.players.get(t.host),
                         tuple(t.players[x] for x in ids if x not in t.vacant),
                         "paused" if t.paused else t.status, t.paused, t.hands_done, t.last_human_at,
                         summary(t, "open"))

    # == a restart =======================================================================================
    def fresh_deadlines(self, t: LiveTable) -> bool:
        """On start-up: the open decision waits a full turn/claim/漂 time from now (the downtime is nobody's
        timeout). In memory only; True when a decision was open."""
        now = self._ctx.clock()
        if t.paused is not None:
            t.paused_at = max(t.paused_at or 0.0, now)  # the downtime does not count as idle either
            return False
        if t.status in (PIAO, PLAYING) and t.wait_started is not None:
            t.wait_started = now
            t.window += 1
            return True
        return False

    # == pause and resume (with the table's lock held) ===================================================
    async def _pause(self, t: LiveTable, reason: str, *, before: Callable[[], None] | None = None) -> None:
        """`before`: a call to queue once the pause is written, ahead of what shows it (a hand's result)."""
        applied = await self._writer.commit(t, PauseRecord(PauseReason(reason), self._ctx.clock()))
        oplog.paused(t, reason)
        if before is not None:
            before()
        self._delivery.tell_paused(t, applied, reason)
        self._scheduler.arm(t)

    async def resume_locked(self, t: LiveTable, by: str) -> None:
        """Resume `t`, paused: a store pause first catches up with the log and finishes what failed."""
        if t.paused == PauseReason.STORE:  # never written: the log knows nothing of this pause
            await self._catch_up(t)
            if t.paused == PauseReason.STORE:
                self._delivery.show(t, t.store_resumed(by, self._ctx.clock()))
                await self._carry_on(t)
                if t.paused == PauseReason.STORE:
                    raise SavingFailed("saving failed again: the table is paused")
                return
            if t.paused is None:  # a record that landed resumed the table itself, or closed it
                return
        applied = await self._writer.commit(t, ResumeRecord(by, self._ctx.clock()))
        oplog.resumed(t, by)
        self._delivery.show(t, applied)

    async def _carry_on(self, t: LiveTable) -> None:
        """After a pause for the store: what the write that failed was part of, done now. Between hands, the
        hand to the ledger and what its end decides (the one who resumed is here: no pause for want of
        players); in the 漂 phase with every pick made, the deal."""
        if t.status == BETWEEN:
            if not t.ledger_done:
                await self.end_hand(t, present=True)
            else:
                await self._after_hand(t, present=True)
        elif t.status == PIAO and len(t.piao_picks) == 3:
            await self.deal(t)

    async def _catch_up(self, t: LiveTable) -> None:
        """Apply the records the log holds beyond those applied here: a write reported failed may have
        committed (a connection lost as it committed). Refused, the table still paused, while the store
        cannot be read."""
        try:
            rows = await self._ctx.store.load_events(t.id, after_seq=t.seq)
        except Exception as exc:
            logger.warning("table %s: cannot read its event log to resume (%r)", t.id, exc)
            raise SavingFailed("the store cannot be read: the table stays paused") from exc
        for row in rows:
            entry = parse_record(row.kind, row.payload)
            applied = t.apply(entry)
            t.seq = row.seq
            if isinstance(entry, StopRecord):  # the table was being closed: it is
                await self._stopped(t, applied, entry.reason)
                return
            self._delivery.show(t, applied)

    # == the end of a hand ===============================================================================
    async def deal(self, t: LiveTable) -> None:
        """Every 漂 is picked: the deal."""
        self._delivery.show(t, await self._writer.commit(t, t.deal_record(self._ctx.clock())))

    async def end_hand(self, t: LiveTable, *, resumed: bool = False, present: bool = False) -> None:
        """A finished hand: to the ledger (unless it is there), then what the end of a hand decides
        (`_after_hand`) is written before the result goes out, so a front end told the result finds the table
        paused or closed. After a restart the result is told only when this wrote the hand."""
        tell = None
        if not t.ledger_done:
            written = await self._writer.write_hand(t)
            if written or (written is not None and not resumed):
                views = (result_view(t), public_view(t))

                def tell() -> None:
                    self._delivery.send(t, self._ctx.frontend.hand_finished, *views)
        await self._after_hand(t, tell, present=present)

    async def _after_hand(self, t: LiveTable, tell_result: Callable[[], None] | None = None, *,
                          present: bool = False) -> None:
        """At the end of a hand: empty the seats of those who left (pause for someone to take them, or close
        when no human is left), pause when nobody played this hand (unless someone is `present`), close a demo
        at its hand limit. `tell_result` queues the hand's result: after the pause or close is written, before
        it shows (and when writing it fails: the hand is in the ledger)."""
        pause = close = None
        if t.status == BETWEEN and t.paused is None:
            humans = t.humans_seated()
            if t.vacant:
                pause, close = ("seat_empty", None) if humans else (None, "empty")
            elif humans and t.human_asked and not t.human_moved and not present:
                pause = "nobody"
            elif not humans and self.demo_hands is not None and t.hands_done >= self.demo_hands:
                close = "hand_limit"
        try:
            if pause is not None:
                await self._pause(t, pause, before=tell_result)
            elif close is not None:
                await self.close(t, reason=close, before=tell_result)
            elif tell_result is not None:
                tell_result()
        except SavingFailed:
            if tell_result is not None:  # the table paused for the store instead
                tell_result()
            raise

    # == seats ===========================================================================================
    async def leave_game(self, t: LiveTable, player_id: str) -> None:
        """A seated player leaves a started game: at the end of the hand in play, or now between hands."""
        if player_id not in t.player_ids or player_id in t.vacant:
            raise TableError("not_seated", "you are not at this table")
        if player_id in t.leaving:
            return
        applied = await self._writer.commit(t, LeaveRecord(player_id, self._ctx.clock()))
        oplog.leaving(t, player_id)
        self._delivery.show(t, applied)
        if t.status == BETWEEN:  # no hand in play: the seat is empty now
            if not t.humans_seated():
                await self.close(t, reason="empty")
                return
            if t.paused != "seat_empty":
                await self._pause(t, "seat_empty")
        self._scheduler.arm(t)

    async def take_seat(self, t: LiveTable, player: PlayerRef) -> PlayerRef:
        """`player` takes the first empty seat; with none left empty, a table paused for it plays on."""
        if player.player_id in t.player_ids and player.player_id not in t.vacant:
            raise TableError("already_seated", "you already have a seat at this table")
        old = player.player_id if player.player_id in t.vacant else t.vacant[0]
        applied = await self._writer.commit(t, SeatRecord(old, player, self._ctx.clock()))
        oplog.seated(t, player.player_id, old)
        self._delivery.show(t, applied)
        if not t.vacant and t.paused == "seat_empty":
            await self.resume_locked(t, player.player_id)
        self._scheduler.arm(t)
        return player

    # == closing =========================================================================================
    async def idle_close(self, table_id: int, paused_at: float | None) -> None:
        """A table paused since `paused_at` closes once it has been idle `idle_close_minutes`."""
        t = self._ctx.tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            if t.paused is None or t.paused_at != paused_at or t.status == CLOSED:
                return
            if self._ctx.clock() < self._scheduler.idle_due(t):  # the timer ran early by the injected clock
                self._scheduler.arm(t)
                return
            await self.close(t, reason="idle")

    async def close(self, t: LiveTable, *, reason: str = "stopped", by: str = "",
                    before: Callable[[], None] | None = None) -> None:
        """Close `t` for `reason` (a CloseReason; "stopped" names who stopped it, `by`). `before`: a call to queue
        once the close is written, ahead of what shows it (a hand's result). A finished hand goes to the ledger
        first: a table whose ledger write fails stays open (paused)."""
        if t.status == BETWEEN and not t.ledger_done and await self._writer.write_hand(t) is None:
            raise SavingFailed("saving failed: the table is paused")
        applied = await self._writer.commit(t, StopRecord(by, self._ctx.clock(), CloseReason(reason)))
        await self._stopped(t, applied, reason, before)

    async def _stopped(self, t: LiveTable, applied: Applied, reason: str,
                       before: Callable[[], None] | None = None) -> None:
        """The stop is in the log: close the row, stop the timers, tell the front end, forget the table."""
        ctx = self._ctx
        with contextlib.suppress(StoreFailed):  # logged; the stop is in the log: the next start closes the row
            await self._writer.durably(t, "the closing of the table", lambda: ctx.store.close_table(t.id))
        oplog.closed(t, reason)
        if before is not None:
            before()
        self._scheduler.cancel(t)
        self._delivery.flush_held(t, everything=True)
        self._delivery.show(t, applied)
        if t.state is not None:  # a game was played: its summary
            self._delivery.send(t, ctx.frontend.table_closed, summary(t, reason))
        ctx.tables.pop(t.id, None)
        ctx.closed.add(t.id)
        if t.outbox is not None:
            t.outbox.close_soon()


def summary(t: LiveTable, reason: str) -> TableSummary:
    """The sitting so far: hands, each player's net here, the biggest hand, the fewest settling transfers."""
    ids = [x for x in t.summary_players() if x in t.players]
    nets = {x: t.scores[x] for x in ids}
    transfers = tuple(TransferView(t.players[x.from_player], t.players[x.to_player], x.amount)
                      for x in settle_up({k: v for k, v in nets.items() if v}))
    biggest = None
    if t.biggest is not None:
        amount, pid, hand_no = t.biggest
        biggest = (hand_no, t.players[pid], amount)
    return TableSummary(t.id, t.guild, t.channel, t.players.get(t.host), t.hands_done,
                        tuple((t.players[x], nets[x]) for x in ids), biggest, transfers, reason)
