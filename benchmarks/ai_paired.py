"""Does a change make `strong` stronger? `python -m benchmarks.ai_paired --set PUNG_SPEED=0 --json`

Plays the same hands twice per seed, `strong` against two `--against` players (default `standard`): once as
landed, once with its tuned constants (`kwx.engine.ai_strong.StrongParams`) changed as `--set NAME=VALUE` says
(benchmarks.tuning; a NAME that is not a field is an error). It reports strong's net per hand both ways and the
paired difference (changed − landed) with a 95 % interval.

Both runs deal the same walls, so most hands play out alike and the difference is far less noisy than two
separate `simulate` runs: at 20,000 hands per seed, ±0.01 to ±0.03 base per hand, against ±0.06 for one run's
own result. Changes to `strong` in this repository were measured this way; to check one, set its constant back
(`--set PUNG_SPEED=0`, `--set LOOSE_WEIGHT=0`) and read the landed change with the sign reversed.
`--rules PRESET` plays a rule preset other than the default. The two runs of a seed go to two processes (`--jobs`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from benchmarks import tuning
from benchmarks.parallel import run_all
from kwx.engine.ai_strong import DEFAULT_PARAMS, StrongParams
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.simulate import mean_ci95, simulate


def strong_nets(hands: int, seed: str, against: str, params: StrongParams = DEFAULT_PARAMS,
                preset: str = "standard") -> list[int]:
    """Player 0's (strong's) net of every hand under the rule preset, strong tuned by `params`."""
    report = simulate(hands, seed, ("strong", against, against), rules=RuleSet.preset(preset), keep_per_hand=True,
                      strong_params=params)
    if report.errors:
        raise RuntimeError(f"seed {seed}: {report.errors} hands ended in a referee error")
    return [row[0] for row in report.per_hand_net]


def _mean_ci(xs: Sequence[int]) -> tuple[float, float]:
    return mean_ci95(len(xs), sum(xs), sum(x * x for x in xs))


def compare(hands: int, seeds: Sequence[str], params: StrongParams, against: str = "standard",
            jobs: int = 2, preset: str = "standard") -> dict[str, Any]:
    """The paired comparison of strong as landed (DEFAULT_PARAMS) and tuned by `params`, as the JSON this
    benchmark prints."""
    runs = [(seed, changed) for seed in seeds for changed in (False, True)]
    args = [(hands, seed, against, params if changed else DEFAULT_PARAMS, preset) for seed, changed in runs]
    nets = run_all(strong_nets, args, jobs)
    by_run = dict(zip(runs, nets))
    per_seed = []
    all_diffs: list[int] = []
    for seed in seeds:
        landed, changed = by_run[(seed, False)], by_run[(seed, True)]
        diffs = [b - a for a, b in zip(landed, changed)]
        all_diffs += diffs
        mean, half = _mean_ci(diffs)
        per_seed.append({
            "seed": seed,
            "landed": round(sum(landed) / len(landed), 4),
            "changed": round(sum(changed) / len(changed), 4),
            "diff": round(mean, 4),
            "diff_ci95": [round(mean - half, 4), round(mean + half, 4)],
            "hands_same_net": sum(1 for d in diffs if d == 0),
        })
    mean, half = _mean_ci(all_diffs)
    return {
        "hands": hands,
        "against": against,
        "rules": preset,
        "set": tuning.changed(params),
        "seeds": per_seed,
        "diff": round(mean, 4),
        "diff_ci95": [round(mean - half, 4), round(mean + half, 4)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tuning.add_argument(parser)
    parser.add_argument("--seeds", default="d1,d2", help="comma-separated simulation seeds (default d1,d2)")
    parser.add_argument("--hands", type=int, default=20000, help="hands per seed (default 20000)")
    parser.add_argument("--against", default="standard", choices=("simple", "standard", "strong"))
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rule preset (default standard)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    params = tuning.from_args(parser, args)
    seeds = [s for s in args.seeds.split(",") if s]
    if not seeds:
        parser.error("--seeds: name at least one seed")
    if args.hands < 1:
        parser.error("--hands: play at least one hand per seed")
    out = compare(args.hands, seeds, params, args.against, args.jobs, args.rules)
    print(json.dumps(out, ensure_ascii=False) if args.json else json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
