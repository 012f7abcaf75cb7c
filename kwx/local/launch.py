"""Which local front end a command line asks for: the game screen, the line mode, the browser, or the autoplay
runner.

    return run_local(args, settings, prog="kwx-bot")     # bot.py's branch without Discord

`args` is the bot's command line (kwx.cli.bot_args); a value out of range is one line on stderr and status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO

from kwx.cli.settings import Settings

TURN_SECONDS = (5, 3600)  # the turn timer a new table may have


def wants_local(args: argparse.Namespace, settings: Settings) -> bool:
    """The terminal rather than Discord: asked for (`--local`, `--autoplay`), or no Discord token set."""
    return bool(args.local) or args.autoplay is not None or not settings.has_discord


def check_local_args(args: argparse.Namespace) -> str | None:
    """What is wrong with the local options, on one line, or None."""
    if args.autoplay is not None and args.autoplay < 0:
        return "--autoplay needs a number of hands ≥ 0"
    low, high = TURN_SECONDS
    if args.turn_seconds is not None and not low <= args.turn_seconds <= high:
        return f"--turn-seconds needs a number of seconds from {low} to {high}"
    return None


def run_local(args: argparse.Namespace, settings: Settings, prog: str = "python bot.py") -> int:
    """`--autoplay N` runs the headless runner; `--plain`, or a pipe on either end, the line mode; else the
    game screen."""
    problem = check_local_args(args)
    if problem is not None:
        print(f"{prog}: {problem}", file=sys.stderr)
        return 2
    unusable = store_problem(args.db or settings.db_path)
    if unusable is not None:  # one line and exit 2, as in the ledger commands, not a crash report
        from kwx.local.text import say

        print(say("db_unusable", settings.lang, error=unusable), file=sys.stderr)
        return 2
    if args.autoplay is not None:
        from kwx.local.autoplay import run_autoplay

        return run_autoplay(settings, args.autoplay, db=args.db, seed=args.seed, delay=args.delay)
    if args.web:
        from kwx.local.browser import run_web

        return run_web(settings, args)
    if not hold_terminal(args.db or settings.db_path):  # a second `make run` in this checkout: both would play the one table and trip each other
        from kwx.local.text import say

        print(say("open_elsewhere", settings.lang), file=sys.stderr)
        return 2
    options = {"db": args.db, "seed": args.seed, "delay": args.delay, "turn_seconds": args.turn_seconds,
               "new": bool(args.new)}
    if args.plain or not _interactive():
        from kwx.local.plain import run_terminal

        return run_terminal(settings, **options)
    from kwx.local.app import run_app

    return run_app(settings, **options)


def store_problem(db: str | Path) -> str | None:
    """Why the SQLite store at `db` cannot be opened (not a database, a folder, no permission), or None. Read
    only; a missing file is fine (the game creates it)."""
    import sqlite3

    if str(db).startswith(("postgresql://", "postgres://")) or str(db) == ":memory:" or not Path(db).exists():
        return None
    if Path(db).is_dir():
        return f"{db}: is a folder, not a database file"
    try:
        conn = sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"{db}: {exc}"
    return None


def hold_terminal(db: str | Path) -> bool:
    """Hold the terminal table of the store at `db` for this process, False when another window holds it. The hold
    is a lock on a file beside the store, kept open until the process ends (the system drops the lock when it
    dies, even by SIGKILL). A PostgreSQL store, or a system without flock, is not held (True)."""
    if str(db).startswith(("postgresql://", "postgres://")) or str(db) == ":memory:":
        return True
    try:
        import fcntl
    except ImportError:  # not on every system
        return True
    path = Path(db).with_name(Path(db).name + ".terminal-lock")
    if any(Path(held.name) == path for held in _HELD):  # this process already holds it (run again in-process)
        return True
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("ab")
    except OSError:
        return True  # a folder we cannot write: opening the store will say what is wrong
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return False
    _HELD.append(handle)
    return True


_HELD: list[IO[bytes]] = []  # the lock files this process holds, open until it ends


def _interactive() -> bool:
    """A terminal on both ends gets the game screen; a pipe in or out gets the line mode."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
