"""Simulator speed on one core: `python -m benchmarks.game --json`.

Plays hands of three `simple`, three `standard` and three `strong` AI players (engine + AI, no I/O) and reports
hands per second and the mean time of one action (legal actions, the AI's choice and applying it). For
`strong` it also times every single decision (`decide`, the observation included) and reports p50 and p99:
the level also plays at live tables and for humans in 托管. Time is the process's CPU time, so other work on
the machine does not count against the one core this runs on.
Goals: ≥ 500 hands/s simple, ≥ 100 hands/s standard, strong p99 ≤ 20 ms per decision.
"""

from __future__ import annotations

import argparse
import json
import time

from kwx.engine.ai import decide
from kwx.engine.rules import STANDARD
from kwx.engine.seeds import first_dealer, hand_seed
from kwx.engine.simulate import simulate
from kwx.engine.table import TableState


def measure(level: str, hands: int, seed: str) -> tuple[float, float]:
    simulate(min(hands, 100), seed=f"warm-{seed}", ai=(level,) * 3)  # fill the per-suit caches once
    started = time.process_time()
    report = simulate(hands, seed=seed, ai=(level,) * 3)
    cpu = time.process_time() - started
    return report.hands / cpu, cpu / report.actions * 1e6


def decision_times(level: str, hands: int, seed: str) -> list[float]:
    """CPU microseconds of each decision with a real choice (more than one legal action)."""
    table = TableState(STANDARD, first_dealer(seed))
    clock = time.process_time_ns
    out: list[float] = []
    for number in range(1, hands + 1):
        hand = table.start_hand(hand_seed(seed, number))
        while not hand.finished:
            seat = min(hand.to_act())
            choice = len(hand.legal_actions(seat)) > 1
            started = clock()
            action = decide(hand, seat, level)
            if choice:
                out.append((clock() - started) / 1000)
            hand.apply(action)
        table.finish_hand(hand)
    return out


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    simple_hps, simple_us = measure("simple", args.hands, args.seed)
    standard_hps, standard_us = measure("standard", max(args.hands // 2, 1), args.seed)
    strong_hps, strong_us = measure("strong", max(args.hands // 8, 1), args.seed)
    times = decision_times("strong", max(args.hands // 8, 1), f"{args.seed}-decisions")
    out = {
        "hands": args.hands,
        "simple_hands_per_s": round(simple_hps, 1),
        "standard_hands_per_s": round(standard_hps, 1),
        "strong_hands_per_s": round(strong_hps, 1),
        "action_us": round(simple_us, 2),
        "standard_action_us": round(standard_us, 2),
        "strong_action_us": {"mean": round(strong_us, 1), "p50": round(_percentile(times, 0.5), 1),
                             "p99": round(_percentile(times, 0.99), 1),
                             "max": round(max(times, default=0.0), 1), "decisions": len(times)},
        "goals": {"simple_hands_per_s": 500, "standard_hands_per_s": 100, "strong_action_us_p99": 20000},
    }
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
