"""The typed interface both backends serve: SQL read as written, and the store's own errors."""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest

from kwx.store import (
    Constraint,
    DuplicateEvent,
    IntegrityError,
    NotFound,
    StoreBusy,
    StoreError,
    is_transient,
)

GUILD = "g1"


async def test_numbered_parameters_may_repeat_and_come_in_any_order(store):
    await store.set_guild_setting(GUILD, "lang", "en")
    await store.set_guild_setting("g2", "lang", "zh-CN")
    row = await store._one("SELECT guild, value FROM guild_settings WHERE key = $2 AND guild = $1"
                           " AND (guild = $1 OR value = $1)", GUILD, "lang")
    assert tuple(row) == (GUILD, "en")
    table = await store.create_table(GUILD, rules={}, seed="s", seats=[])
    assert await store.create_table(GUILD, rules={}, seed="s", seats=[]) == table + 1  # RETURNING id


@pytest.mark.parametrize(("sql", "constraint", "refusal"), [
    ("INSERT INTO message_refs(table_id, ref, channel_id, message_id, updated_at)"
     " VALUES ($1, 'board', 'c', 'm', ''), ($1, 'board', 'c', 'm', '')", Constraint.UNIQUE, None),
    ("INSERT INTO events(table_id, seq, hand_no, kind, payload, created_at) VALUES ($1 + 1000, 1, 1, 'x', '{}', '')",
     Constraint.FOREIGN_KEY, None),
    ("UPDATE tables SET status = 'lost' WHERE id = $1", Constraint.CHECK, None),
    ("UPDATE events SET payload = '{}' WHERE table_id = $1", Constraint.APPEND_ONLY, "append-only"),
    ("DELETE FROM events WHERE table_id = $1", Constraint.APPEND_ONLY, "append-only"),
])
async def test_a_refused_write_is_the_stores_integrity_error_on_either_backend(store, table, sql, constraint,
                                                                               refusal):
    await store.append_event(table, 1, "x", {})
    with pytest.raises(IntegrityError, match=refusal) as refused:
        async with store._write() as db:
            await db.execute(sql, table)
    assert refused.value.constraint is constraint
    assert isinstance(refused.value.__cause__, sqlite3.Error | asyncpg.PostgresError)  # the driver's, kept
    assert [e.seq for e in await store.load_events(table)] == [1]


async def test_the_event_log_tells_a_taken_seq_from_an_unknown_table(store, table):
    await store.append_event(table, 1, "x", {}, seq=1)
    with pytest.raises(DuplicateEvent):
        await store.append_event(table, 1, "x", {}, seq=1)
    with pytest.raises(NotFound):
        await store.append_event(table + 1000, 1, "x", {})


async def test_a_bad_statement_is_a_store_error_not_the_drivers(store):
    with pytest.raises(StoreError) as failed:
        await store._all("SELECT * FROM no_such_table")
    assert not isinstance(failed.value, sqlite3.Error | asyncpg.PostgresError)


@pytest.mark.sqlite_only
async def test_another_process_writing_is_store_busy_which_may_pass_on_sqlite(store):
    await store._db.execute("PRAGMA busy_timeout = 50")  # give up at once rather than after 5 s
    other = sqlite3.connect(store.path, isolation_level=None)  # another process's writer, mid-transaction
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusy) as busy:
            await store.set_guild_setting(GUILD, "lang", "en")
        assert is_transient(busy.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    await store.set_guild_setting(GUILD, "lang", "en")  # and once it is done, the same write goes through
    assert await store.guild_setting(GUILD, "lang") == "en"


@pytest.mark.postgres_only
async def test_a_lock_another_writer_holds_is_store_busy_which_may_pass_on_postgres(store, table):
    async with store._write() as first:
        await first.execute("UPDATE tables SET channel = 'a' WHERE id = $1", table)  # holds the row's lock
        with pytest.raises(StoreBusy) as busy:
            async with store._write() as second:
                await second.execute("SET LOCAL lock_timeout = '50ms'")
                await second.execute("UPDATE tables SET channel = 'b' WHERE id = $1", table)
    assert is_transient(busy.value)
    assert (await store.get_table(table)).channel == "a"
