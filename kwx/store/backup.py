"""Online backups of the SQLite store: checked copies in a folder, the newest `keep` of them kept.

    result = await back_up(Path("data/kwx.sqlite3"), Path("data/backups"), keep=14)   # kwx-20250305T120000Z.sqlite3
    schedule = BackupSchedule(db, folder, keep=14, every=86400); schedule.start(); …; await schedule.stop()

How a copy is made: SQLite's backup API, on a connection of its own in a worker thread (at the lowest CPU
priority: it takes what the tables leave over), copies every page in one step, that is inside one read transaction, so the copy is the store as of one commit. The store runs in WAL
mode, so its writer goes on committing meanwhile: nothing waits for the copy but the page reads themselves (the
copy releases the GIL while it runs). The copy is written beside its final name (`….partial`), switched to a
rollback journal (one self-contained file), checked with `PRAGMA integrity_check`, flushed to disk, and only
then renamed into place: a file with a backup's name is always a whole backup that passed its check. Nothing
is ever written over: a name that is taken gets a `-1`, `-2` … suffix.

Kept: the newest `keep` backups named `<stem>-<UTC time>.sqlite3` in the folder (scheduled and on demand).
The copy taken before a schema migration (`<stem>-<UTC time>-before-v<N>.sqlite3`, see `Store.open`) is never
removed by retention: there are few of them, and each is the way back from an upgrade.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from kwx.store.background import stop_task
from kwx.store.models import StoreError

logger = logging.getLogger(__name__)

STAMP = "%Y%m%dT%H%M%SZ"
DEFAULT_KEEP = 14
DEFAULT_EVERY_S = 24 * 3600.0
RETRY_S = 3600.0  # a scheduled backup that failed is tried again after an hour (or `every`, if sooner)
INTEGRITY_LINES = 20  # problems PRAGMA integrity_check reports at most


class BackupError(StoreError):
    """A backup could not be made, or made one that failed its check (then no file has a backup's name)."""


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int  # bytes
    seconds: float
    taken_at: datetime
    removed: tuple[Path, ...] = field(default=())  # older backups retention deleted

    def describe(self) -> str:
        line = (f"{self.path} written and checked ({self.size / 1e6:.1f} MB in {self.seconds:.2f} s, "
                "integrity ok)")
        if self.removed:
            line += f"; removed {len(self.removed)} older: {', '.join(p.name for p in self.removed)}"
        return line


def default_backup_dir(db_path: Path) -> Path:
    """`$KWX_BACKUP_DIR`, else `backups/` beside the store (data/backups for the default data/kwx.sqlite3)."""
    configured = (os.environ.get("KWX_BACKUP_DIR") or "").strip()
    return Path(configured) if configured else db_path.parent / "backups"


def backup_name(db_path: Path, at: datetime, *, before_version: int | None = None) -> str:
    suffix = "" if before_version is None else f"-before-v{before_version}"
    return f"{db_path.stem}-{at.astimezone(UTC).strftime(STAMP)}{suffix}.sqlite3"


def _rotated(stem: str) -> re.Pattern[str]:
    """The names retention manages: `<stem>-<stamp>[-n].sqlite3`, not the copies taken before a migration."""
    return re.compile(rf"^{re.escape(stem)}-(\d{{8}}T\d{{6}}Z)(?:-(\d+))?\.sqlite3$")


def rotated_backups(directory: Path, stem: str) -> list[Path]:
    """The folder's scheduled and on-demand backups of a store named `stem`, oldest first."""
    pattern = _rotated(stem)
    found = []
    for path in directory.glob(f"{stem}-*.sqlite3"):
        match = pattern.match(path.name)
        if match:
            found.append(((match.group(1), int(match.group(2) or 0)), path))
    return [path for _, path in sorted(found)]


def newest_backup_time(directory: Path, stem: str) -> datetime | None:
    backups = rotated_backups(directory, stem) if directory.is_dir() else []
    if not backups:
        return None
    match = _rotated(stem).match(backups[-1].name)
    assert match is not None
    return datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)


def prune(directory: Path, stem: str, keep: int) -> list[Path]:
    """Delete the oldest rotated backups beyond the newest `keep`; return what was deleted."""
    if keep < 1:
        raise ValueError("keep at least one backup")
    doomed = rotated_backups(directory, stem)[:-keep]
    for path in doomed:
        path.unlink(missing_ok=True)
    return doomed


def free_name(path: Path) -> Path:
    """`path`, or `path` with -1, -2 … before its suffix when that name (or its .partial) is taken."""
    candidate, n = path, 0
    # lexists: a symbolic link is a taken name even when what it points at is not there
    while os.path.lexists(candidate) or os.path.lexists(candidate.with_name(candidate.name + ".partial")):
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """What `PRAGMA integrity_check` finds wrong (empty when the file is sound)."""
    rows = conn.execute(f"PRAGMA integrity_check({INTEGRITY_LINES})").fetchall()
    return [] if [tuple(r) for r in rows] == [("ok",)] else [str(r[0]) for r in rows]


