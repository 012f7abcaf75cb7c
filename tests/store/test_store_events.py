"""Tables and the event log used for crash recovery."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kwx.store import DuplicateEvent, NewEvent, NotFound, Store
from tests.support.players import GUILD


async def test_table_round_trip_keeps_the_seed_out_of_repr(store, table):
    row = await store.get_table(table)
    assert row.guild == GUILD and row.status == "open" and row.rules == {"preset": "standard"}
    assert [s["player_id"] for s in row.seats] == ["a", "b", "c"]
    assert row.seed == "s3cret-seed"
    assert "s3cret" not in repr(row)
    assert await store.player_name(GUILD, "b") == "Bob"  # seat names are remembered


async def test_events_come_back_in_order_with_their_payloads(store, table):
    seqs = [await store.append_event(table, 1, "draw", {"tile": t}) for t in ("1p", "5s", "7z")]
    assert seqs == [1, 2, 3]
    assert await store.append_events(table, [NewEvent(2, "deal", {"n": 1}), NewEvent(2, "discard")]) == [4, 5]
    events = await store.load_events(table)
    assert [(e.seq, e.hand_no, e.kind) for e in events] == [
        (1, 1, "draw"), (2, 1, "draw"), (3, 1, "draw"), (4, 2, "deal"), (5, 2, "discard")]
    assert [e.payload for e in events[:3]] == [{"tile": "1p"}, {"tile": "5s"}, {"tile": "7z"}]
    assert [e.seq for e in await store.load_events(table, after_seq=3)] == [4, 5]


async def test_explicit_seqs_are_unique_and_loaded_in_seq_order(store, table):
    await store.append_event(table, 1, "b", seq=2)
    await store.append_event(table, 1, "a", seq=1)
    with pytest.raises(DuplicateEvent):
        await store.append_event(table, 1, "again", seq=2)
    # A batch with a clash appends nothing.
    with pytest.raises(DuplicateEvent):
        await store.append_events(table, [NewEvent(1, "c", seq=3), NewEvent(1, "d", seq=1)])
    assert [(e.seq, e.kind) for e in await store.load_events(table)] == [(1, "a"), (2, "b")]
    assert await store.append_event(table, 1, "next") == 3


async def test_event_for_an_unknown_table_is_refused(store):
    with pytest.raises(NotFound):
        await store.append_event(999, 1, "draw")


async def test_an_appended_event_is_visible_to_a_fresh_connection_at_once(store, table, tmp_path):
    await store.append_event(table, 1, "discard", {"tile": "5p"})
    other = await Store.open(store.path)  # e.g. the process restarted after a crash
    try:
        assert [e.payload for e in await other.load_events(table)] == [{"tile": "5p"}]
        assert [t.id for t in await other.unfinished_tables()] == [table]
    finally:
        await other.close()


async def test_payloads_with_a_json_form_are_stored_by_it(store, table):
    @dataclass
    class Discard:
        seat: int
        tile: str

    class Custom:
        def to_json(self):
            return {"custom": True}

    await store.append_event(table, 1, "discard", Discard(0, "5p"))
    await store.append_event(table, 1, "custom", [Custom()])
    assert [e.payload for e in await store.load_events(table)] == [{"seat": 0, "tile": "5p"}, [{"custom": True}]]


async def test_unfinished_tables_and_updates(store, table):
    other = await store.create_table("g2", rules={}, seed="x", seats=[], channel="42")
    assert [t.id for t in await store.unfinished_tables()] == [table, other]
    assert [t.id for t in await store.unfinished_tables("g2")] == [other]
    await store.update_table(table, seats=[{"player_id": "a", "name": "Annie"}], options={"turn_seconds": 30})
    row = await store.get_table(table)
    assert row.options == {"turn_seconds": 30} and row.seats == [{"player_id": "a", "name": "Annie"}]
    assert await store.player_name(GUILD, "a") == "Annie"
    await store.close_table(table)
    assert [t.id for t in await store.unfinished_tables()] == [other]
    assert (await store.get_table(table)).status == "closed"
    with pytest.raises(ValueError):
        await store.update_table(other, status="paused")
    with pytest.raises(NotFound):
        await store.update_table(12345, status="closed")
    with pytest.raises(NotFound):
        await store.get_table(12345)


async def test_concurrent_writers_do_not_interleave_transactions(store, table, hand):
    import asyncio

    results = await asyncio.gather(
        *(store.append_event(table, 1, "tick", {"i": i}) for i in range(30)),
        *(store.finish_hand(hand(table, n, [("b", "a", 1, "hu")], winners={"a": 1})) for n in range(1, 11)),
        *(store.finish_hand(hand(table, 1, [("b", "a", 1, "hu")], winners={"a": 1})) for _ in range(5)),
    )
    assert sorted(results[:30]) == list(range(1, 31))
    assert results[30:].count(True) == 10
    assert (await store.balance(GUILD, "a")).balance == 10
    assert [e.payload["i"] for e in await store.load_events(table)] == list(range(30))


async def test_a_batch_of_several_tables_commits_all_or_nothing(store, table):
    other = await store.create_table(GUILD, rules={"preset": "standard"}, seed="s2", seats=[])
    await store.append_events_batch([(table, NewEvent(1, "a", {"n": 1}, 1)), (other, NewEvent(1, "b", {"n": 2}, 1))])
    assert [(e.seq, e.payload) for e in await store.load_events(other)] == [(1, {"n": 2})]
    with pytest.raises(DuplicateEvent):
        await store.append_events_batch([(table, NewEvent(1, "c", {}, 2)), (other, NewEvent(1, "d", {}, 1))])
    assert [e.kind for e in await store.load_events(table)] == ["a"]  # the good half was rolled back too
