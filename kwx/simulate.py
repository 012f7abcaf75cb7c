"""Simulated tables of AI players: `python -m kwx simulate`. Plays hands as a table would (dealer
succession, 上楼, 漂 picks of zero) and checks the books as it goes: every hand sums to zero and the 84 tiles are
all accounted for. Same seed, same result: hands derive from the run's seed as a table's do (kwx.table.seeds).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kwx.engine.ai import AI_LEVELS, decide
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.table import TableState
from kwx.table.seeds import first_dealer, hand_seed


@dataclass
class SimulationReport:
    hands: int = 0
    seconds: float = 0.0
    actions: int = 0
    wins: int = 0
    self_draws: int = 0
    double_rons: int = 0
    draws: int = 0
    liangdao: int = 0
    net: list[int] = field(default_factory=lambda: [0, 0, 0])
    per_hand_net: list[list[int]] = field(default_factory=list)
    zero_sum: bool = True
    tiles_conserved: bool = True
    errors: int = 0

    def to_json(self) -> dict:
        return {
            "hands": self.hands,
            "seconds": round(self.seconds, 3),
            "hands_per_second": round(self.hands / self.seconds, 1) if self.seconds else None,
            "wins": self.wins,
            "self_draws": self.self_draws,
            "double_rons": self.double_rons,
            "draws": self.draws,
            "liangdao": self.liangdao,
            "net": list(self.net),
            "checks": {"zero_sum": self.zero_sum, "tiles_conserved": self.tiles_conserved, "errors": self.errors},
        }


def simulate(hands: int, seed: str = "0", ai: Sequence[str] = ("standard", "standard", "standard"),
             rules: RuleSet = STANDARD, progress: Callable[[int], None] | None = None,
             keep_per_hand: bool = False) -> SimulationReport:
    """Play `hands` hands; `ai[p]` is player p's level (players keep their level as the dealer moves)."""
    for level in ai:
        if level not in AI_LEVELS:
            raise ValueError(f"unknown AI level {level!r}: choose from {', '.join(AI_LEVELS)}")
    if len(ai) != 3:
        raise ValueError("three AI levels, one per player")
    if rules.rotation:
        raise ValueError("the simulator plays three players; rotation needs four")
    report = SimulationReport()
    table = TableState(rules, first_dealer(seed))
    started = time.perf_counter()
    for number in range(1, hands + 1):
        hand = table.start_hand(hand_seed(seed, number))
        levels = [ai[table.seated[s]] for s in range(3)]
        try:
            while not hand.finished:
                seat = min(hand.to_act())
                hand.apply(decide(hand, seat, levels[seat]))
                report.actions += 1
        except Exception:  # a referee bug: count it, keep the books of the other hands
            report.errors += 1
            table.current = None
            continue
        if hand.census() != [4] * 21:
            report.tiles_conserved = False
        record = table.finish_hand(hand)
        result = record.result
        if sum(result.net) != 0:
            report.zero_sum = False
        report.hands += 1
        if result.outcome == "win":
            report.wins += len(result.winners)
            report.self_draws += int(result.self_draw)
            report.double_rons += int(result.double_win)
        else:
            report.draws += 1
        report.liangdao += len(hand.declare_order)
        for player, amount in record.net.items():
            report.net[player] += amount
        if keep_per_hand:
            report.per_hand_net.append([record.net[p] for p in range(3)])
        if progress is not None:
            progress(number)
    report.seconds = time.perf_counter() - started
    return report


class ProgressBar:
    """A one-line progress bar on standard error, shown only once a run has taken more than a second."""

    def __init__(self, total: int, stream=sys.stderr) -> None:
        self.total = total
        self.stream = stream
        self.started = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int) -> None:
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
