"""A restart mid-hand: a new bot and service on the same database pick up the board and the prompts."""

from __future__ import annotations

import asyncio
import signal

from cogs.fake_discord.kit import bot_kit, seat_table


async def test_a_restarted_bot_edits_the_same_board_and_the_old_prompt_still_works(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        table = await seat_table(kit, kit.members)
        await kit.slash(kit.alice, "kwx start")
        for _ in range(6):  # a few moves into hand 1
            member = next(m for m in kit.members if kit.live_panel(m) is not None)
            await kit.play_smart(member, kit.live_panel(member))
        board_id = kit.board(1).id
        waiting = next(m for m in kit.members if kit.live_panel(m) is not None)
        prompt = kit.live_panel(waiting)
        step = kit.service.context.tables[table].step

        await kit.restart()
        await kit.settle()
        assert kit.service.context.tables[table].step == step  # the same hand at the same step, from the event log
        sends = kit.fake.log.of("send")
        assert sends == []  # no new board, no new post
        # the board, edited in place; the prompt too, in place: its decision has a full fresh deadline
        assert sorted(r.message_id for r in kit.fake.log.of("edit")) == sorted([board_id, prompt.id])
        assert kit.fake.log.of("dm") == []  # the prompt was unchanged: nobody is pinged again
        assert kit.live_panel(waiting).id == prompt.id  # … and its buttons still work on the new bot
        await kit.play_smart(waiting, kit.fake.message(prompt.id))
        assert kit.service.context.tables[table].step > step
        await kit.play_hand(kit.members)
        assert kit.results() and kit.board(1).id == board_id


async def test_a_restart_after_a_prompt_changed_while_down_sends_it_again(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        table = await seat_table(kit, kit.members, ais=2)
        await kit.slash(kit.alice, "kwx start")
        await kit.until_asked(kit.alice)
        old_prompt = kit.live_panel(kit.alice)
        # forget where alice's panel is (as if the bot died before it could remember it)
        kit.rt.frontend.refs.pending.clear()
        await kit.rt.store._db.execute("DELETE FROM message_refs WHERE ref LIKE 'dm:%'")
        await kit.restart()
        await kit.settle()
        new_prompt = kit.live_panel(kit.alice)
        assert new_prompt is not None and new_prompt.id != old_prompt.id  # a fresh prompt: alice is notified
        assert kit.service.public_view_as_shown(table).hand_no == 1


async def test_the_bot_leaves_the_terminal_tables_alone(tmp_path) -> None:
    """A terminal or autoplay table in the same database is never resumed (nor played by timeout) by the bot."""
    from kwx.store import Store
    from kwx.table.service import TableService
    from kwx.table.views import PlayerRef
    from tests.support.frontends import RecordingFrontEnd

    store = await Store.open(tmp_path / "kwx.sqlite3")
    service = TableService(store, RecordingFrontEnd(), ai_delay=3600)
    local = await service.open_table("local", "terminal", PlayerRef("local:you", "you"))
    await service.shutdown()
    await store.close()

    async with bot_kit(tmp_path) as kit:
        assert local not in kit.service.tables()


async def test_sigterm_stops_the_bot_cleanly_even_when_a_step_fails_and_the_table_resumes(tmp_path) -> None:
    """SIGTERM (or Ctrl-C) closes the bot: each shutdown step runs though one before it fails, the store is
    closed last, and the table is still open for the next start."""
    async with bot_kit(tmp_path) as kit:
        table = await seat_table(kit, kit.members)
        await kit.slash(kit.alice, "kwx start")
        runtime = kit.bot.kwx
        closed: list[str] = []

        async def fails() -> None:
            raise RuntimeError("the front end is stuck")

        async def store_close(close=runtime.store.close) -> None:
            closed.append("store")
            await close()

        runtime.frontend.close = fails
        runtime.store.close = store_close
        kit.bot._on_signal(signal.SIGTERM)  # what the signal handler calls
        (shutdown,) = [task for task in asyncio.all_tasks() if task.get_name() == "kwx-shutdown"]
        await shutdown
        assert kit.bot.is_closed() and kit.bot.kwx is None and closed == ["store"]
        await kit.restart()
        assert kit.service.table_of(table) is not None  # resumed at the next start
