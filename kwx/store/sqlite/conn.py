"""The SQLite side of `kwx.store.connection.Connection`: an aiosqlite connection, its errors made kwx's own.

SQLite reads the store's `$1`, `$2` … as named parameters called "1", "2" …, so the arguments are bound by
those names: a parameter may repeat or come out of order, as in PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import aiosqlite

from kwx.store.connection import Row
from kwx.store.errors import Constraint, IntegrityError, StoreBusy, StoreError, StoreUnavailable

# Result codes (https://sqlite.org/rescode.html): primary codes are the low byte of an extended code.
_BUSY, _LOCKED, _IOERR, _FULL = 5, 6, 10, 13
_CONSTRAINTS = {1555: Constraint.UNIQUE, 2067: Constraint.UNIQUE, 787: Constraint.FOREIGN_KEY,
                275: Constraint.CHECK, 1299: Constraint.CHECK, 1811: Constraint.APPEND_ONLY}
# SQLITE_CONSTRAINT_TRIGGER (1811) is a trigger's RAISE(ABORT, …): the store's triggers are its append-only rules.


def store_error(exc: sqlite3.Error) -> StoreError:
    """kwx's error for a SQLite error (the message is SQLite's)."""
    code = getattr(exc, "sqlite_errorcode", None)
    code = code if isinstance(code, int) else None
    message = str(exc)
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError(message, _CONSTRAINTS.get(code or 0, Constraint.CHECK))
    primary = None if code is None else code & 0xFF
    if type(exc) is sqlite3.OperationalError:
        if primary in (_BUSY, _LOCKED):
            return StoreBusy(message)
        if primary in (_IOERR, _FULL):
            return StoreUnavailable(message)
    return StoreError(message)


@contextmanager
def translated() -> Iterator[None]:
    """Raise kwx's error in place of a SQLite error (chained as its cause)."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_error(exc) from exc


def _named(args: Sequence[Any]) -> dict[str, Any]:
    return {str(number): value for number, value in enumerate(args, 1)}


class SqliteConn:
    """One aiosqlite connection of the store (the writer inside its transaction, or the reader)."""

    backend = "sqlite"

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.raw = conn

    async def execute(self, sql: str, *args: Any) -> None:
        with translated():
            await self.raw.execute(sql, _named(args))  # its cursor is not closed: that would be a second
            # trip to aiosqlite's thread on every write, and a finished statement holds nothing

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        with translated():  # one trip to aiosqlite's thread: execute, fetch and close there
            return cast(list[Row], list(await self.raw.execute_fetchall(sql, _named(args))))

    async def fetch_one(self, sql: str, *args: Any) -> Row | None:
        rows = await self.fetch(sql, *args)  # the store asks this of statements that give one row at most
        return rows[0] if rows else None

    async def fetch_value(self, sql: str, *args: Any) -> Any:
        row = await self.fetch_one(sql, *args)
        return None if row is None else row[0]

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with translated():
            await self.raw.executemany(sql, [_named(row) for row in rows])

    async def lock(self, *keys: object) -> None:
        return None  # the writer's BEGIN IMMEDIATE already holds the whole database
