"""The SQLite store's migrations, applied at open through `PRAGMA user_version`.

The scripts are the one migration history of both backends (kwx.store.schema: the tables described once, and
what each dialect adds), rendered for SQLite. `MIGRATIONS[i - 1]` brings the schema from version i-1 to i
inside one transaction, so a crash leaves the database at a whole version.
"""

from __future__ import annotations

import sqlite3

import aiosqlite

from kwx.store.errors import StoreError
from kwx.store.schema import scripts

MIGRATIONS: list[str] = scripts("sqlite")  # the one history (kwx.store.schema), as SQLite applies it
SCHEMA_VERSION = len(MIGRATIONS)


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    assert row is not None  # a PRAGMA read always returns its row
    return int(row[0])


async def migrate(conn: aiosqlite.Connection, migrations: list[str] | None = None) -> int:
    """Apply the missing migrations, each in its own transaction; return the resulting version.

    `conn` must be in autocommit mode (isolation_level=None) so the explicit BEGIN/COMMIT here are the only ones.
    """
    scripts = MIGRATIONS if migrations is None else migrations
    version = await schema_version(conn)
    if version > len(scripts):
        raise StoreError(f"database schema version {version} is newer than this program ({len(scripts)})")
    for number in range(version + 1, len(scripts) + 1):
        script = f"BEGIN IMMEDIATE;\n{scripts[number - 1]}\nPRAGMA user_version = {number};\nCOMMIT;"
        try:
            await conn.executescript(script)
        except sqlite3.Error:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
    return len(scripts)
