"""Does a change make `strong` stronger? `python -m benchmarks.ai_paired --set PUNG_SPEED=0 --json`

Plays the same hands twice per seed, `strong` against two `--against` players (default `standard`): once as
landed, once with the model constants of `kwx.engine.ai_strong` changed as `--set NAME=VALUE` says. It reports
strong's net per hand both ways and the paired difference (changed − landed) with a 95 % interval.

Both runs deal the same walls, so most hands play out alike and the difference is far less noisy than two
separate `simulate` runs: at 20,000 hands per seed, ±0.01 to ±0.03 base per hand, against ±0.06 for one run's
own result. Changes to `strong` in this repository were measured this way; to check one, set its constant back
(`--set PUNG_SPEED=0`, `--set LOOSE_WEIGHT=0`) and read the landed change with the sign reversed.
`--rules PRESET` plays a rule preset other than the default. The two runs of a seed go to two processes (`--jobs`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence

from benchmarks.parallel import run_all
from kwx.engine import ai_strong
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.simulate import mean_ci95, simulate

_NOT_TUNABLE = {"NUM_KINDS", "NEVER"}  # the tile count, and the sentinel cost of feeding a declared hand


def tunable() -> list[str]:
    """The numeric model constants of ai_strong."""
    return sorted(k for k, v in vars(ai_strong).items()
                  if k.isupper() and not k.startswith("_") and k not in _NOT_TUNABLE and type(v) in (int, float))


def parse_settings(pairs: Sequence[str]) -> dict[str, float]:
    """`NAME=VALUE` pairs → {NAME: value}; only the numeric model constants of ai_strong may be changed."""
    names = tunable()
    out: dict[str, float] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or name not in names:
            raise ValueError(f"--set {pair!r}: expected NAME=VALUE with NAME one of {', '.join(names)}")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"--set {pair!r}: {raw!r} is not a number") from None
        out[name] = int(value) if type(getattr(ai_strong, name)) is int else value
    return out


def strong_nets(hands: int, seed: str, against: str, settings: Mapping[str, float],
                preset: str = "standard") -> list[int]:
    """Player 0's (strong's) net of every hand under the rule preset, with `settings` applied to ai_strong for
    this run only."""
    saved = {name: getattr(ai_strong, name) for name in settings}
    try:
        for name, value in settings.items():
            setattr(ai_strong, name, value)
        report = simulate(hands, seed, ("strong", against, against), rules=RuleSet.preset(preset),
                          keep_per_hand=True)
    finally:
        for name, value in saved.items():
            setattr(ai_strong, name, value)
    if report.errors:
        raise RuntimeError(f"seed {seed}: {report.errors} hands ended in a referee error")
    return [row[0] for row in report.per_hand_net]


def _mean_ci(xs: Sequence[int]) -> tuple[float, float]:
    return mean_ci95(len(xs), sum(xs), sum(x * x for x in xs))


def compare(hands: int, seeds: Sequence[str], settings: Mapping[str, float], against: str = "standard",
            jobs: int = 2, preset: str = "standard") -> dict:
    """The paired comparison, as the JSON this benchmark prints."""
    runs = [(seed, changed) for seed in seeds for changed in (False, True)]
    args = [(hands, seed, against, settings if changed else {}, preset) for seed, changed in runs]
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
        "set": dict(settings),
        "seeds": per_seed,
        "diff": round(mean, 4),
        "diff_ci95": [round(mean - half, 4), round(mean + half, 4)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                        help="a model constant of kwx.engine.ai_strong to change (repeatable)")
    parser.add_argument("--seeds", default="d1,d2", help="comma-separated simulation seeds (default d1,d2)")
    parser.add_argument("--hands", type=int, default=20000, help="hands per seed (default 20000)")
    parser.add_argument("--against", default="standard", choices=("simple", "standard", "strong"))
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rule preset (default standard)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        settings = parse_settings(args.settings)
    except ValueError as exc:
        parser.error(str(exc))
    seeds = [s for s in args.seeds.split(",") if s]
    if not seeds:
        parser.error("--seeds: name at least one seed")
    if args.hands < 1:
        parser.error("--hands: play at least one hand per seed")
    out = compare(args.hands, seeds, settings, args.against, args.jobs, args.rules)
    print(json.dumps(out, ensure_ascii=False) if args.json else json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
