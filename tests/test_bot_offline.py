"""`python bot.py` with a token but no way to reach Discord: one line naming the problem, a hint, exit 2."""

from __future__ import annotations

import logging
import socket

import pytest

import bot


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on return: connecting is refused at once


def test_an_unreachable_discord_is_one_line_with_a_hint_about_local(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("DISCORD_TOKEN", "not.a.token")
    monkeypatch.setenv("KWX_DB", str(tmp_path / "kwx.sqlite3"))
    monkeypatch.setenv("DISCORD_API_BASE", f"http://127.0.0.1:{closed_port()}/api/v10")
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        code = bot.main([])
    finally:  # bot.run set up logging on the root logger: put it back
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        logging.getLogger("discord.client").setLevel(logging.NOTSET)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and out == ""
    assert len(lines) == 1 and "cannot reach Discord" in lines[0] and "--local" in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("error", [OSError("Network is unreachable"), TimeoutError()])
def test_the_reason_is_short_and_on_one_line(error) -> None:
    assert "\n" not in bot.unreachable_reason(error) and bot.unreachable_reason(error)
