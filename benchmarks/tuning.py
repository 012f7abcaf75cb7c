"""`--set NAME=VALUE`: a changed copy of the strong AI's tuned constants (kwx.engine.ai_strong.StrongParams) for
the benchmarks that measure `strong`. NAME is a field of StrongParams in either case (`PUNG_SPEED` or
`pung_speed`); anything else is an error, so a setting can never be silently ignored."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import fields, replace

from kwx.engine.ai_strong import DEFAULT_PARAMS, StrongParams


def tunable() -> list[str]:
    """The names `--set` accepts: every field of StrongParams."""
    return [f.name for f in fields(StrongParams)]


def parse_settings(pairs: Sequence[str], base: StrongParams = DEFAULT_PARAMS) -> StrongParams:
    """`NAME=VALUE` pairs applied to `base`; raises ValueError naming the bad pair."""
    names = tunable()
    changes: dict[str, float | int] = {}
    for pair in pairs:
        raw_name, sep, raw = pair.partition("=")
        name = raw_name.strip().lower()
        if not sep or name not in names:
            raise ValueError(f"--set {pair!r}: expected NAME=VALUE with NAME one of {', '.join(names)}")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"--set {pair!r}: {raw!r} is not a number") from None
        if type(getattr(base, name)) is int:
            if not value.is_integer():
                raise ValueError(f"--set {pair!r}: {name} is a whole number")
            changes[name] = int(value)
        else:
            changes[name] = value
    return replace(base, **changes)


def changed(params: StrongParams, base: StrongParams = DEFAULT_PARAMS) -> dict[str, float | int]:
    """The fields of `params` that differ from `base` (what a report says was set)."""
    return {name: getattr(params, name) for name in tunable() if getattr(params, name) != getattr(base, name)}


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                        help="change one of strong's tuned constants (kwx.engine.ai_strong.StrongParams; repeatable)")


def from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> StrongParams:
    """The parameters `--set` asked for, or a clear argument error."""
    try:
        return parse_settings(args.settings)
    except ValueError as exc:
        parser.error(str(exc))
