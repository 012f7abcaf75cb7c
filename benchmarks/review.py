"""复盘 speed: `python -m benchmarks.review [--hands N] [--seed S] [--json]`.

Plays N hands (default 200) at one table of three `strong` AI seats through the table service into a temporary
SQLite ledger (the autoplay runner), then reviews every hand as `/kwx review` and `python -m kwx review` do:
load and check it (`load_ledger_hand`: the ledger record, the table's seed against the commitment, what the
table had learned of its players by the deal, from its earlier 亮倒 hands) and replay and value it (`review_hand`). Reported per hand, p50 / p99 / max in
milliseconds: the load, one seat's review, and the whole hand's review (all three seats: every decision of the
hand), with the decisions each counts. The goal is under 2 s for a whole hand of about 40 decisions.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from kwx.local.autoplay import autoplay
from kwx.local.tables import LOCAL_GUILD
from kwx.store import Store
from kwx.table.reviews import load_ledger_hand, review_hand

GOAL_S = 2.0


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 1),
            "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
            "max": round(ordered[-1], 1)}


async def measure(hands: int, seed: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "review.sqlite3"
        started = time.perf_counter()
        await autoplay(db, hands, seed=seed, level="strong", out=io.StringIO())
        played = time.perf_counter() - started
        load_ms, seat_ms, whole_ms, seat_n, whole_n = [], [], [], [], []
        async with await Store.open(db) as store:
            player = (await store.balances(LOCAL_GUILD)).rows[0].player
            ids = sorted(h.hand_id for h in await store.history(LOCAL_GUILD, player, limit=hands + 10))
            for hand_id in ids:
                t0 = time.perf_counter()
                source = await load_ledger_hand(store, LOCAL_GUILD, hand_id, sees_all=True)
                t1 = time.perf_counter()
                reviews = []
                for seat in range(3):
                    reviews.append(review_hand(source, seat))
                    if seat == 0:
                        t2 = time.perf_counter()
                t3 = time.perf_counter()
                load_ms.append((t1 - t0) * 1000)
                seat_ms.append((t2 - t1) * 1000)
                whole_ms.append((t3 - t1 + (t1 - t0)) * 1000)
                seat_n.append(len(reviews[0].decisions))
                whole_n.append(sum(len(r.decisions) for r in reviews))
    heavy = [ms for ms, n in zip(whole_ms, whole_n) if n >= 35]
    return {"benchmark": "review", "hands": len(ids), "seed": seed, "play_seconds": round(played, 1),
            "load_ms": percentiles(load_ms), "one_seat_ms": percentiles(seat_ms),
            "whole_hand_ms": percentiles(whole_ms),
            "decisions_one_seat": {"mean": round(statistics.mean(seat_n), 1), "max": max(seat_n)},
            "decisions_whole_hand": {"mean": round(statistics.mean(whole_n), 1), "max": max(whole_n)},
            "whole_hand_ms_with_35_or_more_decisions": percentiles(heavy) if heavy else None,
            "goal_seconds": GOAL_S, "goal_met": max(whole_ms) < GOAL_S * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", default="bench-review")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the default output too)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.hands, args.seed))))


if __name__ == "__main__":
    main()
