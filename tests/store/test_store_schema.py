"""Opening a database: pragmas, numbered migrations through user_version, default path, append-only ledger."""

from __future__ import annotations

import sqlite3

import aiosqlite
import pytest

from kwx.store import SCHEMA_VERSION, IntegrityError, Store, StoreError
from kwx.store.migrations import MIGRATIONS, migrate


def _pragma(path, name):
    with sqlite3.connect(path) as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


async def test_open_creates_the_directory_and_applies_every_migration(tmp_path):
    path = tmp_path / "deep" / "dir" / "kwx.sqlite3"
    store = await Store.open(path)
    async with store._db.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1
    await store.close()
    assert path.is_file()
    assert _pragma(path, "user_version") == SCHEMA_VERSION == len(MIGRATIONS)
    assert _pragma(path, "journal_mode") == "wal"


async def test_reopening_keeps_data_and_version(tmp_path):
    path = tmp_path / "kwx.sqlite3"
    async with await Store.open(path) as store:
        await store.transfer("g", "a", "b", 5, by="a")
    async with await Store.open(path) as store:  # migrations must not run again (CREATE TABLE would fail)
        assert (await store.balance("g", "b")).balance == 5
    assert _pragma(path, "user_version") == SCHEMA_VERSION


async def test_migrations_apply_only_the_missing_ones_each_in_a_transaction(tmp_path):
    path = tmp_path / "m.sqlite3"
    scripts = ["CREATE TABLE one (x);", "CREATE TABLE two (x);", "CREATE TABLE three (x); SELECT * FROM nowhere;"]
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, scripts[:1]) == 1
        assert await migrate(conn, scripts[:2]) == 2  # only 'two' is new; 'one' is not created again
        with pytest.raises(sqlite3.OperationalError):
            await migrate(conn, scripts)
    # The broken third migration left nothing behind and the version at 2.
    assert _pragma(path, "user_version") == 2
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"one", "two"}


async def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer"):
        await Store.open(path)


async def test_default_path_is_kwx_db_or_data_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KWX_DB", raising=False)
    monkeypatch.delenv("KWX_DATABASE_URL", raising=False)
    async with await Store.open() as store:
        assert store.path == "data/kwx.sqlite3"
    assert (tmp_path / "data" / "kwx.sqlite3").is_file()
    monkeypatch.setenv("KWX_DB", str(tmp_path / "elsewhere" / "x.db"))
    async with await Store.open():
        pass
    assert (tmp_path / "elsewhere" / "x.db").is_file()


