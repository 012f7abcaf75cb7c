"""A table's store writes: tried again while they fail in a way that may pass, for a bounded time.

    record = await write_with_retry(lambda: store.append_events_batch(rows), RetryPolicy(), retrying=say_so,
                                 keep_going=lambda: running)

Only failures `kwx.store.is_transient` names (a busy or full database, a lost connection …) are tried again,
`first_wait` seconds after the first, the wait doubling up to `longest_wait`, until `give_up_after` seconds
have passed since the first failure. Then, or at once for any other exception (a bug, a refusal: retrying
cannot help), `StoreFailed` is raised, the last error as its cause; the table service pauses the table. A
failed try changed nothing (each write is one transaction), so trying again writes it once; a try that
committed but was reported failed (a connection lost as it committed) is the caller's to recognise (the
service reads an event-log record back when its seq is taken).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from kwx.store import is_transient

_T = TypeVar("_T")

STORE_RETRY_SECONDS = 120.0  # how long a failing write is tried again before the table pauses (a setting)


@dataclass(frozen=True)
class RetryPolicy:
    first_wait: float = 0.1  # seconds before the second try
    longest_wait: float = 5.0  # the wait doubles up to this
    give_up_after: float = STORE_RETRY_SECONDS  # since the first failure

    def __post_init__(self) -> None:
        if not 0 < self.first_wait <= self.longest_wait or self.give_up_after < 0:
            raise ValueError("a retry policy needs 0 < first_wait ≤ longest_wait and give_up_after ≥ 0")


class StoreFailed(Exception):
    """A write that failed for good: `outage` when it failed in a way that may pass for the whole retry time,
    else at once with an error that retrying cannot help (its cause)."""

    def __init__(self, outage: bool) -> None:
        super().__init__("the store write kept failing" if outage else "the store write failed")
        self.outage = outage


async def write_with_retry(write: Callable[[], Awaitable[_T]], policy: RetryPolicy, *,
                        retrying: Callable[[BaseException], None],
                        keep_going: Callable[[], bool] = lambda: True) -> _T:
    """Run `write` until it works (see the module docstring). `retrying` is told each failure that will be
    tried again; when `keep_going()` turns False (shutting down) the failure is raised as it is."""
    wait = policy.first_wait
    first_failure: float | None = None
    while True:
        try:
            return await write()
        except Exception as exc:
            if not keep_going():
                raise
            if not is_transient(exc):
                raise StoreFailed(outage=False) from exc
            now = time.monotonic()
            first_failure = now if first_failure is None else first_failure
            left = first_failure + policy.give_up_after - now
            if left <= 0:
                raise StoreFailed(outage=True) from exc
            retrying(exc)
            await asyncio.sleep(min(wait, left))
            wait = min(policy.longest_wait, wait * 2)
