"""Tables that end: a hand nobody played pauses the table (no move, no ledger write), Resume, idle close with a
summary, leaving a started game at the end of the hand, caps, tables whose channel went away, demo tables."""

from __future__ import annotations

import asyncio
import contextlib

from kwx.engine.reads import FeedRecord
from kwx.store import Store
from kwx.table import PlayerRef, TableError, TableService
from tests.support.frontends import RecordingFrontEnd
from tests.support.players import ANN, BOB, CY, GUILD
from tests.support.tables import advance_until, finished_hands, refused, table_with, wait_prompt


async def abandoned(make_service, frontend, clock, **kwargs) -> tuple[TableService, int]:
    """Ann hosts with two AI seats, starts, and never answers again."""
    svc = make_service(clock=clock, between_hands=5, **kwargs)
    table = await table_with(svc, ANN, seed="abandon-seed")
    await svc.start_game(table, by=ANN.player_id)
    await advance_until(svc, clock, lambda: svc.public_view_as_shown(table).paused is not None, step=31)
    return svc, table


async def test_a_hand_nobody_played_is_the_last_one(make_service, frontend, clock, store):
    svc, table = await abandoned(make_service, frontend, clock)
    board = svc.public_view_as_shown(table)
    assert board.paused == "nobody" and board.hand_no == 1 and board.deadline is None
    assert [c.args[1] for c in frontend.of("table_paused")] == ["nobody"]
    assert frontend.notices("table.paused.nobody")
    assert await store.hand_numbers(table) == [1]
    # paused: no move, no write, however long it waits (short of the idle close)
    events = len(await store.load_events(table))
    for _ in range(20):
        clock.advance(60)
        await svc.idle()
    assert svc.public_view_as_shown(table).hand_no == 1 and await store.hand_numbers(table) == [1]
    assert len(await store.load_events(table)) == events
    await refused("paused", svc.act(table, ANN.player_id, "discard", "5p"))


async def test_resume_plays_on_and_the_resumer_is_back(make_service, frontend, clock, store):
    svc, table = await abandoned(make_service, frontend, clock)
    assert svc.public_view_as_shown(table).seats[0].autoplay  # she timed out into 托管
    for who in (BOB.player_id, "ai:standard:1"):
        await refused("not_seated", svc.resume(table, who))
    await svc.resume(table, ANN.player_id)
    await svc.flush()
    assert svc.public_view_as_shown(table).paused is None and not svc.public_view_as_shown(table).seats[0].autoplay
    assert frontend.notices("table.resumed")
    clock.advance(5)
    await svc.idle()
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert view.hand_no == 2 and view.deadline is not None
    await refused("not_paused", svc.resume(table, ANN.player_id))


async def test_back_from_autoplay_resumes(make_service, frontend, clock):
    svc, table = await abandoned(make_service, frontend, clock)
    await svc.set_autoplay(table, ANN.player_id, False)
    await svc.flush()
    assert svc.public_view_as_shown(table).paused is None


async def test_restart_keeps_a_paused_table_paused(make_service, frontend, clock, store, db_path):
    svc, table = await abandoned(make_service, frontend, clock)
    await svc.shutdown()
    fe2 = RecordingFrontEnd()
    async with await Store.open(db_path) as store2:
        second = TableService(store2, fe2, ai_delay=0, claim_pause=0, between_hands=5, clock=clock)
        assert await second.start() == [table]
        clock.advance(600)
        await second.idle()
        assert second.public_view_as_shown(table).paused == "nobody" and second.public_view_as_shown(table).hand_no == 1
        assert await store2.hand_numbers(table) == [1]
        await second.shutdown()


async def test_idle_close_posts_the_summary(make_service, frontend, clock, store):
    svc, table = await abandoned(make_service, frontend, clock, idle_close_minutes=30)
    clock.advance(29 * 60)
    await svc.idle()
    assert table in svc.tables()
    clock.advance(61)
    await svc.idle()
    assert table not in svc.tables() and (await store.get_table(table)).status == "closed"
    (summary,) = [c.args[0] for c in frontend.of("table_closed")]
    assert summary.reason == "idle" and summary.hands == 1 and summary.table_id == table
    nets = dict((p.player_id, n) for p, n in summary.net)
    assert sum(nets.values()) == 0 and set(nets) == {ANN.player_id, "ai:standard:1", "ai:standard:2"}
    seats = [s.player.player_id for s in frontend.boards(table)[-1].seats]
    assert nets == dict(zip(seats, frontend.results(table)[0].net, strict=True))
    paid = {}
    for tr in summary.transfers:
        paid[tr.from_player.player_id] = paid.get(tr.from_player.player_id, 0) - tr.amount
        paid[tr.to_player.player_id] = paid.get(tr.to_player.player_id, 0) + tr.amount
    assert {k: v for k, v in nets.items() if v} == {k: v for k, v in paid.items() if v}
    assert len(summary.transfers) <= 2
    winners = {w.player.player_id for w in frontend.results(table)[0].winners}
    if winners:  # the biggest hand is a winner's take, not kong money another seat collected in it
        hand_no, winner, amount = summary.biggest
        assert hand_no == 1 and winner.player_id in winners and amount == nets[winner.player_id]
        assert amount == max(nets[w] for w in winners)
    else:  # a drawn hand is nobody's win, whatever kong money moved
        assert summary.biggest is None


