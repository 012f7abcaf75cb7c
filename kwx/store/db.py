"""The connection: opening (pragmas, migrations), one lock, transactions, JSON and time helpers.

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
import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Self

import aiosqlite

from kwx.store.backup import back_up_before_migration, default_backup_dir
from kwx.store.checkpoint import Checkpointer
from kwx.store.clock import to_text, utcnow
from kwx.store.migrations import SCHEMA_VERSION, migrate, schema_version
from kwx.store.timing import WriteTimes

DEFAULT_DB = Path("data") / "kwx.sqlite3"
WAL_KEPT_BYTES = 16 << 20  # a WAL that grew (during a backup) is cut back to this when it starts again


def default_db_path() -> Path:
    """`$KWX_DB`, else data/kwx.sqlite3 relative to the current directory."""
    return Path(os.environ.get("KWX_DB") or DEFAULT_DB)


def database_url() -> str | None:
    """`$KWX_DATABASE_URL` when it names a PostgreSQL database (postgresql://…), else None (SQLite)."""
    url = (os.environ.get("KWX_DATABASE_URL") or "").strip()
    if not url:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        raise ValueError(f"KWX_DATABASE_URL must be a postgresql:// URL, not {url.split(':')[0]!r}"
                         " (unset it to use SQLite at $KWX_DB)")
    return url


def shown(target: object) -> str:
    """A store's path or URL as it may be printed: a URL loses its user and password."""
    text = str(target)
    return text.split("@")[-1] if "://" in text else text


# URL scheme -> opener of the backend that serves it (kwx.store.postgres registers itself when kwx.store is
# imported; the SQLite backend is this module's own).
_URL_BACKENDS: dict[str, Callable[..., Awaitable[Any]]] = {}


def register_backend(schemes: tuple[str, ...], opener: Callable[..., Awaitable[Any]]) -> None:
    for scheme in schemes:
        _URL_BACKENDS[scheme] = opener


async def lock(db: Any, *keys: object) -> None:
    """Serialize transactions that touch the same `keys` across processes (PostgreSQL: an advisory lock held
    to the end of the transaction). A no-op on SQLite, whose BEGIN IMMEDIATE already serializes writers."""
    take = getattr(db, "lock", None)
    if take is not None:
        await take(*keys)


def dump_json(value: Any) -> str:
    """JSON text of a value. Objects with `to_json()` (RuleSet, engine events) give their own form;
    dataclasses become objects and datetimes ISO strings."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_json"):
        form = value.to_json()
        return json.loads(form) if isinstance(form, str) else form
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, datetime):
        return to_text(value)
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"cannot store a {type(value).__name__} as JSON")


def load_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


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


class _Probe(Exception):
    """Rolls the health check's probe write back."""


class StoreBase:
    """Connection management shared by the parts of `Store` (SQLite here; PostgreSQL overrides it in
    kwx.store.postgres)."""

    backend = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: str, clock: Callable[[], datetime],
                 reader: aiosqlite.Connection | None = None) -> None:
        self._db = conn
        self.path = path
        self._clock = clock
        self._lock = asyncio.Lock()
        self._reader = reader if reader is not None else conn
        self._read_lock = asyncio.Lock() if reader is not None else self._lock
        self.write_times = WriteTimes()  # every write transaction's time (kwx.metrics reports it)
        # Folds the WAL back off the writer's path (a file's store; `open` starts it).
        self._checkpointer = Checkpointer(Path(path), self._lock) if reader is not None else None

    @classmethod
    async def open(cls, path: str | os.PathLike[str] | None = None, *,
                   clock: Callable[[], datetime] | None = None, backup_dir: Path | None = None) -> Self:
        """Open (creating the file and its directory if needed) and migrate to the current schema.

        `path=None` uses `$KWX_DATABASE_URL` (PostgreSQL) if set, else `default_db_path()`; a postgresql://
        URL opens the PostgreSQL backend (kwx.store.postgres); ":memory:" works for throwaway use. `clock`
        returns "now" as an aware datetime (tests pass a fake one); every write also accepts an explicit `at=`.
        A SQLite store at an older schema is first backed up into `backup_dir` (default: `$KWX_BACKUP_DIR`, else
        backups/ beside it; kwx.store.backup); when that copy cannot be made, nothing is migrated (StoreError).
        """
        url = database_url() if path is None else str(path)
        for scheme, opener in _URL_BACKENDS.items():
            if url and url.startswith(scheme):
                store: Self = await opener(url, clock=clock)  # the backend's Store subclass
                return store
        target = default_db_path() if path is None else Path(path)
        memory = str(path) == ":memory:"
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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _stamp(self, at: datetime | None = None) -> str:
        return to_text(at if at is not None else self._clock())

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; rolled back if the body raises (or is cancelled). Timed in `write_times`."""
        started = time.perf_counter()
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._rollback()
                raise
            try:
                await self._db.execute("COMMIT")
            except BaseException:  # SQLITE_BUSY on COMMIT leaves the transaction open: end it, or every
                await self._rollback()  # later BEGIN fails and the store is stuck until a restart
                raise
        self.write_times.observe(time.perf_counter() - started)
        if self._checkpointer is not None:
            self._checkpointer.pending = True

    async def check_writable(self) -> None:
        """Raise unless the store takes a write now (a health check): a probe row is written in a transaction
        that is then rolled back, so nothing is kept."""
        try:
            async with self._write() as db:
                await db.execute("INSERT INTO guild_settings(guild, key, value, updated_at)"
                                 " VALUES ('kwx:health', 'probe', '', '')")
                raise _Probe
        except _Probe:
            return

    async def _rollback(self) -> None:
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # already rolled back by SQLite (disk full, I/O error)
                await self._db.execute("ROLLBACK")

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        """The read connection, off the writer's path (see the module docstring)."""
        async with self._read_lock:
            yield self._reader

    async def _one(self, sql: str, params: Any = ()) -> sqlite3.Row | None:
        async with self._read() as db, db.execute(sql, params) as cur:
            return await cur.fetchone()

    async def _all(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        async with self._read() as db, db.execute(sql, params) as cur:
            return list(await cur.fetchall())
