"""The scripted players of the loopback Discord answer every panel the bot can show them: a player who
cannot answer one waits for ever, and the end-to-end game stalls as if the bot had lost a prompt."""

from __future__ import annotations

from typing import Any

from cogs.panels import CONFIRM, panel_buttons
from kwx.devtools.loopback.players import choose
from kwx.engine.tiles import Tile
from kwx.table.views import ActionChoice
from tests.support.panels import EMOJIS, TURN, panel_view


def _wire(view: Any) -> list[dict[str, Any]]:
    """The buttons as Discord hands them to a client (the payload the loopback stores)."""
    return [button for row in view.to_components() for button in row["components"]]


def test_a_scripted_player_confirms_a_discard_that_the_panel_asks_about() -> None:
    view = panel_view(choices=TURN, danger={Tile.RED: (1,)})
    asked = panel_buttons(view, "en", EMOJIS, mode=CONFIRM, confirm=ActionChoice("discard", Tile.RED))
    picked = choose(_wire(asked))
    assert picked is not None and picked["custom_id"] == "kwx:act:7:2:31:dok:7z"


def test_a_scripted_player_discards_on_a_plain_turn_and_wins_when_it_can() -> None:
    view = panel_view(choices=TURN)
    picked = choose(_wire(panel_buttons(view, "en", EMOJIS)))
    assert picked is not None and ":discard:" in picked["custom_id"]
    won = panel_view(choices=(*TURN, ActionChoice("hu")))
    assert choose(_wire(panel_buttons(won, "en", EMOJIS)))["custom_id"].endswith(":hu:-")  # type: ignore[index]
