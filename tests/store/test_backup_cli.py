"""`kwx ledger backup | restore | verify`: what the operator types and reads."""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3

import pytest

from kwx.cli import ledger
from kwx.store import Store
from tests.support.ledger import NAMES, make_hand
from tests.support.players import GUILD


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    """The command in English, unless it names its language."""
    parser = argparse.ArgumentParser(prog="kwx")
    ledger.add_parser(parser.add_subparsers(dest="command", required=True))
    code = ledger.run(parser.parse_args(["ledger", *argv, *(() if "--lang" in argv else ("--lang", "en"))]))
    out, err = capsys.readouterr()
    return code, out, err


def _with_store(db: str, work) -> None:
    """Run `work(store)` on the store at `db` (the commands under test run their own event loop)."""
    async def run() -> None:
        async with await Store.open(db) as store:
            await work(store)

    asyncio.run(run())


@pytest.fixture
def db(database) -> str:
    async def build(store: Store) -> None:
        seats = [{"player_id": p, "name": NAMES[p]} for p in "abc"]
        table = await store.create_table(GUILD, rules={}, seed="x", seats=seats)
        await store.finish_hand(make_hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 8, "hu")], winners={"a": 8}))

    _with_store(str(database), build)
    return str(database)


async def _zero_a(store: Store) -> None:
    async with store._write() as conn:
        await conn.execute("UPDATE balances SET balance = 0 WHERE player_id = 'a'")


def test_verify_says_ok_or_lists_each_problem(db, capsys):
    code, out, _ = _run(capsys, "verify", "--db", db)
    assert code == 0 and out.startswith("ok: ") and "1 server, 1 hand, 2 ledger entries" in out
    _with_store(db, _zero_a)
    code, out, _ = _run(capsys, "verify", "--db", db, "--json")
    assert code == 1 and json.loads(out)["problems"] == [
        "server g1, player a: the balances table says balance 0, the ledger gives 16"]
    code, out, _ = _run(capsys, "verify", "--db", db)
    assert code == 1 and out.splitlines()[-1].startswith("1 problem(s) in ")


@pytest.mark.sqlite_only
def test_backup_then_restore_prints_each_servers_balances_before_and_after(db, tmp_path, capsys):
    code, out, _ = _run(capsys, "backup", str(tmp_path / "saved"), "--db", db)
    assert code == 0 and "written and checked" in out and "integrity ok" in out
    (backup,) = (tmp_path / "saved").glob("kwx-*.sqlite3")
    code, out, _ = _run(capsys, "verify", str(backup))
    assert code == 0
    _with_store(db, lambda store: store.transfer(GUILD, "a", "b", 10, by="a"))
    code, out, err = _run(capsys, "restore", str(backup), "--db", db)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Checked the backup: ok") and lines[1].startswith("Kept the store it replaces as ")
    assert f"Server {GUILD}:" in lines
    assert lines[-4:] == ["name  player  before  after  change",
                          "Ann   a           +6    +16     +10",
                          "Bob   b           +2     -8     -10",
                          "Cy    c           -8     -8"]


@pytest.mark.sqlite_only
def test_restore_refuses_while_the_store_is_open_and_changes_nothing(db, tmp_path, capsys):
    _run(capsys, "backup", str(tmp_path / "one.sqlite3"), "--db", db)
    with sqlite3.connect(db) as other:  # any program that has the store open, as a bot does
        other.execute("SELECT COUNT(*) FROM hands").fetchone()
        code, out, err = _run(capsys, "restore", str(tmp_path / "one.sqlite3"), "--db", db)
    assert code == 2 and out == ""
    assert "is open in another program" in err and err.rstrip().endswith("nothing was changed")


@pytest.mark.sqlite_only
def test_a_backup_file_is_never_written_over(db, tmp_path, capsys):
    taken = tmp_path / "one.sqlite3"
    taken.write_text("mine")
    code, _, err = _run(capsys, "backup", str(taken), "--db", db)
    assert code == 2 and "already exists" in err and taken.read_text() == "mine"


@pytest.mark.postgres_only
def test_postgresql_is_backed_up_with_its_own_tools(db, tmp_path, capsys):
    for argv in (("backup",), ("restore", str(tmp_path / "x.sqlite3"))):
        code, _, err = _run(capsys, *argv, "--db", db)
        assert code == 2 and "pg_dump" in err


@pytest.mark.sqlite_only
def test_verify_of_nothing_is_a_problem_found_and_creates_nothing(tmp_path, capsys, backend):
    """Exit 1, as for a file that is not a store: a script asks "is there a sound store here?" (2: a bad command
    line)."""
    code, out, err = _run(capsys, "verify", str(tmp_path / "missing.sqlite3"))
    assert code == 1 and "no store at" in out and err == ""
    code, out, _ = _run(capsys, "verify", str(tmp_path / "missing.sqlite3"), "--json")
    assert code == 1 and json.loads(out)["ok"] is False
    assert not (tmp_path / "missing.sqlite3").exists()


@pytest.mark.sqlite_only
def test_errors_and_refusals_are_said_in_the_chosen_language(db, tmp_path, capsys):
    missing = tmp_path / "missing.sqlite3"
    code, out, _ = _run(capsys, "verify", str(missing), "--lang", "zh-CN")
    assert code == 1 and out == f"{missing} 处没有数据库\n"
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    code, out, _ = _run(capsys, "verify", str(junk), "--lang", "zh-CN")
    assert code == 1 and out.startswith(f"{junk} 不是可读的 SQLite 数据库")
    code, _, err = _run(capsys, "restore", str(missing), "--db", db, "--lang", "zh-CN")
    assert code == 2 and err == f"kwx ledger：{missing} 处没有备份；什么都没有改动。\n"
    code, _, err = _run(capsys, "backup", str(tmp_path / "saved"), "--db", db, "--keep", "0", "--lang", "zh-CN")
    assert code == 2 and err == "kwx ledger：--keep 0：至少要保留 1 个备份（刚做的这个）；什么都没有改动。\n"
    code, _, err = _run(capsys, "balances", "--db", str(junk), "--lang", "zh-CN")
    assert code == 2 and err.startswith(f"kwx ledger：{junk} 不是可读的 SQLite 数据库")


@pytest.mark.sqlite_only
def test_keep_zero_is_refused_not_read_as_the_default(db, tmp_path, capsys):
    folder = tmp_path / "saved"
    for _ in range(2):
        assert _run(capsys, "backup", str(folder), "--db", db)[0] == 0
    code, out, err = _run(capsys, "backup", str(folder), "--db", db, "--keep", "0")
    assert code == 2 and out == "" and "--keep 0" in err and "nothing was changed" in err
    assert len(list(folder.glob("kwx-*.sqlite3"))) == 2


def test_verify_of_a_file_that_is_not_a_store_is_a_problem_found(tmp_path, capsys, backend):
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    code, out, err = _run(capsys, "verify", str(junk))
    assert code == 1 and err == "" and len(out.splitlines()) == 1 and "junk.sqlite3" in out
    code, out, _ = _run(capsys, "verify", str(junk), "--json")
    assert code == 1 and json.loads(out)["ok"] is False


@pytest.mark.sqlite_only
def test_opening_a_file_that_is_not_a_database_leaves_no_thread_behind(tmp_path, backend):
    """aiosqlite's connection thread is not a daemon: one left running would keep the process from exiting."""
    import asyncio
    import threading

    from kwx.store import Store, StoreError

    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    before = threading.active_count()

    async def open_it() -> None:
        with pytest.raises(StoreError):
            await Store.open(junk)

    asyncio.run(open_it())
    assert threading.active_count() == before
