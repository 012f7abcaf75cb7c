"""The durable writer: a table's records reach the store (committed) before anything shows them.

`commit` appends one record to the table's event log (kwx/table/journal.py, group commit) and then applies it
to the table (`LiveTable.apply`); `write_hand` puts a finished hand in the ledger (idempotent). A write that
fails in a way that may pass is tried again for a bounded time (kwx/table/retry.py), the players told once
that saving is retried and once that it works again; a write that fails for good pauses the table in memory
(`pause_for_store`: the store could not take a record of it) and the caller gets `SavingFailed`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import kwx.table.oplog as oplog
from kwx.store import DuplicateEvent, EventRow, is_transient
from kwx.store.db import dump_json
from kwx.table.context import TableContext
from kwx.table.delivery import Delivery
from kwx.table.errors import SavingFailed
from kwx.table.ledger_entry import ledger_hand
from kwx.table.live import LiveTable
from kwx.table.log_records import HandStartRecord, LogRecord, PauseReason, PiaoOpenRecord, parse_record
from kwx.table.phases import BETWEEN, PIAO, PLAYING
from kwx.table.record import Applied
from kwx.table.retry import RetryPolicy, StoreFailed, write_with_retry
from kwx.table.scheduler import Scheduler

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


class DurableWriter:
    def __init__(self, ctx: TableContext, delivery: Delivery, scheduler: Scheduler, retry: RetryPolicy) -> None:
        self._ctx = ctx
        self._delivery = delivery
        self._scheduler = scheduler
        self.retry = retry  # how a failing store write is tried again, and for how long
        self._store_down: set[int] = set()  # tables whose last store write failed and is being retried

    async def commit(self, t: LiveTable, record: LogRecord) -> Applied:
        """Write the record (committed) and then apply it. Call with `t.lock` held and the record valid."""
        ctx = self._ctx
        hand_no = record.setup.hand_no if isinstance(record, PiaoOpenRecord | HandStartRecord) else t.hand_no
        written = record

        async def write() -> None:
            nonlocal written
            if t.id in self._store_down:
                written = dataclasses.replace(written, at=ctx.clock())  # the next decision's time counts from now
            try:
                await ctx.journal.append(t.id, t.seq + 1, hand_no, record.kind, written.to_json())
            except DuplicateEvent:
                # A try reported failed may have committed (a connection lost as it committed): when the log
                # holds this very record, it is written, as the log holds it.
                stored = await ctx.store.load_events(t.id, after_seq=t.seq)
                if not stored or not _same_record(stored[0], written):
                    raise
                written = parse_record(stored[0].kind, stored[0].payload)

        try:
            await self.durably(t, f"event {t.seq + 1} ({record.kind})", write)
        except StoreFailed as failed:
            self.pause_for_store(t)
            raise SavingFailed("saving failed: the table is paused") from failed
        t.seq += 1
        return t.apply(written)

    async def write_hand(self, t: LiveTable) -> bool | None:
        """Write the finished hand to the ledger (idempotent): True when this wrote it, False when it was
        there already (the crash came after the ledger write), None when the write failed for good: the table
        pauses, and the write is tried again when it is resumed (before the next hand)."""
        try:
            written = await self.durably(t, f"hand {t.hand_no} to the ledger",
                                         lambda: self._ctx.store.finish_hand(ledger_hand(t)))
        except StoreFailed:
            self.pause_for_store(t)
            return None
        t.ledger_done = True
        if written:
            oplog.hand_recorded(t, ledger_hand(t))
        return bool(written)

    def pause_for_store(self, t: LiveTable) -> None:
        """A store write failed for good (logged): the table pauses — no move, no timer — until a player
        resumes it (which tries again) or the service restarts. Nothing is written: the store failed."""
        if t.paused is not None or t.status not in (PIAO, PLAYING, BETWEEN):
            return
        self._ctx.stats.store_pauses += 1
        self._delivery.tell_paused(t, t.store_paused(self._ctx.clock()), PauseReason.STORE)
        self._scheduler.arm(t)

    async def durably(self, t: LiveTable, what: str, write: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
        """Run a store write of table `t`, tried again for a bounded time while it fails in a way that may pass
        (kwx.table.retry). The players are told once that saving is being retried and once that it works
        again. Raises StoreFailed, logged, when it gives up: the caller pauses the table. Holds `t.lock`: the
        table waits, and what its timers fire waits for the write."""
        ctx = self._ctx

        def retrying(exc: BaseException) -> None:
            ctx.stats.store_retries += 1
            if t.id not in self._store_down:
                self._store_down.add(t.id)
                logger.warning("table %s guild %s: writing %s failed (%r); retrying", t.id, t.guild, what, exc)
                self._delivery.put(t, ctx.frontend.notice, t.id, "event.store_retrying")

        try:
            result = await write_with_retry(write, self.retry, retrying=retrying, keep_going=lambda: ctx.running)
        except StoreFailed as failed:
            self._store_down.discard(t.id)
            ctx.stats.errors += 1
            if failed.outage:
                logger.error("table %s guild %s: writing %s still failed after %g s (%r); pausing the table", t.id,
                             t.guild, what, self.retry.give_up_after, failed.__cause__)
            else:
                logger.error("table %s guild %s: writing %s failed with an error that retrying cannot help; pausing "
                             "the table", t.id, t.guild, what, exc_info=failed.__cause__)
            raise
        if t.id in self._store_down:
            self._store_down.discard(t.id)
            logger.warning("table %s guild %s: writing %s worked again", t.id, t.guild, what)
            self._delivery.put(t, ctx.frontend.notice, t.id, "event.store_recovered")
        return result

    async def lobby_write(self, what: str, write: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
        """A lobby write (a new table, who sits where) is tried once: the person who asked is refused and may
        ask again; nothing has moved."""
        try:
            return await write()
        except Exception as exc:
            if is_transient(exc):
                logger.warning("writing %s failed (%r)", what, exc)
            else:
                logger.exception("writing %s failed", what)
                self._ctx.stats.errors += 1
            raise SavingFailed("saving failed: try again") from exc


def _same_record(row: EventRow, record: LogRecord) -> bool:
    """The stored record is this one (its time aside: a retried write carries a later one)."""
    mine = json.loads(dump_json(record.to_json()))
    return row.kind == record.kind and {**row.payload, "at": None} == {**mine, "at": None}
