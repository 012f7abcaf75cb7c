"""Where the front end's messages are (each table's board, each player's panel), written to the store behind:
at most once per `interval` for all tables in one transaction. A crash loses at most that: the bot then posts
a board or a prompt anew."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kwx.store import Store
from kwx.store.settings import MessageRef

logger = logging.getLogger(__name__)


class MessageRefs:
    def __init__(self, store: Store, interval: float = 1.0) -> None:
        self.store = store
        self.interval = interval
        self.pending: dict[tuple[int, str], MessageRef] = {}  # not yet written to the store
        self._task: asyncio.Task[None] | None = None

    def remember(self, table_id: int, ref: str, channel_id: int, message_id: int, data: dict[str, Any]) -> None:
        """Note where a message is (written behind)."""
        self.pending[(table_id, ref)] = MessageRef(ref, str(channel_id), str(message_id), data)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.write(self.interval))

    async def write(self, delay: float = 0.0) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        batch, self.pending = self.pending, {}
        try:
            await self.store.set_message_refs([(table_id, ref) for (table_id, _), ref in batch.items()])
        except Exception:
            logger.exception("could not remember where %d message(s) are", len(batch))

    async def forget(self, table_id: int) -> None:
        """A closed table: its messages are no longer ours to edit."""
        for key in [k for k in self.pending if k[0] == table_id]:
            self.pending.pop(key, None)
        try:
            await self.store.delete_message_refs(table_id)
        except Exception:
            logger.exception("table %s: could not forget its messages", table_id)

    def writer(self) -> asyncio.Task[None] | None:
        """The pending write, if one is under way (to cancel at close)."""
        return self._task if self._task is not None and not self._task.done() else None
