"""`python bot.py --local --autoplay N`: three AI players finish N more hands of the local autoplay table, which
stays open across runs; the ledger gets every hand once and each hand's money sums to zero."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from kwx.local.autoplay import AUTOPLAY_CHANNEL
from kwx.local.tables import LOCAL_GUILD, find_local_table, finished_hands
from kwx.store import Store

ROOT = Path(__file__).resolve().parents[2]


def bot(*args: str, db: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"} | {"KWX_DB": str(db)}
    return subprocess.run([sys.executable, str(ROOT / "bot.py"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def parse_run(proc: subprocess.CompletedProcess[str]) -> tuple[list[str], dict]:
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    return lines[:-1], json.loads(lines[-1])


async def ledger_hands(db: Path) -> tuple[int, dict[int, dict[str, int]], dict[str, int]]:
    """(table id, hand_no -> {player: net}, player -> balance) of the autoplay table."""
    async with await Store.open(db) as store:
        row = await find_local_table(store, AUTOPLAY_CHANNEL)
        assert row is not None
        players = [seat["player_id"] if isinstance(seat, dict) else seat for seat in row.seats]
        nets: dict[int, dict[str, int]] = defaultdict(dict)
        for player in players:
            for h in await store.history(LOCAL_GUILD, player, limit=1000):
                if h.table_id == row.id:
                    nets[h.hand_no][player] = h.net
        balances = {p: (await store.balance(LOCAL_GUILD, p)).balance for p in players}
        assert await finished_hands(store, row.id) == len(nets)
        return row.id, dict(nets), balances


async def test_two_runs_of_three_hands_continue_the_same_table(tmp_path: Path) -> None:
    db = tmp_path / "kwx.sqlite3"
    lines1, summary1 = parse_run(bot("--local", "--autoplay", "3", "--seed", "abc", db=db))
    assert summary1["hands"] == [1, 2, 3]
    assert [line.split(":")[0] for line in lines1] == ["hand 1", "hand 2", "hand 3"]
    lines2, summary2 = parse_run(bot("--local", "--autoplay", "3", "--seed", "ignored-now", db=db))
    assert summary2["table"] == summary1["table"]
    assert summary2["hands"] == [4, 5, 6]

    table_id, nets, balances = await ledger_hands(db)
    assert sorted(nets) == [1, 2, 3, 4, 5, 6]
    for hand_no, per_player in nets.items():
        assert len(per_player) == 3 and sum(per_player.values()) == 0, (hand_no, per_player)
    assert sum(balances.values()) == 0
    assert balances == summary2["balances"]
    assert any(b != 0 for b in balances.values())  # money moved

    # The same seed in one uninterrupted run plays the same six hands (the second --seed changed nothing).
    other = tmp_path / "other.sqlite3"
    _, summary = parse_run(bot("--local", "--autoplay", "6", "--seed", "abc", db=other))
    _, nets_once, balances_once = await ledger_hands(other)
    assert nets_once == nets
    assert balances_once == balances
    assert summary["scores"] == summary2["scores"]


def test_autoplay_zero_hands_and_bad_count(tmp_path: Path) -> None:
    proc = bot("--local", "--autoplay", "-1", db=tmp_path / "kwx.sqlite3")
    assert proc.returncode == 2 and "--autoplay" in proc.stderr


def test_bot_dispatches_local_when_asked_or_without_a_token(tmp_path: Path, monkeypatch) -> None:
    sys.path.insert(0, str(ROOT))
    import bot
    import kwx.local.launch

    monkeypatch.chdir(tmp_path)  # no .env here
    calls: list[str] = []
    monkeypatch.setattr(bot, "run_discord", lambda args, settings: calls.append("discord") or 2)
    monkeypatch.setattr(kwx.local.launch, "run_local", lambda args, settings, prog: calls.append(f"local {args.autoplay}") or 0)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert bot.main([]) == 0
    monkeypatch.setenv("DISCORD_TOKEN", "token")
    assert bot.main([]) == 2
    assert bot.main(["--local"]) == 0
    assert bot.main(["--local", "--autoplay", "4", "--seed", "s"]) == 0
    assert calls == ["local None", "discord", "local None", "local 4"]


async def test_autoplay_and_the_terminal_table_leave_each_other_alone(tmp_path: Path) -> None:
    from rich.console import Console

    from kwx.local.lines import ScriptedLines
    from kwx.local.plain import TERMINAL_CHANNEL, play_terminal

    db = tmp_path / "kwx.sqlite3"
    quiet = Console(file=io.StringIO())
    await play_terminal(db, lang="en", seed="t", ai_delay=0, claim_pause=0, console=quiet, lines=ScriptedLines(["quit"]))
    async with await Store.open(db) as store:
        terminal = await find_local_table(store, TERMINAL_CHANNEL)
        assert terminal is not None
        log_before = await store.load_events(terminal.id)
    _, summary = parse_run(bot("--local", "--autoplay", "2", "--seed", "a", db=db))
    assert summary["table"] != terminal.id and summary["hands"] == [1, 2]
    async with await Store.open(db) as store:
        assert await store.load_events(terminal.id) == log_before  # nobody played your seat meanwhile
        assert (await find_local_table(store, TERMINAL_CHANNEL)).id == terminal.id
    # and the terminal resumes its own table, not the autoplay one
    out = io.StringIO()
    await play_terminal(db, lang="en", ai_delay=0, claim_pause=0, console=Console(file=out, width=120),
                        lines=ScriptedLines(["quit"]))
    assert f"Resuming table {terminal.id}," in out.getvalue()


def test_settings_from_the_environment() -> None:
    from kwx.cli.settings import ConfigError, settings_from

    s = settings_from({"DISCORD_TOKEN": " abc ", "KWX_DB": "/tmp/x.sqlite3", "KWX_LANG": "en-GB",
                       "KWX_OWNER_ID": "123", "KWX_TEST_GUILD": ""})
    assert s.has_discord and s.discord_token == "abc" and "abc" not in repr(s)
    assert str(s.db_path) == "/tmp/x.sqlite3" and s.lang == "en" and s.owner_id == "123" and s.test_guild is None
    empty = settings_from({})
    assert not empty.has_discord and empty.lang == "zh-CN" and str(empty.db_path) == "data/kwx.sqlite3"
    with pytest.raises(ConfigError, match="KWX_OWNER_ID"):
        settings_from({"KWX_OWNER_ID": "me"})
    with pytest.raises(ConfigError, match="KWX_LANG"):
        settings_from({"KWX_LANG": "fr"})


def test_a_hands_summary_line_writes_a_loss_with_the_minus_sign() -> None:
    """The autoplay runner's lines said "-4" where every other screen of kwx says "−4" (U+2212)."""
    from kwx.local.autoplay import hand_summary
    from kwx.table.views import ResultView
    from tests.support.terminal import board

    result = ResultView(table_id=1, hand_no=3, outcome="draw", winners=(), payments=(), net=(-4, 2, 2),
                        scores=(-12, 0, 12), hands=())
    line = hand_summary(result, board())
    assert "net −4 +2 +2" in line and "scores −12 0 +12" in line and "-" not in line