@pytest.mark.sqlite_only
async def test_ledger_rows_cannot_be_changed_or_deleted(store):
    await store.transfer("g", "a", "b", 5, by="a")
    for sql in ("UPDATE ledger_entries SET amount = 1", "DELETE FROM ledger_entries"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            await store._db.execute(sql)
    assert (await store.balance("g", "b")).balance == 5
    assert [e.amount for e in await store.entries("g")] == [5]


@pytest.mark.sqlite_only  # INSERT OR REPLACE: the PostgreSQL twin is below
async def test_insert_or_replace_cannot_rewrite_the_ledger_or_the_event_log(store):
    """REPLACE deletes the colliding row without firing delete triggers: the insert itself is refused."""
    first = await store.transfer("g", "b", "a", 2, by="b")
    undo = await store.reverse_entry("g", first, by="b", why="x")
    rewrites = [
        ("INSERT OR REPLACE INTO ledger_entries(id, guild, from_player, to_player, amount, reason, created_at,"
         " period_day) VALUES (?, 'g', 'a', 'b', 1000000, 'pay', '2025-01-01T00:00:00Z', '2025-01-01')", (first,)),
        # a second reversal of the same entry would REPLACE the first one through the unique index
        ("INSERT OR REPLACE INTO ledger_entries(guild, from_player, to_player, amount, reason, created_at,"
         " period_day, reverses_id) VALUES ('g', 'a', 'b', 2, 'pay', '2025-01-01T00:00:00Z', '2025-01-01', ?)",
         (first,)),
        ("INSERT INTO ledger_entries(guild, from_player, to_player, amount, reason, created_at, period_day,"
         " reverses_id) VALUES ('g', 'b', 'a', 2, 'pay', '2025-01-01T00:00:00Z', '2025-01-01', ?)", (undo,)),
    ]
    for sql, params in rewrites:
        with pytest.raises(sqlite3.IntegrityError):
            await store._db.execute(sql, params)
    assert [(e.from_player, e.to_player, e.amount) for e in await store.entries("g")] == [("a", "b", 2),
                                                                                          ("b", "a", 2)]
    assert (await store.balance("g", "a")).balance == 0

    table = await store.create_table("g", rules={}, seed="s", seats=[])
    await store.append_event(table, 1, "deal", {"x": 1})
    for sql in ("DELETE FROM events", "UPDATE events SET payload = '{}'",
                "INSERT OR REPLACE INTO events(table_id, seq, hand_no, kind, payload, created_at)"
                f" VALUES ({table}, 1, 1, 'deal', '{{\"x\": 2}}', '2025-01-01T00:00:00Z')"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            await store._db.execute(sql)
    assert [e.payload for e in await store.load_events(table)] == [{"x": 1}]


@pytest.mark.sqlite_only  # INSERT OR REPLACE: the PostgreSQL twin is below
async def test_a_recorded_hand_is_only_ever_marked_reversed_once(store, table, hand):
    await store.finish_hand(hand(table, 1, [("b", "a", 2, "hu")], winners={"a": 1}))
    for sql in ("UPDATE hands SET winners = '[\"b\"]'", "DELETE FROM hand_seats", "UPDATE hand_seats SET net = 0",
                "DELETE FROM hands", f"INSERT OR REPLACE INTO hands(guild, table_id, hand_no, outcome, winners, fan,"
                f" patterns, summary, created_at) VALUES ('g1', {table}, 1, 'draw', '[]', '{{}}', '{{}}', 'null',"
                " '2025-01-01T00:00:00Z')"):
        with pytest.raises(sqlite3.IntegrityError):
            await store._db.execute(sql)
    hand_id = await store.hand_id(table, 1)
    await store.reverse_hand("g1", hand_id, by="m", why="x")
    with pytest.raises(sqlite3.IntegrityError):
        await store._db.execute("UPDATE hands SET reversed_at = NULL")
    assert [h.reversed for h in await store.history("g1", "a")] == [True]


@pytest.mark.postgres_only
async def test_postgres_ledger_event_log_and_hands_refuse_update_delete_upsert_and_truncate(store, table, hand):
    transfer = await store.transfer("g", "a", "b", 5, by="a")
    undo = await store.reverse_entry("g", transfer, by="a", why="x")
    await store.append_event(table, 1, "draw", {"tile": "5p"})
    await store.finish_hand(hand(table, 1, [("b", "a", 2, "hu")], winners={"a": 1}))
    copy = ("INSERT INTO ledger_entries(guild, from_player, to_player, amount, reason, created_at, period_day,"
            " reverses_id) SELECT guild, to_player, from_player, amount, reason, created_at, period_day, {} FROM"
            " ledger_entries WHERE id = {}")
    attempts = [
        ("UPDATE ledger_entries SET amount = 1", "append-only"), ("DELETE FROM ledger_entries", "append-only"),
        ("TRUNCATE ledger_entries CASCADE", "append-only"),
        ("INSERT INTO ledger_entries SELECT * FROM ledger_entries ON CONFLICT (id) DO UPDATE SET amount = 1",
         "append-only"),
        (copy.format(transfer, transfer), "unique constraint"),  # reversed a second time
        (copy.format(undo, undo), "a reversal cannot itself be reversed"),
        ("UPDATE events SET payload = '{}'", "append-only"), ("DELETE FROM events", "append-only"),
        ("TRUNCATE events", "append-only"),
        ("INSERT INTO events SELECT * FROM events ON CONFLICT (table_id, seq) DO UPDATE SET kind = 'x'",
         "append-only"),
        ("UPDATE hands SET winners = '[\"b\"]'", "never rewritten"), ("DELETE FROM hands", "never deleted"),
        ("TRUNCATE hands CASCADE", "never deleted"), ("UPDATE hand_seats SET net = 0", "never rewritten"),
        ("DELETE FROM hand_seats", "never rewritten"),
        ("UPDATE hands SET reversed_at = 'x', winners = '[]'", "never rewritten"),
    ]
    for sql, refusal in attempts:
        with pytest.raises(IntegrityError, match=refusal):
            async with store._write() as db:
                await db.execute(sql)
    assert (await store.balance("g", "b")).balance == 0
    assert [e.payload for e in await store.load_events(table)] == [{"tile": "5p"}]
    await store.reverse_hand("g1", await store.hand_id(table, 1), by="m", why="x")  # noted once ...
    with pytest.raises(IntegrityError, match="never rewritten"):
        async with store._write() as db:
            await db.execute("UPDATE hands SET reversed_at = NULL")  # ... and for good
    assert [h.reversed for h in await store.history("g1", "a")] == [True]


async def test_postgres_schema_is_numbered_and_a_newer_one_is_refused():
    from kwx.store.postgres import PgStore
    from kwx.store.postgres.migrations import SCHEMA_VERSION as PG_VERSION
    from tests.support.backends import fresh_postgres_url

    database = fresh_postgres_url()  # a schema of its own: this test leaves it unusable
    async with await Store.open(database) as store:
        assert isinstance(store, PgStore) and store.path == database
        assert await store._one("SELECT MAX(version) AS v FROM kwx_schema") == (PG_VERSION,)
        await store.transfer("g", "a", "b", 5, by="a")
        async with store._write() as db:
            await db.execute("INSERT INTO kwx_schema(version) VALUES ($1)", PG_VERSION + 1)
    with pytest.raises(StoreError, match="newer"):
        await Store.open(database)


async def test_tables_that_dealt_a_hand_keep_the_rules_edition_they_played_under(store):
    """The migration that came with rules edition 2 pins every table that had dealt a hand to edition 1, so its
    log replays as it was played; a table still in its lobby plays the current edition."""
    from kwx.engine.rules import RULES_EDITION, RuleSet
    from kwx.store.postgres.migrations import MIGRATIONS as PG_MIGRATIONS

    pin = {"sqlite": MIGRATIONS[3], "postgresql": PG_MIGRATIONS[4]}[store.backend]
    shiyan = RuleSet.preset("shiyan", base=2).to_json()
    dealt = await store.create_table("g", rules=shiyan, seed="s1", seats=[])
    by_name = await store.create_table("g", rules="online-3d", seed="s2", seats=[])
    lobby = await store.create_table("g", rules=shiyan, seed="s3", seats=[])
    for table in (dealt, by_name, lobby):
        await store.append_event(table, 0, "start", {"at": 0})
    for table in (dealt, by_name):
        await store.append_event(table, 1, "hand_start", {"at": 1})
    async with store._write() as db:
        await db.execute(pin)
    rules = {t: RuleSet.from_json((await store.get_table(t)).rules) for t in (dealt, by_name, lobby)}
    assert rules[dealt] == RuleSet.from_json({**shiyan, "edition": 1})
    assert rules[by_name] == RuleSet.from_json({"preset": "online-3d", "edition": 1})
    assert rules[lobby] == RuleSet.preset("shiyan", base=2) and rules[lobby].edition == RULES_EDITION
