"""The front end's pacing: bursts of changes become one board edit, the latest state always goes out last."""

from __future__ import annotations

import asyncio

from tests.cogs.kit import seat_table, start_kit, stop_kit


async def test_a_burst_of_changes_is_one_edit_and_the_last_state_is_shown(tmp_path) -> None:
    kit = await start_kit(tmp_path, board_interval=0.2)
    try:
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
    finally:
        await stop_kit(kit)


async def test_a_deleted_board_is_posted_again(tmp_path) -> None:
    kit = await start_kit(tmp_path)
    try:
        await seat_table(kit, [kit.alice], ais=2)
        await kit.slash(kit.alice, "kwx start")
        board = kit.board(1)
        kit.fake.delete_message(board.id)  # a moderator removed it
        while kit.live_panel(kit.alice) is None:
            await kit.settle()
        await kit.play_smart(kit.alice, kit.live_panel(kit.alice))
        again = kit.board(1)
        assert again.id != board.id and again.embeds[0].title.startswith("第 1 局")
    finally:
        await stop_kit(kit)
