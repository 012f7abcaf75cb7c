"""What a seat's private view tells of the table beside its own tiles: the latest discard, the wall, how many of
each wait it has not seen, and the tiles whose discard lets a 亮倒 hand 直杠 — public facts only."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from tests.support.players import ANN
from tests.support.tables import table_with, wait_prompt

# Ann deals (seat 0) and declares 亮倒 on 7z, revealing 111p 456p 789p 123s 5s (waiting on 5s); seat 1 holds six
# pairs, 1p and draws 9p: discarding 1p feeds Ann's triplet a 直杠 and leaves seven pairs waiting on 9p.
DEALS = ("111p456p789p123s5s7z", "44668899s5566z1p", "2245678p11789s3s")


async def test_the_next_seat_sees_the_kong_it_would_feed_and_how_many_of_its_waits_are_left(
        make_service, frontend, script):
    script(*DEALS, draws="9p", dealer=0)
    svc = make_service(ai_delay=60)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert view.kong_feed == {} and view.last_discard is None
    await svc.act(table, ANN.player_id, "liangdao", "7z", step=view.step)
    await svc.flush()
    seats = svc.public_view_as_shown(table).seats
    nxt = svc.private_view_as_shown(table, seats[1].player.player_id)
    assert nxt.drawn == Tile.P9 and nxt.last_discard == (0, Tile.RED)
    assert nxt.wall_remaining == svc.public_view_as_shown(table).wall_remaining
    assert nxt.kong_feed == {Tile.P1: (0, 2)}  # 直杠 pays 2 × base 1, and Ann keeps her wait on 5s after it
    assert nxt.discard_waits[Tile.P1] == (Tile.P9,)
    # 9p: her own, and the one in Ann's revealed 789p, are seen; 1p: her own and Ann's three
    assert nxt.unseen[Tile.P9] == 2 and nxt.unseen[Tile.P1] == 0
    ann = svc.private_view_as_shown(table, ANN.player_id)
    assert ann.kong_feed == {}  # not her turn, and her own triplet is no danger to her


async def test_a_triplet_whose_kong_would_change_the_waits_is_no_kong_tile(make_service, frontend, script):
    # Ann reveals 1112p 456p 555s 789s (waiting on 2p and 3p): a 直杠 of 5s keeps both waits, one of 1p would
    # leave only 2p, which a locked hand may not do
    script("1112p456p555789s7z", "44668899s566z1p5s", "2245678p11789s3s", draws="9p", dealer=0)
    svc = make_service(ai_delay=60)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    await svc.act(table, ANN.player_id, "liangdao", "7z", step=view.step)
    await svc.flush()
    nxt = svc.private_view_as_shown(table, svc.public_view_as_shown(table).seats[1].player.player_id)
    assert {c.tile for c in nxt.choices if c.verb == "discard"} >= {Tile.P1, Tile.S5}
    assert nxt.kong_feed == {Tile.S5: (0, 2)}
