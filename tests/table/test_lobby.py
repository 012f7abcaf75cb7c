"""The lobby: open, join, leave, add AI, spectate, start (too few → refused), full tables, host rights,
one table per channel, and a lobby that survives a restart."""

from __future__ import annotations

from kwx.engine.rules import RuleSet
from kwx.table import PlayerRef
from tests.support.players import ANN, BOB, CY, DEE, GUILD
from tests.support.tables import refused


async def test_open_join_leave_and_the_board_follows(make_service, frontend, store):
    svc = make_service()
    table = await svc.open_table(GUILD, "c1", ANN)
    assert svc.table_in_channel(GUILD, "c1") == table
    assert svc.tables() == [table]
    await svc.join(table, BOB)
    await svc.flush()
    board = frontend.boards(table)[-1]
    assert board.phase == "lobby" and [s.player for s in board.seats] == [ANN, BOB]
    assert [c.args[1] for c in frontend.notices()] == ["lobby.joined"]

    await svc.leave(table, BOB.player_id)
    await svc.flush()
    assert [s.player for s in frontend.boards(table)[-1].seats] == [ANN]
    assert frontend.notices()[-1].args[1] == "lobby.left"
    # names land in the store's players table
    assert await store.player_name(GUILD, BOB.player_id) == "Bob"


async def test_refusals_in_the_lobby(make_service):
    svc = make_service()
    table = await svc.open_table(GUILD, "c1", ANN)
    await refused("table_exists", svc.open_table(GUILD, "c1", BOB))
    await refused("already_seated", svc.join(table, ANN))
    await refused("not_host", svc.add_ai(table, by=BOB.player_id))
    await refused("not_host", svc.start_game(table, by=BOB.player_id))
    await refused("need_players", svc.start_game(table, by=ANN.player_id))
    await refused("not_seated", svc.leave(table, DEE.player_id))
    await refused("not_started", svc.act(table, ANN.player_id, "discard", "5p"))
    await refused("not_seated", svc.act(table, DEE.player_id, "discard", "5p"))
    await refused("no_table", svc.join(table + 99, BOB))
    await refused("illegal", svc.add_ai(table, "genius"))

    await svc.join(table, BOB)
    ai = await svc.add_ai(table, "simple", by=ANN.player_id)
    assert ai.is_ai and ai.player_id.startswith("ai:simple:")
    await refused("table_full", svc.join(table, CY))
    await refused("table_full", svc.add_ai(table))
    await svc.start_game(table, by=ANN.player_id)
    await refused("already_started", svc.start_game(table, by=ANN.player_id))
    await refused("already_started", svc.join(table, CY))
    await refused("not_seated", svc.leave(table, CY.player_id))  # leaving a started game: tests/table/test_lifecycle.py


async def test_rotation_needs_four(make_service):
    svc = make_service()
    table = await svc.open_table(GUILD, None, ANN, rules=RuleSet.preset("standard", rotation=True))
    await svc.join(table, BOB)
    await svc.add_ai(table)
    await refused("need_players", svc.start_game(table, by=ANN.player_id))
    await svc.join(table, DEE)
    await refused("table_full", svc.join(table, CY))
    assert svc.public_view_as_shown(table).waiting_player == DEE and svc.public_view_as_shown(table).capacity == 4


async def test_spectators_and_host_handover(make_service, frontend):
    svc = make_service()
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.spectate(table, CY)
    assert svc.spectators(table) == [CY]
    await svc.flush()  # the board a front end gets says who watches and who hosts: it asks nothing else
    board = frontend.boards(table)[-1]
    assert board.spectators == (CY,) and board.host == ANN and board.capacity == 3 and board.piao_max == 0
    await svc.join(table, CY)  # a spectator may take a seat
    assert svc.spectators(table) == []
    await svc.leave(table, ANN.player_id)
    assert svc.host(table) == CY.player_id
    await svc.flush()
    assert frontend.boards(table)[-1].host == CY and frontend.boards(table)[-1].spectators == ()
    await svc.add_ai(table, by=CY.player_id)
    await svc.leave(table, CY.player_id)  # the last human leaves: the table closes
    await refused("closed", svc.join(table, BOB))
    assert svc.table_in_channel(GUILD, "c1") is None
    await svc.flush()
    assert frontend.boards(table)[-1].phase == "closed"


async def test_stop_needs_the_host_or_force(make_service, store):
    svc = make_service()
    table = await svc.open_table(GUILD, "c1", ANN)
    await refused("not_host", svc.stop(table, BOB.player_id))
    await svc.stop(table, BOB.player_id, force=True)
    await refused("closed", svc.act(table, ANN.player_id, "pass"))
    assert await store.unfinished_tables() == []


async def test_the_lobby_survives_a_restart(make_service, store, frontend):
    first = make_service()
    table = await first.open_table(GUILD, "c1", ANN, turn_seconds=20, claim_seconds=5)
    await first.join(table, BOB)
    await first.spectate(table, CY)
    await first.shutdown()

    second = make_service()
    assert await second.start() == [table]
    view = second.public_view_as_shown(table)
    assert [s.player for s in view.seats] == [ANN, BOB] and view.phase == "lobby"
    assert second.spectators(table) == [CY]
    assert second.host(table) == ANN.player_id
    ai = await second.add_ai(table, by=ANN.player_id)
    await second.start_game(table, by=ANN.player_id)
    assert second.public_view_as_shown(table).phase in ("turn", "claim")
    assert ai in [s.player for s in second.public_view_as_shown(table).seats]
    assert isinstance(ai, PlayerRef)
