"""The WAL is folded back by the store's Checkpointer, never inside a table's commit (kwx/store/checkpoint.py)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from kwx.store import NewEvent
from kwx.store.checkpoint import RESTART_FRAMES
from tests.support.players import GUILD
from tests.support.polling import eventually

pytestmark = pytest.mark.sqlite_only


async def _write_pages(store, table: int, pages: int, first_seq: int = 1) -> None:
    """About `pages` pages of event log, one page-sized record a commit."""
    filler = "x" * 3500
    for seq in range(first_seq, first_seq + pages):
        await store.append_events_batch([(table, NewEvent(1, "filler", {"x": filler}, seq))])


def _wal_frames(path: Path) -> int:
    """Frames in the WAL now, asked of a connection of its own (a PASSIVE checkpoint that reports)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]


async def _by_hand(checkpointer):
    """The checkpointer, with no pass of its own for an hour: the test runs each one."""
    await checkpointer.stop()
    checkpointer.every = 3600
    checkpointer.start()
    return checkpointer


async def test_commits_leave_the_wal_alone_and_the_checkpointer_folds_it_back(store):
    path = Path(store.path)
    await _by_hand(store._checkpointer)  # nobody checkpoints unless the test says so
    table = await store.create_table(GUILD, rules={}, seed="s", seats=[])
    await _write_pages(store, table, 1500)
    wal = Path(f"{path}-wal").stat().st_size
    assert wal > 1400 * 4096  # SQLite's automatic checkpoint would have started it again at ~1000 pages
    frames, folded = await store._checkpointer.run_once()
    assert frames >= 1500 and folded == frames
    await _write_pages(store, table, 1, first_seq=1501)  # the next commit starts the WAL from its beginning
    assert _wal_frames(path) <= 4


async def test_a_short_tail_is_folded_back_while_the_writer_waits(store, monkeypatch):
    checkpointer = await _by_hand(store._checkpointer)
    passes = []

    def fake_pass() -> tuple[int, int]:  # the first pass beside the writer leaves a tail of 150 frames
        passes.append(store._lock.locked())
        return (RESTART_FRAMES + 500, RESTART_FRAMES + 350) if len(passes) == 1 else (RESTART_FRAMES + 500,) * 2

    monkeypatch.setattr(checkpointer, "_checkpoint", fake_pass)
    assert await checkpointer.run_once() == (RESTART_FRAMES + 500, RESTART_FRAMES + 500)
    assert passes == [False, True]
    passes.clear()
    monkeypatch.setattr(checkpointer, "_checkpoint", lambda: (passes.append(store._lock.locked()), (5000, 100))[1])
    await checkpointer.run_once()  # a long tail (a backup's snapshot holds it): the writer is not made to wait
    assert passes == [False]


async def test_the_checkpointer_runs_by_itself_once_something_was_written(store):
    checkpointer = store._checkpointer
    await checkpointer.stop()
    checkpointer.every = 0.01
    checkpointer.start()
    await asyncio.sleep(0.1)
    assert checkpointer.done == 0  # nothing written: nothing to fold back
    await store.create_table(GUILD, rules={}, seed="s", seats=[])
    await eventually(lambda: checkpointer.done, timeout=3.0)
    assert checkpointer.done == 1


async def test_stopping_waits_for_a_pass_still_running_in_its_thread(store):
    # A cancelled pass goes on in its worker thread; closing its connection under it would crash the process.
    checkpointer = await _by_hand(store._checkpointer)
    events: list[str] = []
    started = threading.Event()

    class SlowConnection:
        def execute(self, sql: str) -> SimpleNamespace:
            events.append("pass starts")
            started.set()
            time.sleep(0.2)
            events.append("pass ends")
            return SimpleNamespace(fetchone=lambda: (0, 10, 10))

        def close(self) -> None:
            events.append("closed")

    checkpointer._conn = SlowConnection()
    running = asyncio.ensure_future(checkpointer.run_once())
    assert await asyncio.to_thread(started.wait, 10)
    running.cancel()  # as stop() cancels a pass of the schedule
    await checkpointer.stop()
    assert events == ["pass starts", "pass ends", "closed"]
