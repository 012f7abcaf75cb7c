"""Fixtures for the store tests: a real store per test on each backend (a SQLite file; a PostgreSQL schema, see
tests/support/backends.py), a settable clock, hand builders."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import pytest

from kwx.store import LedgerHand, Store
from tests.support import backends
from tests.support.clock import FakeClock
from tests.support.ledger import NAMES, make_hand
from tests.support.players import GUILD


def pytest_generate_tests(metafunc):
    backends.parametrize(metafunc)  # every store test on SQLite and PostgreSQL


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 5, 12, 0, tzinfo=UTC))  # a Wednesday


@pytest.fixture
async def store(database, clock) -> AsyncIterator[Store]:
    s = await Store.open(database, clock=clock.utc)
    yield s
    await s.close()


@pytest.fixture
async def table(store) -> int:
    return await store.create_table(GUILD, rules={"preset": "standard"}, seed="s3cret-seed",
                                    seats=[{"player_id": p, "name": NAMES[p]} for p in "abc"])


@pytest.fixture
def hand() -> Callable[..., LedgerHand]:
    return make_hand
