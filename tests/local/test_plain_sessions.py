"""The line mode across runs and 托管: a deal's header once, resuming between hands shows the hand that ended,
resuming inside a claim window shows the board, no timer by default, and any line you type ends 托管."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from kwx.local.lines import ScriptedLines
from kwx.local.plain import ConsoleFrontEnd, TerminalTable, play_terminal
from tests.support.terminal import YOU, FakeService, QuitWhen, Recorder, board, make_console, my_turn, run


async def test_a_deal_prints_its_header_once_and_quit_names_kwx_play(tmp_path) -> None:
    text = await run(tmp_path / "k.sqlite3", ScriptedLines(["hand", "quit"]), seed="hdr")
    assert text.count("━━ Hand 1 ·") == 1
    assert "run kwx play again" in text and "`" not in text  # the installed command, as code without backticks
    assert text.rstrip().endswith("(in a checkout: make run).")  # nothing printed after you left


async def test_a_new_terminal_table_has_no_timer_unless_asked(tmp_path) -> None:
    rec = Recorder()
    await run(tmp_path / "a.sqlite3", QuitWhen(rec, lambda fe: fe.hand is not None and bool(fe.hand.choices)),
              rec, seed="t1")
    assert rec.fe is not None and rec.fe.hand is not None and rec.fe.hand.deadline is None
    assert "Your turn" in rec.fe.prompt_text() and "left" not in rec.fe.prompt_text()
    rec2 = Recorder()
    await run(tmp_path / "b.sqlite3", QuitWhen(rec2, lambda fe: fe.hand is not None and bool(fe.hand.choices)),
              rec2, seed="t1", turn_seconds=45)
    assert rec2.fe is not None and rec2.fe.hand is not None and rec2.fe.hand.deadline is not None
    assert "s left" in rec2.fe.prompt_text()


async def test_resuming_between_hands_shows_the_hand_that_ended(tmp_path) -> None:
    db = tmp_path / "k.sqlite3"
    rec = Recorder()
    await run(db, QuitWhen(rec, lambda fe: bool(fe.results_shown)), rec, seed="between")
    text = await run(db, ScriptedLines(["quit"]))
    assert "Resuming table" in text
    assert "Result of hand 1" in text and "Table total" in text
    assert "Melds / Discards" not in text  # not the finished board as if it were live


async def test_resuming_inside_a_claim_window_shows_the_board(tmp_path) -> None:
    db = tmp_path / "k.sqlite3"
    rec = Recorder()

    def claim_open(fe: ConsoleFrontEnd) -> bool:
        return fe.hand is not None and any(c.verb == "pass" for c in fe.hand.choices)

    for seed in ("claim1", "claim2", "claim3", "claim4"):
        rec.fe = None
        await run(db, QuitWhen(rec, lambda fe: claim_open(fe) or bool(fe.results_shown)), rec, seed=seed)
        if rec.fe is not None and claim_open(rec.fe) and not rec.fe.results_shown:
            break
        db = tmp_path / f"{seed}.sqlite3"
    else:
        raise AssertionError("no claim offered in four hands")
    text = await run(db, ScriptedLines(["quit"]))
    assert "Melds / Discards" in text and "you may" in text


async def test_any_line_ends_autoplay_and_back_is_understood() -> None:
    class Service(FakeService):
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **kw)
            self.autoplay_calls: list[bool] = []

        async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
            assert player_id == YOU.player_id
            self.autoplay_calls.append(on)
            self.hand = replace(self.hand, autoplay=on)

    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en")
    service = Service(board(), replace(my_turn(), autoplay=True))
    table = TerminalTable(service, fe, 1)
    await fe.notice(1, "event.autoplay_on", player="你", player_id=YOU.player_id)
    shown = console.export_text(clear=True)
    assert "Autoplay: the computer is playing for you" in shown and "back" in shown
    assert await table.handle_line("") is True  # Enter: back in your seat, nothing played
    assert service.autoplay_calls == [False] and service.acts == []
    service.hand = replace(service.hand, autoplay=True)
    assert await table.handle_line("back") is True
    assert service.autoplay_calls == [False, False] and service.acts == []
    service.hand = replace(service.hand, autoplay=True)
    await table.handle_line("9s")  # a move ends 托管 and is played
    assert service.autoplay_calls == [False, False, False] and service.acts[0][0] == "discard"
    await table.handle_line("help")
    helped = console.export_text()
    assert "end autoplay" in helped and "--turn-seconds" in helped


async def test_a_paused_table_plays_on_when_you_press_enter() -> None:
    class Service(FakeService):
        resumed: list[str] = []

        async def resume(self, table_id: int, by: str, *, force: bool = False) -> None:
            self.resumed.append(by)
            self.board = replace(self.board, paused=None)

        async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
            raise AssertionError("not in 托管")

    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en")
    service = Service(board(paused="nobody"), my_turn())
    table = TerminalTable(service, fe, 1)
    await fe.notice(1, "table.paused.nobody")
    assert "press Enter (or type back) to play on" in console.export_text()
    assert await table.handle_line("") is True
    assert service.resumed == [YOU.player_id] and service.acts == []


async def test_turn_seconds_on_a_resumed_table_is_said_to_wait_for_a_new_one_and_new_starts_it(tmp_path) -> None:
    db = tmp_path / "k.sqlite3"
    await run(db, ScriptedLines(["quit"]), seed="timer")  # a table without a timer
    text = await run(db, ScriptedLines(["quit"]), turn_seconds=45)
    assert "Resuming table 1" in text
    assert "--turn-seconds applies to a new table: table 1 keeps its own timer (none)" in text and "--new" in text
    quiet = await run(db, ScriptedLines(["quit"]))
    assert "--turn-seconds" not in quiet  # nothing asked, nothing said
    rec = Recorder()
    text = await run(db, QuitWhen(rec, lambda fe: fe.hand is not None and bool(fe.hand.choices)), rec,
                     turn_seconds=45, new=True)
    assert "New table 2" in text and "The table closed" in text  # the old table's sitting, then the new table
    assert rec.fe is not None and rec.fe.hand is not None and rec.fe.hand.deadline is not None  # your timer


class TypedAhead:
    """Piped input (echo on): your first discard when your turn comes, then at once, while the AI players move, a
    second discard of a tile you hold; then quit once the board shows it."""

    echo = True

    def __init__(self, rec: Recorder) -> None:
        self.rec, self.sent, self.ahead = rec, 0, None

    def yours(self) -> tuple:
        fe = self.rec.fe
        assert fe is not None and fe.board is not None
        return next(s.discards for s in fe.board.seats if s.player.player_id == YOU.player_id)

    async def readline(self) -> str | None:
        for _ in range(4000):
            fe = self.rec.fe
            if fe is not None and fe.hand is not None:
                if self.sent == 0 and fe.must_act and {c.verb for c in fe.hand.choices} >= {"discard"}:
                    self.sent = 1
                    return (fe.hand.drawn or fe.hand.concealed[-1]).compact
                if self.sent == 1 and len(self.yours()) == 1:
                    assert not fe.must_act  # the AI players are moving
                    self.sent, self.ahead = 2, fe.hand.concealed[0]
                    return self.ahead.compact
                if self.sent == 2 and (len(self.yours()) == 2 or fe.results_shown):
                    return "quit"
            await asyncio.sleep(0.005)
        return None


async def test_a_piped_move_read_while_the_ai_players_move_waits_for_your_turn(tmp_path) -> None:
    rec = Recorder()
    source = TypedAhead(rec)
    text = await run(tmp_path / "k.sqlite3", source, rec, seed="ahead2", ai_delay=0.3)
    assert "not your turn" not in text, text[-3000:]
    assert source.ahead is not None and source.yours()[1:2] == (source.ahead,), text[-3000:]  # played in your turn


async def test_a_new_terminal_table_paces_an_ai_turn_at_the_documented_eight_tenths_of_a_second(tmp_path) -> None:
    """The pace itself is measured by benchmarks/terminal_pace.py; this checks what a new table is given."""
    from kwx.store import Store

    db = tmp_path / "k.sqlite3"
    rec = Recorder()
    console = make_console()
    await asyncio.wait_for(play_terminal(db, lang="en", seed="pace", console=console, lines=ScriptedLines(["quit"]),
                                         service_factory=rec), timeout=60)  # the terminal's own defaults
    async with await Store.open(db) as store:
        row = (await store.unfinished_tables("local"))[0]
    assert rec.service is not None
    hold, think = float(row.options["claim_pause"]), rec.service.ai_delay
    assert hold > 0  # every discard is still held, whether or not anyone may claim it
    assert hold + think == 0.8  # one AI turn: the hold of the discard before it, then the AI's thinking


def test_into_a_pipe_the_line_mode_keeps_each_sentence_on_one_line(tmp_path) -> None:
    """Piped (a script, `| tee log`), Rich would break lines at 80 columns, mid-phrase in Chinese; it must not."""
    import subprocess
    import sys

    import bot

    def play(*flags: str) -> str:
        done = subprocess.run([sys.executable, str(Path(bot.__file__)), "--local", "--plain", "--seed", "pipe",
                               *flags], input="quit\n", capture_output=True, text=True, timeout=120,
                              env={**os.environ, "KWX_DB": str(tmp_path / "kwx.sqlite3"), "KWX_LANG": "zh-CN"})
        assert done.returncode == 0, done.stderr
        return done.stdout

    play()
    said = play("--turn-seconds", "30")  # resumed: a long sentence about the timer
    (line,) = [x for x in said.splitlines() if x.startswith("--turn-seconds")]
    assert line.endswith("（这桌结束，打完的局都留在账上）。")


def test_a_db_that_is_not_a_database_is_one_line_not_a_crash_report(tmp_path) -> None:
    """As the ledger commands say it: one line naming the file and why, exit 2; no crash log, no 牌桌保留着."""
    import subprocess
    import sys

    import bot

    junk = tmp_path / "notes.txt"
    junk.write_text("not a database\n" * 100)
    for lang, word in (("zh-CN", "无法使用数据库"), ("en", "cannot use the database")):
        done = subprocess.run([sys.executable, str(Path(bot.__file__)), "--local", "--plain", "--db", str(junk)],
                              input="quit\n", capture_output=True, text=True, timeout=120,
                              env={**os.environ, "KWX_LANG": lang})
        assert done.returncode == 2 and done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert word in line and str(junk) in line and "file is not a database" in line
    assert junk.read_text() == "not a database\n" * 100 and not (tmp_path / "kwx-crash.log").exists()


async def test_the_ledger_keeps_your_system_user_not_a_word_of_the_tables_language(tmp_path) -> None:
    """A table played in Chinese stored 你 as the player's name: "Hands of 你" in an English ledger."""
    import getpass
    import sqlite3

    db = tmp_path / "k.sqlite3"
    console = make_console()
    await asyncio.wait_for(play_terminal(db, lang="zh-CN", console=console, lines=ScriptedLines(["quit"]),
                                         service_factory=Recorder(), between_hands=30, ai_delay=0, seed="name"), 60)
    with sqlite3.connect(db) as conn:
        (name,) = conn.execute("SELECT name FROM players WHERE player_id = 'local:you'").fetchone()
    assert name == getpass.getuser() and name not in ("你", "You")
    assert "你" in console.export_text()  # the screen still calls you 你


