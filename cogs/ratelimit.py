"""A bot-wide limit on REST calls, so the bot stays under Discord's global rate limit (50 requests/s per bot).

discord.py keeps each route inside its own bucket, but for the global limit it only waits after Discord has
answered 429. With a hundred busy tables the bot would ask for about twice the limit, so every call that counts
toward it first takes a token here (cogs.operations does that).

A token bucket: tokens refill continuously at `rate` per second up to `burst`. Urgent calls (a player's prompt,
a result post) may take the last token; other calls (board edits, fetches) leave `reserve` tokens behind, so a
burst of board edits never makes a player wait for the DM that asks them to act.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

# Refill arithmetic in floats: a sleep of exactly the computed time may come back a rounding error short.
_EPSILON = 1e-9


DISCORD_GLOBAL_LIMIT = 50  # requests per second per bot token (interaction callbacks exempt)
# Calls that took their tokens apart may reach Discord closer together than they took them: a loaded event loop
# renders a few boards, then sends them at once. The budget leaves this many requests a second for that.
SEND_MARGIN = 5


def discord_budget(rate: float, limit: int = DISCORD_GLOBAL_LIMIT) -> tuple[int, int]:
    """The (burst, reserve) that keep `rate` calls/s under `limit` in any one second with SEND_MARGIN to spare:
    a full bucket (`limit - SEND_MARGIN - rate` tokens) plus a second's refill (`rate`) is `limit - SEND_MARGIN`;
    non-urgent calls leave two fifths of the burst to urgent ones. A burst as large as the rate would allow
    nearly twice the limit in one second, which is what Discord answers with global 429s. Every budget of the
    bot token uses this rule (one process's GlobalRateLimiter, a cluster's shared bucket)."""
    ceiling = limit - SEND_MARGIN
    if not 0 < rate < ceiling - 1:
        raise ValueError(f"rate must be in (0, {ceiling - 1}), not {rate}")
    burst = int(ceiling - rate)
    return burst, burst * 2 // 5


class RateLimiter(Protocol):
    """What cogs.operations waits on before a REST call: one process's GlobalRateLimiter, or a cluster's
    kwx.cluster.SharedRateLimiter."""

    @property
    def tokens(self) -> float | None:
        """Tokens left in the budget as this process sees it (metrics)."""

    async def acquire(self, urgent: bool) -> None:
        """Wait for one token; `urgent` calls may take the last ones."""


class GlobalRateLimiter:
    """Token bucket shared by every table. `waited` counts acquires that had to wait, `acquired` all of them.

    `sleep` is for tests that drive a fake `clock`; it must let at least that much clock time pass."""

    @classmethod
    def for_discord(cls, rate: float = 40.0, *, limit: int = DISCORD_GLOBAL_LIMIT, **options: Any) -> GlobalRateLimiter:
        """A bucket that never lets `limit` calls be exceeded in any one second (see `discord_budget`)."""
        burst, reserve = discord_budget(rate, limit)
        return cls(rate, burst=burst, reserve=reserve, **options)

    def __init__(self, rate: float = 45.0, burst: int = 45, reserve: int = 10,
                 clock: Callable[[], float] = time.monotonic, *,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if rate <= 0:
            raise ValueError(f"rate must be positive, not {rate}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, not {burst}")
        if not 0 <= reserve < burst:
            raise ValueError(f"reserve must be in [0, burst), not {reserve} with burst {burst}")
        self.rate = float(rate)
        self.burst = burst
        self.reserve = reserve
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._stamp = clock()
        # One waiter per class sleeps at a time, the rest queue FIFO behind it (no thundering herd).
        self._lines = {True: asyncio.Lock(), False: asyncio.Lock()}
        self._waiting = {True: 0, False: 0}
        self.waited = 0
        self.acquired = 0

    @property
    def tokens(self) -> float:
        """Tokens available now (for logs and tests)."""
        self._refill()
        return self._tokens

    def _refill(self) -> None:
        now = self._clock()
        if now > self._stamp:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now

    def _needed(self, urgent: bool) -> float:
        # Non-urgent callers need more than `reserve` tokens, i.e. at least reserve + 1 (they take one).
        return 1.0 if urgent else self.reserve + 1.0

    async def acquire(self, urgent: bool) -> None:
        """Take one token; wait (sleeping, never spinning) until the caller's class may take one."""
        needed = self._needed(urgent)
        self._refill()
        if self._waiting[urgent] == 0 and self._tokens >= needed - _EPSILON:
            self._take()
            return
        self.waited += 1
        self._waiting[urgent] += 1
        try:
            async with self._lines[urgent]:
                while True:
                    self._refill()
                    if self._tokens >= needed - _EPSILON:
                        break
                    await self._sleep((needed - self._tokens) / self.rate)
                self._take()
        finally:
            self._waiting[urgent] -= 1

    def _take(self) -> None:
        self._tokens -= 1.0
        self.acquired += 1
