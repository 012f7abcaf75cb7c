"""Where each AI player's money comes from: `python -m benchmarks.ai_outcomes --ai strong,standard,standard --json`

`kwx simulate` says how much a player wins; this says how. Per player, over the same simulated hands:
- `by_outcome`: how each hand ended for the player (won 自摸 or on a discard, declared 亮倒 or concealed; dealt in,
  while locked by its own 亮倒 or concealed, to a declared or a concealed winner; another player's 自摸; another
  player dealt in; 荒庄), with the share of hands and the net per hand (over all hands) each case brings;
- `by_reason`: the net per hand by payment reason (hu, baohu, the kongs, the 荒庄 亮倒 penalty);
- `ready_concealed_share`: of the hands the player ended ready (or won), the share in which it had not declared
  亮倒. Low means an undeclared player is seldom ready: `standard` declares nearly every ready hand.
The outcome cases of a player add up to its net, and so do its reasons.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from benchmarks import tuning
from kwx.engine.ai import AI_LEVELS, DEFAULT_PARAMS, StrongParams
from kwx.engine.analysis import shanten
from kwx.engine.hand import HandState
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.simulate import simulate
from kwx.engine.table import HandRecord


def outcome_of(hand: HandState, record: HandRecord, seat: int) -> str:
    """How the hand ended for `seat`, as one of the `by_outcome` cases."""
    result = record.result
    mine = "declared" if hand.declared(seat) else "concealed"
    if result.outcome != "win":
        return f"draw_{mine}"
    if seat in result.winners:
        return f"won_{'self_draw' if result.self_draw else 'on_discard'}_{mine}"
    if result.from_seat == seat:
        to = "declared" if any(hand.declared(w) for w in result.winners) else "concealed"
        return f"dealt_in_{'locked' if hand.declared(seat) else 'concealed'}_to_{to}"
    return "opponent_self_draw" if result.self_draw else "another_dealt_in"


def _ended_ready(hand: HandState, record: HandRecord, seat: int) -> bool:
    if record.result.outcome == "win" and seat in record.result.winners:
        return True
    counts = list(hand.counts(seat))
    melds = len(hand.melds(seat))
    return sum(counts) + 3 * melds == 13 and shanten(counts, melds) == 0


def measure(hands: int, seed: str, ai: tuple[str, str, str], preset: str = "standard",
            params: StrongParams = DEFAULT_PARAMS) -> dict[str, Any]:
    """The breakdown, as the JSON this benchmark prints; `strong` players tuned by `params`."""
    cases = [Counter() for _ in ai]
    case_net = [Counter() for _ in ai]
    reasons = [Counter() for _ in ai]
    ready = [Counter() for _ in ai]

    def on_hand(hand: HandState, record: HandRecord) -> None:
        for pay in record.result.payments:
            reasons[record.seated[pay.to_seat]][pay.reason] += pay.amount
            reasons[record.seated[pay.from_seat]][pay.reason] -= pay.amount
        for seat, player in enumerate(record.seated):
            case = outcome_of(hand, record, seat)
            cases[player][case] += 1
            case_net[player][case] += record.net[player]
            if _ended_ready(hand, record, seat):
                ready[player]["ready"] += 1
                ready[player]["concealed"] += int(not hand.declared(seat))

    report = simulate(hands, seed, ai, rules=RuleSet.preset(preset), on_hand=on_hand, strong_params=params)
    n = report.hands or 1
    players = []
    for p, level in enumerate(ai):
        players.append({
            "level": level,
            "net_per_hand": round(report.players[p].net / n, 4),
            "by_outcome": {case: {"share": round(cases[p][case] / n, 4), "net_per_hand": round(case_net[p][case] / n, 4)}
                           for case in sorted(cases[p])},
            "by_reason": {reason: round(amount / n, 4) for reason, amount in sorted(reasons[p].items())},
            "ready_concealed_share": round(ready[p]["concealed"] / ready[p]["ready"], 4) if ready[p]["ready"] else 0.0,
        })
    return {"hands": report.hands, "seed": seed, "rules": preset, "set": tuning.changed(params), "players": players}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ai", default="strong,standard,standard", help="three levels (default strong,standard,standard)")
    parser.add_argument("--seed", default="101", help="simulation seed (default 101)")
    parser.add_argument("--hands", type=int, default=3000, help="hands (default 3000)")
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rule preset (default standard)")
    tuning.add_argument(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    params = tuning.from_args(parser, args)
    ai = tuple(a.strip() for a in args.ai.split(","))
    if len(ai) != 3 or any(a not in AI_LEVELS for a in ai):
        parser.error(f"--ai: three levels from {', '.join(AI_LEVELS)}, comma-separated")
    if args.hands < 1:
        parser.error("--hands: play at least one hand")
    out = measure(args.hands, args.seed, ai, args.rules, params)
    print(json.dumps(out, ensure_ascii=False) if args.json else json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
