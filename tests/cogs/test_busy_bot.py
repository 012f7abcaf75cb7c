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

from cogs.fake_discord.kit import ACT as ACT_ID
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
    assert budget.board_interval(3.0) == 3.0  # 20 boards every 3 s fit in 10 a second
    for table in range(20, 60):
        budget.board_changed(table)
    assert budget.board_interval(3.0) == pytest.approx(60 / 10)  # each board once in what the budget allows
    for _ in range(100):  # prompts and posts: 5 a second over the 20 s window
        await budget.take(Priority.PROMPT)
    assert budget.board_interval(3.0) == pytest.approx(60 / 5)  # the boards get what the prompts leave
    # Admission projects what the tables playing will cost (a board edit every 10 s and their steady posts),
    # not the moment's burst of prompts: 83 tables fit in 10 requests a second.
    assert budget.capacity() == 83 and budget.room_for_table()
    for table in range(60, 83):
        budget.board_changed(table)
    assert not budget.room_for_table() and budget.headroom().saturated
    assert budget.room_for_table(82)  # a table already counted (its lobby's board) may still start
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


async def crowd(budget: Budget) -> None:
    """Make the budget crowded as a busy evening does: a budget of two requests a second, spent."""
    budget.limiter = GlobalRateLimiter(rate=2.0, burst=2, reserve=1)
    budget.rate = 2.0
    for _ in range(20):
        if budget.crowded():
            return
        await budget.take(Priority.POST)
    raise AssertionError("the budget never got crowded")


def _panel_hand(m) -> int:
    return int(ACT_ID.fullmatch(next(c.custom_id for c in m.components if ACT_ID.fullmatch(c.custom_id or "")))[2])


async def test_a_busy_bot_shows_a_new_players_hand_in_the_channel_to_them_alone_and_opens_no_dm(
        tmp_path: Path) -> None:
    async with bot_kit(tmp_path, rate_limit=40) as kit:
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await crowd(kit.rt.rest.budget)
        mark = kit.fake.log.mark()
        await kit.slash(kit.alice, "kwx start")
        # Each player's hand, in the table's channel, seen only by them (no DM channel opened: no call of the bot's
        # token, which is what a crowded budget cannot spare); the board still shows no concealed tile.
        await kit.until(lambda: all(any(r.kind == "followup" and r.ephemeral and r.user_id == m.id and r.embeds
                                         for r in kit.fake.log.since(mark)) for m in (kit.alice, kit.bob)))
        panels = [r for r in kit.fake.log.since(mark) if r.kind == "followup" and r.embeds]
        assert panels and all(r.ephemeral and r.user_id in (kit.alice.id, kit.bob.id) for r in panels)
        assert tr("dm.busy_here", "zh-CN") in panels[0].content
        assert not kit.dm_messages(kit.alice) and not kit.dm_messages(kit.bob)
        assert not [r for r in kit.fake.log.since(mark) if r.kind == "dm"]
        # The hand is played from those panels (each press answered through its token), to its result...
        await kit.play_hand([kit.alice, kit.bob], ephemeral_for=[kit.alice, kit.bob])
        # ...and the next hand's panel follows there, again only for its player, still with no DM.
        await kit.until(lambda: any(_panel_hand(m) == 2 for m in kit.fake.messages.values()
                                    if m.ephemeral_to == kit.alice.id and m.components
                                    and any(ACT_ID.fullmatch(c.custom_id or "") for c in m.components)))
        assert not kit.dm_messages(kit.alice) and not kit.dm_messages(kit.bob)
        assert kit.service.public_view_as_shown(table).hand_no == 2


async def test_the_budget_is_crowded_when_a_prompt_has_waited_a_second_or_the_window_was_half_used() -> None:
    vt = FakeClock(0.0)
    budget = Budget(GlobalRateLimiter(rate=1.0, burst=5, reserve=1, clock=vt, sleep=vt.sleep), clock=vt,
                    sleep=vt.sleep)
    for _ in range(5):  # a young bot's first burst: five calls at once
        await budget.take(Priority.POST)
    assert not budget.crowded()
    waiting = asyncio.create_task(budget.take(Priority.PROMPT))  # the bucket is empty: this one waits
    await vt.settle()
    assert not budget.crowded()  # it has waited less than a second so far
    vt.now += 0.5
    assert not budget.crowded()
    vt.now += 0.5
    assert budget.crowded()  # a prompt has waited a second
    await vt.run([waiting])
    vt.now += 30.0  # long after: nothing waits, and the last 20 s granted nothing
    assert not budget.crowded()
    assert not Budget(None, rate=10.0, clock=vt).crowded()  # no limit: never crowded

    steady = Budget(GlobalRateLimiter(rate=10.0, burst=10, reserve=1, clock=vt, sleep=vt.sleep), clock=vt,
                    sleep=vt.sleep)
    for _second in range(20):  # 4 a second, then 5 a second, over the window's 20 s
        for _ in range(4):
            await steady.take(Priority.POST)
        vt.now += 1.0
    assert not steady.crowded()  # 80 in 20 s: under half the rate
    for _second in range(20):
        for _ in range(5):
            await steady.take(Priority.POST)
        vt.now += 1.0
    assert steady.crowded()  # 100 in 20 s: half the rate


class AlwaysCrowded(Budget):
    """A budget that says it is crowded (a busy evening) without making the test wait on one."""

    def crowded(self) -> bool:
        return True


def _embed_text(m) -> str:
    return "\n".join(f"{e.title}\n{e.description}\n" + "\n".join(f"{f.name}\n{f.value}" for f in e.fields)
                     for e in m.embeds)


async def _hand_one_board_after_its_result(kit, *, crowded: bool) -> str:
    """Alice and two AI seats play hand 1 (the budget crowded from the deal on, or not): hand 1's board then."""
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.until_asked(kit.alice)
    await kit.until(lambda: kit.rt.frontend.board.tables.get(table).shown_versions.get(1) is not None)
    if crowded:
        kit.rt.rest.budget = AlwaysCrowded(None)
    await kit.play_hand([kit.alice])
    await kit.settle()
    return _embed_text(kit.board(1))


async def test_a_crowded_bot_leaves_a_finished_hands_board_to_its_result(tmp_path: Path) -> None:
    ended = tr("phase.finished", "zh-CN")
    async with bot_kit(tmp_path / "crowded") as kit:
        # The board is not edited to its end (a request the hands in play wait for); the result says it.
        assert ended not in await _hand_one_board_after_its_result(kit, crowded=True)
        assert kit.rt.frontend.stats.board_ends_skipped >= 1
        assert len(kit.results()) == 1
        # A notice that comes after the end (a player left, the bot restarted) is still edited onto that board.
        board = kit.rt.frontend.board
        tc = board.tables.get(kit.service.table_in_channel(str(kit.world.guild.id), str(kit.channel.id)) or 0)
        assert board._result_says_it(tc, 1)
        tc.lines[1].append(("notice", "table.restarted", {}))
        assert not board._result_says_it(tc, 1)
    async with bot_kit(tmp_path / "quiet") as kit:  # a quiet bot shows the board's end as well
        assert ended in await _hand_one_board_after_its_result(kit, crowded=False)
        assert kit.rt.frontend.stats.board_ends_skipped == 0
