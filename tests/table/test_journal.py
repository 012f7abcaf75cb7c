"""The event-log writer: group commit puts several tables' records in one transaction, each caller returns
only once its record is committed, and one bad record does not refuse the others."""

from __future__ import annotations

import asyncio

import pytest

from kwx.store import DuplicateEvent
from kwx.table.journal import Journal
from tests.support import backends

BACKENDS = backends.BACKENDS  # these run on PostgreSQL too (tests/table/conftest.py)


async def test_group_commit_batches_and_commits_before_returning(store):
    tables = [await store.create_table("g", rules={}, seed="s", seats=[]) for _ in range(5)]
    journal = Journal(store, group=True)
    await asyncio.gather(*(journal.append(t, 1, 1, "action", {"seat": 0, "n": t}) for t in tables))
    assert journal.stats.records == 5 and journal.stats.transactions < 5
    for t in tables:
        (row,) = await store.load_events(t)
        assert row.seq == 1 and row.payload == {"seat": 0, "n": t}


async def test_one_bad_record_fails_alone(store):
    a = await store.create_table("g", rules={}, seed="s", seats=[])
    b = await store.create_table("g", rules={}, seed="s", seats=[])
    await store.append_event(a, 1, "action", {"x": 1})  # seq 1 of table a is taken
    journal = Journal(store, group=True)
    bad, good = await asyncio.gather(journal.append(a, 1, 1, "action", {}), journal.append(b, 1, 1, "action", {}),
                                     return_exceptions=True)
    assert isinstance(bad, DuplicateEvent) and good is None
    assert [e.seq for e in await store.load_events(b)] == [1]


async def test_one_transaction_per_record_without_group_commit(store):
    t = await store.create_table("g", rules={}, seed="s", seats=[])
    journal = Journal(store, group=False)
    await journal.append(t, 1, 1, "action", {})
    await journal.append(t, 2, 1, "action", {})
    assert journal.stats.transactions == 2
    with pytest.raises(DuplicateEvent):
        await journal.append(t, 2, 1, "action", {})
