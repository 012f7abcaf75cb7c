"""Charts drawn in a worker process, so drawing never holds up the tables.

A balance chart takes Pillow most of a second of CPU. Drawn in a thread it holds the GIL the event loop needs
(ten members asking at once stalled every table); drawn here it runs in one worker process, started on first
use at a lower priority, so it takes at most one core and yields to the tables. This module stays light: the
worker imports only it and kwx.present.chart.

    charts = ChartDrawer()                  # one per bot (the ledger cog's), not one per process
    png = await charts.draw(series, x_label="hands")
    charts.close()
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from kwx.present.chart import Series, balance_chart


def _lower_priority() -> None:
    os.nice(10)


class ChartDrawer:
    """Draws charts in its worker process, started on first use; `close()` stops it (the cog's unload)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    async def draw(self, series: list[Series], **options: Any) -> bytes:
        """`balance_chart(series, **options)` as PNG bytes, drawn in the worker process."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_lower_priority)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool,
                                                                    partial(balance_chart, series, **options))
        except BrokenProcessPool:  # the worker died (killed, out of memory): draw here; a new worker next time
            self._pool = None
            return await asyncio.to_thread(balance_chart, series, **options)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
