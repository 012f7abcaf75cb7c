"""The terminal's one dispatcher (kwx.local.dispatch) in the line mode: auto-pass is a setting of the service's that
the line mode turns on and off, shows and keeps; 摸切 and the Chinese words. (The game screen's side: test_app.py.)"""

from __future__ import annotations

from kwx.engine.tiles import Tile
from kwx.local.lines import ScriptedLines
from tests.support.terminal import Recorder, run, table_for
from tests.support.terminal import my_turn as turn_view


async def test_autopass_in_the_line_mode_is_the_services_setting_shown_in_the_status_and_kept(tmp_path) -> None:
    db = tmp_path / "k.sqlite3"
    rec = Recorder()
    text = await run(db, ScriptedLines(["autopass", "hand", "quit"]), rec, seed="ap")
    assert "Auto-pass on: every claim you could make, other than a win, is passed for you at once" in text
    board = text[text.index("Auto-pass on:"):]
    assert "Auto-pass: on" in board  # the board's status line, after `hand`
    assert rec.service is not None
    again = await run(db, ScriptedLines(["hand", "autopass off", "quit"]))
    assert "Auto-pass: on" in again.split("Auto-pass off")[0]  # kept in the store: the next run shows it on
    assert "Auto-pass off: you are asked about every claim again." in again


async def test_the_line_mode_speaks_autopass_and_moqie_in_chinese() -> None:
    table, service, console = table_for(turn_view(), lang="zh-CN")
    await table.handle_line("自动过 开")
    assert service.settings["auto_pass"] is True and "自动过已开" in console.export_text()
    await table.handle_line("摸切")  # the tile just drawn (8s)
    assert service.acts == [("discard", Tile.S8, 7)]
