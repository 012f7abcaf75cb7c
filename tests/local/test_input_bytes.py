"""Typed bytes that are not UTF-8 (五筒 from a GBK terminal: ce e5 cd b2) are refused like any unknown text in
both front ends, and the game plays on; an error that still stops the game screen exits non-zero with one line
naming the crash log, which holds the traceback."""

from __future__ import annotations

import asyncio
import fcntl
import io
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.traceback import Traceback

from kwx.local.app import KwxApp, run_to_exit
from kwx.local.crash import CRASHED, crash_log_path
from kwx.local.lines import StdinLines
from kwx.local.plain import run_terminal
from kwx.table.service import TableService

ROOT = Path(__file__).resolve().parents[2]
GBK_WUTONG = bytes.fromhex("cee5cdb2")  # 五筒 in GBK; as UTF-8: two bad bytes, then Ͳ (U+0372)
READ_AS = "\ufffd\ufffd\u0372"


class Terminal:
    """`python bot.py --local` on a pseudo-terminal of 100×30, as a player's terminal runs it."""

    def __init__(self, tmp_path: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"} | {
            "KWX_LANG": "en", "TERM": "xterm-256color", "LANG": "C.UTF-8"}
        self.db = tmp_path / "kwx.sqlite3"
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bot.py"), "--local", "--db", str(self.db), "--seed", "bytes"],
            cwd=tmp_path, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.fd = master
        self.seen = b""

    def read_until(self, needle: bytes, seconds: float = 60.0) -> bool:
        """Read the screen's output until `needle` shows (True) or the time or the output ends (False)."""
        deadline = time.monotonic() + seconds
        while needle not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the program ended and closed the terminal
                return False
            if not chunk:
                return False
            self.seen += chunk
        return True

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)
        time.sleep(0.3)  # keys typed one after another, as a person (or an input method) sends them

    def close(self) -> int:
        """Wait for the program to end, reading its last output; its exit status (killed after 30 s)."""
        self.read_until(b"\x00never", seconds=30)  # until it closes the terminal
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            os.close(self.fd)


def test_gbk_bytes_typed_on_the_game_screen_are_refused_and_the_game_plays_on(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    try:
        assert term.read_until(b"Type help for the commands"), term.seen[-2000:]
        term.type(b":")
        term.type(GBK_WUTONG)
        term.type(b"\r")
        assert term.read_until(f"I don't understand \"{READ_AS}\"".encode()), term.seen[-2000:]
        term.type(b"\x11")  # ctrl+q leaves
    finally:
        status = term.close()
    assert status == 0
    assert b"The table stays open" in term.seen and b"Traceback" not in term.seen
    assert not crash_log_path(term.db).exists()


async def test_undecodable_bytes_in_the_line_mode_are_read_as_replacement_characters() -> None:
    """Python's stdin is strict under most UTF-8 locales: the line was the end of the input, and the lines
    after it were lost."""
    typed = io.TextIOWrapper(io.BytesIO(b":" + GBK_WUTONG + b"\nquit\n"), encoding="utf-8", errors="strict")
    lines = StdinLines(typed)
    assert [await asyncio.wait_for(lines.readline(), 10) for _ in range(3)] == [":" + READ_AS, "quit", None]


class Broken(TableService):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the store is on fire")


class Panics(KwxApp):
    """Textual's input thread ends in a panic with its traceback, as the driver does when reading fails."""

    failure: BaseException

    def on_mount(self) -> None:  # type: ignore[override]
        error = self.failure
        self.call_later(self.panic, Traceback.from_exception(type(error), error, error.__traceback__))


@pytest.mark.parametrize("how", ["exception", "panic"])
def test_an_error_that_stops_the_game_screen_exits_non_zero_naming_the_log(tmp_path: Path, capsys, how) -> None:
    db = tmp_path / "data" / "kwx.sqlite3"
    app = KwxApp(db, lang="en", service_factory=Broken) if how == "exception" else Panics(db, lang="en")
    if isinstance(app, Panics):
        with pytest.raises(UnicodeDecodeError) as failed:
            GBK_WUTONG.decode()  # what the driver's strict decoder does
        app.failure = failed.value
    log = crash_log_path(db)
    assert run_to_exit(app, log, headless=True) == CRASHED
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert lines == [f"The game stopped on an error; what happened is written in {log}. The table stays open: "
                     "run kwx play again to continue."]
    report = log.read_text(encoding="utf-8")
    expected = "the store is on fire" if how == "exception" else "UnicodeDecodeError"
    assert "Traceback" in report and expected in report


def test_an_error_in_the_line_mode_exits_non_zero_naming_the_log(tmp_path: Path, capsys, monkeypatch) -> None:
    async def on_fire(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the store is on fire")

    monkeypatch.setattr("kwx.local.plain.Store.open", on_fire)
    db = tmp_path / "data" / "kwx.sqlite3"
    assert run_terminal(SimpleNamespace(db_path=db, lang="zh-CN")) == CRASHED
    out = capsys.readouterr()
    log = crash_log_path(db)
    assert (out.out + out.err).splitlines() == [f"程序出错停了；出错经过记在 {log}。牌桌保留着：再次运行 kwx play 就能接着打。"]
    assert "the store is on fire" in log.read_text(encoding="utf-8")
