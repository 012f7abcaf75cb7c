"""Which store failures may pass, for callers that retry (the table service retries a write for a bounded time).

    try:
        await store.append_events_batch(rows)
    except Exception as exc:
        if not is_transient(exc):
            raise  # a bug or a refusal: retrying cannot help
        ...  # wait a little and write the same rows again

Deny by default: only these are transient, the database being there but busy, full or out of reach a while —
- SQLite (`sqlite3.OperationalError`) whose primary result code is SQLITE_BUSY (5, "database is locked"),
  SQLITE_LOCKED (6, "database table is locked"), SQLITE_IOERR (10 and its extended codes, "disk I/O error") or
  SQLITE_FULL (13, "database or disk is full"): read from `sqlite_errorcode`, else from those messages;
- asyncpg: a connection lost or refused (`PostgresConnectionError`, SQLSTATE class 08); a server shutting
  down or not yet up (`AdminShutdownError` 57P01, `CrashShutdownError` 57P02, `CannotConnectNowError` 57P03);
  insufficient resources (`InsufficientResourcesError`, class 53: disk full, out of memory, too many
  connections); a transaction the server rolled back to be tried again (`SerializationError` 40001,
  `DeadlockDetectedError` 40P01); a lock not available (`LockNotAvailableError` 55P03);
- the network under a connection: `ConnectionError` (refused, reset, aborted, broken pipe), `TimeoutError` (a
  connect or command timeout), `socket.gaierror` (the database's host name did not resolve), and an `OSError`
  of ENOSPC, EIO, ENETDOWN, ENETUNREACH or EHOSTUNREACH;
- `StoreUnavailable`, which a backend may raise itself.
Everything else is not: the store's own refusals (`StoreError`: a duplicate seq, an unknown table …), integrity
and programming errors, bad values, and any exception not listed — a bug, which retrying would only hide.
"""

from __future__ import annotations

import errno
import socket
import sqlite3

import asyncpg

from kwx.store.models import StoreError

__all__ = ["StoreUnavailable", "is_transient"]


class StoreUnavailable(StoreError):
    """The store cannot write now but may later (a backend raises it for any failure that may pass)."""


_SQLITE_CODES = {5: "database is locked", 6: "database table is locked", 10: "disk I/O error",
                 13: "database or disk is full"}  # primary result code -> SQLite's message for it
_ASYNCPG = (asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
            asyncpg.CannotConnectNowError, asyncpg.InsufficientResourcesError, asyncpg.SerializationError,
            asyncpg.DeadlockDetectedError, asyncpg.LockNotAvailableError)
_NETWORK = (ConnectionError, TimeoutError, socket.gaierror)
_OS_ERRNOS = {errno.ENOSPC, errno.EIO, errno.ENETDOWN, errno.ENETUNREACH, errno.EHOSTUNREACH}


def is_transient(exc: BaseException) -> bool:
    """True when the same store call may succeed if tried again later."""
    if isinstance(exc, StoreUnavailable | asyncpg.PostgresError):
        return isinstance(exc, (StoreUnavailable, *_ASYNCPG))
    if isinstance(exc, sqlite3.Error):
        return type(exc) is sqlite3.OperationalError and _sqlite_code(exc) in _SQLITE_CODES
    if isinstance(exc, _NETWORK):
        return True
    return type(exc) is OSError and exc.errno in _OS_ERRNOS


def _sqlite_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF  # an extended code (SQLITE_IOERR_WRITE …) carries its primary code in the low byte
    message = str(exc)
    return next((c for c, text in _SQLITE_CODES.items() if message.startswith(text)), None)