async def test_a_huge_piped_line_is_quoted_not_printed_back_whole(tmp_path) -> None:
    text = await run(tmp_path / "k.sqlite3", ScriptedLines(["x" * 1_000_000, "quit"]), seed="huge")
    assert "x" * 119 in text and "x" * 200 not in text and len(text) < 20_000


def test_a_second_window_on_the_same_store_is_told_the_table_is_open_in_the_first(tmp_path) -> None:
    """Two `make run` in one checkout played one table from two processes: the second's first move failed in
    Discord's words and then went stale."""
    import subprocess
    import sys

    import bot
    from kwx.local import launch

    db = tmp_path / "kwx.sqlite3"
    assert launch.hold_terminal(db)  # the first window (this process)
    try:
        for lang, word in (("zh-CN", "另一个窗口"), ("en", "another window")):
            done = subprocess.run([sys.executable, str(Path(bot.__file__)), "--local", "--plain", "--db", str(db)],
                                  input="quit\n", capture_output=True, text=True, timeout=120,
                                  env={**os.environ, "KWX_LANG": lang})
            assert done.returncode == 2 and done.stdout == "" and word in done.stderr
    finally:
        while launch._HELD:
            launch._HELD.pop().close()
    done = subprocess.run([sys.executable, str(Path(bot.__file__)), "--local", "--plain", "--db", str(db)],
                          input="quit\n", capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr  # the first window gone, the table opens again


async def test_back_from_autoplay_prints_the_board_and_one_prompt() -> None:
    """Coming back, the line mode shows the board and the prompt; the service's own prompt for the same decision
    (it sends your panel again when 托管 ends) used to print a second prompt right after it."""
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", table_id=1)

    class Service(FakeService):
        async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
            self.hand = replace(self.hand, autoplay=on)
            await fe.hand_changed(YOU, self.hand, prompt=True)  # as the service does

    service = Service(board(), replace(my_turn(deadline=None), autoplay=True))
    fe.board, fe.hand = service.board, service.hand
    table = TerminalTable(service, fe, 1)
    assert await table.handle_line("back") is True
    await fe.settle()
    await asyncio.sleep(0.01)
    text = console.export_text()
    assert text.count("Your turn") == 1, text
    assert text.count("Melds / Discards") == 1


async def test_a_line_the_table_prints_at_the_prompt_ends_its_line_and_the_prompt_comes_back() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", table_id=1)
    fe.board = board()
    await fe.hand_changed(YOU, my_turn(deadline=None), prompt=True)
    await fe.settle()
    await fe.notice(1, "event.timeout", player="AI 2", player_id="ai:standard:2", action="pass")
    lines = [line for line in console.export_text().splitlines() if line.strip()]
    assert lines[-2].startswith("· AI 2 ran out of time"), lines[-3:]  # on a line of its own
    assert lines[-1].startswith("▶ Your turn") and lines[-1].rstrip().endswith(">")  # and the prompt again
