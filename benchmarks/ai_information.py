"""What would `strong` win if it saw what no seat may see? `python -m benchmarks.ai_information --json`

A ceiling for work on reading opponents. `strong` (seat 0) plays the same hands against two `--against` players
once per oracle, and is told, on top of its own `Observation`:
- `none`: nothing (strong as it plays);
- `tiles_at_ready`: at each decision where it may declare 亮倒, where every tile it has not seen is: in the wall or
  in an opponent's concealed hand (a 暗杠 included). Everything outside the wall counts as seen, so its live counts
  become the wall's own;
- `tiles`: the same at every decision.
The dealer rotates with the hand number (not the winner), so a hand and its twin under another oracle share wall
and dealer, and the difference is paired hand by hand. Per oracle it reports strong's net per hand, the paired
difference from `none` with a 95 % interval, its 亮倒 rate, and the mean number of copies of its declared waits
still in the wall when it declared: how much better the waits it declares are.

It measures how much a better read of where the tiles are could be worth; nothing of it reaches a table. The
oracles build their own `Observation` and call `ai.choose(obs, "strong")`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmarks import tuning
from benchmarks.parallel import run_all
from kwx.engine.actions import Action
from kwx.engine.ai import AI_LEVELS, DEFAULT_PARAMS, StrongParams, choose, decide, observe
from kwx.engine.ai_base import Observation
from kwx.engine.hand import HandState
from kwx.engine.rules import STANDARD
from kwx.engine.seeds import hand_seed
from kwx.engine.simulate import mean_ci95
from kwx.engine.tiles import COPIES, NUM_KINDS
from kwx.engine.wall import wall_from_seed

ORACLES = ("none", "tiles_at_ready", "tiles")
STRONG = 0  # strong's seat in every hand


def told_where_tiles_are(hand: HandState, obs: Observation) -> Observation:
    """`obs` with every tile that is not in the wall counted as seen (the opponents' concealed tiles and 暗杠
    included): 4 − visible is then the number of copies of each tile kind left in the wall."""
    left = Counter(hand.remaining_wall())
    obs.visible = [COPIES - left[t] for t in range(NUM_KINDS)]
    return obs


def deal(seed: str, number: int) -> HandState:
    """Hand `number` of a run: its wall from the seed, the dealer rotating with the number (not the winner), so
    the hand is the same under every oracle."""
    return HandState(STANDARD, number % 3, wall_from_seed(hand_seed(seed, number)))


def _strong_action(hand: HandState, oracle: str, params: StrongParams) -> Action:
    legal = hand.legal_actions(STRONG)
    told = oracle == "tiles" or (oracle == "tiles_at_ready" and any(a.verb == "liangdao" for a in legal))
    if not told or len(legal) == 1:
        return decide(hand, STRONG, "strong", strong_params=params)
    return choose(told_where_tiles_are(hand, observe(hand, STRONG)), "strong", strong_params=params)


def play(hands: int, seed: str, oracle: str, against: str = "standard",
         params: StrongParams = DEFAULT_PARAMS) -> dict[str, Any]:
    """Strong's net of every hand (in base) and what it declared, with `oracle`, strong tuned by `params`."""
    if oracle not in ORACLES:
        raise ValueError(f"unknown oracle {oracle!r}: choose from {', '.join(ORACLES)}")
    nets: list[int] = []
    declared = wall_copies = 0
    for number in range(1, hands + 1):
        hand = deal(seed, number)
        while not hand.finished:
            seat = min(hand.to_act())
            action = _strong_action(hand, oracle, params) if seat == STRONG else decide(hand, seat, against)
            declaring = seat == STRONG and action.verb == "liangdao"
            left = Counter(hand.remaining_wall()) if declaring else None  # before the next player draws
            hand.apply(action)
            if left is not None:
                declared += 1
                wall_copies += sum(left[w] for w in hand.liangdao_waits(STRONG))
        nets.append(hand.result.net[STRONG] // hand.base)
    return {"nets": nets, "declared": declared, "wall_copies": wall_copies}


def compare(hands: int, seeds: Sequence[str], oracles: Sequence[str] = ORACLES, against: str = "standard",
            jobs: int = 2, params: StrongParams = DEFAULT_PARAMS) -> dict[str, Any]:
    """Every oracle on every seed, as the JSON this benchmark prints."""
    oracles = ["none", *[o for o in oracles if o != "none"]]
    runs = [(seed, oracle) for seed in seeds for oracle in oracles]
    args = [(hands, seed, oracle, against, params) for seed, oracle in runs]
    results = run_all(play, args, jobs)
    by_run = dict(zip(runs, results))
    base = [x for seed in seeds for x in by_run[(seed, "none")]["nets"]]
    out = {}
    for oracle in oracles:
        nets = [x for seed in seeds for x in by_run[(seed, oracle)]["nets"]]
        diffs = [a - b for a, b in zip(nets, base)]
        mean, half = mean_ci95(len(diffs), sum(diffs), sum(d * d for d in diffs))
        declared = sum(by_run[(seed, oracle)]["declared"] for seed in seeds)
        copies = sum(by_run[(seed, oracle)]["wall_copies"] for seed in seeds)
        out[oracle] = {
            "net_per_hand": round(sum(nets) / len(nets), 4),
            "diff": round(mean, 4),
            "diff_ci95": [round(mean - half, 4), round(mean + half, 4)],
            "liangdao_rate": round(declared / len(nets), 4),
            "declared_wait_wall_copies": round(copies / declared, 3) if declared else 0.0,
        }
    return {"hands": hands, "seeds": list(seeds), "against": against, "set": tuning.changed(params), "oracles": out}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=4000, help="hands per seed (default 4000)")
    parser.add_argument("--seeds", default="d1,d2", help="comma-separated simulation seeds (default d1,d2)")
    parser.add_argument("--oracles", default=",".join(ORACLES), help=f"comma-separated, of {', '.join(ORACLES)}")
    parser.add_argument("--against", default="standard", choices=AI_LEVELS)
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    tuning.add_argument(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    params = tuning.from_args(parser, args)
    seeds = [s for s in args.seeds.split(",") if s]
    oracles = [o for o in args.oracles.split(",") if o]
    if not seeds:
        parser.error("--seeds: name at least one seed")
    if args.hands < 1:
        parser.error("--hands: play at least one hand per seed")
    unknown = [o for o in oracles if o not in ORACLES]
    if unknown or not oracles:
        parser.error(f"--oracles: choose from {', '.join(ORACLES)}")
    out = compare(args.hands, seeds, oracles, args.against, args.jobs, params)
    print(json.dumps(out, ensure_ascii=False) if args.json else json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
