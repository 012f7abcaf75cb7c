"""`kwx ledger` for the terminal player: one real hand played at the terminal (line mode), then its ledger read
back as a player would, in the language asked for, and piped into a reader that stops early."""

from __future__ import annotations

import asyncio
import getpass
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.ledger_run import run_ledger as _run
from tests.support.terminal import QuitWhen, Recorder, run


class NoQuestions:
    """Plays like QuitWhen after `confirm off`, so no question about a 胡口牌 waits for an answer."""

    def __init__(self, then: QuitWhen) -> None:
        self.then, self.first = then, True

    async def readline(self) -> str | None:
        if self.first:
            self.first = False
            return "confirm off"
        return await self.then.readline()


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> str:
    """A store holding one finished hand of the terminal table (you are `local:you`, named by your login)."""
    db = tmp_path_factory.mktemp("terminal") / "kwx.sqlite3"
    rec = Recorder()
    asyncio.run(run(db, NoQuestions(QuitWhen(rec, lambda fe: bool(fe.results_shown))), rec, seed="ledger", claim_pause=0))
    return str(db)


def test_your_own_history_needs_no_player_and_your_name_works_too(played, capsys) -> None:
    code, mine, err = _run(capsys, "history", "--db", played, "--lang", "en")
    assert code == 0 and err == ""
    assert mine.startswith(f"Hands of {getpass.getuser()}\n") and "table 1 #1" in mine
    for word in ("you", "你", getpass.getuser()):
        code, by_name, _ = _run(capsys, "history", "--db", played, "--lang", "en", "--player", word)
        assert code == 0 and by_name == mine  # the word the tables show in either language, or the name kept
    code, _, err = _run(capsys, "history", "--db", played, "--player", "nobody")
    assert code == 2 and "unknown player 'nobody'" in err


def test_another_servers_history_still_asks_whose(played, capsys) -> None:
    code, _, err = _run(capsys, "history", "--db", played, "--server", "g2")
    assert code == 2 and err.count("\n") == 1


def test_a_hand_reads_in_one_language_with_its_seed(played, capsys) -> None:
    code, zh, _ = _run(capsys, "hand", "1", "--db", played, "--lang", "zh-CN")
    assert code == 0
    assert "第 1 桌第 1 局" in zh and "承诺 sha256:" in zh and "洗牌种子" in zh
    prose = re.sub(r"python -m kwx .*|sha256:\w+|[0-9a-f~]{16,}|--\w+", "", zh)  # commands, digests, seeds
    words = set(re.findall(r"[A-Za-z]{3,}", prose))
    assert words <= {getpass.getuser()}, words  # a name: no English sentence among the Chinese
    code, en, _ = _run(capsys, "hand", "1", "--db", played, "--lang", "en")
    assert "Commitment sha256:" in en and "Seed (public once the hand is over)" in en
    seed = re.search(r"verify (\S+) --ref", en)
    assert seed is not None and seed.group(1) in en.splitlines()[2]


def test_export_into_a_reader_that_stops_early_ends_quietly(played, tmp_path) -> None:
    reader = subprocess.Popen([sys.executable, "-m", "kwx", "ledger", "export", "--db", played],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).parents[2])
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()  # `| head -1`
    reader.stdout.close()
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 0
    assert "Broken pipe" not in err and "Traceback" not in err, err
