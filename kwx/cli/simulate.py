"""`python -m kwx simulate --hands N [--seed S] [--ai standard,simple,simple] [--rules PRESET] [--json]`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TextIO

from kwx.cli import CliError, Subcommands
from kwx.engine.ai import AI_LEVELS
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.simulate import SimulationReport, simulate


class ProgressBar:
    """A one-line progress bar on standard error, shown only once a run has taken more than a second."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int, report: SimulationReport | None = None) -> None:
        now = time.perf_counter()
        if now - self.started < 1.0 or (now - self._last < 0.1 and done != self.total):
            return
        self._last = now
        width = 30
        filled = width * done // self.total
        rate = done / (now - self.started)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} hands {rate:,.0f}/s")
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser("simulate", help="play AI tables and check the books",
                              description="Play N hands of AI players as a table would; same seed, same result.")
    p.add_argument("--hands", type=int, required=True, help="how many hands to play")
    p.add_argument("--seed", default="0", help="run seed (any text); hand walls derive from it")
    p.add_argument("--ai", default="standard,standard,standard",
                   help=f"three levels, one per player, from: {', '.join(AI_LEVELS)}")
    p.add_argument("--rules", default="standard", help=f"preset: {', '.join(PRESETS)}")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        raise CliError("--hands must be at least 1")
    levels = [x.strip() for x in args.ai.split(",")]
    if len(levels) != 3 or any(level not in AI_LEVELS for level in levels):
        raise CliError(f"--ai takes three levels separated by commas, each one of: {', '.join(AI_LEVELS)}")
    try:
        rules = RuleSet.preset(args.rules)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if rules.rotation:
        raise CliError("the simulator plays three players; presets with rotation are not supported")
    report = simulate(args.hands, seed=args.seed, ai=levels, rules=rules, progress=ProgressBar(args.hands))
    data = report.to_json()
    if args.json:
        print(json.dumps(data))
        return 0
    checks = data["checks"]
    print(f"{data['hands']} hands in {data['seconds']} s ({data['hands_per_second']} hands/s)")
    print(f"wins {data['wins']} (自摸 {data['self_draws']}, 一炮双响 {data['double_rons']}), 荒庄 {data['draws']}, "
          f"亮倒 {data['liangdao']}")
    for player, p in enumerate(data["players"]):
        lo, hi = p["net_per_hand_ci95"]
        print(f"  player {player} ({p['level']}): {p['net']:+d}, {p['net_per_hand']:+.3f}/hand "
              f"[{lo:+.3f}, {hi:+.3f}]; wins {p['win_rate']:.1%} (自摸 {p['self_draw_rate']:.0%}), "
              f"deal-in {p['deal_in_rate']:.1%}, 亮倒 {p['liangdao_rate']:.1%}, 包胡 paid {p['fed_liangdao']}, "
              f"mean fan {p['mean_fan']:.2f}")
    print(f"checks: zero-sum {'ok' if checks['zero_sum'] else 'FAILED'}, tiles "
          f"{'ok' if checks['tiles_conserved'] else 'FAILED'}, errors {checks['errors']}")
    return 0 if checks["zero_sum"] and checks["tiles_conserved"] and not checks["errors"] else 1
