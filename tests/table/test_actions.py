"""A human seat's actions: refusals with the right code (not your turn, illegal, bad tile, stale, double
submission, unknown table), and accepted actions that reach the board and the private panels."""

from __future__ import annotations

import asyncio

from kwx.engine.tiles import Tile
from kwx.table import ActionChoice, TableError
from tests.support.players import ANN
from tests.support.tables import AI_DEALS_7Z, ANN_DEALS, refused, table_with, wait_prompt


async def test_turn_refusals_and_a_discard(make_service, frontend, script):
    script(*ANN_DEALS, dealer=0)
    svc = make_service(ai_delay=60)  # the AIs think for a minute: the table stays where the test puts it
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert view.seat == 0 and view.drawn is None and len(view.concealed) == 14
    assert {c.verb for c in view.choices} == {"discard", "liangdao"}
    assert view.discard_waits == {Tile.S5: (Tile.RED,), Tile.RED: (Tile.S5,)}
    await svc.flush()
    assert frontend.last_prompt(ANN.player_id) == view

    await refused("bad_tile", svc.act(table, ANN.player_id, "discard", "9s", step=view.step))
    await refused("bad_tile", svc.act(table, ANN.player_id, "discard", "9x", step=view.step))
    await refused("bad_tile", svc.act(table, ANN.player_id, "liangdao", "1p", step=view.step))
    await refused("illegal", svc.act(table, ANN.player_id, "peng", step=view.step))
    await refused("illegal", svc.act(table, ANN.player_id, "hu", step=view.step))
    await refused("illegal", svc.act(table, ANN.player_id, "chow", "1p"))
    await refused("illegal", svc.act(table, ANN.player_id, "piao", amount=1))
    await refused("stale", svc.act(table, ANN.player_id, "discard", "7z", step=view.step + 5))
    await refused("no_table", svc.act(table + 1, ANN.player_id, "discard", "7z"))
    await refused("not_seated", svc.act(table, "999", "discard", "7z"))
    # nothing changed
    assert svc.private_view_as_shown(table, ANN.player_id) == view

    await svc.act(table, ANN.player_id, "discard", Tile.RED, step=view.step)
    await svc.flush()
    board = frontend.boards(table)[-1]
    assert board.seats[0].discards == (Tile.RED,) and board.turn_seat == 1 and board.phase == "turn"
    assert board.last_events[0] == {"kind": "discard", "seat": 0, "tile": "7z", "auto": False, "liangdao": False}
    after = svc.private_view_as_shown(table, ANN.player_id)
    assert after.choices == () and Tile.RED not in after.concealed and after.waits == (Tile.S5,)
    assert frontend.private(ANN.player_id)[-1] == (after, False)  # a silent update after her own discard

    await refused("stale", svc.act(table, ANN.player_id, "discard", "5s", step=view.step))  # the same press again
    await refused("not_your_turn", svc.act(table, ANN.player_id, "discard", "5s"))


async def test_double_submission_acts_once(make_service, frontend, script):
    script(*ANN_DEALS, dealer=0)
    svc = make_service(ai_delay=60)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    outcomes = await asyncio.gather(
        svc.act(table, ANN.player_id, "discard", "7z", step=view.step),
        svc.act(table, ANN.player_id, "discard", "7z", step=view.step), return_exceptions=True)
    errors = [o for o in outcomes if isinstance(o, TableError)]
    assert outcomes.count(None) == 1 and [e.code for e in errors] == ["stale"]
    assert svc.public_view_as_shown(table).seats[0].discards == (Tile.RED,)
    assert svc.public_view_as_shown(table).step == view.step + 1


async def test_liangdao_reveals_the_hand_not_the_draw(make_service, frontend, script):
    script(*ANN_DEALS, dealer=0)
    svc = make_service(ai_delay=60)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    await svc.act(table, ANN.player_id, "liangdao", "7z", step=view.step)
    await svc.flush()
    (call,) = frontend.of("liangdao_revealed")
    board, seat = call.args
    assert seat == 0 and board.seats[0].liangdao and board.seats[0].waits == (Tile.S5,)
    assert board.seats[0].revealed == tuple(view.concealed[:-1])  # her 13 tiles without the 7z
    assert any(e["kind"] == "liangdao" for e in board.last_events)


async def test_claiming_a_discard(make_service, frontend, script):
    script(*AI_DEALS_7Z, dealer=1)
    svc = make_service(ai_delay=0)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert view.claim_tile == Tile.RED
    assert set(view.choices) == {ActionChoice("peng"), ActionChoice("pass")}
    board = svc.public_view_as_shown(table)
    assert board.phase == "claim" and board.claim_tile == Tile.RED and board.turn_seat == 1
    await refused("illegal", svc.act(table, ANN.player_id, "hu", step=view.step))
    await refused("illegal", svc.act(table, ANN.player_id, "discard", "1p", step=view.step))
    await svc.act(table, ANN.player_id, "peng", "7z", step=view.step)  # the claimed tile may be named
    after = await wait_prompt(frontend, svc, table, ANN.player_id, after=view.step)
    assert after.drawn is None and {c.verb for c in after.choices} <= {"discard", "liangdao"}
    assert after.melds[0].kind == "pung" and after.melds[0].tile == Tile.RED and after.melds[0].from_seat == 1
    public = svc.public_view_as_shown(table)
    assert public.seats[0].melds[0].from_seat == 1 and public.seats[1].discards == ()
