"""The two backends' migrations build the same schema: the same tables, with the same columns in the same
order, and the same named indexes (the cluster's lease and rate tables are PostgreSQL's alone)."""

from __future__ import annotations

from kwx.store import Store

BACKENDS = ("postgresql",)  # the test compares with a SQLite file of its own
CLUSTER_ONLY = {"kwx_schema", "kwx_leases", "kwx_rate_buckets"}


async def _sqlite_schema(store: Store) -> tuple[dict[str, list[str]], set[str]]:
    tables = [r[0] for r in await store._all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    columns = {t: [r[1] for r in await store._all(f"PRAGMA table_info({t})")] for t in tables}
    indexes = {r[0] for r in await store._all("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    return columns, indexes


async def _postgres_schema(store: Store) -> tuple[dict[str, list[str]], set[str]]:
    rows = await store._all("SELECT table_name, column_name FROM information_schema.columns"
                            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position")
    columns: dict[str, list[str]] = {}
    for table, column in rows:
        if table not in CLUSTER_ONLY:
            columns.setdefault(table, []).append(column)
    indexes = {r[0] for r in await store._all(
        "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
        " JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = current_schema() AND NOT x.indisprimary"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)")
        if not r[0].startswith(tuple(CLUSTER_ONLY))}
    return columns, indexes


async def test_both_backends_build_the_same_tables_columns_and_indexes(database, tmp_path):
    async with await Store.open(tmp_path / "kwx.sqlite3") as lite, await Store.open(database) as pg:
        sqlite_columns, sqlite_indexes = await _sqlite_schema(lite)
        pg_columns, pg_indexes = await _postgres_schema(pg)
    assert pg_columns == sqlite_columns
    assert pg_indexes == sqlite_indexes
