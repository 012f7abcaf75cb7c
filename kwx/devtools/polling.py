"""The one polling helper of the tests and benchmarks: wait until something holds, and fail saying what never
came instead of hanging (tests import it from tests/support/polling.py).

    await eventually(lambda: checkpointer.done)                       # every 10 ms, for 10 s at most
    view = await eventually(lambda: page.js("document.body.dataset.frame"))   # an async check is awaited
    await eventually(lambda: kit.dm_messages(kit.alice), between=kit.settle, what="alice's DM")

`between` is what runs between two looks (default: sleep `interval`); with a fake clock it may move the clock.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


async def eventually(condition: Callable[[], T | Awaitable[T]], *, timeout: float = 10.0, interval: float = 0.01,
                     between: Callable[[], Awaitable[Any]] | None = None, what: str = "the condition") -> T:
    """Look at `condition()` until it is truthy and return that value; fail after `timeout` seconds (real time)."""
    end = time.monotonic() + timeout
    while True:
        value: Any = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return cast(T, value)
        if time.monotonic() >= end:
            raise AssertionError(f"{what} never came true in {timeout:g} s")
        await (between() if between is not None else asyncio.sleep(interval))
