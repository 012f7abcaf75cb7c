"""The PostgreSQL backend of `Store` (asyncpg, a connection pool).

    store = await Store.open("postgresql://user@host:5432/db")      # or KWX_DATABASE_URL=postgresql://…
    store = await Store.open("postgresql://…/db?search_path=kwx_test_1")   # a schema of its own (made if missing)

The store's parts (tables/events, ledger, queries, settings) run on a pooled connection (`conn.PgConn`, the
PostgreSQL side of kwx.store.connection.Connection); asyncpg's errors are raised as kwx's own
(kwx.store.errors).

Durability matches the SQLite backend's (WAL, synchronous=NORMAL): the event log's group commits are
asynchronous commits (`synchronous_commit = off`: a crash of the database server may lose the last moment of
moves, never a committed hand's money), and every other write transaction (money, tables, settings) waits for
its WAL flush, which — the WAL being one ordered log — also makes every earlier event batch durable. A URL
that sets `?synchronous_commit=…` itself is obeyed for every write instead. Every write is one transaction
(READ COMMITTED) on its own pooled connection, so writes from several coroutines and several processes run
side by side; where two of them could race on the same thing (finishing the same hand, reversing the same
hand or entry, numbering a table's next event) the store takes a transaction-scoped advisory lock first
(`Connection.lock`), and the summary tables are updated with atomic `… = … + excluded.…` upserts in a fixed
key order. Migrations: the one history of kwx.store.schema as `migrations.py` renders it for PostgreSQL,
applied at open under an advisory lock so two processes starting at once do not both run them.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit, urlunsplit

import asyncpg

from kwx.store.clock import utcnow
from kwx.store.connection import Connection
from kwx.store.db import dump_json
from kwx.store.errors import Constraint, DuplicateEvent, IntegrityError, NotFound, StoreError
from kwx.store.models import NewEvent
from kwx.store.postgres.conn import PgConn, translated
from kwx.store.postgres.migrations import MIGRATIONS
from kwx.store.store import Clock, Store, register_backend

URL_SCHEMES = ("postgresql://", "postgres://")
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_MIGRATION_LOCK = 0x6B7778  # "kwx": one advisory lock id for migrating any schema of the database


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def url_schema(url: str) -> str | None:
    """The schema a URL names with `?search_path=…` (its first entry), or None."""
    paths = parse_qs(urlsplit(url).query).get("search_path")
    if not paths:
        return None
    schema = paths[0].split(",")[0].strip()
    if not _SCHEMA_NAME.match(schema):
        raise StoreError(f"search_path {schema!r} is not a plain schema name")
    return schema


def with_schema(url: str, schema: str) -> str:
    """The URL with `search_path` set to `schema` (a scratch schema for a benchmark or a test)."""
    if not _SCHEMA_NAME.match(schema):
        raise ValueError(f"{schema!r} is not a plain schema name")
    parts = urlsplit(url)
    query = "&".join(q for q in parts.query.split("&") if q and not q.startswith("search_path="))
    return urlunsplit(parts._replace(query="&".join(filter(None, [query, f"search_path={schema}"]))))


async def drop_schema(url: str) -> None:
    """Drop the schema the URL names (with everything in it)."""
    schema = url_schema(url)
    if schema is None:
        raise ValueError("the URL names no schema (?search_path=…)")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def _number(text: str) -> int | Decimal:
    """numeric → int when whole: SUM() of BIGINT money is numeric in PostgreSQL, and money is int."""
    value = Decimal(text)
    return int(value) if value == value.to_integral_value() else value


class _Connection(asyncpg.Connection):
    def get_reset_query(self) -> str:
        # The store leaves no session state on a pooled connection (its locks end with their transaction, an
        # open transaction is still rolled back by asyncpg), so skip the reset round trip on every release.
        return ""


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("numeric", encoder=str, decoder=_number, schema="pg_catalog", format="text")


async def _init_async_commit(conn: asyncpg.Connection) -> None:
    await _init_connection(conn)
    await conn.execute("SET synchronous_commit = off")


async def schema_version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('kwx_schema') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM kwx_schema"))


async def migrate(conn: asyncpg.Connection, migrations: list[str] | None = None) -> int:
    """Apply the missing migrations, each in its own transaction; return the resulting version."""
    scripts = MIGRATIONS if migrations is None else migrations
    await conn.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        await conn.execute("CREATE TABLE IF NOT EXISTS kwx_schema (version INTEGER PRIMARY KEY, applied_at"
                           " TIMESTAMPTZ NOT NULL DEFAULT now())")
        version = await schema_version(conn)
        if version > len(scripts):
            raise StoreError(f"database schema version {version} is newer than this program ({len(scripts)})")
        for number in range(version + 1, len(scripts) + 1):
            async with conn.transaction():
                await conn.execute(scripts[number - 1])
                await conn.execute("INSERT INTO kwx_schema(version) VALUES ($1)", number)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)
    return len(scripts)


class PgStore(Store):
    """`Store` on PostgreSQL. Open it through `Store.open(url)`; `path` is the URL (reopen with it)."""

    backend = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], datetime]) -> None:
        super().__init__(url, clock)
        self.pool = pool
        self._table_locks: dict[int, list[Any]] = {}  # table -> [lock, users]
        self._begin = "BEGIN"

    @classmethod
    async def connect(cls, url: str, *, clock: Callable[[], datetime] | None = None,
                      min_size: int = 1, max_size: int | None = None) -> Self:
        """Create the URL's schema if it names one, migrate, and open a pool (`KWX_DB_POOL` connections,
        default 10)."""
        schema = url_schema(url)
        try:
            conn = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StoreError(f"cannot connect to PostgreSQL: {exc}") from exc
        try:
            with translated():
                if schema is not None:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                await migrate(conn)
        finally:
            await conn.close()
        size = max_size or int(os.environ.get("KWX_DB_POOL") or 10)
        operator_commit = "synchronous_commit" in parse_qs(urlsplit(url).query)
        pool = await asyncpg.create_pool(url, min_size=min(min_size, size), max_size=size,
                                         init=_init_connection if operator_commit else _init_async_commit,
                                         connection_class=_Connection)
        assert pool is not None
        store = cls(pool, url, clock or utcnow)
        store._begin = "BEGIN" if operator_commit else "BEGIN; SET LOCAL synchronous_commit = on"
        return store

    async def close(self) -> None:
        await self.pool.close()

    async def append_events(self, table_id: int, events: Sequence[NewEvent], *,
                            at: datetime | None = None) -> list[int]:
        # Calls from this process keep their order, as on SQLite's single connection (the pool would let a
        # later call take the next seq first); other processes are kept out by the advisory lock inside.
        entry = self._table_locks.setdefault(table_id, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                return await super().append_events(table_id, events, at=at)
        finally:
            entry[1] -= 1
            if not entry[1]:
                del self._table_locks[table_id]

    async def append_events_batch(self, rows: Sequence[tuple[int, NewEvent]], *,
                                  at: datetime | None = None) -> None:
        # The table service's group commit, its hot path: one statement, so no BEGIN/COMMIT round trips
        # (asyncpg's executemany is atomic: all rows or none).
        stamp = self._stamp(at)
        params = [(table_id, e.seq, e.hand_no, e.kind, dump_json(e.payload), stamp) for table_id, e in rows]
        if any(p[1] is None for p in params):
            raise ValueError("a batch names every event's seq")
        started = time.perf_counter()
        try:
            with translated():
                async with self.pool.acquire() as conn:
                    await conn.executemany("INSERT INTO events(table_id, seq, hand_no, kind, payload, created_at)"
                                           " VALUES ($1, $2, $3, $4, $5, $6)", params)
        except IntegrityError as exc:
            if exc.constraint is Constraint.FOREIGN_KEY:
                raise NotFound("an event names an unknown table") from None
            raise DuplicateEvent(f"a batch repeats an event seq: {exc}") from None
        self.write_times.observe(time.perf_counter() - started)

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Connection]:
        """One transaction on a pooled connection; rolled back if the body raises (or is cancelled). Its
        commit waits for the WAL flush (synchronous), which also makes every earlier event batch durable.
        Timed in `write_times`."""
        started = time.perf_counter()
        with translated():  # the pool's connect, BEGIN and COMMIT (the body's statements translate their own)
            async with self.pool.acquire() as conn:
                await conn.execute(self._begin)  # one round trip for BEGIN and the durability of this commit
                try:
                    yield PgConn(conn)
                except BaseException:
                    if not conn.is_closed():
                        await conn.execute("ROLLBACK")
                    raise
                await conn.execute("COMMIT")
        self.write_times.observe(time.perf_counter() - started)

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        with translated():
            async with self.pool.acquire() as conn:
                yield PgConn(conn)


async def _open_url(url: str | None, clock: Clock | None, backup_dir: Path | None) -> PgStore:
    assert url is not None  # chosen by its scheme
    return await PgStore.connect(url, clock=clock)  # no file to back up: the operator's backups keep the server


register_backend(URL_SCHEMES, _open_url)
