"""Copying a database to another backend keeps every id, the event logs, and the money."""

from __future__ import annotations

from kwx.store import Store
from kwx.store.copy import copy_store
from tests.support.ledger import NAMES
from tests.support.players import GUILD


async def test_a_copied_database_carries_on_where_the_source_stopped(tmp_path, store, hand, clock):
    async with await Store.open(tmp_path / "source.sqlite3", clock=clock.utc) as source:
        seats = [{"player_id": p, "name": NAMES[p]} for p in "abc"]
        table = await source.create_table(GUILD, rules={"preset": "standard"}, seed="s", seats=seats)
        await source.append_events(table, [])
        for kind in ("deal", "discard", "win"):
            await source.append_event(table, 1, kind, {"k": kind})
        await source.finish_hand(hand(table, 1, [("b", "a", 8, "hu")], winners={"a": 8}))
        second = await source.finish_hand(hand(table, 2, [("a", "c", 4, "hu")], winners={"c": 4}))
        assert second
        reversed_id = await source.hand_id(table, 2)
        await source.reverse_hand(GUILD, reversed_id, by="a", why="misdeal")
        await source.record_settlement(GUILD, "b", "a", 8, by="b")
        await source.set_guild_setting(GUILD, "lang", "en")
        report = await copy_store(source, store)
        assert report.matches, report.problems
        assert [e.payload for e in await store.load_events(table)] == [{"k": "deal"}, {"k": "discard"}, {"k": "win"}]
        assert await store.entries(GUILD, limit=None) == await source.entries(GUILD, limit=None)
        assert await store.history(GUILD, "a") == await source.history(GUILD, "a")
        assert await store.leaderboard(GUILD) == await source.leaderboard(GUILD)
        assert await store.guild_setting(GUILD, "lang") == "en"
        last = max(e.id for e in await source.entries(GUILD, limit=None))
    # New rows continue after the copied ids; the copied table resumes its log.
    assert await store.transfer(GUILD, "a", "b", 1, by="a") == last + 1
    assert await store.append_event(table, 1, "next") == 4
    assert await store.create_table(GUILD, rules={}, seed="t", seats=[]) == table + 1
