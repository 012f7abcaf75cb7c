"""How long an AI turn takes at the terminal table: `python -m benchmarks.terminal_pace [--turns N] [--json]`

Plays the terminal table as `python bot.py --plain` does (its default AI delay and claim pause), you discarding
the tile you drew the moment your turn comes (and passing every claim), and times each AI discard from the
moment the board showed the discard before it: what a player watching the log waits per AI turn. Prints one JSON
object: the median and 90th percentile of those waits, their count, and the pace settings they come from.
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

from rich.console import Console

from kwx.local.plain import ConsoleFrontEnd, play_terminal
from kwx.local.tables import AI_DELAY, TERMINAL_CLAIM_PAUSE, YOU_ID
from kwx.table.service import TableService


class Stopwatch:
    """A service factory whose front end notes when each discard reaches the board, and by whom."""

    def __init__(self) -> None:
        self.fe: ConsoleFrontEnd | None = None
        self.discards: list[tuple[float, bool]] = []  # (when shown, by an AI seat)

    def __call__(self, store: Any, frontend: ConsoleFrontEnd, **kw: Any) -> TableService:
        self.fe = frontend
        shown = frontend.board_changed

        last: list[Any] = [None]

        async def board_changed(view: Any) -> None:
            if view != last[0]:  # the same view twice shows its events once
                last[0] = view
                for event in view.last_events:
                    if event.get("kind") == "discard":
                        by_ai = view.seats[event["seat"]].player.player_id != YOU_ID
                        self.discards.append((time.monotonic(), by_ai))
            await shown(view)

        frontend.board_changed = board_changed  # type: ignore[method-assign]
        return TableService(store, frontend, **kw)


class You:
    """Plays your seat at once: pass a claim, else discard the drawn tile; stops after `turns` AI discards."""

    echo = False

    def __init__(self, watch: Stopwatch, turns: int) -> None:
        self.watch, self.turns = watch, turns
        self.answered: tuple[int, int] | None = None

    async def readline(self) -> str | None:
        while True:
            await asyncio.sleep(0.002)
            if sum(by_ai for _, by_ai in self.watch.discards) > self.turns:
                return "quit"
            fe = self.watch.fe
            hand = fe.hand if fe is not None else None
            if fe is None or hand is None or not hand.choices or (hand.hand_no, hand.step) == self.answered:
                continue
            self.answered = (hand.hand_no, hand.step)
            verbs = {c.verb for c in hand.choices}
            if "discard" not in verbs:
                return "pass"
            return (hand.drawn or hand.concealed[-1]).compact


async def measure(turns: int, seed: str) -> dict[str, Any]:
    watch = Stopwatch()
    with tempfile.TemporaryDirectory() as tmp:
        console = Console(file=io.StringIO(), width=120, color_system=None)
        await play_terminal(Path(tmp) / "kwx.sqlite3", lang="en", seed=seed, console=console,
                            lines=You(watch, turns), service_factory=watch)
    waits = [b[0] - a[0] for a, b in zip(watch.discards, watch.discards[1:]) if b[1]]
    deciles = statistics.quantiles(waits, n=10) if len(waits) > 1 else waits * 9
    return {"ai_turn_median_s": round(statistics.median(waits), 3), "ai_turn_p90_s": round(deciles[8], 3),
            "ai_turns": len(waits), "ai_delay_s": AI_DELAY, "claim_pause_s": TERMINAL_CLAIM_PAUSE}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="AI discards to time (default 20)")
    parser.add_argument("--seed", default="pace", help="the table's seed")
    parser.add_argument("--json", action="store_true", help="print JSON only (the default output too)")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(measure(args.turns, args.seed))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
