"""The operator's log (kwx/table/oplog.py): one INFO line per table event, naming the table and its server,
and never a tile of anyone's hand in any line at INFO or above."""

from __future__ import annotations

import logging
import re

from kwx.engine.tiles import Tile
from tests.support.players import ANN, GUILD
from tests.support.tables import table_with

# A tile in any notation a line could carry one in: compact (5p, 7z), Chinese (五筒, 红中), or repr (Tile.P5).
TILE_TEXT = re.compile(r"\b[1-9]+[psz]\b|\bTile\.\w+|" + "|".join(re.escape(t.chinese) for t in Tile))


async def test_each_table_event_is_one_info_line_with_table_and_server_and_no_tile(make_service, frontend,
                                                                                   caplog):
    caplog.set_level(logging.DEBUG)
    svc = make_service()
    table = await table_with(svc, ANN)
    await svc.start_game(table, by=ANN.player_id)
    await svc.set_autoplay(table, ANN.player_id, True)  # the AI plays Ann's concealed hand for her
    await frontend.wait_for(lambda: len(frontend.results(table)) >= 1, timeout=30)
    await frontend.wait_for(lambda: svc.public_view_as_shown(table).paused is not None)  # nobody played: paused
    await svc.stop(table, ANN.player_id)
    await svc.flush()
    events = [r.getMessage() for r in caplog.records if r.name == "kwx.table.events"]
    prefix = f"table {table} guild {GUILD}: "
    assert all(line.startswith(prefix) for line in events)
    told = [line.removeprefix(prefix) for line in events]
    assert told[:2] == [f"opened in channel c1 by {ANN.player_id} (rules standard)",
                        f"game started: {ANN.player_id}, ai:standard:1, ai:standard:2"]
    assert told[2].startswith("hand 1 recorded: ") and told[3:] == ["paused (nobody)",
                                                                   "closed (stopped) after 1 hand(s)"]
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == "kwx.table.events")
    assert any(view.concealed for view, _ in frontend.private(ANN.player_id))  # Ann had a concealed hand
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert [line for line in loud if TILE_TEXT.search(line)] == []


def test_the_tile_pattern_finds_tiles_in_every_notation():
    # The check above is only as good as this pattern: it must see a tile written any way a log line could.
    for line in ("discarded 5p", "hand 11223p", "drew 五筒", "pung of 红中", "Tile.P5", "wait on 7z."):
        assert TILE_TEXT.search(line), line
    assert not TILE_TEXT.search("table 12 guild 345: hand 3 recorded: won by 100 8 fan; 100 +16, ai:standard:1 -8")
