"""The table clock: what time it is and the timers that wait on that same time.

Every deadline, the next hand, the idle close, an AI seat's move and the calls the board's hold after a discard
holds back are unix times of the service's clock, and wait on that clock's timers:

    clock()                              # now, in unix seconds
    clock.call_at(when, callback, *args) # callback(*args) once the clock reaches `when`; .cancel() stops it

In play it is `LoopClock` (time.time, its timers the event loop's); a test gives the service a fake clock
(kwx.devtools.clock.FakeClock) whose timers fire when the test moves it, so nothing waits for real time. A bare
function of now (`clock=lambda: ...`) is wrapped in a `LoopClock`: its timers are the loop's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


class Timer(Protocol):
    """An armed timer (asyncio's TimerHandle is one)."""

    def cancel(self) -> None: ...


@runtime_checkable
class Clock(Protocol):
    """Unix time and timers on it."""

    def __call__(self) -> float: ...

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer: ...


class LoopClock:
    """`now()` (the wall clock by default), its timers on the running event loop."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now

    def __call__(self) -> float:
        return self._now()

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, when - self._now()), callback, *args)


def table_clock(clock: Callable[[], float] | Clock) -> Clock:
    """The clock itself when it has timers, else a `LoopClock` reading it."""
    return clock if isinstance(clock, Clock) else LoopClock(clock)


def timer_at(clock: Clock, when: float, callback: Callable[..., object], *args: Any) -> Timer:
    """Run `callback(*args)` when `clock` reaches `when`; one due already runs soon on the loop, whatever the
    clock (a fake one included: nothing due waits for the clock to move again)."""
    if when <= clock():
        return asyncio.get_running_loop().call_soon(callback, *args)
    return clock.call_at(when, callback, *args)
