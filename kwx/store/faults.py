"""Which store failures may pass, for callers that retry (the table service retries its writes with backoff).

    try:
        await store.append_events_batch(rows)
    except Exception as exc:
        if not is_transient(exc):
            raise
        ...  # wait a little and write the same rows again

Transient: a locked or busy database, a full disk, an I/O error, a lost connection — anything the backend
reports as operational — and `StoreUnavailable`, which a backend may raise itself. Not transient (retrying
cannot help, or the record is wrong): the store's own refusals (`StoreError`: duplicate seq, unknown table,
…), integrity and programming errors, and bad values. Backends without a class of their own are classified
by the SQLSTATE they carry (`exc.sqlstate`, as asyncpg's errors do): classes 22 (data), 23 (integrity) and
42 (syntax, access) are permanent; every other database error is taken as transient.
"""

from __future__ import annotations

import sqlite3

from kwx.store.models import StoreError

__all__ = ["StoreUnavailable", "is_transient"]


class StoreUnavailable(StoreError):
    """The store cannot write now but may later (a backend raises it for any failure that may pass)."""


_PERMANENT = (ValueError, TypeError, LookupError, AttributeError, AssertionError, NotImplementedError,
              sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.NotSupportedError)
_PERMANENT_SQLSTATE = ("22", "23", "42")


def is_transient(exc: BaseException) -> bool:
    """True when the same store call may succeed if tried again later."""
    if isinstance(exc, StoreUnavailable):
        return True
    if not isinstance(exc, Exception) or isinstance(exc, (StoreError, *_PERMANENT)):
        return False
    sqlstate = getattr(exc, "sqlstate", None)
    return not (isinstance(sqlstate, str) and sqlstate[:2] in _PERMANENT_SQLSTATE)
