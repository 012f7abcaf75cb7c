"""Fixtures for the table service tests: a real store per test (a SQLite file, or a PostgreSQL schema: see
tests/support/backends.py), a recording front end, a fake clock, services that are shut down after the test, and
scripted walls."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from kwx.store import Store
from kwx.table import TableService
from tests.support import backends
from tests.support.clock import FakeClock
from tests.support.frontends import RecordingFrontEnd
from tests.support.hands import build_wall


def pytest_generate_tests(metafunc):
    # SQLite for every test; PostgreSQL too for the modules that set BACKENDS (recovery, journal, AI hands
    # into the ledger): running all of them twice would double the suite's time for little more coverage.
    backends.parametrize(metafunc, default=("sqlite",))


@pytest.fixture
def db_path(database):
    """The test's database: a SQLite path, or a PostgreSQL URL (reopen either with Store.open(db_path))."""
    return database


@pytest.fixture
async def store(db_path) -> AsyncIterator[Store]:
    s = await Store.open(db_path)
    yield s
    await s.close()


@pytest.fixture
def frontend() -> RecordingFrontEnd:
    return RecordingFrontEnd()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def make_service(store, frontend) -> AsyncIterator[Callable[..., TableService]]:
    """make_service(**kwargs) -> a TableService on the test's store and front end (shut down afterwards)."""
    made: list[TableService] = []

    def make(**kwargs) -> TableService:
        kwargs.setdefault("ai_delay", 0)
        kwargs.setdefault("claim_pause", 0)  # tests of the pause after each discard set it
        kwargs.setdefault("between_hands", 60)
        svc = TableService(kwargs.pop("store", store), kwargs.pop("frontend", frontend), **kwargs)
        made.append(svc)
        return svc

    yield make
    for svc in made:
        await svc.shutdown()


@pytest.fixture
def script(monkeypatch):
    """script(dealer_hand, second, third, draws="", back="", dealer=0): every hand the service deals uses this
    wall (in seat order from the dealer, as tests/support/hands.build_wall) and this first dealer."""

    def use(dealer_hand: str, second: str, third: str, draws: str = "", back: str = "", dealer: int = 0) -> None:
        wall = build_wall(dealer_hand, second, third, draws, back)
        monkeypatch.setattr("kwx.table.record.wall_from_seed", lambda seed: list(wall))
        monkeypatch.setattr("kwx.table.succession.first_dealer", lambda seed, players=3: dealer)

    return use
