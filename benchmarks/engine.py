"""Hand-analysis speed against the `mahjong` package: `python -m benchmarks.engine [--hands N] [--json]`.

Side by side, on the same seeded hands:
- win check: our `is_win` against `Agari().is_agari` on N complete 14-tile hands (sets + pair, 1 in 10 seven
  pairs). Our tiles map onto mahjong's 34-tile arrays as 筒 → pin 9..17, 条 → sou 18..26, 中/发/白 → 33/32/31.
- shanten: our `shanten` (sets + pair and seven pairs) against `Shanten().calculate_shanten` (seven pairs on,
  kokushi off: no such hand here) on N/5 random 13-tile deals from a shuffled 84-tile wall.
- ours only: `waits` of N/5 ready 13-tile hands (a complete hand less one tile), and `score_counts` (fan, best
  reading, standard rules) of the same hands on their missing tile; also on hands with three or more readings.
- `fan_jsonl_hands_per_s`: `python -m kwx fan --jsonl` in a subprocess on --jsonl-lines lines (default 50,000),
  interpreter start-up included (also reported alone, and the rate without it).

Our analysis caches per-suit tables the first time it meets a suit shape, so every timed pass follows a warm-up
pass over the same hands, for both libraries alike; each figure is the best of --repeat timed passes, in µs a hand.
Goals (2 cores): win check ≥ 5× faster than is_agari, waits ≤ 15 µs, fan ≤ 30 µs, shanten ≥ 4× faster.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kwx.engine.analysis import is_win, readings, shanten, waits
from kwx.engine.fan import score_counts
from kwx.engine.tiles import NUM_KINDS, format_compact

GOALS = {"win_check_ratio": 5.0, "waits_us": 15.0, "fan_us": 30.0, "shanten_ratio": 4.0}
# Our tile index -> mahjong's 34-tile index.
TO_34 = (*range(9, 18), *range(18, 27), 33, 32, 31)
_SETS = [(t, t, t) for t in range(NUM_KINDS)] + [(o + r, o + r + 1, o + r + 2) for o in (0, 9) for r in range(7)]


# -- hands ---------------------------------------------------------------------------------------------------
def complete_hand(rng: random.Random) -> list[int]:
    """A random complete 14-tile concealed hand as counts: four random sets and a pair, or seven pairs."""
    while True:
        counts = [0] * NUM_KINDS
        if rng.random() < 0.1:
            for t in rng.sample(range(NUM_KINDS), 7):
                counts[t] = 2
            return counts
        for _ in range(4):
            for t in rng.choice(_SETS):
                counts[t] += 1
        counts[rng.randrange(NUM_KINDS)] += 2
        if max(counts) <= 4:
            return counts


def ready_hand(rng: random.Random) -> tuple[list[int], int]:
    """A complete hand less one random tile: (13-tile counts, the tile that was taken out)."""
    counts = complete_hand(rng)
    win = rng.choice([t for t in range(NUM_KINDS) if counts[t]])
    counts[win] -= 1
    return counts, win


def deal(rng: random.Random, wall: list[int], size: int = 13) -> list[int]:
    rng.shuffle(wall)
    counts = [0] * NUM_KINDS
    for t in wall[:size]:
        counts[t] += 1
    return counts


def to_34(counts: Sequence[int]) -> list[int]:
    out = [0] * 34
    for t, n in enumerate(counts):
        out[TO_34[t]] = n
    return out


# -- timing --------------------------------------------------------------------------------------------------
def per_hand_us(fn: Callable[[Any], Any], items: Sequence[Any], repeat: int) -> float:
    """µs per item: one warm-up pass, then the best of `repeat` timed passes."""
    for x in items:
        fn(x)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        best = min(best, time.perf_counter() - t0)
    return best / len(items) * 1e6


def jsonl_throughput(hands: Sequence[tuple[list[int], int]], rng: random.Random) -> dict[str, Any]:
    """`python -m kwx fan --jsonl` on one line per hand, in a subprocess: hands a second with the interpreter's
    start-up included, the start-up alone (an empty input), and the rate without it."""
    lines = []
    for counts, win in hands:
        tiles = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
        obj: dict[str, Any] = {"hand": format_compact(tiles), "win": format_compact([win])}
        if rng.random() < 0.5:
            obj["self_draw"] = True
        if rng.random() < 0.2:
            obj["liangdao"] = True
        lines.append(json.dumps(obj))
    data = ("\n".join(lines) + "\n").encode()
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "kwx", "fan", "--jsonl"]
    startup = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(command, input=b"", capture_output=True, cwd=root, check=True)
        startup = min(startup, time.perf_counter() - t0)
    t0 = time.perf_counter()
    proc = subprocess.run(command, input=data, capture_output=True, cwd=root, check=True)
    elapsed = time.perf_counter() - t0
    out = proc.stdout.decode().splitlines()
    if len(out) != len(lines):
        raise RuntimeError(f"fan --jsonl answered {len(out)} lines for {len(lines)}")
    return {
        "fan_jsonl_hands_per_s": round(len(lines) / elapsed),
        "fan_jsonl_lines": len(lines),
        "fan_jsonl_startup_s": round(startup, 3),
        "fan_jsonl_steady_hands_per_s": round(len(lines) / max(elapsed - startup, 1e-9)),
        "fan_jsonl_errors": sum(1 for line in out if '"error"' in line),
    }


# -- the run -------------------------------------------------------------------------------------------------
def run(hands: int, seed: int, repeat: int, jsonl_lines: int = 50_000) -> dict[str, Any]:
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    rng = random.Random(seed)
    small = max(hands // 5, 100)
    complete = [complete_hand(rng) for _ in range(hands)]
    complete_34 = [to_34(c) for c in complete]
    ready = [ready_hand(rng) for _ in range(small)]
    ready_counts = [c for c, _ in ready]
    wall = [t for t in range(NUM_KINDS) for _ in range(4)]
    deals = [deal(rng, wall) for _ in range(small)]
    deals_34 = [to_34(c) for c in deals]
    multi = [(c, w) for c, w in ready if len(readings([n + (t == w) for t, n in enumerate(c)])) >= 3]

    agari = Agari()
    sh = Shanten()
    mj_is_agari = agari.is_agari

    def mj_shanten(tiles: list[int]) -> int:
        return sh.calculate_shanten(tiles, use_chiitoitsu=True, use_kokushi=False)

    def fan(item: tuple[list[int], int]) -> object:
        return score_counts(item[0], item[1])

    # Both libraries must agree before their speed means anything.
    if not all(is_win(c) for c in complete) or not all(mj_is_agari(a) for a in complete_34):
        raise RuntimeError("a generated complete hand was not judged a win")
    if not all(score_counts(c, w) is not None for c, w in ready):
        raise RuntimeError("a ready hand did not win on its missing tile")
    agree = sum(1 for c, a in zip(deals, deals_34) if shanten(c) == mj_shanten(a)) / len(deals)

    win_us = per_hand_us(is_win, complete, repeat)
    agari_us = per_hand_us(mj_is_agari, complete_34, repeat)
    waits_us = per_hand_us(waits, ready_counts, repeat)
    fan_us = per_hand_us(fan, ready, repeat)
    fan_multi_us = per_hand_us(fan, multi, repeat) if multi else None
    shanten_us = per_hand_us(shanten, deals, repeat)
    mj_shanten_us = per_hand_us(mj_shanten, deals_34, repeat)

    result: dict[str, Any] = {
        "hands_win_check": hands,
        "hands_other": small,
        "seed": seed,
        "repeat": repeat,
        "warm_up": "one untimed pass over the same hands before the timed passes, for both libraries",
        "win_check_us": round(win_us, 3),
        "mahjong_agari_us": round(agari_us, 3),
        "win_check_ratio": round(agari_us / win_us, 2),
        "waits_us": round(waits_us, 3),
        "fan_us": round(fan_us, 3),
        "fan_multi_reading_us": round(fan_multi_us, 3) if fan_multi_us is not None else None,
        "fan_multi_reading_hands": len(multi),
        "shanten_us": round(shanten_us, 3),
        "mahjong_shanten_us": round(mj_shanten_us, 3),
        "shanten_ratio": round(mj_shanten_us / shanten_us, 2),
        "shanten_agreement": round(agree, 4),
    }
    if jsonl_lines:
        jsonl_hands = [ready_hand(rng) for _ in range(jsonl_lines)]
        result |= jsonl_throughput(jsonl_hands, rng)
    result["goals_met"] = {
        "win_check_ratio": result["win_check_ratio"] >= GOALS["win_check_ratio"],
        "waits_us": result["waits_us"] <= GOALS["waits_us"],
        "fan_us": result["fan_us"] <= GOALS["fan_us"],
        "shanten_ratio": result["shanten_ratio"] >= GOALS["shanten_ratio"],
        **({"fan_jsonl_hands_per_s": result["fan_jsonl_hands_per_s"] >= 10_000} if jsonl_lines else {}),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.engine", description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000,
                    help="complete hands for the win check (default 100000); the other sections use a fifth")
    ap.add_argument("--seed", type=int, default=5151)
    ap.add_argument("--repeat", type=int, default=3, help="timed passes after the warm-up; the best counts")
    ap.add_argument("--jsonl-lines", type=int, default=50_000,
                    help="lines piped through `python -m kwx fan --jsonl` (0 skips it; default 50000)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.hands < 100:
        ap.error("--hands must be at least 100")
    try:
        result = run(args.hands, args.seed, args.repeat, args.jsonl_lines)
    except ModuleNotFoundError as exc:
        print(f"error: {exc.name} is needed for the comparison: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"win check     {result['win_check_us']:8.2f} µs   mahjong is_agari {result['mahjong_agari_us']:8.2f} µs"
          f"   ×{result['win_check_ratio']}  (goal ×{GOALS['win_check_ratio']:g})")
    print(f"shanten       {result['shanten_us']:8.2f} µs   mahjong shanten  {result['mahjong_shanten_us']:8.2f} µs"
          f"   ×{result['shanten_ratio']}  (goal ×{GOALS['shanten_ratio']:g}; agree {result['shanten_agreement']:.2%})")
    print(f"waits         {result['waits_us']:8.2f} µs   (goal ≤ {GOALS['waits_us']:g})")
    print(f"fan           {result['fan_us']:8.2f} µs   (goal ≤ {GOALS['fan_us']:g}); "
          f"{result['fan_multi_reading_hands']} hands with ≥ 3 readings: {result['fan_multi_reading_us']} µs")
    if "fan_jsonl_hands_per_s" in result:
        print(f"fan --jsonl   {result['fan_jsonl_hands_per_s']:8d} hands/s over {result['fan_jsonl_lines']} lines "
              f"(goal ≥ 10000), start-up {result['fan_jsonl_startup_s']} s included; "
              f"{result['fan_jsonl_steady_hands_per_s']} hands/s without it")
    print(f"{result['hands_win_check']} complete hands, {result['hands_other']} for the rest, seed {result['seed']}; "
          "each figure the best of {0} timed passes after a warm-up pass over the same hands".format(result["repeat"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
