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
from tests.support.tables import ScriptedDeal


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
def script() -> ScriptedDeal:
    """script(dealer_hand, second, third, draws="", back="", dealer=0): every hand the test's services deal
    uses this wall (in seat order from the dealer, as tests/support/hands.build_wall) and this first dealer
    (`script.deal` is their deal: make_service passes it; a service built by hand takes deal=script.deal)."""
    return ScriptedDeal()


@pytest.fixture
async def make_service(store, frontend, script) -> AsyncIterator[Callable[..., TableService]]:
    """make_service(**kwargs) -> a TableService on the test's store and front end, dealing as `script` says
    (shut down afterwards)."""
    made: list[TableService] = []

    def make(**kwargs) -> TableService:
        kwargs.setdefault("ai_delay", 0)
        kwargs.setdefault("claim_pause", 0)  # tests of the pause after each discard set it
        kwargs.setdefault("between_hands", 60)
        kwargs.setdefault("deal", script.deal)
        svc = TableService(kwargs.pop("store", store), kwargs.pop("frontend", frontend), **kwargs)
        made.append(svc)
        return svc

    yield make
    for svc in made:
        await svc.shutdown()
