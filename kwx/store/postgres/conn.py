"""The PostgreSQL side of `kwx.store.connection.Connection`: a pooled asyncpg connection, its errors made
kwx's own.

The store's SQL reaches PostgreSQL as it is written (`$1` parameters, `RETURNING id`); the one adjustment is
to values: a Python bool is sent as an int, since flags are INTEGER columns on both backends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from kwx.store.connection import Row
from kwx.store.errors import Constraint, IntegrityError, StoreBusy, StoreError, StoreUnavailable

_BUSY = (asyncpg.SerializationError, asyncpg.DeadlockDetectedError, asyncpg.LockNotAvailableError)
_UNAVAILABLE = (asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
                asyncpg.CannotConnectNowError, asyncpg.InsufficientResourcesError)
_CONSTRAINTS: tuple[tuple[type[asyncpg.PostgresError], Constraint], ...] = (
    (asyncpg.UniqueViolationError, Constraint.UNIQUE), (asyncpg.ForeignKeyViolationError, Constraint.FOREIGN_KEY),
    (asyncpg.CheckViolationError, Constraint.CHECK), (asyncpg.NotNullViolationError, Constraint.CHECK),
    (asyncpg.RestrictViolationError, Constraint.APPEND_ONLY))  # the append-only triggers raise restrict_violation


def store_error(exc: Exception) -> Exception:
    """kwx's error for an asyncpg or network error (the message is the server's); any other exception is
    returned as it is."""
    message = str(exc)
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        kind = next((c for cls, c in _CONSTRAINTS if isinstance(exc, cls)), Constraint.CHECK)
        return IntegrityError(message, kind)
    if isinstance(exc, _BUSY):
        return StoreBusy(message)
    if isinstance(exc, (*_UNAVAILABLE, OSError)):  # OSError: the network (refused, reset, unreachable, a timeout)
        return StoreUnavailable(message or type(exc).__name__)
    if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError):  # a bad statement or value, a misuse
        return StoreError(message)
    return exc


@contextmanager
def translated() -> Iterator[None]:
    """Raise kwx's error in place of an asyncpg or network error (chained as its cause)."""
    try:
        yield
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
        raise store_error(exc) from exc


def _values(args: Sequence[Any]) -> list[Any]:
    return [int(v) if isinstance(v, bool) else v for v in args]


class PgConn:
    """One pooled connection, inside a transaction (writes) or not (reads)."""

    backend = "postgresql"

    def __init__(self, conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any]) -> None:
        self.raw = conn

    async def execute(self, sql: str, *args: Any) -> None:
        with translated():
            await self.raw.execute(sql, *_values(args))

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        with translated():
            return cast(list[Row], await self.raw.fetch(sql, *_values(args)))

    async def fetch_one(self, sql: str, *args: Any) -> Row | None:
        with translated():
            return cast(Row | None, await self.raw.fetchrow(sql, *_values(args)))

    async def fetch_value(self, sql: str, *args: Any) -> Any:
        with translated():
            return await self.raw.fetchval(sql, *_values(args))

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [_values(row) for row in rows]
        if batch:
            with translated():
                await self.raw.executemany(sql, batch)

    async def lock(self, *keys: object) -> None:
        """Hold an advisory lock on `keys` until the transaction ends (two processes wanting the same key
        take turns; different keys do not wait for each other)."""
        await self.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ":".join(str(k) for k in keys))
