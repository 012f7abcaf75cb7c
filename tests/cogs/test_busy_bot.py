"""A busy bot on a small budget: what a player must answer goes first, the boards slow down together (never
over the budget), and new tables are refused, with roughly how long to wait, while the budget is full."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import aiohttp
import pytest
from multidict import CIMultiDict
from yarl import URL

from cogs.fake_discord.kit import bot_kit, seat_table
from cogs.ratelimit import MAX_BOARD_INTERVAL, Budget, GlobalRateLimiter, Priority, SendGate
from kwx.present.i18n import tr
from tests.support.clock import FakeClock
from tests.support.polling import eventually


async def test_prompts_go_before_posts_before_board_edits() -> None:
    vt = FakeClock(0.0)
    limiter = GlobalRateLimiter(rate=1.0, burst=1, reserve=0, clock=vt, sleep=vt.sleep)
    budget = Budget(limiter, clock=vt)
    await budget.take(Priority.BOARD)  # the bucket is empty now: every call below waits its turn
    order: list[str] = []

    async def call(priority: Priority, name: str) -> None:
        await budget.take(priority)
        order.append(name)

    first = [asyncio.create_task(call(Priority.BOARD, f"board {i}")) for i in range(3)]
    await vt.settle()
    # The boards were waiting first; a result and two prompts come while they wait.
    later = [asyncio.create_task(call(Priority.POST, "result")),
             asyncio.create_task(call(Priority.PROMPT, "prompt 1")),
             asyncio.create_task(call(Priority.PROMPT, "prompt 2"))]
    await vt.run(first + later)
    assert order == ["prompt 1", "prompt 2", "result", "board 0", "board 1", "board 2"]
    assert vt.now == pytest.approx(6.0)  # one a second: the budget held throughout
    assert budget.granted == {Priority.PROMPT: 2, Priority.POST: 1, Priority.BOARD: 4}


async def test_a_global_429_holds_every_grant_then_the_budget_starts_from_empty() -> None:
    vt = FakeClock(0.0)
    limiter = GlobalRateLimiter(rate=10.0, burst=5, reserve=0, clock=vt, sleep=vt.sleep)
    budget = Budget(limiter, clock=vt, sleep=vt.sleep)
    budget.hold(2.0)  # Discord: the bot token may send again in 2 s (discord.py holds every call that long)
    granted: list[float] = []

    async def prompt() -> None:
        await budget.take(Priority.PROMPT)
        granted.append(vt.now)

    await vt.run([asyncio.create_task(prompt()) for _ in range(3)])
    # Nothing during the hold, and no burst after it: the calls discord.py held go out at its end.
    assert granted == pytest.approx([2.1, 2.2, 2.3])
    assert budget.holds == 1


async def test_boards_slow_down_together_as_more_are_busy_and_prompts_take_their_share_first() -> None:
    clock = FakeClock(1000.0)
    budget = Budget(None, rate=10.0, clock=clock)
    clock.now += 60  # the bot has run for a while
    assert budget.board_interval(3.0) == 3.0  # nothing busy: the table's own interval
    for table in range(20):
        budget.board_changed(table)
    assert budget.board_interval(3.0) == 3.0  # 20 boards every 3 s fit in 9 a second
    for table in range(20, 60):
        budget.board_changed(table)
    assert budget.board_interval(3.0) == pytest.approx(60 / 9)  # each board once in what the budget allows
    for _ in range(100):  # prompts and posts: 5 a second over the 20 s window
        await budget.take(Priority.PROMPT)
    assert budget.board_interval(3.0) == pytest.approx(60 / 4)  # the boards get what the prompts leave
    # Admission projects what the tables playing will cost (a board edit every 10 s and their steady posts),
    # not the moment's burst of prompts: 75 tables fit in 10 requests a second.
    assert budget.capacity() == 75 and budget.room_for_table()
    for table in range(60, 75):
        budget.board_changed(table)
    assert not budget.room_for_table() and budget.headroom().saturated
    clock.now += 21  # the boards went quiet (their tables ended) and the prompts are history
    assert budget.board_interval(3.0) == 3.0 and budget.room_for_table()


async def test_a_full_budget_stretches_the_boards_and_refuses_new_tables(tmp_path: Path, caplog) -> None:
    async with bot_kit(tmp_path, rate_limit=40) as kit:
        budget = kit.rt.rest.budget
        table = await seat_table(kit, [kit.alice], ais=2)
        # A budget of two requests a second, with thirty other tables' boards busy on it.
        budget.limiter = GlobalRateLimiter(rate=2.0, burst=2, reserve=1)
        budget.rate = 2.0
        for other in range(1000, 1030):
            budget.board_changed(other)
        assert budget.board_interval(0.0) > MAX_BOARD_INTERVAL  # every board waits longer, alike
        assert budget.headroom().board_interval_s > MAX_BOARD_INTERVAL

        with caplog.at_level(logging.INFO, logger="cogs.ratelimit"):
            refused = kit.reply(await kit.slash(kit.alice, "kwx start"))
            budget.log_if_saturated()
        assert refused == tr("error.bot_busy", "zh-CN", minutes=10)  # no table has closed lately: ten minutes
        assert kit.service.public_view_as_shown(table).phase == "lobby"
        assert any("REST budget full" in r.message for r in caplog.records)

        elsewhere = kit.fake.add_text_channel(kit.world.guild)
        out = await kit.fake.slash(kit.bob, elsewhere, "kwx new")
        assert tr("error.bot_busy", "zh-CN", minutes=10) in kit.reply(out)
        assert kit.service.table_in_channel(str(kit.world.guild.id), str(elsewhere.id)) is None

        for other in range(1000, 1030):  # those tables closed: room again
            budget.board_gone(other)
        assert budget.room_for_table()
        assert kit.reply(await kit.slash(kit.alice, "kwx start")) != refused
        await kit.until(lambda: kit.service.public_view_as_shown(table).phase != "lobby")


async def test_a_board_stretched_while_the_budget_was_full_is_edited_in_its_own_interval_once_there_is_room(
        tmp_path: Path) -> None:
    async with bot_kit(tmp_path, rate_limit=40, board_interval=0.5) as kit:
        budget, stats = kit.rt.rest.budget, kit.rt.frontend.stats
        table = await seat_table(kit, [kit.alice], ais=2)
        await kit.slash(kit.alice, "kwx start")
        await kit.until_asked(kit.alice)
        # A burst (the deals of many tables): thirty other boards busy on a budget of two requests a second.
        budget.rate = 2.0
        for other in range(1000, 1030):
            budget.board_changed(other)
        assert budget.board_interval(0.5) > 30
        edits = stats.public_edits
        kit.rt.frontend.board.refresh(table)  # the board has news: its edit waits the stretched interval
        await asyncio.sleep(0.2)
        for other in range(1000, 1030):  # the burst is over: the budget has room again
            budget.board_gone(other)
        budget.rate = 40.0
        # Edited within its own 0.5 s interval (and the budget's next look), not after the 30 s stretch.
        await eventually(lambda: stats.public_edits > edits, timeout=3, what="the board's edit")


async def test_requests_that_leave_together_never_make_a_second_over_discords_limit() -> None:
    """A stall of the loop, or calls that waited in a route's bucket, send what was granted over a second at
    once: the gate where requests leave holds the surplus, so no second ever carries more than the limit."""
    vt = FakeClock(0.0)
    gate = SendGate(limit=48, clock=vt, sleep=vt.sleep)
    left: list[tuple[float, int]] = []

    async def request(n: int) -> None:
        await gate.wait()
        left.append((vt.now, n))

    tasks = [asyncio.create_task(request(n)) for n in range(120)]
    while not all(t.done() for t in tasks):  # the waiters pass the gate's line one loop turn after another
        await vt.settle(400)
        if vt.pending:
            vt.advance(max(0.0, vt.pending[0] - vt.now))
    times = [at for at, _ in left]
    assert [n for _, n in left] == list(range(120))  # in the order they came
    assert max(sum(1 for t in times if start <= t < start + 1.0) for start in times) == 48
    assert times[-1] == pytest.approx(2.0, abs=0.01) and gate.waited == 72


async def test_the_bot_tokens_requests_wait_at_the_gate_and_interaction_calls_do_not() -> None:
    from cogs.operations import DiscordCounts
    from cogs.telemetry import http_trace

    vt = FakeClock(0.0)
    gate = SendGate(limit=2, clock=vt, sleep=vt.sleep)
    trace = http_trace(DiscordCounts(), gate=gate)
    (start,) = trace.on_request_start

    async def leave(path: str) -> float:
        params = aiohttp.TraceRequestStartParams("POST", URL(f"https://discord.com{path}"), CIMultiDict())
        await start(cast(aiohttp.ClientSession, None), SimpleNamespace(), params)
        return vt.now

    bot_route, webhook = "/api/v10/channels/1/messages", "/api/v10/interactions/5/tok/callback"
    tasks = [asyncio.create_task(leave(p)) for p in (bot_route, bot_route, webhook, bot_route, webhook)]
    await vt.run(tasks)
    done = [t.result() for t in tasks]
    assert done[:3] == [0.0, 0.0, 0.0] and done[4] == 0.0  # interaction calls are not the token's: no wait
    assert done[3] == pytest.approx(1.0, abs=0.01)  # the third of the token's waits out the second
