"""The local front end: the game at the terminal and the headless autoplay runner, on the same table service,
store and ledger as Discord (guild `local`).

    plain.py     the line-by-line mode (`--plain`): pipes, screen readers, scripted runs
    autoplay.py  three AI players play N hands headless (`--autoplay N`)
    tables.py    the local tables: finding, seating, the clock that stands still while nobody runs them
    commands.py  typed commands → legal choices;  render.py views → rich text;  text.py strings and tiles
"""

from __future__ import annotations

from typing import Any


def run_local(args: Any, settings: Any) -> int:
    """bot.py's local branch: `--autoplay N` runs the headless runner, otherwise the terminal table."""
    if getattr(args, "autoplay", None) is not None:
        from kwx.local.autoplay import run_autoplay

        return run_autoplay(settings, args.autoplay, db=args.db, seed=args.seed, delay=args.delay)
    options = {"db": args.db, "seed": args.seed, "delay": args.delay,
               "turn_seconds": getattr(args, "turn_seconds", None)}
    from kwx.local.plain import run_terminal

    return run_terminal(settings, **options)
