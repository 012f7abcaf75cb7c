"""The store's own errors: what every backend raises, whatever its driver (callers never see `sqlite3` or
`asyncpg` exceptions; each backend translates its driver's errors at its connection, the cause chained).

    StoreError                  the store cannot do what was asked; retrying cannot help
    ├── NotFound                no such table, hand or entry in that server (also a LookupError)
    ├── DuplicateEvent          that (table, seq) is already in the event log
    ├── IntegrityError          the database refused a write: a key taken, a missing reference, a check, or
    │                           the append-only rules (`.constraint` says which)
    └── StoreUnavailable        the database is there but cannot serve now; the same call may succeed later
        └── StoreBusy           another writer holds what this one needs (a lock, a serialization conflict)

`kwx.store.faults.is_transient` decides retries from these types alone.
"""

from __future__ import annotations

from enum import StrEnum


class StoreError(Exception):
    """The store cannot do what was asked (schema newer than this code, bad import file, ...). str() is English,
    for logs; `code` (when set: catalog key `store.error.<code>`) and its fields let a tool say it in the
    operator's language."""

    def __init__(self, *args: object, code: str | None = None, **fmt: object) -> None:
        super().__init__(*args)
        self.code = code
        self.fmt = fmt


class NotFound(StoreError, LookupError):
    """No such table, hand or ledger entry in the given guild."""


class DuplicateEvent(StoreError):
    """An event with this (table_id, seq) is already in the log."""


class Constraint(StrEnum):
    """Which rule of the schema refused a write."""

    UNIQUE = "unique"            # a primary key or unique index already holds that value
    FOREIGN_KEY = "foreign key"  # the row names a table, hand or entry that does not exist
    CHECK = "check"              # a CHECK or NOT NULL rule (a non-positive amount, a bad status …)
    APPEND_ONLY = "append-only"  # a trigger of the append-only rules (a rewrite, a delete, a second reversal …)


class IntegrityError(StoreError):
    """The database refused a write because of a rule of the schema (`constraint`); the message is the
    database's own."""

    def __init__(self, message: str, constraint: Constraint) -> None:
        super().__init__(message)
        self.constraint = constraint


class StoreUnavailable(StoreError):
    """The store cannot serve now but may later: the database busy, full, shutting down or out of reach."""


class StoreBusy(StoreUnavailable):
    """Another writer holds what this write needs (SQLite's lock, a PostgreSQL lock or serialization
    conflict): trying again shortly is expected to work."""
