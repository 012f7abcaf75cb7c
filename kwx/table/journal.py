"""Writing tables' event-log records, each committed before the caller goes on (and shows anything).

Two modes:
- `group=False`: one transaction per record (the baseline benchmarks/tables.py --compare measures).
- `group=True` (default): group commit. Records that arrive while a transaction is being written wait for the
  next one, which carries all of them — several tables' records in one transaction — and every caller still
  waits for the commit that holds its record. With many busy tables this turns a queue of one-row
  transactions on the store's single connection into a few larger ones (see benchmarks/tables.py).

The group mode writes with `Store.append_events_batch`. Seqs are assigned by the caller (the table service
keeps each table's last seq in memory under the table's lock), so a batch needs no reads.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from kwx.engine.json_values import JsonObject
from kwx.store import NewEvent, Store


@dataclass
class JournalStats:
    records: int = 0
    transactions: int = 0
    busy_s: float = 0.0  # time spent inside write transactions


class Journal:
    def __init__(self, store: Store, *, group: bool = True) -> None:
        self._store = store
        self._group = group
        self._pending: list[tuple[tuple[int, NewEvent], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.stats = JournalStats()

    async def append(self, table_id: int, seq: int, hand_no: int, kind: str, payload: JsonObject) -> None:
        """Write one record with this seq; returns once it is committed. Raises what the store raises."""
        row = (table_id, NewEvent(hand_no, kind, payload, seq))
        if not self._group:
            await self._write([row])
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        done.add_done_callback(_consume)  # a cancelled caller's failure is not "never retrieved"
        self._pending.append((row, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush())
        # Shielded: a cancelled caller must not cancel the batch other tables are waiting on.
        await asyncio.shield(done)

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            rows = [row for row, _ in batch]
            try:
                await self._write(rows)
            except Exception as exc:
                if len(batch) == 1:
                    _fail(batch[0][1], exc)
                    continue
                # One bad record must not refuse the others: write them one by one.
                for row, (_, fut) in zip(rows, batch):
                    try:
                        await self._write([row])
                    except Exception as one_exc:
                        _fail(fut, one_exc)
                    else:
                        _succeed(fut)
                continue
            except BaseException as exc:  # cancelled: every waiter of the batch learns it
                for _, fut in batch:
                    _fail(fut, RuntimeError(f"event log write interrupted: {exc!r}"))
                raise
            for _, fut in batch:
                _succeed(fut)

    async def _write(self, rows: list[tuple[int, NewEvent]]) -> None:
        """One transaction holding `rows`; counted in `stats` once committed."""
        started = time.perf_counter()
        await self._store.append_events_batch(rows)
        self.stats.busy_s += time.perf_counter() - started
        self.stats.records += len(rows)
        self.stats.transactions += 1

    async def idle(self) -> None:
        """Wait until no batch is being written."""
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)


def _succeed(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _fail(fut: asyncio.Future[None], exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)


def _consume(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()
