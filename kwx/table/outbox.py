"""Per-table delivery of front-end calls, in order, off the table's lock.

The service queues a call (already built from committed state) and goes on; one task per table awaits the
front end. A slow or failing front end therefore never holds a table up, and one table's calls arrive in the
order they were made. A front end that raises is logged and the next call still goes out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

logger = logging.getLogger(__name__)

_CLOSE = object()


class Outbox:
    def __init__(self, table_id: int, on_closed: Callable[[], None] | None = None) -> None:
        self.table_id = table_id
        self._on_closed = on_closed
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.sent = 0

    def put(self, call: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"kwx-outbox-{self.table_id}")
        self._queue.put_nowait((call, args, kwargs))

    async def _run(self) -> None:
        while True:
            item = await self._queue.get()
            try:
                if item is _CLOSE:
                    if self._on_closed is not None:
                        self._on_closed()
                    return
                call, args, kwargs = item
                try:
                    await call(*args, **kwargs)
                except Exception:
                    logger.exception("front end failed on %s for table %s", getattr(call, "__name__", call),
                                     self.table_id)
                self.sent += 1
            finally:
                self._queue.task_done()

    async def drain(self) -> None:
        """Wait until every queued call has been delivered."""
        if self._task is not None and not self._task.done():
            await self._queue.join()

    def close_soon(self) -> None:
        """End the sender after what is queued (safe to call from a front-end callback)."""
        if self._task is not None and not self._task.done():
            self._queue.put_nowait(_CLOSE)

    async def close(self, *, deliver: bool = True, timeout: float = 5.0) -> None:
        """Stop the sender: after delivering what is queued (deliver=True), or at once."""
        task = self._task
        if task is None or task.done():
            return
        if deliver:
            self._queue.put_nowait(_CLOSE)
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
                return
            except TimeoutError:
                pass
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
