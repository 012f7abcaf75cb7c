"""Folding the WAL back into the database file, off the writer's path (SQLite stores).

SQLite's own automatic checkpoint runs inside whichever commit makes the WAL cross its threshold: that table's
write then waits for the copy and its fsync — tens of milliseconds, and far more after a backup, whose read
transaction keeps the WAL from being folded back while it copies (kwx.store.backup). So the store turns the
automatic checkpoint off on its writer (`PRAGMA wal_autocheckpoint = 0`) and a `Checkpointer` does the same work
from a connection of its own in a worker thread: every `every` seconds, when anything was written since the
last time, a PASSIVE checkpoint (it never waits for the writer nor makes it wait). Readers and the writer go on
meanwhile; the WAL is restarted by the writer's next commit once it has all been folded back.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from pathlib import Path

from kwx.store.background import stop_task

logger = logging.getLogger(__name__)

EVERY_S = 1.0
RESTART_FRAMES = 1000  # SQLite's own automatic checkpoint threshold (about 4 MB of 4 KiB pages)
TAIL_FRAMES = 200  # what a pass beside the writer may leave for the short pass under its lock


class Checkpointer:
    def __init__(self, path: Path, writer_lock: asyncio.Lock, every: float = EVERY_S) -> None:
        self.path = path
        self.writer_lock = writer_lock  # the store's: held, no write transaction can start
        self.every = every
        self.pending = False  # written to since the last checkpoint (the store sets it after each commit)
        self.done = 0  # checkpoints run
        self._conn: sqlite3.Connection | None = None
        # A cancelled pass goes on in its thread: the connection is closed only between passes.
        self._guard = threading.Lock()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(self._run(), name="kwx-checkpoint")

    async def stop(self) -> None:
        """No more passes; the connection closes once a pass still running in its thread is done."""
        task, self._task = self._task, None
        await stop_task(task)
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._guard:
            self._closed = True
            conn, self._conn = self._conn, None
            if conn is not None:
                conn.close()

    async def run_once(self) -> tuple[int, int]:
        """A checkpoint now: (frames in the WAL, frames folded back into the database file)."""
        self.pending = False
        frames, folded = await asyncio.to_thread(self._checkpoint)
        if frames >= RESTART_FRAMES and frames - folded <= TAIL_FRAMES:
            async with self.writer_lock:  # the tail, with no frame added meanwhile: the WAL can start again
                frames, folded = await asyncio.to_thread(self._checkpoint)
        return frames, folded

    def _checkpoint(self) -> tuple[int, int]:
        with self._guard:
            if self._closed:
                return 0, 0
            if self._conn is None:
                self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._conn.execute("PRAGMA busy_timeout = 1000")
            _, frames, folded = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.done += 1
            return int(frames), int(folded)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            if not self.pending:
                continue
            try:
                await self.run_once()
            except sqlite3.Error as exc:  # the next round tries again; the WAL only grows meanwhile
                self.pending = True
                logger.warning("checkpoint of %s failed: %s", self.path, exc)
