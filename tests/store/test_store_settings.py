"""Per-server settings and the front end's message references (migration 2)."""

from __future__ import annotations

from kwx.store import Store


async def test_a_server_setting_is_kept_changed_and_removed(store) -> None:
    assert await store.guild_setting("g1", "lang") is None
    await store.set_guild_setting("g1", "lang", "en")
    await store.set_guild_setting("g2", "lang", "zh-CN")
    await store.set_guild_setting("g1", "lang", "zh-CN")
    assert await store.guild_setting("g1", "lang") == "zh-CN"
    assert await store.guild_settings("lang") == {"g1": "zh-CN", "g2": "zh-CN"}
    await store.set_guild_setting("g2", "lang", None)
    assert await store.guild_settings("lang") == {"g1": "zh-CN"}


async def test_message_refs_survive_a_reopen_and_go_with_their_table(tmp_path) -> None:
    path = tmp_path / "refs.sqlite3"
    async with await Store.open(path) as store:
        tid = await store.create_table("g", rules={"preset": "standard"}, seed="s", seats=[])
        await store.set_message_ref(tid, "board", 10, 20, data={"hand": 1})
        await store.set_message_ref(tid, "board", 10, 21, data={"hand": 2})
        await store.set_message_ref(tid, "dm:42", 11, 30, data={"step": 7, "live": True})
    async with await Store.open(path) as store:
        refs = await store.message_refs(tid)
        assert (refs["board"].message_id, refs["board"].data) == ("21", {"hand": 2})
        assert (refs["dm:42"].channel_id, refs["dm:42"].data["live"]) == ("11", True)
        await store.delete_message_refs(tid)
        assert await store.message_refs(tid) == {}
