"""`python -m kwx <command>`: each command lives in its own module with `add_parser(subparsers)` and `run(args)`.

Bad input exits with status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Command modules, in the order `--help` lists them.
COMMANDS = ("fan", "waits", "replay", "simulate", "ledger")


class CliError(Exception):
    """A user mistake: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage + exits 2; keep it to one line
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with `only`, just that command's module is imported (fast start for scripts)."""
    parser = _Parser(prog="python -m kwx", description="Ka Wu Xing (卡五星) referee tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"kwx.cli.{name}")
        except ModuleNotFoundError as exc:  # a command still being written by another session
            if exc.name != f"kwx.cli.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    try:
        return int(importlib.import_module(f"kwx.cli.{args.command}").run(args) or 0)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
