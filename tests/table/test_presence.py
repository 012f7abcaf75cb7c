"""Presence as the players see it: leaving between hands empties the seat and pauses the table until someone
takes it (the leaver's own seat when they come back, an AI seat when the host adds one), a table paused for a
lost channel, the idle close to the second, closing every table of a channel or server that went away, and
the listings of open tables."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from kwx.table import PlayerRef, TableError, TableService
from kwx.table.recovery import rebuild
from tests.support.clock import FakeClock
from tests.support.frontends import RecordingFrontEnd
from tests.support.players import ANN, BOB, CY, GUILD
from tests.support.tables import refused

OTHER_GUILD = "g2"


async def play_out(svc: TableService, frontend: RecordingFrontEnd, table: int, players: list[PlayerRef]) -> None:
    """The humans play every decision they get (a win or a pass when offered, else a discard) until the hand
    in play ends."""
    before = len(frontend.results(table))
    for _ in range(3000):
        await svc.flush()
        await asyncio.sleep(0.002)
        if len(frontend.results(table)) > before:
            return
        for player in players:
            try:
                view = svc.private_view_as_shown(table, player.player_id)
            except TableError:
                continue
            if view.choices:
                choice = next((c for c in view.choices if c.verb in ("hu", "pass")), None) or next(
                    c for c in view.choices if c.verb == "discard")
                with contextlib.suppress(TableError):
                    await svc.act(table, player.player_id, choice.verb, choice.tile, step=view.step)
    raise AssertionError("the hand never ended")


async def between_hands(make_service, frontend: RecordingFrontEnd, clock: FakeClock, humans: list[PlayerRef],
                        ais: int) -> tuple[TableService, int]:
    """A table of these humans (the first hosts) and AI seats that has played one hand, all of them present."""
    svc = make_service(clock=clock, between_hands=5)
    table = await svc.open_table(GUILD, "c1", humans[0])
    for player in humans[1:]:
        await svc.join(table, player)
    for _ in range(ais):
        await svc.add_ai(table, by=humans[0].player_id)
    await svc.start_game(table, by=humans[0].player_id)
    await play_out(svc, frontend, table, humans)
    await svc.flush()
    board = svc.public_view_as_shown(table)
    assert board.phase == "finished" and board.paused is None and board.hand_no == 1
    return svc, table


def pauses(frontend: RecordingFrontEnd) -> list[str]:
    return [c.args[1] for c in frontend.of("table_paused")]


async def test_leaving_between_hands_pauses_until_someone_takes_the_seat(make_service, frontend, clock):
    svc, table = await between_hands(make_service, frontend, clock, [ANN, BOB], ais=1)
    await svc.leave(table, BOB.player_id)
    await svc.flush()
    board = svc.public_view_as_shown(table)
    assert board.paused == "seat_empty" and pauses(frontend) == ["seat_empty"]
    assert frontend.notices("table.leaving") and frontend.notices("table.paused.seat_empty")
    await refused("not_seated", svc.leave(table, BOB.player_id))  # his seat is empty already
    await refused("seat_empty", svc.resume(table, ANN.player_id))
    clock.advance(600)
    await svc.idle()
    assert svc.public_view_as_shown(table).paused == "seat_empty" and svc.public_view_as_shown(table).hand_no == 1

    await refused("already_seated", svc.join(table, ANN))  # Ann has her seat
    await svc.join(table, CY)
    await svc.flush()
    assert svc.public_view_as_shown(table).paused is None
    assert svc.table_of(table).players == (ANN, CY, svc.table_of(table).players[2])  # in Bob's seat from the next hand
    (taken,) = frontend.notices("table.seat_taken")
    assert taken.kwargs["player_id"] == CY.player_id
    (resumed,) = frontend.notices("table.resumed")
    assert resumed.kwargs == {"player": "Cy", "player_id": CY.player_id}  # who played on is named
    await refused("already_seated", svc.join(table, CY))
    clock.advance(5)
    await svc.idle()
    assert svc.public_view_as_shown(table).hand_no == 2 and CY in [s.player for s in svc.public_view_as_shown(table).seats]


async def test_a_leaver_who_comes_back_takes_their_own_seat_and_the_last_seat_resumes(make_service, frontend,
                                                                                     clock, store):
    svc, table = await between_hands(make_service, frontend, clock, [ANN, BOB, CY], ais=0)
    await svc.leave(table, BOB.player_id)
    await svc.leave(table, CY.player_id)  # Ann is still there: the table waits for two players
    await svc.flush()
    assert pauses(frontend) == ["seat_empty"] and table in svc.tables()  # paused once, not closed
    await svc.join(table, CY)  # Cy is back: her own seat, not Bob's
    await svc.flush()
    assert svc.table_of(table).players == (ANN, CY)  # seat 2: Bob's seat is still empty
    assert svc.public_view_as_shown(table).paused == "seat_empty"
    replayed = rebuild(await store.get_table(table), await store.load_events(table))  # a restart now
    assert replayed.player_ids == (ANN.player_id, BOB.player_id, CY.player_id) and replayed.vacant == [BOB.player_id]
    ai = await svc.add_ai(table, by=ANN.player_id)  # the host fills it with an AI player
    await svc.flush()
    assert svc.public_view_as_shown(table).paused is None and svc.table_of(table).players == (ANN, ai, CY)
    assert ai.ai_level == "standard" and ai.is_ai  # an AI seat, played by the AI
    clock.advance(5)
    await svc.idle()
    assert [s.player for s in svc.public_view_as_shown(table).seats] == [ANN, ai, CY]  # hand 2: ai plays Bob's seat
    assert [c.kwargs["player_id"] for c in frontend.notices("table.resumed")] == [ai.player_id]


async def test_a_lost_channel_pauses_the_table_once(make_service, frontend, clock):
    svc = make_service(clock=clock)
    table = await svc.open_table(GUILD, "c1", ANN)
    assert await svc.pause(table, "channel_lost") is False  # a lobby plays nothing: nothing to pause
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    assert await svc.pause(table, "channel_lost") is True
    assert await svc.pause(table, "channel_lost") is False
    await svc.flush()
    assert svc.public_view_as_shown(table).paused == "channel_lost" and pauses(frontend) == ["channel_lost"]
    assert frontend.notices("table.paused.channel_lost")
    await svc.resume(table, ANN.player_id)
    await refused("not_paused", svc.resume(table, ANN.player_id))


async def test_a_paused_table_closes_when_idle_to_the_second(make_service, frontend, clock, store):
    svc = make_service(clock=clock, idle_close_minutes=30)
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    await svc.pause(table, "channel_lost")
    clock.advance(30 * 60 - 1)
    await svc.idle()
    assert table in svc.tables()
    clock.advance(1)
    await svc.idle()
    assert table not in svc.tables() and (await store.get_table(table)).status == "closed"
    assert frontend.notices("table.closed.idle")
    assert [c.args[0].reason for c in frontend.of("table_closed")] == ["idle"]


async def test_a_channel_or_server_that_went_away_closes_its_tables_and_no_other(make_service, frontend):
    svc = make_service()
    elsewhere = await svc.open_table(OTHER_GUILD, "c1", ANN)  # first: closing goes past it
    one = await svc.open_table(GUILD, "c1", ANN)
    two = await svc.open_table(GUILD, "c2", BOB)
    three = await svc.open_table(GUILD, None, CY)
    assert await svc.close_where(GUILD, "c1") == [one]
    assert svc.tables() == [elsewhere, two, three]
    assert await svc.close_where(GUILD) == [two, three]
    assert svc.tables() == [elsewhere]
    await svc.flush()
    assert {b.table_id for b in frontend.boards() if b.phase == "closed"} == {one, two, three}
    assert len(frontend.notices("table.closed.channel_gone")) == 3
    await refused("closed", svc.join(one, BOB))


async def test_the_listings_of_open_tables(make_service, frontend, clock):
    svc = make_service(clock=clock)
    elsewhere = await svc.open_table(OTHER_GUILD, "c9", BOB)
    first = await svc.open_table(GUILD, "c1", ANN)
    second = await svc.open_table(GUILD, "c2", CY)
    await svc.add_ai(second, by=CY.player_id)
    await svc.add_ai(second, by=CY.player_id)
    await svc.start_game(second, by=CY.player_id)
    await svc.pause(second, "channel_lost")
    closed = await svc.open_table(GUILD, "c3", BOB)
    await svc.stop(closed, BOB.player_id)

    assert [i.table_id for i in svc.table_infos(GUILD)] == [first, second]
    assert [i.table_id for i in svc.table_infos()] == [elsewhere, first, second]
    assert svc.tables_in([GUILD]) == [first, second] and svc.tables_in([OTHER_GUILD, "nowhere"]) == [elsewhere]
    assert svc.table_of(closed) is None and svc.table_of(999) is None
    lobby = svc.table_of(first)
    assert lobby is not None and (lobby.status, lobby.paused, lobby.hands, lobby.host) == ("lobby", None, 0, ANN)
    assert lobby.players == (ANN,) and lobby.channel == "c1" and lobby.guild == GUILD
    paused = svc.table_of(second)
    assert paused is not None and (paused.status, paused.paused) == ("paused", "channel_lost")
    assert paused.last_human_at is None and paused.summary.reason == "open" and paused.summary.hands == 0
    assert [p.player_id for p in paused.players] == [CY.player_id, "ai:standard:1", "ai:standard:2"]


async def test_the_last_human_leaving_during_a_hand_closes_the_table_at_its_end(make_service, frontend, clock,
                                                                                 store, caplog):
    caplog.set_level(logging.INFO, logger="kwx.table.events")
    svc = make_service(clock=clock, between_hands=5)
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    await svc.leave(table, ANN.player_id)  # the AI plays her seat to the end of the hand, then the table closes
    await frontend.wait_for(lambda: bool(frontend.of("table_closed")), timeout=30)
    await svc.flush()
    (summary,) = [c.args[0] for c in frontend.of("table_closed")]
    assert summary.reason == "empty" and summary.hands == 1 and summary.host == ANN
    assert frontend.notices("table.closed.empty") and not frontend.of("table_paused")
    assert await store.hand_numbers(table) == [1] and table not in svc.tables()  # the hand was paid
    told = [r.getMessage() for r in caplog.records if r.name == "kwx.table.events"]
    assert any(f"{ANN.player_id} leaves" in line for line in told)


async def test_a_seat_taken_is_in_the_operators_log(make_service, frontend, clock, caplog):
    svc, table = await between_hands(make_service, frontend, clock, [ANN, BOB], ais=1)
    caplog.set_level(logging.INFO, logger="kwx.table.events")
    await svc.leave(table, BOB.player_id)
    await svc.join(table, CY)
    told = [r.getMessage() for r in caplog.records if r.name == "kwx.table.events"]
    assert any(f"{BOB.player_id} leaves" in line for line in told)
    assert any(f"{CY.player_id} takes the seat {BOB.player_id} left" in line for line in told)
    info = svc.table_of(table)
    assert info is not None and info.last_human_at == clock.now and info.hands == 1  # Cy sat down just now


async def test_an_idle_timer_that_fires_early_waits_for_its_time(make_service, frontend, clock):
    """The timers run on the event loop; the idle close checks the table's own clock when one fires."""
    svc = make_service(clock=clock, idle_close_minutes=0.001)  # 0.06 s
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    await svc.pause(table, "channel_lost")
    await asyncio.sleep(0.3)  # the timer fired, but by the table's clock no time has passed
    assert table in svc.tables() and svc.stats.errors == 0
    clock.advance(0.06)
    await frontend.wait_for(lambda: bool(frontend.of("table_closed")), timeout=5)
    assert table not in svc.tables() and svc.stats.errors == 0


def test_the_service_says_how_it_was_set_up(make_service):
    svc = make_service(ai_delay=0.5, between_hands=7, idle_close_minutes=3, demo_hands=None, claim_pause=0.2)
    assert (svc.ai_delay, svc.between_hands, svc.idle_close_minutes, svc.demo_hands, svc.claim_pause) == (
        0.5, 7, 3, None, 0.2)
