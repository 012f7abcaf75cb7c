"""Fixtures for the store tests: a real SQLite file per test, a settable clock, hand builders."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import pytest
from store_helpers import GUILD, NAMES, FakeClock, make_hand

from kwx.store import HandRecord, Store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 5, 12, 0, tzinfo=UTC))  # a Wednesday


@pytest.fixture
async def store(tmp_path, clock) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "kwx.sqlite3", clock=clock)
    yield s
    await s.close()


@pytest.fixture
async def table(store) -> int:
    return await store.create_table(GUILD, rules={"preset": "standard"}, seed="s3cret-seed",
                                    seats=[{"player_id": p, "name": NAMES[p]} for p in "abc"])


@pytest.fixture
def hand() -> Callable[..., HandRecord]:
    return make_hand
