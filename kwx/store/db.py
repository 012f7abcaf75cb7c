"""What every backend of the store shares: where the store is, JSON and time helpers, and `StoreBase`.

`StoreBase` holds what does not depend on the database (the clock, write timing, the health probe, reads
through `_one` / `_all`); a backend gives it `_write()` (one transaction) and `_read()`, each yielding a
`kwx.store.connection.Connection`, and `close()`. The backends: kwx.store.sqlite (the default, a file) and
kwx.store.postgres (a `postgresql://` URL); `Store.open` picks one.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from kwx.store.clock import to_text
from kwx.store.connection import Connection, Row
from kwx.store.timing import WriteTimes

DEFAULT_DB = Path("data") / "kwx.sqlite3"


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


class _Probe(Exception):
    """Rolls the health check's probe write back."""


class StoreBase:
    """What the parts of `Store` share on any backend. A backend subclass supplies `_write`, `_read`, `close`
    and `backend`."""

    backend = ""

    def __init__(self, path: str, clock: Callable[[], datetime]) -> None:
        self.path = path  # the file, ":memory:", or the URL (reopen with it)
        self._clock = clock
        self.write_times = WriteTimes()  # every write transaction's time (kwx.metrics reports it)

    def _write(self) -> AbstractAsyncContextManager[Connection]:
        """One write transaction, committed when the body ends and rolled back if it raises (or is
        cancelled); timed in `write_times`."""
        raise NotImplementedError

    def _read(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for reads that never waits for the writer (each read sees what was committed)."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _stamp(self, at: datetime | None = None) -> str:
        return to_text(at if at is not None else self._clock())

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

    async def _one(self, sql: str, *args: Any) -> Row | None:
        async with self._read() as db:
            return await db.fetch_one(sql, *args)

    async def _all(self, sql: str, *args: Any) -> list[Row]:
        async with self._read() as db:
            return await db.fetch(sql, *args)
