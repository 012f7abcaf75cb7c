"""The bot's REST budget: never above burst + rate·t, prompts before posts before board edits, interactions
unlimited; the boards slow down together as more of them are busy, and a full budget refuses new tables."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from cogs import operations as ops
from cogs.fake_discord import World, make_world
from cogs.fake_discord.kit import bot_kit
from cogs.ratelimit import DISCORD_GLOBAL_LIMIT, SEND_MARGIN, Budget, GlobalRateLimiter
from tests.support.clock import FakeClock


@pytest.fixture
async def world() -> World:
    w = await make_world(names=("alice", "bob"))
    yield w
    await w.fake.close()


def limiter_on(vt: FakeClock, **kw) -> GlobalRateLimiter:
    return GlobalRateLimiter(clock=vt, sleep=vt.sleep, **kw)


async def grant_times(limiter: GlobalRateLimiter, vt: FakeClock, urgencies: list[bool]) -> list[tuple[float, bool]]:
    """Launch one acquire per entry, in order; returns (time granted, urgent) in the order of granting."""
    granted: list[tuple[float, bool]] = []

    async def one(urgent: bool) -> None:
        await limiter.acquire(urgent)
        granted.append((vt.now, urgent))

    tasks = [asyncio.create_task(one(u)) for u in urgencies]
    await vt.run(tasks)
    return granted


# -- the bucket --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
async def test_never_more_than_burst_plus_rate_times_t_in_any_window(seed: int) -> None:
    rng = random.Random(seed)
    vt = FakeClock(0.0)
    rate, burst, reserve = 5.0, 4, 1
    limiter = limiter_on(vt, rate=rate, burst=burst, reserve=reserve)
    urgencies = [rng.random() < 0.4 for _ in range(60)]
    times = sorted(t for t, _ in await grant_times(limiter, vt, urgencies))

    assert limiter.acquired == 60
    for i, start in enumerate(times):  # every window [start, end] that starts and ends at a grant
        for j in range(i, len(times)):
            assert j - i + 1 <= burst + rate * (times[j] - start) + 1e-6, (start, times[j], j - i + 1)
    # ...and it does not throttle harder than it must: at worst one extra reserve's worth of refill.
    assert times[-1] <= (60 - burst + reserve + 1) / rate + 1e-6
    # Sleeps are computed, not polled: a bounded number per caller.
    assert len(vt.sleeps) <= 3 * limiter.waited


async def test_the_bots_bucket_never_passes_discords_50_in_any_second() -> None:
    # A burst as large as the rate let nearly twice the limit through in one second: global 429s under load.
    vt = FakeClock(0.0)
    limiter = GlobalRateLimiter.for_discord(40.0, clock=vt, sleep=vt.sleep)
    times = sorted(t for t, _ in await grant_times(limiter, vt, [i % 3 == 0 for i in range(300)]))
    assert limiter.acquired == 300
    for i, start in enumerate(times):
        inside = sum(1 for t in times[i:] if t < start + 1.0)
        assert inside <= DISCORD_GLOBAL_LIMIT - SEND_MARGIN, (start, inside)
    assert (limiter.burst, limiter.rate) == (5, 40.0)
    with pytest.raises(ValueError):
        GlobalRateLimiter.for_discord(50.0)


async def test_a_burst_is_served_at_once_then_the_rate_holds() -> None:
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=10.0, burst=5, reserve=0)
    times = [t for t, _ in await grant_times(limiter, vt, [True] * 8)]
    assert times[:5] == [0.0] * 5
    assert times[5:] == pytest.approx([0.1, 0.2, 0.3])
    assert (limiter.acquired, limiter.waited) == (8, 3)
    vt.now += 60.0  # a quiet minute saves up no more than one burst
    times = [t - 60.3 for t, _ in await grant_times(limiter, vt, [True] * 7)]
    assert times == pytest.approx([0.0] * 5 + [0.1, 0.2])


async def test_urgent_callers_are_served_while_board_edits_wait_on_the_reserve() -> None:
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=1.0, burst=4, reserve=2)
    # A full bucket of 4: two board edits go (4 -> 2 left), the third would dip into the reserve and waits.
    edits = [asyncio.create_task(limiter.acquire(urgent=False)) for _ in range(3)]
    await vt.settle()
    assert [t.done() for t in edits] == [True, True, False]
    # DM prompts arriving later still go straight away, from the reserve.
    prompts = [asyncio.create_task(limiter.acquire(urgent=True)) for _ in range(2)]
    await vt.settle()
    assert all(t.done() for t in prompts) and not edits[2].done()
    assert vt.now == 0.0
    await vt.run(edits)
    assert vt.now == pytest.approx(3.0)  # the edit needed 3 tokens (reserve + 1) to refill from empty


async def test_prompts_go_first_and_board_edits_never_eat_the_reserve() -> None:
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=2.0, burst=6, reserve=2)
    for _ in range(6):
        await limiter.acquire(urgent=True)  # an empty bucket
    seen: list[tuple[str, float, float]] = []

    async def one(name: str, urgent: bool) -> None:
        await limiter.acquire(urgent)
        seen.append((name, vt.now, limiter.tokens))

    edits = [asyncio.create_task(one(f"edit{i}", False)) for i in range(4)]
    await vt.settle()
    prompts = [asyncio.create_task(one(f"dm{i}", True)) for i in range(3)]
    await vt.run(edits + prompts)

    order = [name for name, _, _ in seen]
    assert order == ["dm0", "dm1", "dm2", "edit0", "edit1", "edit2", "edit3"]  # FIFO within each class
    assert [t for _, t, _ in seen[:3]] == pytest.approx([0.5, 1.0, 1.5])
    assert all(tokens >= limiter.reserve - 1e-6 for name, _, tokens in seen if name.startswith("edit"))


async def test_a_cancelled_waiter_does_not_block_the_others() -> None:
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=1.0, burst=1, reserve=0)
    await limiter.acquire(urgent=True)
    first = asyncio.create_task(limiter.acquire(urgent=True))
    second = asyncio.create_task(limiter.acquire(urgent=True))
    await vt.settle()
    first.cancel()
    await vt.run([second])
    assert first.cancelled() and second.done() and vt.now == pytest.approx(1.0)


def test_settings_that_could_never_serve_a_board_edit_are_refused() -> None:
    for kw in ({"rate": 0}, {"burst": 0}, {"burst": 10, "reserve": 10}, {"reserve": -1}):
        with pytest.raises(ValueError):
            GlobalRateLimiter(**kw)


async def test_real_clock_sleeps_for_the_refill_time() -> None:
    limiter = GlobalRateLimiter(rate=200.0, burst=1, reserve=0)
    started = time.monotonic()
    for _ in range(3):
        await limiter.acquire(urgent=True)
    assert time.monotonic() - started >= 2 / 200 - 1e-3
    assert (limiter.acquired, limiter.waited) == (3, 2)


# -- operations -------------------------------------------------------------------------------------------------
async def test_without_a_limiter_operations_call_discord_at_once(world: World) -> None:
    vt = FakeClock(0.0)
    unused = limiter_on(vt, rate=1.0, burst=1, reserve=0)
    rest = ops.Rest()
    msg = await world.channel.send("board")
    for i in range(20):  # far above what `unused` would allow
        assert not isinstance(await rest.edit(msg, content=f"board {i}"), ops.Failed)
        assert not isinstance(await rest.send_dm(world.members[0], content=f"prompt {i}"), ops.Failed)
    assert world.fake.message(msg.id).content == "board 19"
    assert unused.acquired == 0 and vt.sleeps == []


async def test_with_a_limiter_board_edits_wait_but_prompts_and_interactions_do_not(world: World) -> None:
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=1.0, burst=2, reserve=1)
    msg = await world.channel.send("board")
    await world.members[0].create_dm()  # her DM channel is open: a DM to her is one request
    rest = ops.Rest(Budget(limiter, clock=vt))
    await limiter.acquire(urgent=True)  # one token left: only the reserve

    edit = asyncio.create_task(rest.edit(msg, content="board 2"))
    await vt.settle()
    assert not edit.done() and world.fake.message(msg.id).content == "board"

    # Interaction answers do not count toward the global limit: served with no token at all.
    alice = world.members[0]
    inter = world.fake.slash_interaction(alice, world.channel, "kwx")
    assert await asyncio.wait_for(ops.safe_defer(inter, ephemeral=True), 1) is True
    assert await asyncio.wait_for(ops.safe_respond(inter, content="你的手牌"), 1) is True
    assert limiter.acquired == 1
    # A DM prompt takes the reserved token while the board edit keeps waiting.
    assert not isinstance(await asyncio.wait_for(rest.send_dm(alice, content="轮到你了"), 1), ops.Failed)
    assert world.fake.log.dms(alice.id)[-1].content == "轮到你了"
    assert not edit.done() and limiter.acquired == 2

    await vt.run([edit])
    assert not isinstance(edit.result(), ops.Failed) and world.fake.message(msg.id).content == "board 2"
    assert vt.now == pytest.approx(2.0)  # refilled to reserve + 1 from empty at 1 token/s


async def test_the_bot_installs_the_limiter_it_is_given(tmp_path: Path) -> None:
    async with bot_kit(tmp_path, rate_limit=42) as kit:
        limiter = kit.rt.rest.budget.limiter
        assert isinstance(limiter, GlobalRateLimiter) and limiter.rate == 42
        assert limiter.burst + limiter.rate <= DISCORD_GLOBAL_LIMIT - SEND_MARGIN
        assert kit.rt.frontend.board.rest is kit.rt.rest  # one budget for the whole bot
    async with bot_kit(tmp_path, db_name="other.sqlite3") as kit:
        assert kit.rt.rest.budget.limiter is None


async def test_a_first_dm_takes_a_token_for_opening_the_dm_channel_too(world: World) -> None:
    """Discord counts the DM channel's creation against the global limit like the message itself: when 150
    players get their first DM at once, a DM that took one token made two requests."""
    vt = FakeClock(0.0)
    limiter = limiter_on(vt, rate=1.0, burst=4, reserve=0)
    rest = ops.Rest(Budget(limiter, clock=vt))
    alice = world.members[0]
    assert alice.dm_channel is None
    assert not isinstance(await asyncio.wait_for(rest.send_dm(alice, content="发牌"), 1), ops.Failed)
    assert limiter.acquired == 2  # open the DM channel, then send
    assert not isinstance(await asyncio.wait_for(rest.send_dm(alice, content="轮到你了"), 1), ops.Failed)
    assert limiter.acquired == 3  # the channel is open now: one request


async def test_first_dms_to_many_players_open_their_channels_under_discords_own_bucket(world: World) -> None:
    """Opening a DM channel has a bucket of its own at Discord (10 a second for the bot): the first deal of many
    tables opens them paced, so none is refused and nothing waits behind a 429 holding its global token."""
    rest = ops.Rest(Budget(GlobalRateLimiter.for_discord(40.0)))
    players = [world.fake.add_member(world.guild, name=f"p{i}") for i in range(14)]
    opened: list[float] = []
    world.fake.on_exchange(lambda ex: opened.append(time.monotonic())
                           if ex.route == "POST /users/@me/channels" else None)
    sent = await asyncio.wait_for(asyncio.gather(*(rest.send_dm(p, content="发牌") for p in players)), 10)
    assert not any(isinstance(m, ops.Failed) for m in sent) and len(opened) == 14
    assert not world.fake.log.refused()  # no 429 from the DM-channel bucket
    assert max(sum(1 for t in opened if s <= t < s + 1.0) for s in opened) <= 10
