"""The local front end: the game at the terminal and the headless autoplay runner, on the same table service,
store and ledger as Discord (guild `local`).

    app.py       the game screen (Textual; app_port.py its FrontEnd port, widgets.py its screens): `python bot.py` at a terminal without a Discord token, or `--local`
    plain.py     the line-by-line mode (`--plain`): pipes, screen readers, scripted runs
    autoplay.py  three AI players play N hands headless (`--autoplay N`)
    tables.py    the local tables: finding, seating, the clock that stands still while nobody runs them
    commands.py  typed commands → legal choices;  render.py views → rich text;  text.py strings and tiles
    input_bytes.py  typed bytes that are not UTF-8 read as U+FFFD;  crash.py  an error's log file and exit status
"""

from __future__ import annotations

from typing import Any


def run_local(args: Any, settings: Any) -> int:
    """bot.py's local branch: `--autoplay N` runs the headless runner, otherwise the terminal table."""
    if getattr(args, "autoplay", None) is not None:
        from kwx.local.autoplay import run_autoplay

        return run_autoplay(settings, args.autoplay, db=args.db, seed=args.seed, delay=args.delay)
    options = {"db": args.db, "seed": args.seed, "delay": args.delay,
               "turn_seconds": getattr(args, "turn_seconds", None), "new": bool(getattr(args, "new", False))}
    if getattr(args, "plain", False) or not _interactive():
        from kwx.local.plain import run_terminal

        return run_terminal(settings, **options)
    from kwx.local.app import run_app

    return run_app(settings, **options)


def _interactive() -> bool:
    """A terminal on both ends gets the game screen; a pipe in or out gets the line mode."""
    import sys

    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
