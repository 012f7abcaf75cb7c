"""`python -m kwx play [--plain]`: the terminal table from the tools' command, even with a Discord token set
(before it, the line mode was only `python bot.py --local --plain`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def play(tmp_path: Path, *args: str, typed: str = "quit\n") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DISCORD_TOKEN": "not.a.token", "KWX_DB": str(tmp_path / "kwx.sqlite3"), "KWX_LANG": "en",
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kwx", "play", *args], input=typed, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=env)


def test_play_plain_opens_the_terminal_table_in_the_line_mode_even_with_a_discord_token(tmp_path) -> None:
    done = play(tmp_path, "--plain", "--seed", "s")
    assert done.returncode == 0, done.stderr
    assert "terminal table" in done.stdout and "━━ Hand 1 · Dealer" in done.stdout
    assert "\x1b[" not in done.stdout  # the line mode: no screen drawn


def test_play_refuses_an_option_out_of_range_in_one_line(tmp_path) -> None:
    done = play(tmp_path, "--plain", "--turn-seconds", "1")
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "kwx play: --turn-seconds needs a number of seconds from 5 to 3600"]
