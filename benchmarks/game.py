"""Simulator speed on one core: `python -m benchmarks.game --json`.

Plays hands of three `simple` and of three `standard` AI players (engine + AI, no I/O) and reports hands per
second and the mean time of one action (legal actions, the AI's choice and applying it). Time is the process's
CPU time, so other work on the machine does not count against the one core this runs on.
Goals: ≥ 500 hands/s simple, ≥ 100 hands/s standard.
"""

from __future__ import annotations

import argparse
import json
import time

from kwx.engine.simulate import simulate


def measure(level: str, hands: int, seed: str) -> tuple[float, float]:
    simulate(min(hands, 100), seed=f"warm-{seed}", ai=(level,) * 3)  # fill the per-suit caches once
    started = time.process_time()
    report = simulate(hands, seed=seed, ai=(level,) * 3)
    cpu = time.process_time() - started
    return report.hands / cpu, cpu / report.actions * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    simple_hps, simple_us = measure("simple", args.hands, args.seed)
    standard_hps, standard_us = measure("standard", max(args.hands // 2, 1), args.seed)
    out = {
        "hands": args.hands,
        "simple_hands_per_s": round(simple_hps, 1),
        "standard_hands_per_s": round(standard_hps, 1),
        "action_us": round(simple_us, 2),
        "standard_action_us": round(standard_us, 2),
        "goals": {"simple_hands_per_s": 500, "standard_hands_per_s": 100},
    }
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
