"""The one typed interface both backends serve: a `Connection` inside a store transaction (or a read).

The store's parts (kwx.store.events, ledger, queries, settings) are written once against it; the SQLite
backend (kwx.store.sqlite) and the PostgreSQL backend (kwx.store.postgres) each implement it natively on their
own driver. Nothing translates SQL text: the store writes SQL both databases accept as it is —
- parameters are numbered, `$1`, `$2` …: PostgreSQL's own form, and in SQLite a named parameter (`$NNN`) that
  the SQLite connection binds by number, so a parameter may repeat or come out of order in either;
- a new row's id is asked for with `RETURNING id` (SQLite 3.35+), never read from a cursor;
- upserts are `INSERT … ON CONFLICT (…) DO …` with `excluded.`, which both know.
Errors are kwx's own (kwx.store.errors): each implementation translates its driver's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol


class Row(Protocol):
    """One result row, by column name or by position (sqlite3.Row and asyncpg.Record both are)."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...


class Connection(Protocol):
    """A connection of the store, inside one of its write transactions (`Store._write`) or reads."""

    backend: str  # "sqlite" | "postgresql"

    async def execute(self, sql: str, *args: Any) -> None:
        """Run one statement; its rows, if any, are dropped."""

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        """Every row of one statement."""

    async def fetch_one(self, sql: str, *args: Any) -> Row | None:
        """The first row of one statement, or None."""

    async def fetch_value(self, sql: str, *args: Any) -> Any:
        """The first column of the first row (None without a row): a count, an id from `RETURNING id`."""

    async def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters (all inside the caller's transaction)."""

    async def lock(self, *keys: object) -> None:
        """Serialize, across processes, the transactions that name the same `keys` until this one ends.
        PostgreSQL: a transaction-scoped advisory lock. SQLite: nothing to do, its one writer already holds
        the whole database (BEGIN IMMEDIATE)."""


def params(count: int, first: int = 1) -> str:
    """`count` numbered parameters from `$first`, comma-separated: the `IN (…)` or `VALUES (…)` of a statement
    whose length is known only at run time."""
    return ", ".join(f"${number}" for number in range(first, first + count))
