"""Shared test settings. On CI (CI=true) hypothesis runs derandomized, so a run is repeatable; locally it
explores new examples each run."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


# --------------------------------------------------------------------------- store backends (tests/support/backends.py)
# The store and table-service tests build their store from the `database` fixture, parametrized by `backend`
# in their conftest (backends.parametrize): every store test runs on both backends, the table-service tests
# on SQLite, and on PostgreSQL too in the modules that say BACKENDS = backends.BACKENDS.

import pytest  # noqa: E402

from tests.support import backends  # noqa: E402


@pytest.fixture
async def database(backend, tmp_path):
    """Where the test's store lives: a fresh SQLite file, or an empty PostgreSQL schema (as a URL)."""
    if backend == "sqlite":
        return tmp_path / "kwx.sqlite3"
    return await backends.postgres_url()


def pytest_sessionfinish(session, exitstatus):
    backends.drop_schemas()


# --------------------------------------------------------------------------- Discord's description of its API
# Every request body the bot sends in this suite, to the in-process fake (cogs/fake_discord/) or to the loopback
# Discord a real bot process talks to (tests/e2e), is checked against Discord's OpenAPI description
# (kwx.devtools.loopback): a test during which any body was off spec fails, unless it asks for off_spec_expected.

@pytest.fixture
def off_spec_expected():
    """This test sends bodies Discord would refuse, on purpose: the refusal is what it checks."""
    return True


@pytest.fixture(autouse=True)
def no_off_spec_request(request):
    from kwx.devtools.loopback.rest import OFF_SPEC_SEEN

    before = len(OFF_SPEC_SEEN)
    yield
    sent = OFF_SPEC_SEEN[before:]
    if sent and "off_spec_expected" not in request.fixturenames:
        pytest.fail(f"{len(sent)} request(s) Discord would refuse (off spec): {sent[:5]}", pytrace=False)
