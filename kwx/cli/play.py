"""`python -m kwx play`: the terminal table, whether or not a Discord token is set (`kwx play` installed).

    python -m kwx play                  # the game screen (a pipe on either end: the line mode)
    python -m kwx play --plain          # the line-by-line mode: screen readers, scripts, `| tee game.log`
    python -m kwx play --autoplay 20    # three AI players, headless

The same table, store and options as `python bot.py --local` (kwx.local.launch).
"""

from __future__ import annotations

import argparse

from kwx.cli import CliError, Subcommands
from kwx.cli.bot_args import add_terminal_options


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser(
        "play", help="the terminal table: you against two AI players (--plain: line by line)",
        description="Play at the terminal, whether or not DISCORD_TOKEN is set: the game screen, or with --plain "
                    "the line-by-line mode for screen readers, pipes and scripts.",
    )
    add_terminal_options(p)


def run(args: argparse.Namespace) -> int:
    from kwx.cli.settings import ConfigError, load_settings
    from kwx.local.launch import run_local

    try:
        settings = load_settings()
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    return run_local(args, settings, prog="kwx play")