async def test_leave_takes_effect_at_the_end_of_the_hand(make_service, frontend, clock, store):
    svc = make_service(clock=clock, between_hands=5)
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.join(table, BOB)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    await svc.leave(table, BOB.player_id)  # the hand goes on, the AI plays his seat
    await svc.flush()
    board = svc.public_view_as_shown(table)
    assert board.paused is None and [s.autoplay for s in board.seats if s.player == BOB] == [True]
    assert frontend.notices("table.leaving")

    async def ann_plays() -> None:  # Ann is there: she plays every decision she gets
        for _ in range(20000):  # returns as soon as the hand is over
            await svc.flush()
            await asyncio.sleep(0.002)
            if frontend.results(table):
                return
            view = svc.private_view_as_shown(table, ANN.player_id)
            if view.choices:
                c = next((c for c in view.choices if c.verb in ("hu", "pass")), None) or next(
                    c for c in view.choices if c.verb == "discard")
                with contextlib.suppress(TableError):
                    await svc.act(table, ANN.player_id, c.verb, c.tile, step=view.step)

    await ann_plays()
    await finished_hands(frontend, table, 1)
    board = svc.public_view_as_shown(table)  # the pause is written before the result goes out
    assert board.paused == "seat_empty"
    assert await store.hand_numbers(table) == [1]  # the hand he left was played out and paid
    await refused("seat_empty", svc.resume(table, ANN.player_id))
    live = svc.live_table(table)
    seat_player = live.player_ids.index(BOB.player_id)
    live.state.reads.by_player[seat_player] = FeedRecord(3, 4.0)  # the AI had seen Bob throw declared waits
    await svc.join(table, CY)  # Cy takes the seat: the table plays on with her
    await svc.flush()
    assert seat_player not in live.state.reads.by_player  # Cy is not taken for a player who feeds
    assert svc.public_view_as_shown(table).paused is None
    clock.advance(5)
    await svc.idle()
    assert CY.player_id in [s.player.player_id for s in svc.public_view_as_shown(table).seats]
    assert BOB.player_id not in [s.player.player_id for s in svc.public_view_as_shown(table).seats]
    names = {p.player_id for p, _ in svc.table_of(table).summary.net}
    assert {BOB.player_id, CY.player_id} <= names  # the leaver keeps his line in the table's totals


async def test_host_fills_a_left_seat_with_an_ai_and_the_last_human_leaving_closes(make_service, frontend,
                                                                                   clock, store):
    svc, table = await abandoned(make_service, frontend, clock)
    await svc.leave(table, ANN.player_id)  # between hands: at once; nobody human is left → closed
    await svc.flush()
    assert table not in svc.tables()
    assert [c.args[0].reason for c in frontend.of("table_closed")] == ["empty"]


async def test_caps(make_service):
    svc = make_service()
    for i in range(2):
        await svc.open_table(GUILD, f"a{i}", ANN, max_open=3, max_hosted=2)
    await refused("too_many_hosted", svc.open_table(GUILD, "a3", ANN, max_open=3, max_hosted=2))
    await svc.open_table(GUILD, "b1", BOB, max_open=3, max_hosted=2)
    await refused("too_many_tables", svc.open_table(GUILD, "c1", CY, max_open=3, max_hosted=2))
    await svc.open_table("other", "c1", CY, max_open=3, max_hosted=2)  # another server has its own cap


async def test_a_channel_gone_closes_its_tables_at_once(make_service, frontend, clock, store):
    svc = make_service(clock=clock)
    table = await table_with(svc, ANN, seed="gone")
    other = await table_with(svc, BOB, channel="c2")
    await svc.start_game(table, by=ANN.player_id)
    await wait_prompt(frontend, svc, table, ANN.player_id)
    assert await svc.close_where(GUILD, "c1") == [table]
    await svc.flush()
    assert table not in svc.tables() and other in svc.tables()
    assert await store.hand_numbers(table) == []  # the hand in play is abandoned, as stop abandons it
    assert [c.args[0].reason for c in frontend.of("table_closed")] == ["channel_gone"]
    assert await svc.close_where(GUILD) == [other]  # the bot left the server


async def test_a_channel_lost_pause_stops_the_clock(make_service, frontend, clock):
    svc = make_service(clock=clock)
    table = await table_with(svc, ANN, seed="lost")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert await svc.pause(table, "channel_lost")
    assert not await svc.pause(table, "channel_lost")
    clock.advance(3600 * 0.4)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).step == view.step  # no timeout while paused
    await svc.resume(table, ANN.player_id)
    fresh = svc.private_view_as_shown(table, ANN.player_id)
    assert fresh.deadline is not None and fresh.deadline > clock.now + 5  # a full fresh deadline


async def test_a_demo_table_ends_at_its_hand_limit(make_service, frontend):
    svc = make_service(ai_delay=0, between_hands=0, demo_hands=2)
    host = PlayerRef("ai:standard:1", "AI 1", "standard")
    table = await table_with(svc, host, seed="demo", channel=None)
    await svc.start_game(table, by=host.player_id)
    await frontend.wait_for(lambda: bool(frontend.of("table_closed")))
    (summary,) = [c.args[0] for c in frontend.of("table_closed")]
    assert summary.reason == "hand_limit" and summary.hands == 2 and len(frontend.results(table)) == 2
