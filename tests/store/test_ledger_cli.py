"""`kwx ledger ...`: parsed with the real add_parser, run against a temporary database."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from datetime import UTC, datetime

import pytest

from kwx.store import Store
from tests.support.ledger import NAMES, make_hand
from tests.support.ledger_run import run_ledger as _run


@pytest.fixture
def db(tmp_path) -> str:
    path = tmp_path / "ledger.sqlite3"

    async def build() -> None:
        async with await Store.open(path, clock=lambda: datetime.now(UTC)) as store:
            for guild in ("local", "g2"):
                table = await store.create_table(guild, rules={}, seed="x",
                                                 seats=[{"player_id": p, "name": NAMES[p]} for p in "abc"])
                await store.finish_hand(make_hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 8, "hu")],
                                                  winners={"a": 8}, self_draw="a", guild=guild))
                await store.finish_hand(make_hand(table, 2, [("a", "c", 2, "hu")], winners={"c": 2}, guild=guild))
            await store.transfer("g2", "b", "c", 100, by="b")

    asyncio.run(build())
    return str(path)


def test_balances_json_shape(db, capsys):
    code, out, _ = _run(capsys, "balances", "--db", db, "--json")
    assert code == 0
    assert json.loads(out) == {"hands": 2, "balances": [
        {"player": "a", "name": "Ann", "balance": 14}, {"player": "c", "name": "Cy", "balance": -6},
        {"player": "b", "name": "Bob", "balance": -8}]}


def test_settleup_json_shape(db, capsys):
    code, out, _ = _run(capsys, "settleup", "--db", db, "--server", "g2", "--json")
    assert code == 0
    assert json.loads(out) == {"transfers": [{"from": "b", "to": "c", "amount": 94},
                                             {"from": "b", "to": "a", "amount": 14}]}


def test_options_may_come_before_the_sub_command(db, capsys):
    code, out, _ = _run(capsys, "--db", db, "--server", "g2", "--json", "balances")
    assert code == 0 and json.loads(out)["balances"][0] == {"player": "c", "name": "Cy", "balance": 94}


def test_default_db_comes_from_kwx_db(db, capsys, monkeypatch):
    monkeypatch.setenv("KWX_DB", db)
    code, out, _ = _run(capsys, "balances", "--json")
    assert code == 0 and json.loads(out)["hands"] == 2


def test_other_json_outputs(db, capsys):
    _, out, _ = _run(capsys, "leaderboard", "--db", db, "--period", "week", "--json")
    assert [(r["rank"], r["player"], r["net"]) for r in json.loads(out)["leaderboard"]] == [
        (1, "a", 14), (2, "c", -6), (3, "b", -8)]
    _, out, _ = _run(capsys, "history", "--db", db, "--player", "a", "--json")
    hands = json.loads(out)["hands"]
    assert [(h["hand_no"], h["net"], h["self_draw"]) for h in hands] == [(2, -2, False), (1, 16, True)]
    _, out, _ = _run(capsys, "stats", "--db", db, "--player", "a", "--json")
    (stats,) = json.loads(out)["stats"]
    assert (stats["hands"], stats["wins"], stats["deal_ins"], stats["self_draw_rate"]) == (2, 1, 1, 1.0)


def test_readable_tables(db, capsys):
    code, out, _ = _run(capsys, "balances", "--db", db, "--lang", "en")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Server local: 2 hands"
    assert lines[1].split() == ["Name", "Player", "Balance", "Hands"]
    assert [line.split()[0] for line in lines[3:]] == ["Ann", "Cy", "Bob"]
    assert len({len(line) for line in lines[3:]}) == 1  # right-aligned numbers: equal widths
    _, out, _ = _run(capsys, "settleup", "--db", db, "--lang", "en")
    assert [line.split() for line in out.splitlines()] == [
        ["Pays", "To", "Amount"], ["----", "---", "------"], ["Bob", "Ann", "8"], ["Cy", "Ann", "6"]]
    for command in (["leaderboard"], ["history", "--player", "b"], ["stats"]):
        code, out, _ = _run(capsys, *command, "--db", db)
        assert code == 0 and "Ann" in out


def test_export_writes_csv(db, capsys, tmp_path):
    _, out, _ = _run(capsys, "export", "--db", db, "--server", "g2")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["from_player"], r["to_player"], r["amount"], r["reason"]) for r in rows][-1] == ("b", "c", "100", "pay")
    target = tmp_path / "out.csv"
    code, _, err = _run(capsys, "export", "--db", db, "--out", str(target), "--lang", "en")
    assert code == 0 and "wrote 3 entries" in err and len(target.read_text().splitlines()) == 4


@pytest.mark.parametrize(("argv", "message"), [
    (["balances", "--db", "{tmp}/missing.sqlite3"], "no ledger database"),
    (["balances", "--db", "{db}", "--server", "nowhere"], "unknown server"),
    (["history", "--db", "{db}", "--player", "zed"], "unknown player"),
    (["stats", "--db", "{tmp}/junk.sqlite3"], "not a database"),
])
def test_bad_input_is_one_line_and_exit_2(db, capsys, tmp_path, argv, message):
    (tmp_path / "junk.sqlite3").write_text("this is not sqlite " * 100)
    argv = [a.format(db=db, tmp=tmp_path) for a in argv]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "missing.sqlite3").exists()  # a typo must not create a database


def test_the_kwx_dispatcher_runs_ledger(db, capsys):
    from kwx.cli import main

    assert main(["ledger", "settleup", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"transfers": [{"from": "b", "to": "a", "amount": 8},
                                                                 {"from": "c", "to": "a", "amount": 6}]}


@pytest.mark.parametrize(("argv", "message"), [
    (["history", "--player", "a", "--limit", "99999999999999999999"], "--limit: must be from 1 to 10,000"),
    (["history", "--player", "a", "--limit", "-3"], "--limit: must be from 1 to 10,000"),
    (["history", "--player", "a", "--offset", "-1"], "--offset: must be from 0"),
    (["history", "--player", "a", "--limit", "ten"], "'ten' is not a whole number"),
    (["leaderboard", "--limit", "0"], "--limit: must be from 1 to 10,000"),
])
def test_bad_numbers_are_refused_in_one_line_with_exit_2(db, capsys, argv, message):
    from kwx.cli import main

    with pytest.raises(SystemExit) as exited:  # argparse's exit: status 2, one line
        main(["ledger", *argv, "--db", db])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_database_named_in_dotenv_is_read_like_the_bot_reads_it(db, capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("KWX_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"KWX_DB={db}\n", encoding="utf-8")
    code, out, _ = _run(capsys, "balances", "--json")
    assert code == 0 and json.loads(out)["hands"] == 2
    assert not (tmp_path / "data").exists()  # the default database was not created instead


def test_tables_speak_one_language(db, capsys):
    _, zh, _ = _run(capsys, "balances", "--db", db, "--lang", "zh-CN")
    assert zh.splitlines()[1].split() == ["名字", "玩家", "ID", "余额", "局数"]
    _, history, _ = _run(capsys, "history", "--db", db, "--player", "a", "--lang", "zh-CN")
    assert "Hand" not in history and "局号" in history
    _, en, _ = _run(capsys, "stats", "--db", db, "--lang", "en")
    assert "亮倒" not in en and "Laid down" in en


def test_migrate_copies_every_server_and_the_balances_match(db, database, capsys):
    code, out, err = _run(capsys, "migrate", "--from", db, "--to", str(database), "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["balances_match"] is True and report["guilds"] == 2
    assert report["rows"]["hands"] == 4 and report["rows"]["ledger_entries"] == 7
    for server in ("local", "g2"):
        before = _run(capsys, "balances", "--db", db, "--server", server, "--json")
        assert _run(capsys, "balances", "--db", str(database), "--server", server, "--json") == before
    code, _, err = _run(capsys, "migrate", "--from", db, "--to", str(database))
    assert code == 2 and "already holds data" in err  # never merged into a database in use


def test_a_loss_in_the_ledger_tables_has_the_minus_sign_of_the_board(db, capsys):
    _, out, _ = _run(capsys, "balances", "--db", db, "--server", "local", "--lang", "en")
    assert "\u22128" in out and "\u22126" in out and "+14" in out  # Bob −8, Cy −6: as the board writes a loss
    assert "-8" not in out and "-6" not in out


@pytest.mark.parametrize(("lang", "copied", "matched"), [("en", "Copied ", "Balances of 2 servers match."),
                                                        ("zh-CN", "已复制", "2 个服务器的余额一致。")])
def test_migrate_reports_in_the_chosen_language(db, tmp_path, capsys, monkeypatch, lang, copied, matched):
    monkeypatch.setenv("KWX_LANG", lang)
    code, out, err = _run(capsys, "migrate", "--from", db, "--to", str(tmp_path / "copy.sqlite3"))
    assert (code, err) == (0, "")
    assert out.splitlines()[0].startswith(copied) and out.splitlines()[1] == matched
