"""The front end's pacing: bursts of changes become one board edit, the latest state always goes out last."""

from __future__ import annotations

import asyncio

from cogs.fake_discord.kit import (
    alice_asked,
    alice_played_a_hand,
    bot_kit,
    seat_table,
)


async def test_a_burst_of_changes_is_one_edit_and_the_last_state_is_shown(tmp_path) -> None:
    async with bot_kit(tmp_path, board_interval=0.2) as kit:
        table = await seat_table(kit, [kit.alice])
        lobby = kit.table_messages()[0]
        await asyncio.sleep(0.25)
        mark = kit.fake.log.mark()
        for i in range(10):  # ten notices in a burst (as an AI table produces them)
            await kit.rt.frontend.notice(table, "lobby.joined", player=f"p{i}")
        await kit.settle()
        edits = [r for r in kit.fake.log.since(mark) if r.kind == "edit" and r.message_id == lobby.id]
        assert len(edits) == 1
        assert "p9 加入了牌桌" in kit.fake.message(lobby.id).embeds[0].fields[-1].value  # the trailing state

        mark = kit.fake.log.mark()
        await kit.rt.frontend.notice(table, "lobby.joined", player="late")
        await kit.rt.frontend.idle()
        await kit.rt.frontend.notice(table, "lobby.joined", player="later")
        started = asyncio.get_running_loop().time()
        await kit.settle()
        times = [r for r in kit.fake.log.since(mark) if r.kind == "edit"]
        assert len(times) == 2  # at most one edit per interval, and the second one still comes
        assert asyncio.get_running_loop().time() - started >= 0.1
        assert "later 加入了牌桌" in kit.fake.message(lobby.id).embeds[0].fields[-1].value


async def test_a_deleted_board_is_posted_again(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        await seat_table(kit, [kit.alice], ais=2)
        await kit.slash(kit.alice, "kwx start")
        board = kit.board(1)
        kit.fake.delete_message(board.id)  # a moderator removed it
        await kit.until_asked(kit.alice)
        await kit.play_smart(kit.alice, kit.live_panel(kit.alice))
        again = kit.board(1)
        assert again.id != board.id and again.embeds[0].title.startswith("第 1 局")


async def test_an_edit_that_waits_for_the_global_limit_shows_what_changed_meanwhile_once(tmp_path,
                                                                                       monkeypatch) -> None:
    async with bot_kit(tmp_path, board_interval=0.0) as kit:
        table = await seat_table(kit, [kit.alice])
        lobby = kit.table_messages()[0]
        await kit.settle()
        turn = asyncio.Event()
        waiting = asyncio.Event()

        async def busy_limit(priority: object) -> None:  # the bot's share of Discord's global limit is used up
            waiting.set()
            await turn.wait()

        monkeypatch.setattr(kit.rt.frontend.board.rest, "wait", busy_limit)
        mark = kit.fake.log.mark()
        await kit.rt.frontend.notice(table, "lobby.joined", player="first")
        await asyncio.wait_for(waiting.wait(), 5)
        for name in ("second", "third"):  # more changes while the edit waits its turn
            await kit.rt.frontend.notice(table, "lobby.joined", player=name)
        await asyncio.sleep(0.05)
        turn.set()
        await kit.settle()
        edits = [r for r in kit.fake.log.since(mark) if r.kind == "edit" and r.message_id == lobby.id]
        assert len(edits) == 1  # one edit for the three changes, not a stale one and then the rest
        assert "third 加入了牌桌" in kit.fake.message(lobby.id).embeds[0].fields[-1].value


async def test_one_panel_a_hand_edited_through_the_token_of_her_last_press(tmp_path) -> None:
    """Steady play costs the bot's token one DM a hand: her press is answered by updating the panel, and her next
    prompts edit that same panel through the press's interaction token (exempt from the global limit)."""
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, panel, _, _ = await alice_asked(kit)
        mark = kit.fake.log.mark()
        for _ in range(3):  # three of her turns
            await kit.play_turn(kit.alice, kit.live_panel(kit.alice))
            while kit.live_panel(kit.alice) is None and not kit.results():
                await kit.settle()
            if kit.results():
                break
        assert [m.id for m in kit.dm_messages(kit.alice)] == [panel.id]  # one panel, edited in place
        edits = [r for r in kit.fake.log.since(mark) if r.message_id == panel.id and r.kind == "edit"]
        assert edits and all(r.interaction_id is not None for r in edits)  # each through a press's token
        assert not [r for r in kit.fake.log.since(mark) if r.kind in ("dm", "send") and r.user_id == kit.alice.id]


async def test_an_expired_token_falls_back_to_the_bots_own_edit(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        from dataclasses import replace

        table, panel, asked, seat = await alice_asked(kit)
        frontend = kit.rt.frontend
        out = await kit.press(kit.alice, panel, "discard", kit.acts(panel)[0][1])
        await kit.settle()
        kit.fake.expire(out.interaction)  # 15 minutes went by
        mark = kit.fake.log.mark()
        latest = frontend.panels.get(table, str(kit.alice.id)).latest
        await frontend.hand_changed(seat.player, replace(asked, step=latest.step + 1), prompt=True)  # asked anew
        await frontend.idle()
        edits = [r for r in kit.fake.log.since(mark) if r.message_id == panel.id and r.kind == "edit"]
        assert [r.interaction_id for r in edits] == [None]  # the bot's own edit: the prompt still came
        assert kit.live_panel(kit.alice).id == panel.id


async def test_the_next_hands_panel_follows_up_her_last_press_and_the_last_one_ends_in_one_line(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        table = await alice_played_a_hand(kit)
        while kit.live_panel(kit.alice) is None:
            await kit.settle()
        first, second = kit.dm_messages(kit.alice)
        assert first.content.startswith(f"牌桌 {table} · 第 1 局 · 本局结束：") and not first.components
        assert kit.live_panel(kit.alice).id == second.id and second.embeds[0].title == "你的手牌 · 第 2 局"
        assert [r.kind for r in kit.fake.log.of(("dm", "followup"), user_id=kit.alice.id)] == ["dm", "followup"]
