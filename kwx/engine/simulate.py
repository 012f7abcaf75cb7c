"""Simulated tables of AI players (`python -m kwx simulate`). Plays hands as a table would (dealer
succession, 上楼, 漂 picked as AI seats pick it (kwx.engine.piao), what the AI learns of the other players from
hand to hand) and checks the books as it goes: every hand sums to zero and the 84 tiles are all accounted for.
Same seed, same result: hands derive from the run's seed as a table's do (kwx.engine.seeds).

Pure like the rest of the engine: no output of its own; a caller that wants progress passes a callback.

Per player (players keep their level as the dealer moves) the report keeps what a table would notice:
- `net`, `net_per_hand` with a 95 % confidence interval (normal approximation over the per-hand nets);
- `win_rate` (hands won / hands), `self_draw_rate` (share of the player's wins that were 自摸),
  `deal_in_rate` (hands in which the player's discard or robbed 补杠 was won on / hands);
- `fed_liangdao`: how many times the player paid 包胡 (fed a declared 亮倒 hand), `liangdao_rate` (hands in which
  the player declared 亮倒 / hands), `mean_fan` (mean fan of the player's wins), `mean_piao` (the player's mean 漂
  pick; 0 without the option).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from kwx.engine.ai import AI_LEVELS, DEFAULT_PARAMS, StrongParams, decide
from kwx.engine.hand import HandState
from kwx.engine.piao import seat_piao
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.seeds import first_dealer, hand_seed
from kwx.engine.table import HandRecord, TableState


def mean_ci95(n: int, total: float, sum_sq: float) -> tuple[float, float]:
    """Mean of n values from their sum and sum of squares, and the half-width of its 95 % interval (normal
    approximation; 0 for fewer than two values)."""
    mean = total / n if n else 0.0
    if n < 2:
        return mean, 0.0
    var = max(0.0, (sum_sq - n * mean * mean) / (n - 1))
    return mean, 1.96 * math.sqrt(var / n)


class LevelStatsJson(TypedDict):
    level: str
    net: int
    net_per_hand: float
    net_per_hand_ci95: list[float]  # [low, high]
    win_rate: float
    self_draw_rate: float
    deal_in_rate: float
    fed_liangdao: int
    liangdao_rate: float
    mean_fan: float
    mean_piao: float


class ChecksJson(TypedDict):
    zero_sum: bool
    tiles_conserved: bool
    errors: int


class SimulationReportJson(TypedDict):
    """`python -m kwx simulate --json`."""

    hands: int
    seconds: float
    hands_per_second: float | None
    wins: int
    self_draws: int
    double_rons: int
    draws: int
    liangdao: int
    net: list[int]
    players: list[LevelStatsJson]
    checks: ChecksJson


@dataclass
class LevelStats:
    level: str
    net: int = 0
    sum_sq: int = 0  # Σ (per-hand net)², for the confidence interval
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    fed_liangdao: int = 0
    liangdao: int = 0
    fan_total: int = 0
    piao_total: int = 0

    def to_json(self, hands: int) -> LevelStatsJson:
        mean, half = mean_ci95(hands, self.net, self.sum_sq)
        return {
            "level": self.level,
            "net": self.net,
            "net_per_hand": round(mean, 4),
            "net_per_hand_ci95": [round(mean - half, 4), round(mean + half, 4)],
            "win_rate": round(self.wins / hands, 4) if hands else 0.0,
            "self_draw_rate": round(self.self_draws / self.wins, 4) if self.wins else 0.0,
            "deal_in_rate": round(self.deal_ins / hands, 4) if hands else 0.0,
            "fed_liangdao": self.fed_liangdao,
            "liangdao_rate": round(self.liangdao / hands, 4) if hands else 0.0,
            "mean_fan": round(self.fan_total / self.wins, 3) if self.wins else 0.0,
            "mean_piao": round(self.piao_total / hands, 3) if hands else 0.0,
        }


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
    players: list[LevelStats] = field(default_factory=list)
    zero_sum: bool = True
    tiles_conserved: bool = True
    errors: int = 0

    def to_json(self) -> SimulationReportJson:
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
            "players": [p.to_json(self.hands) for p in self.players],
            "checks": {"zero_sum": self.zero_sum, "tiles_conserved": self.tiles_conserved, "errors": self.errors},
        }


def simulate(hands: int, seed: str = "0", ai: Sequence[str] = ("standard", "standard", "standard"),
             rules: RuleSet = STANDARD, progress: Callable[[int, SimulationReport], None] | None = None,
             keep_per_hand: bool = False,
             on_hand: Callable[[HandState, HandRecord], None] | None = None,
             strong_params: StrongParams = DEFAULT_PARAMS) -> SimulationReport:
    """Play `hands` hands; `ai[p]` is player p's level (players keep their level as the dealer moves).
    `progress(n, report)` is called after each hand with the number of hands played so far and the report
    as it stands (its `seconds` is filled in only at the end); `on_hand(hand, record)` with each finished hand
    and its record, for a caller that measures more than the report keeps; `strong_params` tunes every `strong`
    player (kwx.engine.ai_strong.StrongParams)."""
    for level in ai:
        if level not in AI_LEVELS:
            raise ValueError(f"unknown AI level {level!r}: choose from {', '.join(AI_LEVELS)}")
    if len(ai) != 3:
        raise ValueError("three AI levels, one per player")
    if rules.rotation:
        raise ValueError("the simulator plays three players; rotation needs four")
    report = SimulationReport(players=[LevelStats(level) for level in ai])
    stats = report.players
    table = TableState(rules, first_dealer(seed))
    started = time.perf_counter()
    for number in range(1, hands + 1):
        seated = table.seated
        picks = [seat_piao(table, s, ai[p], table_seed=seed, hand_no=number, player_id=f"player{p}")
                 for s, p in enumerate(seated)] if rules.piao else None
        hand = table.start_hand(hand_seed(seed, number), picks)
        levels = [ai[seated[s]] for s in range(3)]
        known = table.reads.for_seats(seated)
        try:
            while not hand.finished:
                seat = min(hand.to_act())
                hand.apply(decide(hand, seat, levels[seat], known, strong_params=strong_params))
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
            for s in result.winners:
                p = stats[seated[s]]
                p.wins += 1
                p.self_draws += int(result.self_draw)
                p.fan_total += result.fan[s]
            if result.from_seat is not None:
                stats[seated[result.from_seat]].deal_ins += 1
        else:
            report.draws += 1
        for pay in result.payments:
            if pay.reason == "baohu":
                stats[seated[pay.from_seat]].fed_liangdao += 1
        for s, pick in enumerate(hand.piao):
            stats[seated[s]].piao_total += pick
        report.liangdao += len(hand.declare_order)
        for s in hand.declare_order:
            stats[seated[s]].liangdao += 1
        for player, amount in record.net.items():
            report.net[player] += amount
            stats[player].net += amount
            stats[player].sum_sq += amount * amount
        if on_hand is not None:
            on_hand(hand, record)
        if keep_per_hand:
            report.per_hand_net.append([record.net[p] for p in range(3)])
        if progress is not None:
            progress(number, report)
    report.seconds = time.perf_counter() - started
    return report
