"""Put a backup back in place of a SQLite store: `python -m kwx ledger restore BACKUP [--db TARGET]`.

    report = await restore_store(Path("data/backups/kwx-20250305T120000Z.sqlite3"), Path("data/kwx.sqlite3"))

What a careful restore does, in this order (any refusal changes nothing):
1. The backup is checked first (kwx.store.verify: integrity, payments, summaries, triggers): refused with its
   problems if it has any.
2. The target is taken with SQLite's own exclusive lock (`locking_mode=EXCLUSIVE`, `BEGIN EXCLUSIVE`, no
   waiting). SQLite grants it only when no other connection has the file open, so it is refused while a bot, the
   terminal table or any other program has the store open; the operating system drops a process's locks when
   it dies (even by SIGKILL), so a crashed bot never blocks a restore. The lock is held to the end, so nothing
   opens the store halfway through.
3. The target as it is — the database file and its `-wal`, byte for byte — is kept beside it as
   `<name>.replaced-<UTC time>` (and `…-wal`): opened together they are the store as it was.
4. The backup is copied into the target through SQLite's backup API, inside one transaction of the target
   (a crash halfway leaves the old store, which its rollback journal restores at the next open).
5. Each server's balances are read before and after, for the operator to compare; the restored store is
   checked again.
A target that does not exist yet (a fresh machine) is simply created from the backup. The next `Store.open`
puts the store back in WAL mode and migrates it if the backup is of an older schema (backing it up first).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from kwx.store.backup import STAMP, copy_checked
from kwx.store.models import StoreError
from kwx.store.verify import Problem, VerifyReport, verify_store

# server -> player -> (name, balance)
Balances = dict[str, dict[str, tuple[str, int]]]


class RestoreRefused(StoreError):
    """The restore did not happen (nothing was changed); the message says why and what to do."""


@dataclass
class RestoreReport:
    backup: Path
    target: Path
    checked: VerifyReport  # the backup's check
    kept: tuple[Path, ...] = ()  # the replaced store's files, kept
    before: Balances | None = None  # None: there was no store, or it could not be read
    before_error: str | None = None
    after: Balances = field(default_factory=dict)
    problems_after: list[Problem] = field(default_factory=list)


async def restore_store(backup: Path, target: Path, *, at: datetime | None = None) -> RestoreReport:
    """Restore `backup` over the SQLite store at `target` (see the module docstring). Raises RestoreRefused."""
    if not backup.is_file():
        raise RestoreRefused(f"no backup at {backup}", code="no_backup", path=str(backup))
    if target.exists() and _same_file(backup, target):  # a hard link too: restoring it would wait on its own lock
        raise RestoreRefused(f"{backup} is the store itself: name a backup", code="backup_is_store", path=str(backup))
    try:
        checked = await verify_store(backup)
    except StoreError as exc:
        raise RestoreRefused(f"the backup cannot be used: {exc}", code="backup_unusable", reason=exc) from None
    if not checked.ok:
        raise RestoreRefused("the backup fails its check:\n  " + "\n  ".join(checked.problems), code="backup_fails",
                             problems=tuple(checked.problems))
    report = RestoreReport(backup, target, checked)
    stamp = (at or datetime.now(UTC)).astimezone(UTC).strftime(STAMP)
    if target.exists():
        await asyncio.to_thread(_replace, backup, target, stamp, report)
    else:
        await asyncio.to_thread(copy_checked, backup, target)
        report.after = await asyncio.to_thread(_read_file_balances, target)
    after = await verify_store(target)
    report.problems_after = after.problems
    return report


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.samefile(other)
    except OSError:
        return False


def _replace(backup: Path, target: Path, stamp: str, report: RestoreReport) -> None:
    """Steps 2 to 5 on an existing target (blocking; see the module docstring)."""
    conn = sqlite3.connect(target, isolation_level=None, timeout=0)
    try:
        try:
            conn.execute("PRAGMA locking_mode = EXCLUSIVE")
            conn.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise RestoreRefused(f"{target} is open in another program (a running bot, the terminal table, "
                                     "a ledger command): stop it, then restore", code="store_open",
                                     path=str(target)) from None
            raise RestoreRefused(f"cannot lock {target}: {exc}", code="cannot_lock", path=str(target),
                                 detail=str(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise RestoreRefused(f"{target} is not a readable SQLite database ({exc}): move it aside, then "
                                 "restore into its place", code="store_unreadable", path=str(target),
                                 detail=str(exc)) from None
        try:
            report.before = _balances(conn)
        except sqlite3.Error as exc:  # a damaged store is why one restores: keep going, say so
            report.before_error = str(exc)
        report.kept = _keep(target, stamp)
        conn.execute("COMMIT")  # the exclusive lock stays (locking_mode EXCLUSIVE) until the connection closes
        conn.execute("PRAGMA journal_mode = DELETE")  # the backup API writes into a rollback-journal file
        source = sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)
        try:
            source.backup(conn)
        finally:
            source.close()
        report.after = _balances(conn)
    except sqlite3.Error as exc:
        kept = ", ".join(map(str, report.kept))
        if not kept:
            raise StoreError(f"restoring {target} failed ({exc}); the store as it was is kept as nothing (it failed"
                             " before)", code="restore_failed_early", path=str(target), detail=str(exc)) from exc
        raise StoreError(f"restoring {target} failed ({exc}); the store as it was is kept as {kept}",
                         code="restore_failed", path=str(target), detail=str(exc), kept=kept) from exc
    finally:
        conn.close()


def _keep(target: Path, stamp: str) -> tuple[Path, ...]:
    """Copy the target's database file and its WAL aside, byte for byte; never over an existing file."""
    kept = []
    base = target.with_name(f"{target.name}.replaced-{stamp}")
    for suffix in ("", "-wal"):
        source = Path(f"{target}{suffix}")
        if not source.exists():
            continue
        dest = Path(f"{base}{suffix}")
        if dest.exists():
            raise RestoreRefused(f"{dest} already exists: restore again in a second", code="kept_exists",
                                 path=str(dest))
        shutil.copy2(source, dest)
        kept.append(dest)
    return tuple(kept)


def _balances(conn: sqlite3.Connection) -> Balances:
    out: Balances = {}
    for guild, player, name, balance in conn.execute(
            "SELECT b.guild, b.player_id, COALESCE(p.name, b.player_id), b.balance FROM balances b"
            " LEFT JOIN players p ON p.guild = b.guild AND p.player_id = b.player_id"
            " ORDER BY b.guild, b.balance DESC, b.player_id"):
        out.setdefault(guild, {})[player] = (name, int(balance))
    return out


def _read_file_balances(path: Path) -> Balances:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _balances(conn)
    finally:
        conn.close()
