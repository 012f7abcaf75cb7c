"""Small steps shared by the table tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

import pytest

from kwx.table import PlayerRef, TableError, TableService
from tests.support.players import GUILD
from tests.table.fakes import RecordingFrontEnd


async def refused(code: str, call: Awaitable[Any]) -> TableError:
    """Await `call`, which must be refused with `code`: a call that is accepted fails the test."""
    with pytest.raises(TableError) as info:
        await call
    assert info.value.code == code, info.value
    return info.value


async def table_with(svc: TableService, host: PlayerRef, *, ais: int = 2, level: str = "standard",
                     channel: str | None = "c1", **kwargs) -> int:
    """A table hosted (and seated) by `host` with `ais` AI players added; not started."""
    table = await svc.open_table(GUILD, channel, host, **kwargs)
    for _ in range(ais):
        await svc.add_ai(table, level, by=host.player_id)
    return table


async def wait_prompt(fe: RecordingFrontEnd, svc: TableService, table: int, player_id: str, after: int = 0,
                      timeout: float = 10.0):
    """Wait until the player has choices at a step > `after`; return their private view."""

    def ready() -> bool:
        try:
            view = svc.private_view_as_shown(table, player_id)
        except Exception:
            return False
        return bool(view.choices) and view.step > after

    await fe.wait_for(ready, timeout)
    return svc.private_view_as_shown(table, player_id)


async def finished_hands(fe: RecordingFrontEnd, table: int, n: int, timeout: float = 20.0,
                         resume: TableService | None = None) -> None:
    """Wait for `n` finished hands. With `resume`, a table paused because nobody played (its humans are in
    托管) is resumed by an onlooker (force: nobody comes back from 托管) each time, so the AI plays on."""
    if resume is None:
        await fe.wait_for(lambda: len(fe.results(table)) >= n, timeout)
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(fe.results(table)) < n:
        if resume.public_view_as_shown(table).paused == "nobody":
            await resume.resume(table, "onlooker", force=True)
        left = end - loop.time()
        if left <= 0:
            raise TimeoutError(f"table {table}: {len(fe.results(table))} of {n} hands")
        with contextlib.suppress(TimeoutError):
            await fe.wait_for(lambda: len(fe.results(table)) >= n or resume.public_view_as_shown(table).paused is not None,
                              min(left, 1.0))
