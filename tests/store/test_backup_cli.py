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
    assert code == 1 and out.splitlines()[-1].startswith("1 problem in ")


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
                          "Bob   b           +2     \u22128     \u221210",
                          "Cy    c           \u22128     \u22128"]  # a loss with a minus sign


async def _misstate_balances(store: Store) -> None:
    async with store._write() as conn:
        await conn.execute("UPDATE balances SET balance = 0 WHERE player_id = 'a'")
        await conn.execute("UPDATE balances SET balance = -3 WHERE player_id = 'b'")


def test_verify_says_each_problem_in_the_chosen_language(db, capsys):
    """Each line `ledger verify` prints is in $KWX_LANG (--lang), a loss with a minus sign; --json stays the same
    English whatever the language, for scripts."""
    code, out, _ = _run(capsys, "verify", "--db", db, "--lang", "zh-CN")
    assert code == 0 and out.startswith("检查通过：") and "1 个服务器、1 局、2 条账目" in out
    assert out.rstrip().endswith("：完整性、付款、汇总和只追加触发器都没有问题")
    _with_store(db, _misstate_balances)
    code, out, _ = _run(capsys, "verify", "--db", db, "--lang", "zh-CN")
    *problems, last = out.splitlines()
    assert code == 1 and problems == ["服务器 g1，玩家 a：余额表记的余额是 0，账目算出来是 16",
                                      "服务器 g1，玩家 b：余额表记的余额是 \u22123，账目算出来是 \u22128"]
    assert last.startswith("有 2 个问题：") and last.endswith("1 个服务器、1 局、2 条账目）")
    code, out, _ = _run(capsys, "verify", "--db", db, "--lang", "en")
    *problems, last = out.splitlines()
    assert code == 1 and problems == ["server g1, player a: the balances table says balance 0, the ledger gives 16",
                                      "server g1, player b: the balances table says balance \u22123, the ledger gives \u22128"]
    assert last.startswith("2 problems in ") and last.endswith("1 server, 1 hand, 2 ledger entries)")
    english = ["server g1, player a: the balances table says balance 0, the ledger gives 16",
               "server g1, player b: the balances table says balance -3, the ledger gives -8"]
    for lang in ("zh-CN", "en"):
        code, out, _ = _run(capsys, "verify", "--db", db, "--json", "--lang", lang)
        assert code == 1 and json.loads(out)["problems"] == english


@pytest.mark.sqlite_only
def test_backup_and_restore_say_what_they_did_in_the_chosen_language(db, tmp_path, capsys):
    code, out, _ = _run(capsys, "backup", str(tmp_path / "saved"), "--db", db, "--keep", "1", "--lang", "zh-CN")
    (first,) = (tmp_path / "saved").glob("kwx-*.sqlite3")
    assert code == 0 and out.startswith(f"已备份 {db}：{first} 已写好并检查过（") and out.endswith("完整性正常）。\n")
    code, out, _ = _run(capsys, "backup", str(tmp_path / "saved"), "--db", db, "--keep", "1", "--lang", "zh-CN")
    (backup,) = (tmp_path / "saved").glob("kwx-*.sqlite3")
    assert code == 0 and out.endswith(f"完整性正常）；删除了 1 个较早的备份：{first.name}。\n")
    code, out, _ = _run(capsys, "backup", str(tmp_path / "also"), "--db", db, "--lang", "en")
    assert code == 0 and out.startswith(f"Backed up {db}: ") and out.endswith(" integrity ok).\n")
    _with_store(db, lambda store: store.transfer(GUILD, "a", "b", 10, by="a"))
    code, out, err = _run(capsys, "restore", str(backup), "--db", db, "--lang", "zh-CN")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"备份检查通过：{backup}（SQLite，结构 v") and lines[0].endswith("2 条账目）。")
    assert lines[1].startswith(f"被替换的数据库保留为 {db}.replaced-")
    assert lines[2] == f"已用 {backup} 恢复了 {db}。"
    assert lines[-5:] == [f"服务器 {GUILD}：",
                          "名字  玩家 ID  恢复前  恢复后  变化",
                          "Ann   a            +6     +16   +10",
                          "Bob   b            +2      \u22128   \u221210",
                          "Cy    c            \u22128      \u22128"]
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(backup.read_bytes())
    conn = sqlite3.connect(damaged)
    conn.execute("UPDATE balances SET balance = 0 WHERE player_id = 'a'")
    conn.commit()
    conn.close()
    code, _, err = _run(capsys, "restore", str(damaged), "--db", db, "--lang", "zh-CN")
    assert code == 2 and err == ("kwx ledger：这个备份没通过检查：\n  服务器 g1，玩家 a：余额表记的余额是 0，账目算出来是 16"
                                 "；什么都没有改动。\n")


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
    before = set(threading.enumerate())

    async def open_it() -> None:
        with pytest.raises(StoreError):
            await Store.open(junk)

    asyncio.run(open_it())
    started = set(threading.enumerate()) - before
    for thread in started:  # a closed connection's thread ends a moment after close() returns
        thread.join(timeout=5)
    assert not [t for t in started if t.is_alive()]
