"""The one fake clock of the tests and benchmarks: time that moves only when told, and the timers and sleeps
that wait on it (tests import it from tests/support/clock.py).

    clock = FakeClock()                      # unix seconds (1_750_000_000 by default); FakeClock(0.0) for a stopwatch
    service = TableService(store, frontend, clock=clock)    # its timers wait on this clock, not the loop's
    clock.advance(31)                        # moves time; every timer due by then fires, in order
    await service.idle()                     # … and the table has done what they set off (a timeout, a deal)
    store = await Store.open(path, clock=clock.utc)         # the store reads datetimes: clock.when = datetime(...)
    limiter = GlobalRateLimiter(clock=clock, sleep=clock.sleep)
    await clock.run(tasks)                   # let tasks run, jumping to the next wake-up while all of them sleep

`clock()` is now; `clock.call_at(when, fn, *args)` arms a timer that fires when `advance` (or `run`) passes
`when`, never by itself.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

START = 1_750_000_000.0


class FakeTimer:
    """A timer armed on the fake clock (its `cancel` is the loop handle's)."""

    def __init__(self, when: float, callback: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.when = when
        self._callback = callback
        self._args = args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self._callback(*self._args)


class FakeClock:
    """Unix time that moves only when told (`advance`, `run`, or setting `now` / `when`)."""

    def __init__(self, now: float | datetime = START) -> None:
        self.now = now.timestamp() if isinstance(now, datetime) else float(now)
        self.sleeps: list[float] = []  # every `sleep` asked for, in seconds
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._seq = itertools.count()

    def __call__(self) -> float:
        return self.now

    # == datetimes (the store's clock) ===================================================================
    @property
    def when(self) -> datetime:
        """Now as an aware UTC datetime; settable (`clock.when += timedelta(days=3)`)."""
        return datetime.fromtimestamp(self.now, UTC)

    @when.setter
    def when(self, value: datetime) -> None:
        self.now = value.timestamp()

    def utc(self) -> datetime:
        """The store's clock (`Store.open(path, clock=clock.utc)`)."""
        return self.when

    # == timers ==========================================================================================
    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> FakeTimer:
        """Run `callback(*args)` once the clock reaches `when` (at the next `advance` if it already has)."""
        timer = FakeTimer(when, callback, args)
        heapq.heappush(self._timers, (when, next(self._seq), timer))
        return timer

    @property
    def pending(self) -> list[float]:
        """When the timers still armed are due, soonest first."""
        return sorted(when for when, _, timer in self._timers if not timer.cancelled)

    def advance(self, seconds: float = 0.0) -> None:
        """Move time on by `seconds` and fire every timer due by then, in the order they are due (a timer
        fires with the clock at its own time; the clock ends at the target)."""
        target = self.now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self.now = max(self.now, when)
            timer.fire()
        self.now = max(self.now, target)

    # == sleeping on it ==================================================================================
    async def sleep(self, seconds: float) -> None:
        """Wait until the clock has moved `seconds` on (by `advance` or `run`)."""
        self.sleeps.append(seconds)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        def wake() -> None:
            if not future.done():
                future.set_result(None)

        timer = self.call_at(self.now + seconds, wake)
        future.add_done_callback(lambda f: timer.cancel() if f.cancelled() else None)
        await future

    @staticmethod
    async def settle(turns: int = 20) -> None:
        """Let the event loop run what is ready (no time passes)."""
        for _ in range(turns):
            await asyncio.sleep(0)

    async def run(self, tasks: Iterable[asyncio.Future[Any]]) -> None:
        """Let the tasks run, jumping to the next timer whenever all of them wait on this clock."""
        tasks = list(tasks)
        await self.settle()
        while not all(t.done() for t in tasks):
            live = [when for when, _, timer in self._timers if not timer.cancelled]
            assert live, "tasks are stuck without sleeping"
            self.advance(max(0.0, min(live) - self.now))
            await self.settle()
