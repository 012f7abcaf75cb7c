"""The PostgreSQL store's migrations, numbered in `kwx_schema(version)`.

The scripts are the one migration history of both backends (kwx.store.schema: the tables described once, and
what each dialect adds), rendered for PostgreSQL: timestamps, days and JSON stay TEXT in the same form as on
SQLite, money and ids are BIGINT. `MIGRATIONS[i - 1]` brings the schema from version i-1 to i in one
transaction. PostgreSQL counts one version more than SQLite from version 4 (the cluster's tables).
"""

from __future__ import annotations

from kwx.store.schema import scripts

MIGRATIONS: list[str] = scripts("postgresql")
SCHEMA_VERSION = len(MIGRATIONS)
