"""Backups that restore: online copies under load, retention, the copy before a migration, a restore that is
refused while the store is open and keeps what it replaces, and corrupt backups refused."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite
import pytest

from kwx.store import Store, StoreError
from kwx.store.backup import (
    BackupError,
    back_up,
    back_up_to,
    backup_name,
    copy_checked,
    prune,
    rotated_backups,
)
from kwx.store.migrations import MIGRATIONS, SCHEMA_VERSION, migrate
from kwx.store.restore import RestoreRefused, restore_store
from kwx.store.verify import verify_store
from kwx.table import PlayerRef, TableService
from tests.support.frontends import RecordingFrontEnd
from tests.support.ledger import NAMES, make_hand
from tests.support.players import GUILD

pytestmark = pytest.mark.sqlite_only
ROOT = Path(__file__).resolve().parents[2]
NOON = datetime(2025, 3, 5, 12, 0, tzinfo=UTC)


async def _play_a_little(store: Store, hands: int = 2) -> int:
    """A table with two recorded hands (and one reversed), a transfer: money in every summary."""
    seats = [{"player_id": p, "name": NAMES[p]} for p in "abc"]
    table = await store.create_table(GUILD, rules={"preset": "standard"}, seed="s", seats=seats)
    for n in range(1, hands + 1):
        await store.finish_hand(make_hand(table, n, [("b", "a", 8, "hu"), ("c", "a", 8, "hu")], winners={"a": 8}))
    await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="a", why="misdeal")
    await store.transfer(GUILD, "b", "c", 5, by="b")
    return table


def _balances(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT player_id, balance FROM balances WHERE guild = ?", (GUILD,)).fetchall())


def _corrupt(path: Path) -> None:
    """Scribble over the middle of the file (past the header): pages SQLite will find broken."""
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(size // 2)
        f.write(os.urandom(4096))


# ---------------------------------------------------------------------------------------------- under load


async def test_backups_taken_while_fifty_tables_play_restore_into_a_fresh_directory_and_verify(tmp_path):
    live = tmp_path / "live" / "kwx.sqlite3"
    backups = tmp_path / "backups"
    frontend = RecordingFrontEnd()
    async with await Store.open(live) as store:
        service = TableService(store, frontend, ai_delay=0, between_hands=0, claim_pause=0, demo_hands=None)
        try:
            for i in range(50):
                host = PlayerRef(f"ai-host-{i}", "AI host", "simple")
                table = await service.open_table(GUILD, f"c{i}", host, seed=f"load-{i}")
                await service.add_ai(table, "simple")
                await service.add_ai(table, "simple")
                await service.start_game(table, by=host.player_id)
            await frontend.wait_for(lambda: len(frontend.results()) >= 10, timeout=60)
            taken = []
            for _ in range(3):  # each while the 50 tables keep writing
                taken.append(await back_up(live, backups, keep=14))
                await asyncio.sleep(0.2)
        finally:
            await service.shutdown()
    moves = [_count(b.path, "events") for b in taken]
    assert moves[0] < moves[1] < moves[2] < _count(live, "events")  # the tables wrote between and after them
    hands = [(await verify_store(b.path)).hands for b in taken]
    assert hands[0] >= 10
    for backup in taken:
        report = await verify_store(backup.path)
        assert report.ok, report.problems
    fresh = tmp_path / "fresh" / "kwx.sqlite3"
    restored = await restore_store(taken[-1].path, fresh)
    assert restored.kept == () and restored.before is None and not restored.problems_after
    assert (await verify_store(fresh)).ok
    assert restored.after[GUILD] == {p: v for p, v in _named_balances(taken[-1].path).items()}
    async with await Store.open(fresh) as store:  # the restored store opens, and plays on
        assert (await store.balances(GUILD)).hands == hands[-1]


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _named_balances(path: Path) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT b.player_id, COALESCE(p.name, b.player_id), b.balance FROM balances b LEFT JOIN"
                            " players p USING (guild, player_id) WHERE b.guild = ?", (GUILD,)).fetchall()
    return {player: (name, balance) for player, name, balance in rows}


# ---------------------------------------------------------------------------------------------- backups


async def test_a_backup_is_a_whole_checked_store_of_its_own(tmp_path, store):
    await _play_a_little(store)
    result = await back_up(Path(store.path), tmp_path / "backups", keep=3)
    assert result.path.parent == tmp_path / "backups" and result.path.name.startswith("kwx-")
    assert not list(result.path.parent.glob("*.partial"))
    assert not Path(f"{result.path}-wal").exists()  # one self-contained file
    with sqlite3.connect(result.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert _balances(result.path) == _balances(Path(store.path)) == {"a": 16, "b": -13, "c": -3}


async def test_retention_keeps_the_newest_and_never_the_copies_taken_before_a_migration(tmp_path):
    folder = tmp_path / "backups"
    folder.mkdir()
    names = [f"kwx-2025030{d}T120000Z.sqlite3" for d in range(1, 6)]
    for name in [*names, "kwx-20250301T110000Z-before-v3.sqlite3", "other-20250301T120000Z.sqlite3", "notes.txt"]:
        (folder / name).write_bytes(b"")
    removed = prune(folder, "kwx", keep=2)
    assert [p.name for p in removed] == names[:3]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*names[3:], "kwx-20250301T110000Z-before-v3.sqlite3", "other-20250301T120000Z.sqlite3", "notes.txt"])
    assert [p.name for p in rotated_backups(folder, "kwx")] == names[3:]


async def test_a_backup_never_writes_over_a_file(tmp_path, store):
    await _play_a_little(store)
    taken = tmp_path / "mine.sqlite3"
    taken.write_bytes(b"keep me")
    with pytest.raises(BackupError, match="already exists"):
        await back_up_to(Path(store.path), taken)
    assert taken.read_bytes() == b"keep me"
    # Two backups in the same second get two names.
    first = await back_up(Path(store.path), tmp_path / "b", keep=5, clock=lambda: NOON)
    second = await back_up(Path(store.path), tmp_path / "b", keep=5, clock=lambda: NOON)
    assert first.path.name == backup_name(Path(store.path), NOON)
    assert second.path.name == first.path.name.replace(".sqlite3", "-1.sqlite3")


async def test_a_copy_that_fails_its_check_leaves_no_backup_behind(tmp_path, store):
    await _play_a_little(store)
    broken = tmp_path / "broken.sqlite3"
    copy_checked(Path(store.path), broken)
    _corrupt(broken)
    with pytest.raises(BackupError):
        copy_checked(broken, tmp_path / "backup.sqlite3")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == []


# ---------------------------------------------------------------------------------------------- before a migration


async def test_an_older_store_is_backed_up_before_it_is_migrated(tmp_path):
    path = tmp_path / "old.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as old:
        await migrate(old, MIGRATIONS[:2])
        await old.execute("INSERT INTO guild_settings(guild, key, value, updated_at) VALUES ('g1', 'lang', 'en', 'x')")
    async with await Store.open(path) as store:
        assert await store.guild_setting("g1", "lang") == "en"
    (copy,) = (tmp_path / "backups").glob(f"old-*-before-v{SCHEMA_VERSION}.sqlite3")
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert conn.execute("SELECT value FROM guild_settings").fetchone()[0] == "en"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_store_that_cannot_be_backed_up_is_not_migrated(tmp_path):
    path = tmp_path / "old.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as old:
        await migrate(old, MIGRATIONS[:2])
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the backups would go")
    with pytest.raises(StoreError, match="not migrated from schema v2"):
        await Store.open(path, backup_dir=blocked)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2


# ---------------------------------------------------------------------------------------------- restore


async def test_a_restore_keeps_the_store_it_replaces_and_reports_balances_before_and_after(tmp_path, store):
    await _play_a_little(store)
    path = Path(store.path)
    backup = (await back_up(path, tmp_path / "backups")).path
    await store.transfer(GUILD, "a", "b", 7, by="a")  # after the backup: the restore takes it back
    await store.close()
    report = await restore_store(backup, path)
    assert report.before[GUILD]["a"] == ("Ann", 9) and report.after[GUILD]["a"] == ("Ann", 16)
    assert _balances(path) == {"a": 16, "b": -13, "c": -3}
    kept = report.kept[0]
    assert kept.name.startswith("kwx.sqlite3.replaced-") and kept.parent == path.parent
    assert _balances(kept) == {"a": 9, "b": -6, "c": -3}  # the store as it was, with its WAL
    assert (await verify_store(kept)).ok and not report.problems_after


async def test_a_restore_is_refused_while_the_store_is_open(tmp_path, store):
    await _play_a_little(store)
    backup = (await back_up(Path(store.path), tmp_path / "backups")).path
    await store.transfer(GUILD, "a", "b", 7, by="a")
    with pytest.raises(RestoreRefused, match="open in another program"):
        await restore_store(backup, Path(store.path))
    assert (await store.balance(GUILD, "a")).balance == 9  # untouched
    assert not list(tmp_path.glob("*.replaced-*"))


async def test_a_killed_bot_does_not_block_a_restore(tmp_path):
    path = tmp_path / "kwx.sqlite3"
    async with await Store.open(path) as store:
        await _play_a_little(store)
    backup = (await back_up(path, tmp_path / "backups")).path
    holder = subprocess.Popen(  # a process that has the store open, as a bot does, until it is killed
        [sys.executable, "-c", "import asyncio, sys\nfrom kwx.store import Store\n"
         "async def main():\n    s = await Store.open(sys.argv[1])\n    print('open', flush=True)\n"
         "    await asyncio.sleep(60)\nasyncio.run(main())", str(path)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(RestoreRefused):
            await restore_store(backup, path)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        report = await restore_store(backup, path)
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.stdout.close()
    assert report.kept and not report.problems_after


async def test_a_corrupted_backup_is_refused_and_nothing_changes(tmp_path, store):
    await _play_a_little(store)
    backup = (await back_up(Path(store.path), tmp_path / "backups")).path
    _corrupt(backup)
    assert not (await verify_store(backup)).ok
    await store.close()
    before = Path(store.path).read_bytes()
    with pytest.raises(RestoreRefused, match="fails its check") as refused:
        await restore_store(backup, Path(store.path))
    assert "integrity" in str(refused.value)
    assert Path(store.path).read_bytes() == before and not list(tmp_path.glob("*.replaced-*"))


async def test_a_file_that_is_not_a_store_is_refused_as_a_backup(tmp_path, store):
    await _play_a_little(store)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"SQLite format 2\x00" + os.urandom(8192))
    with pytest.raises(RestoreRefused, match="cannot be used"):
        await restore_store(junk, Path(store.path))
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()
    with pytest.raises(RestoreRefused, match="not a kwx store"):
        await restore_store(empty, Path(store.path))



# ---------------------------------------------------------------------------------------------- attacks


async def test_a_partial_name_taken_by_a_symbolic_link_is_never_written_through(tmp_path, store):
    await _play_a_little(store)
    victim = tmp_path / "victim.sqlite3"
    victim.write_bytes(b"another store")
    dest = tmp_path / "named.sqlite3"
    dest.with_name(dest.name + ".partial").symlink_to(victim)
    with pytest.raises(BackupError, match="already exists"):
        await back_up_to(Path(store.path), dest)
    assert victim.read_bytes() == b"another store" and not dest.exists()
    assert dest.with_name(dest.name + ".partial").is_symlink()  # not ours: left as it was
    # in a folder, the backup takes another name instead
    folder = tmp_path / "b"
    folder.mkdir()
    planted = folder / (backup_name(Path(store.path), NOON) + ".partial")
    planted.symlink_to(tmp_path / "nowhere.sqlite3")  # dangling: exists() says no, the name is still taken
    done = await back_up(Path(store.path), folder, keep=5, clock=lambda: NOON)
    assert done.path.name.endswith("-1.sqlite3") and not (tmp_path / "nowhere.sqlite3").exists()


async def test_a_restore_from_a_hard_link_to_the_store_is_refused_at_once(tmp_path, store):
    await _play_a_little(store)
    await store.close()
    link = tmp_path / "looks-like-a-backup.sqlite3"
    os.link(store.path, link)
    before = Path(store.path).read_bytes()
    with pytest.raises(RestoreRefused, match="is the store itself"):
        await asyncio.wait_for(restore_store(link, Path(store.path)), 20)
    assert Path(store.path).read_bytes() == before


async def test_verify_names_a_trigger_no_migration_made(tmp_path, store):
    await _play_a_little(store)
    backup = (await back_up(Path(store.path), tmp_path / "backups")).path
    with sqlite3.connect(backup) as conn:
        conn.execute("CREATE TRIGGER sneaky AFTER INSERT ON ledger_entries BEGIN"
                     " DELETE FROM ledger_entries WHERE id = NEW.id; END")
    report = await verify_store(backup)
    assert report.problems == ["unknown trigger sneaky: no kwx migration creates it"]
    with pytest.raises(RestoreRefused, match="sneaky"):
        await restore_store(backup, Path(store.path))
