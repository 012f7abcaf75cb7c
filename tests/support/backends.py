"""The two store backends under test: SQLite (a file per test) and PostgreSQL (a schema per test).

PostgreSQL is `$KWX_TEST_DATABASE_URL`, else postgresql://127.0.0.1:5432/test (the development machine's
server, trust auth). Without a reachable server the PostgreSQL half of the tests is skipped with a one-line
reason; with `KWX_TEST_REQUIRE_POSTGRES=1` (CI) it fails instead. Each test run has schemas of its own,
`kwx_t_<run>_<n>`, so parallel runs never collide; every test starts on an empty one, and the run's schemas are
dropped at the end of the session.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from urllib.parse import urlsplit, urlunsplit

import pytest

BACKENDS = ("sqlite", "postgresql")
DEFAULT_URL = "postgresql://127.0.0.1:5432/test"
RUN = f"kwx_t_{os.getpid()}_{secrets.token_hex(3)}"
_numbers = itertools.count(1)
_used = False


def parametrize(metafunc, default: tuple[str, ...] = BACKENDS) -> None:
    """Run a test that needs `backend` once per backend: `default`, or the module's BACKENDS, or one backend
    for a test marked `sqlite_only` / `postgres_only`."""
    if "backend" not in metafunc.fixturenames:
        return
    wanted = getattr(metafunc.module, "BACKENDS", default)
    if metafunc.definition.get_closest_marker("sqlite_only"):
        wanted = ("sqlite",)
    elif metafunc.definition.get_closest_marker("postgres_only"):
        wanted = ("postgresql",)
    metafunc.parametrize("backend", wanted)


def base_url() -> str:
    return os.environ.get("KWX_TEST_DATABASE_URL") or DEFAULT_URL


def required() -> bool:
    return os.environ.get("KWX_TEST_REQUIRE_POSTGRES", "").strip().lower() in ("1", "true", "yes")


def _in_thread(coro_fn):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(coro_fn())).result()


@cache
def unreachable() -> str | None:
    """Why PostgreSQL cannot be used (one line), or None when it can."""
    try:
        import asyncpg
    except ImportError:
        return "asyncpg is not installed"

    async def probe() -> None:
        conn = await asyncpg.connect(base_url(), timeout=3)
        await conn.close()

    try:
        _in_thread(probe)
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable", said in one line
        host = urlsplit(base_url()).netloc or base_url()
        return f"PostgreSQL at {host} is not reachable ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})"
    return None


def _schema_url(schema: str) -> str:
    parts = urlsplit(base_url())
    query = "&".join(q for q in parts.query.split("&") if q and not q.startswith("search_path="))
    return urlunsplit(parts._replace(query="&".join(filter(None, [query, f"search_path={schema}"]))))


_RESET = """
SET session_replication_role = replica;
DELETE FROM message_refs; DELETE FROM guild_settings; DELETE FROM ledger_entries; DELETE FROM hand_seats;
DELETE FROM hands; DELETE FROM events; DELETE FROM tables; DELETE FROM players; DELETE FROM balances;
DELETE FROM daily_net; DELETE FROM guilds; DELETE FROM kwx_leases; DELETE FROM kwx_rate_buckets;
SELECT setval(s, 1, false) FROM unnest(ARRAY['tables_id_seq', 'hands_id_seq', 'ledger_entries_id_seq']) s;
"""
_fresh_only = False


async def postgres_url() -> str:
    """A URL naming an empty, migrated schema of this run (skip or fail, see the module docstring).

    Migrating a schema costs ~0.2 s, so the run's shared schema `kwx_t_<run>_0` is emptied instead (the
    append-only triggers are bypassed for that with session_replication_role, which needs a superuser, as on
    the development and CI machines); otherwise each test gets a schema of its own.
    """
    global _fresh_only
    _need_server()
    import asyncpg

    from kwx.store.postgres import PgStore

    if not _fresh_only:
        url = _schema_url(f"{RUN}_0")
        conn = await asyncpg.connect(url)
        try:
            if await conn.fetchval("SELECT to_regclass('ledger_entries') IS NULL"):
                await (await PgStore.connect(url, max_size=1)).close()  # create and migrate it once
            await conn.execute(_RESET)
            return url
        except asyncpg.InsufficientPrivilegeError:
            _fresh_only = True
        finally:
            await conn.close()
    return fresh_postgres_url()


def fresh_postgres_url() -> str:
    """A URL naming a new schema of this run (the store creates and migrates it at open)."""
    _need_server()
    return _schema_url(f"{RUN}_{next(_numbers)}")


def _need_server() -> None:
    global _used
    reason = unreachable()
    if reason is not None:
        if required():
            pytest.fail(f"{reason}; KWX_TEST_REQUIRE_POSTGRES is set, so the PostgreSQL half may not be skipped")
        pytest.skip(reason)
    _used = True


def drop_schemas() -> None:
    """Drop this run's schemas (called once at the end of the session)."""
    if not _used:
        return
    import asyncpg

    async def drop() -> None:
        conn = await asyncpg.connect(base_url(), timeout=5)
        try:
            names = await conn.fetch("SELECT nspname FROM pg_namespace WHERE nspname LIKE $1", f"{RUN}\\_%")
            for (name,) in names:
                await conn.execute(f'DROP SCHEMA "{name}" CASCADE')
        finally:
            await conn.close()

    _in_thread(drop)
