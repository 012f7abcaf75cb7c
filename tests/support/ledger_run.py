"""`python -m kwx ledger …` run in-process, as a test reads it: exit code, standard output and error."""

from __future__ import annotations

import argparse

from kwx.cli import ledger


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kwx")
    ledger.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["ledger", *argv])


def run_ledger(capsys, *argv: str) -> tuple[int, str, str]:
    code = ledger.run(_parse(*argv))
    out, err = capsys.readouterr()
    return code, out, err
