"""`Store`: the one object the rest of kwx talks to (see the package docstring for the API)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from kwx.store.db import database_url
from kwx.store.events import TablesMixin
from kwx.store.ledger import LedgerMixin
from kwx.store.queries import QueriesMixin
from kwx.store.settings import SettingsMixin

Clock = Callable[[], datetime]
# Opens a backend's store: (path or URL, None for the default place; clock; the folder for the copy taken
# before a migration).
Opener = Callable[[str | None, Clock | None, Path | None], Awaitable["Store"]]
_BACKENDS: dict[str, Opener] = {}  # URL scheme ("" for a file) -> its backend's opener


def register_backend(schemes: tuple[str, ...], opener: Opener) -> None:
    """Make `Store.open` hand targets starting with one of `schemes` to `opener` ("": a file path)."""
    for scheme in schemes:
        _BACKENDS[scheme] = opener


class Store(TablesMixin, LedgerMixin, QueriesMixin, SettingsMixin):
    """The store on either backend: `store = await Store.open(path or URL)` … `await store.close()` (or
    `async with`). kwx.store.sqlite.SqliteStore and kwx.store.postgres.PgStore are its two kinds."""

    @classmethod
    async def open(cls, path: str | os.PathLike[str] | None = None, *, clock: Clock | None = None,
                   backup_dir: Path | None = None) -> Store:
        """Open (creating the file and its directory if needed) and migrate to the current schema.

        `path=None` uses `$KWX_DATABASE_URL` (PostgreSQL) if set, else `default_db_path()`; a postgresql://
        URL opens the PostgreSQL backend (kwx.store.postgres); ":memory:" works for throwaway use. `clock`
        returns "now" as an aware datetime (tests pass a fake one); every write also accepts an explicit `at=`.
        A SQLite store at an older schema is first backed up into `backup_dir` (default: `$KWX_BACKUP_DIR`, else
        backups/ beside it; kwx.store.backup); when that copy cannot be made, nothing is migrated (StoreError).
        """
        target = database_url() if path is None else os.fspath(path)
        for scheme, opener in _BACKENDS.items():
            if scheme and target and target.startswith(scheme):
                return await opener(target, clock, backup_dir)
        return await _BACKENDS[""](target, clock, backup_dir)
