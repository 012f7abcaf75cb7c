"""胡口牌 in the private view: once a seat declares 亮倒, every other seat's view names the tiles that win for
it (its waits are public), and says whether feeding one would be 包胡."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from tests.support.players import ANN
from tests.support.tables import table_with, wait_prompt

# Ann deals (seat 0) a hand ready after discarding 7z: 亮倒 waiting on 5s.
ANN_DEALS = ("123p456p789p123s5s7z", "44668899s5566z3p", "1122456789p117s")


async def test_other_seats_see_the_tiles_that_win_for_a_liangdao_hand(make_service, frontend, script):
    script(*ANN_DEALS, dealer=0)
    svc = make_service(ai_delay=60)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    others = [s.player.player_id for s in svc.public_view_as_shown(table).seats if s.seat != 0]
    assert all(svc.private_view_as_shown(table, pid).danger == {} for pid in others)  # nobody declared yet
    await svc.act(table, ANN.player_id, "liangdao", "7z", step=view.step)
    await svc.flush()
    for pid in others:
        other = svc.private_view_as_shown(table, pid)
        assert other.danger == {Tile.S5: (0,)} and other.baohu_risk
    assert svc.private_view_as_shown(table, ANN.player_id).danger == {}  # her own waits are not a danger to her
