"""Independent simulation runs spread over processes (the machine's cores), or in this process for tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

R = TypeVar("R")


def run_all(fn: Callable[..., R], calls: Sequence[tuple], jobs: int) -> list[R]:
    """`fn(*args)` for each argument tuple of `calls`, in order; in `jobs` processes when jobs > 1."""
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(fn, *zip(*calls)))
    return [fn(*args) for args in calls]
