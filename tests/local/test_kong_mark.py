"""The terminal marks the fourth tile of a 亮倒 hand's revealed triplet (its discard pays that hand a 直杠) as it
marks 胡口牌."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from tests.support.terminal import my_turn, table_for


def _marked(row) -> set[str]:
    return {row.plain[s.start:s.end].strip() for s in row.spans if "reverse" in str(s.style)}


def test_a_kong_tile_is_marked_in_the_hand_row() -> None:
    plain = my_turn()
    table, _, _ = table_for(plain, lang="en")
    renderer = table.frontend
    assert _marked(renderer.hand_row(plain)[0]) == set()
    view = my_turn(kong_feed={Tile.S9: (2, 2)})
    assert _marked(renderer.hand_row(view)[0]) == {"9s"}
    assert "9s⚠" in renderer.hand_row(view)[0].plain  # a character as well as the style
