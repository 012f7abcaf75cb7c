"""Every press on a kwx button is answered within Discord's 3 seconds, exactly once, in the order a phone makes
them: the panel is edited first, and THEN the old button is pressed (a double tap, a tap on a panel just
replaced). discord.py's view store drops such a press silently (the edited message no longer carries its id), so
without an answer of our own the player reads "This interaction failed"."""

from __future__ import annotations

from cogs.fake_discord.kit import alice_asked, bot_kit

STALE = "这个按钮已过期，请用最新的消息。"


async def test_a_double_tap_after_the_panel_was_edited_is_answered_once_as_stale(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        table, panel, _, _ = await alice_asked(kit)
        verb, arg, button = next((v, a, c) for v, a, c in kit.acts(panel) if v == "discard")
        first = await kit.press(kit.alice, panel, verb, arg)
        assert first.answered
        await kit.settle()
        edited = kit.fake.message(panel.id)
        assert button.custom_id not in {c.custom_id for c in edited.components}  # the edit replaced the ids
        step = kit.service.live_table(table).step
        second = await kit.press_id(kit.alice, edited, button.custom_id or "", check=False)
        assert second.answered and kit.reply(second) == STALE
        assert [r.kind for r in second.records if r.interaction_id == second.interaction.id] == ["response"]
        assert kit.service.live_table(table).step == step  # nothing played twice


async def test_taps_on_one_panel_at_once_are_each_answered_and_none_twice(tmp_path) -> None:
    """Three discard buttons tapped at once: one is played, every tap gets its answer, and none is answered
    a second time (Discord refuses that with 40060, an invalid request): a press is released only once its
    handler is done with it."""
    import asyncio

    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, panel, _, _ = await alice_asked(kit)
        discards = [c for v, _, c in kit.acts(panel) if v == "discard"][:3]
        taps = await asyncio.gather(*(kit.fake.press(kit.alice, panel, c.custom_id or "") for c in discards))
        await kit.settle()
        assert all(tap.answered for tap in taps)
        assert [(r.kind, r.error) for r in kit.fake.log if r.kind == "refused"] == []


async def test_a_tap_on_a_button_of_an_unknown_kwx_id_the_message_lacks_is_answered(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, panel, _, _ = await alice_asked(kit)
        out = await kit.press_id(kit.alice, panel, "kwx:pg:hist:1:2:3", check=False)
        assert out.answered and kit.reply(out) == STALE


async def test_a_press_the_service_is_slow_to_answer_is_deferred_in_time_and_then_shown(tmp_path, monkeypatch) -> None:
    """A store write being retried holds the press past Discord's 3 seconds: the press is deferred first (here
    after 0.05 s instead of 2), and the panel follows through its token."""
    import asyncio
    import sys

    from kwx.table.service import TableService

    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, panel, _, _ = await alice_asked(kit)
        monkeypatch.setattr(sys.modules["cogs.tables"], "ANSWER_WITHIN", 0.05)  # the module the bot loaded
        real = TableService.press

        async def slow(self, *args, **kwargs):  # as a store write retried for a while would
            await asyncio.sleep(0.3)
            return await real(self, *args, **kwargs)

        monkeypatch.setattr(TableService, "press", slow)
        verb, arg, _ = next((v, a, c) for v, a, c in kit.acts(panel) if v == "discard")
        out = await kit.press(kit.alice, panel, verb, arg)
        mine = [r for r in out.records if r.interaction_id == out.interaction.id]
        assert mine and mine[0].kind == "defer"  # answered before the service was
        await kit.settle()
        assert kit.service.public_view_as_shown(kit.service.tables()[0]).seats[0].discards  # the move was made


async def test_the_auto_pass_toggle_is_answered_when_its_setting_cannot_be_saved(tmp_path, monkeypatch) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, panel, _, _ = await alice_asked(kit)

        async def broken(*args, **kwargs):
            raise OSError("database is locked")

        monkeypatch.setattr(kit.rt.store, "set_player_setting", broken)
        out = await kit.press(kit.alice, panel, "ap")
        assert out.answered
        await kit.settle()
        assert any(c.label == "自动过：开" for c in kit.fake.message(panel.id).components)  # on, for this session


async def test_a_new_table_the_store_is_slow_to_open_is_deferred_in_time_and_then_answered(tmp_path,
                                                                                          monkeypatch) -> None:
    """/kwx new on a busy evening: the store takes past Discord's 3 seconds to open the table, so the command is
    deferred first (a private "thinking", here after 0.05 s instead of 2) and the answer fills it in."""
    import asyncio
    import sys

    from kwx.present.i18n import tr
    from kwx.table.service import TableService

    async with bot_kit(tmp_path, names=("alice",)) as kit:
        monkeypatch.setattr(sys.modules["cogs.tables"], "ANSWER_WITHIN", 0.05)  # the module the bot loaded
        real = TableService.open_table

        async def slow(self, *args, **kwargs):
            await asyncio.sleep(0.3)
            return await real(self, *args, **kwargs)

        monkeypatch.setattr(TableService, "open_table", slow)
        out = await kit.slash(kit.alice, "kwx new")
        mine = [r for r in out.records if r.interaction_id == out.interaction.id]
        assert mine and mine[0].kind == "defer" and mine[0].thinking and mine[0].ephemeral
        await kit.settle()
        table = kit.service.table_in_channel(str(kit.world.guild.id), str(kit.channel.id))
        assert table is not None
        assert any(r.kind in ("followup", "edit") and tr("cmd.opened", "zh-CN", table=table) in r.text
                   for r in kit.fake.log)
