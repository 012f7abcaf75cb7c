"""Which store failures may pass, for callers that retry (the table service retries a write for a bounded time).

    try:
        await store.append_events_batch(rows)
    except Exception as exc:
        if not is_transient(exc):
            raise  # a bug or a refusal: retrying cannot help
        ...  # wait a little and write the same rows again

Deny by default. The store raises its own errors (kwx.store.errors), whichever backend serves it: each backend
turns its driver's errors into them (kwx.store.sqlite.conn, kwx.store.postgres.conn). Transient:
- `StoreUnavailable`, and its kind `StoreBusy`: the database being there but busy (SQLite's lock; a
  PostgreSQL lock, deadlock or serialization conflict), full (disk, memory, connections), shutting down or
  out of reach a while;
- the network under a connection, where it reaches a caller before a backend could name it: `ConnectionError`
  (refused, reset, aborted, broken pipe), `TimeoutError`, `socket.gaierror` (the database's host name did not
  resolve), and an `OSError` of ENOSPC, EIO, ENETDOWN, ENETUNREACH or EHOSTUNREACH.
Everything else is not: the store's refusals (`StoreError`: a duplicate seq, an unknown table, an
`IntegrityError` …), programming errors, bad values, and any exception not listed — a bug, which retrying
would only hide.
"""

from __future__ import annotations

import errno
import socket

from kwx.store.errors import StoreBusy, StoreError, StoreUnavailable

__all__ = ["StoreBusy", "StoreUnavailable", "is_transient"]

_NETWORK = (ConnectionError, TimeoutError, socket.gaierror)
_OS_ERRNOS = {errno.ENOSPC, errno.EIO, errno.ENETDOWN, errno.ENETUNREACH, errno.EHOSTUNREACH}


def is_transient(exc: BaseException) -> bool:
    """True when the same store call may succeed if tried again later."""
    if isinstance(exc, StoreError):
        return isinstance(exc, StoreUnavailable)
    if isinstance(exc, _NETWORK):
        return True
    return type(exc) is OSError and exc.errno in _OS_ERRNOS
