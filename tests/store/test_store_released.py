"""Databases made by an earlier kwx keep working: today's migrations build, step by step and on both backends,
exactly the schema the released scripts built (tests/store/released_migrations.py), so a database at any
released version upgrades to the same schema as a new one."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from pathlib import Path

import asyncpg
import pytest

from kwx.store.schema import scripts
from tests.support import backends, released_migrations

BACKENDS = ("postgresql",)


def _sqlite_catalog(scripts_: list[str], path: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(path) as conn:
        for script in scripts_:
            conn.executescript(script)
        rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    return [(kind, name, table, " ".join((sql or "").split())) for kind, name, table, sql in rows]


def test_sqlite_migrations_build_the_released_schema_at_every_version(tmp_path):
    today = scripts("sqlite")
    assert len(today) >= len(released_migrations.SQLITE)
    for version in range(1, len(released_migrations.SQLITE) + 1):
        released = _sqlite_catalog(released_migrations.SQLITE[:version], tmp_path / f"released-{version}.db")
        rebuilt = _sqlite_catalog(today[:version], tmp_path / f"today-{version}.db")
        assert rebuilt == released, f"SQLite schema v{version}"


async def _postgres_dump(scripts_: list[str]) -> str:
    url = backends.fresh_postgres_url()
    schema = url.rsplit("search_path=", 1)[1]
    conn = await asyncpg.connect(backends.base_url())
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"; SET search_path = "{schema}"')
        for script in scripts_:
            await conn.execute(script)
    finally:
        await conn.close()
    dump = await asyncio.to_thread(subprocess.run, ["pg_dump", "--schema-only", "--no-owner", "-n", schema,
                                                    backends.base_url()], capture_output=True, text=True, check=True)
    lines = [line for line in dump.stdout.replace(schema, "kwx").splitlines()
             if line and not line.startswith(("--", "\\restrict", "\\unrestrict"))]  # comments, a random key
    return "\n".join(lines)


@pytest.mark.usefixtures("database")  # PostgreSQL is reachable (or the test is skipped)
async def test_postgres_migrations_build_the_released_schema_at_every_version():
    today = scripts("postgresql")
    assert len(today) >= len(released_migrations.POSTGRESQL)
    for version in range(1, len(released_migrations.POSTGRESQL) + 1):
        released = await _postgres_dump(released_migrations.POSTGRESQL[:version])
        rebuilt = await _postgres_dump(today[:version])
        assert rebuilt == released, f"PostgreSQL schema v{version}"
