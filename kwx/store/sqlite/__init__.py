"""The SQLite backend of `Store` (aiosqlite): one database file, or ":memory:".

Two aiosqlite connections per process, both in autocommit mode. The writer: every write takes `_lock` and runs
inside an explicit `BEGIN IMMEDIATE … COMMIT`, so concurrent coroutines never interleave inside a transaction
and a crash never leaves half an operation. The reader (`PRAGMA query_only`): every read takes `_read_lock`
only, so charts, exports, leaderboards, history and stats never wait for the writer nor make it wait (WAL lets
readers run beside the writer; each read sees everything committed before it began). An in-memory database
has one connection for both. The writer never checkpoints: a `Checkpointer` folds the WAL back into the file
from a connection of its own in a worker thread (kwx/store/checkpoint.py), so no commit waits for that work.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

import aiosqlite

from kwx.store.backup import back_up_before_migration, default_backup_dir
from kwx.store.checkpoint import Checkpointer
from kwx.store.clock import utcnow
from kwx.store.connection import Connection
from kwx.store.db import default_db_path
from kwx.store.errors import StoreError
from kwx.store.migrations import SCHEMA_VERSION, migrate, schema_version
from kwx.store.sqlite.conn import SqliteConn, translated
from kwx.store.store import Store, register_backend

WAL_KEPT_BYTES = 16 << 20  # a WAL that grew (during a backup) is cut back to this when it starts again


async def open_reader(path: Path) -> aiosqlite.Connection:
    """A read-only connection to a migrated database file (WAL: it never blocks the writer)."""
    reader = await aiosqlite.connect(path, isolation_level=None)
    try:
        reader.row_factory = sqlite3.Row
        await reader.execute("PRAGMA query_only = ON")
        await reader.execute("PRAGMA busy_timeout = 5000")
    except BaseException:
        await reader.close()
        raise
    return reader


class SqliteStore(Store):
    """`Store` on SQLite. Open it through `Store.open(path)`."""

    backend = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: str, clock: Callable[[], datetime],
                 reader: aiosqlite.Connection | None = None) -> None:
        super().__init__(path, clock)
        self._db = conn
        self._lock = asyncio.Lock()
        self._reader = reader if reader is not None else conn
        self._read_lock = asyncio.Lock() if reader is not None else self._lock
        self._writer_conn = SqliteConn(conn)
        self._reader_conn = SqliteConn(self._reader)
        # Folds the WAL back off the writer's path (a file's store; `open` starts it).
        self._checkpointer = Checkpointer(Path(path), self._lock) if reader is not None else None

    @classmethod
    async def open_file(cls, path: str | None, clock: Callable[[], datetime] | None = None,
                        backup_dir: Path | None = None) -> SqliteStore:
        """`Store.open` for a file path (None: `default_db_path()`) or ":memory:"."""
        try:
            with translated():
                return await cls._open_file(path, clock, backup_dir)
        except StoreError as exc:
            cause = exc.__cause__
            if getattr(cause, "sqlite_errorname", None) == "SQLITE_NOTADB":  # name the file, say it in words
                target = default_db_path() if path is None else path
                raise StoreError(f"cannot read {target} as a SQLite database: {exc}", code="not_sqlite",
                                 path=str(target), detail=str(exc)) from exc
            raise

    @classmethod
    async def _open_file(cls, path: str | None, clock: Callable[[], datetime] | None,
                         backup_dir: Path | None) -> SqliteStore:
        target = default_db_path() if path is None else Path(path)
        memory = path == ":memory:"
        if not memory:
            target.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(":memory:" if memory else target, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            if not memory:
                await conn.execute("PRAGMA journal_mode = WAL")
                await conn.execute("PRAGMA wal_autocheckpoint = 0")  # a Checkpointer does it (checkpoint.py)
                await conn.execute(f"PRAGMA journal_size_limit = {WAL_KEPT_BYTES}")
            await conn.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; safe with WAL
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA busy_timeout = 5000")
            version = await schema_version(conn)
            if not memory and 0 < version < SCHEMA_VERSION:
                await asyncio.to_thread(back_up_before_migration, target, backup_dir or default_backup_dir(target),
                                        version, SCHEMA_VERSION)
            await migrate(conn)
            reader = None if memory else await open_reader(target)
        except BaseException:
            await conn.close()
            raise
        store = cls(conn, ":memory:" if memory else str(target), clock or utcnow, reader)
        if store._checkpointer is not None:
            store._checkpointer.start()
        return store

    async def close(self) -> None:
        if self._checkpointer is not None:
            await self._checkpointer.stop()
        async with self._lock:
            await self._db.close()
        if self._reader is not self._db:
            async with self._read_lock:
                await self._reader.close()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Connection]:
        started = time.perf_counter()
        async with self._lock:
            with translated():
                await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer_conn
            except BaseException:
                await self._rollback()
                raise
            try:
                with translated():
                    await self._db.execute("COMMIT")
            except BaseException:  # SQLITE_BUSY on COMMIT leaves the transaction open: end it, or every
                await self._rollback()  # later BEGIN fails and the store is stuck until a restart
                raise
        self.write_times.observe(time.perf_counter() - started)
        if self._checkpointer is not None:
            self._checkpointer.pending = True

    async def _rollback(self) -> None:
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # already rolled back by SQLite (disk full, I/O error)
                await self._db.execute("ROLLBACK")

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        async with self._read_lock:
            yield self._reader_conn


register_backend(("",), SqliteStore.open_file)