def copy_checked(source: Path, dest: Path) -> int:
    """Copy the store at `source` into the new file `dest` (see the module docstring); return its size.

    Blocking: call it in a worker thread. Raises BackupError (nothing is left at `dest` then)."""
    if not source.is_file():
        raise BackupError(f"no store at {source}", code="no_store", path=str(source))
    if os.path.lexists(dest):
        raise BackupError(f"{dest} already exists: a backup never writes over a file", code="dest_exists",
                          path=str(dest))
    partial = dest.with_name(dest.name + ".partial")
    ours = False  # the .partial is deleted at the end only if this copy created it
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        _create_new(partial)
        ours = True
        src = sqlite3.connect(source, isolation_level=None)
        try:
            src.execute("PRAGMA query_only = ON")
            out = sqlite3.connect(partial, isolation_level=None)
            try:
                src.backup(out)  # pages=-1: every page in one step, one read transaction (see above)
                out.execute("PRAGMA journal_mode = DELETE")
                problems = integrity_problems(out)
            finally:
                out.close()
        finally:
            src.close()
        if problems:
            raise BackupError(f"the copy of {source} fails its integrity check: {'; '.join(problems)}")
        _flush(partial)
        os.replace(partial, dest)
        _flush(dest.parent)
    except (sqlite3.Error, OSError) as exc:
        raise BackupError(f"cannot back up {source} to {dest}: {exc}") from exc
    finally:
        if ours:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
    return dest.stat().st_size


def _create_new(partial: Path) -> None:
    """Create the empty `.partial` the copy goes into, refusing any file already there: a symbolic link
    planted there would otherwise have the copy written through it, over whatever it points at."""
    try:
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600))
    except FileExistsError:
        raise BackupError(f"{partial} already exists (another backup under way, or left behind): a backup "
                          "never writes over a file", code="partial_exists", path=str(partial)) from None


def _flush(path: Path) -> None:
    """fsync a file, or a folder (so a rename in it survives a crash; not every system allows that)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


async def back_up(db_path: Path, directory: Path, *, keep: int | None = DEFAULT_KEEP,
                  clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> BackupResult:
    """A checked backup of the store into `directory`; then, with `keep`, retention. Raises BackupError."""
    taken_at = clock()
    dest = free_name(directory / backup_name(db_path, taken_at))
    return await back_up_to(db_path, dest, keep=keep, taken_at=taken_at)


async def back_up_to(db_path: Path, dest: Path, *, keep: int | None = None,
                     taken_at: datetime | None = None) -> BackupResult:
    """A checked backup of the store at exactly `dest` (a new file); with `keep`, retention in its folder."""
    started = time.perf_counter()
    size = await asyncio.get_running_loop().run_in_executor(_worker(), copy_checked, db_path, dest)
    seconds = time.perf_counter() - started
    removed = tuple(prune(dest.parent, db_path.stem, keep)) if keep is not None else ()
    return BackupResult(dest, size, seconds, taken_at or datetime.now(UTC), removed)


_WORKER: ThreadPoolExecutor | None = None


def _worker() -> ThreadPoolExecutor:
    """The one thread backups run in, at the lowest CPU priority, so that copying and checking a big store
    takes the CPU the tables leave over rather than theirs (a thread's nice value is its own on Linux)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = ThreadPoolExecutor(1, thread_name_prefix="kwx-backup", initializer=_lowest_priority)
    return _WORKER


def _lowest_priority() -> None:
    with contextlib.suppress(AttributeError, OSError):  # not on every system
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def back_up_before_migration(db_path: Path, directory: Path, version: int, target: int) -> Path:
    """The copy `Store.open` takes before migrating a store from schema `version` to `target` (blocking)."""
    dest = free_name(directory / backup_name(db_path, datetime.now(UTC), before_version=target))
    try:
        size = copy_checked(db_path, dest)
    except BackupError as exc:
        raise BackupError(f"{exc}; the store was not migrated from schema v{version} to v{target}: free some "
                          "space, or point KWX_BACKUP_DIR to a folder that can take the copy") from exc
    logger.warning("store %s is at schema v%d, this program needs v%d: backed it up to %s (%.1f MB) before "
                   "migrating", db_path, version, target, dest, size / 1e6)
    return dest


class BackupSchedule:
    """Backs the store up every `every` seconds (a day by default) into `directory`, keeping `keep`. The first
    backup comes `every` after the newest one already in the folder (at once when there is none). A failure is
    logged as an error and tried again after RETRY_S. `last`, `failures` and `last_error` are for metrics."""

    def __init__(self, db_path: Path, directory: Path, *, keep: int = DEFAULT_KEEP,
                 every: float = DEFAULT_EVERY_S, retry: float = RETRY_S) -> None:
        if every <= 0:
            raise ValueError("every must be positive")
        self.db_path, self.directory, self.keep, self.every, self.retry = db_path, directory, keep, every, retry
        self.last: BackupResult | None = None
        self.failures = 0
        self.last_error: str | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="kwx-backups")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await stop_task(task)

    def due_in(self) -> float:
        """Seconds until the next backup is due (0: now)."""
        newest = newest_backup_time(self.directory, self.db_path.stem)
        if newest is None:
            return 0.0
        return max(0.0, newest.timestamp() + self.every - time.time())

    async def run_once(self) -> BackupResult | None:
        """One backup with retention, logged; None when it failed (logged as an error)."""
        try:
            result = await back_up(self.db_path, self.directory, keep=self.keep)
        except (BackupError, OSError) as exc:
            self.failures += 1
            self.last_error = str(exc)
            logger.error("backup of %s failed: %s (trying again in %.0f min)", self.db_path, exc,
                         min(self.every, self.retry) / 60)
            return None
        self.last, self.last_error = result, None
        logger.info("backup: %s; keeping the newest %d", result.describe(), self.keep)
        return result

    async def _run(self) -> None:
        delay = self.due_in()
        if delay:
            logger.info("backups of %s every %.0f h into %s, keeping %d; the next in %.1f h", self.db_path,
                        self.every / 3600, self.directory, self.keep, delay / 3600)
        while True:
            await asyncio.sleep(delay)
            done = await self.run_once()
            delay = self.every if done else min(self.every, self.retry)
