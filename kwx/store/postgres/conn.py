"""The dialect layer: a pooled asyncpg connection that looks like the aiosqlite subset the store uses.

The store's SQL is written once, in the dialect SQLite and PostgreSQL share; `PgConn` translates what
differs, so the parts of `Store` run unchanged on both backends:
- placeholders: `?` and `:name` become `$1…` (the text inside quotes is left alone);
- `cur.lastrowid`: an INSERT into a table with an id column gets `RETURNING id`;
- Python bools are sent as ints (flags are INTEGER columns on both);
- integrity errors (unique, foreign key, check, the append-only triggers) are raised as
  `sqlite3.IntegrityError` with SQLite's wording ("UNIQUE constraint failed", "FOREIGN KEY constraint failed"),
  the exception the store already handles; the PostgreSQL error is chained as its cause.
- `lock(*keys)`: a transaction-scoped advisory lock (`pg_advisory_xact_lock`), the explicit lock the store
  takes where two processes could race (SQLite's BEGIN IMMEDIATE already serializes every writer).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Generator, Iterable, Sequence
from functools import lru_cache
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

_ID_TABLES = ("tables", "hands", "ledger_entries")
_INSERT_ID = re.compile(r"\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)
_TOKEN = re.compile(r"'(?:[^']|'')*'|\?|(?<!:):([A-Za-z_]\w*)|\$\$.*?\$\$", re.DOTALL)


@lru_cache(maxsize=512)
def translate(sql: str) -> tuple[str, tuple[str, ...] | None, bool]:
    """(PostgreSQL text, names of the named parameters in $ order or None for positional, returns an id)."""
    names: list[str] = []
    positional = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal positional
        text = match.group(0)
        if text == "?":
            positional += 1
            return f"${positional}"
        if match.group(1):
            name = match.group(1)
            if name not in names:
                names.append(name)
            return f"${names.index(name) + 1}"
        return text  # a quoted literal or a $$ body

    out = _TOKEN.sub(swap, sql)
    if names and positional:
        raise ValueError("a statement mixes ? and :name parameters")
    insert = _INSERT_ID.match(out)
    wants_id = bool(insert and insert.group(1).lower() in _ID_TABLES and "RETURNING" not in out.upper())
    if wants_id:
        out += " RETURNING id"
    return out, (tuple(names) if names else None), wants_id


def _args(params: Any, names: tuple[str, ...] | None) -> list[Any]:
    values = [params[n] for n in names] if names is not None else list(params or ())
    return [int(v) if isinstance(v, bool) else v for v in values]


def integrity_error(exc: asyncpg.IntegrityConstraintViolationError) -> sqlite3.IntegrityError:
    if isinstance(exc, asyncpg.ForeignKeyViolationError):
        kind = "FOREIGN KEY constraint failed"
    elif isinstance(exc, asyncpg.UniqueViolationError):
        kind = "UNIQUE constraint failed"
    elif isinstance(exc, asyncpg.CheckViolationError | asyncpg.NotNullViolationError):
        kind = "CHECK constraint failed"
    else:
        kind = "constraint failed"
    error = sqlite3.IntegrityError(f"{kind}: {exc}")
    error.__cause__ = exc
    return error


class PgCursor:
    """What an executed statement gives back: its rows (asyncpg Records: by name and by index) and lastrowid."""

    def __init__(self, rows: list[asyncpg.Record], wants_id: bool) -> None:
        self._rows = rows
        self._next = 0
        self.lastrowid: int | None = rows[0]["id"] if wants_id and rows else None
        self.rowcount = len(rows)

    async def fetchone(self) -> asyncpg.Record | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    async def fetchall(self) -> list[asyncpg.Record]:
        rest = self._rows[self._next:]
        self._next = len(self._rows)
        return rest

    async def close(self) -> None:
        return None


class _Pending:
    """`await db.execute(...)` and `async with db.execute(...) as cur`, as aiosqlite allows both."""

    def __init__(self, conn: PgConn, sql: str, params: Any) -> None:
        self._conn, self._sql, self._params = conn, sql, params

    def __await__(self) -> Generator[Any, None, PgCursor]:
        return self._conn._run(self._sql, self._params).__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._conn._run(self._sql, self._params)

    async def __aexit__(self, *exc: object) -> None:
        return None


class PgConn:
    """One pooled connection, inside a transaction (writes) or not (reads)."""

    dialect = "postgresql"

    def __init__(self, conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any]) -> None:
        self.raw = conn

    def execute(self, sql: str, params: Any = ()) -> _Pending:
        return _Pending(self, sql, params)

    async def _run(self, sql: str, params: Any) -> PgCursor:
        text, names, wants_id = translate(sql)
        try:
            rows = await self.raw.fetch(text, *_args(params, names))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise integrity_error(exc) from exc
        return PgCursor(rows, wants_id)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        text, names, _ = translate(sql)
        batch = [_args(row, names) for row in rows]
        if not batch:
            return
        try:
            await self.raw.executemany(text.removesuffix(" RETURNING id"), batch)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise integrity_error(exc) from exc

    async def lock(self, *keys: object) -> None:
        """Hold an advisory lock on `keys` until the transaction ends (two processes wanting the same key
        take turns; different keys do not wait for each other)."""
        await self.raw.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                               ":".join(str(k) for k in keys))
