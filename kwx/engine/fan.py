"""Fan (番) of a winning hand (RULES.md §7): patterns per reading, the best reading, the cap, 数坎.

The fan of a win is the product of the multipliers of its patterns within ONE reading; the reading with the
highest (capped) product wins and patterns of different readings never combine. Which seat pays what is not
decided here: see `payments.py`. `min_fan` is checked by the hand state machine, which knows whether the win
is on a discard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kwx.engine.analysis import Meld, Reading, readings, waits
from kwx.engine.rules import PATTERN_FAN, STANDARD, RuleSet
from kwx.engine.tiles import NUM_KINDS, Tile

_P5, _S5 = int(Tile.P5), int(Tile.S5)
_DRAGONS = (18, 19, 20)
_QIDUI_BY_QUADS = ("qidui", "longqidui", "shuanglong_qidui", "sanlong_qidui")
_FOUR_KIND_QIDUI = frozenset(_QIDUI_BY_QUADS[1:])


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won. `last_tile`: the win used the wall's last tile (its draw or its discard)."""

    self_draw: bool = False
    liangdao: bool = False
    kong_draw: bool = False
    after_kong: bool = False
    rob_kong: bool = False
    last_tile: bool = False


@dataclass(frozen=True, slots=True)
class FanResult:
    fan: int  # after the cap, plus the 数坎 bonus
    patterns: tuple[str, ...]  # ids in alphabetical order; ("pinghu",) when nothing else holds
    multipliers: tuple[int, ...]  # parallel to patterns
    raw_fan: int  # product before the cap
    reading: Reading
    shukan_bonus: int = 0

    @property
    def capped(self) -> bool:
        return self.fan - self.shukan_bonus < self.raw_fan


def score(concealed: Sequence[int], win: int, melds: Sequence[Meld] = (), ctx: WinContext = WinContext(),
          rules: RuleSet = STANDARD) -> FanResult | None:
    """Fan of winning on `win` with `concealed` (the 13 − 3n tiles before the win); None when it is no win."""
    counts = [0] * NUM_KINDS
    for t in concealed:
        counts[t] += 1
    return score_counts(counts, win, melds, ctx, rules)


def score_counts(counts: Sequence[int], win: int, melds: Sequence[Meld] = (), ctx: WinContext = WinContext(),
                 rules: RuleSet = STANDARD) -> FanResult | None:
    """As `score`, from the counts of the concealed tiles before the win."""
    full = list(counts)
    full[win] += 1
    options = readings(full, len(melds))
    if not options:
        return None
    common = _hand_patterns(counts, full, win, melds, ctx, rules)
    best: tuple[int, int, list[str], Reading] | None = None
    for reading in options:
        ids = common + _reading_patterns(reading, full, win, melds, rules)
        if reading.kind == "qidui" and any(p in _FOUR_KIND_QIDUI for p in ids):
            ids = [p for p in ids if p not in ("ansigui", "mingsigui")]
        if "kawuxing" in ids and rules.kawuxing_single_wait and waits(counts, melds) != [win]:
            ids.remove("kawuxing")
        raw = 1
        for p in ids:
            raw *= rules.pattern_fan(p)
        capped = _apply_cap(raw, ids, rules)
        if best is None or (capped, raw) > (best[0], best[1]):
            best = (capped, raw, ids, reading)
    assert best is not None
    capped, raw, ids, reading = best
    ids = sorted(ids) or ["pinghu"]
    bonus = _shukan_bonus(reading, win, melds, ctx) if rules.shukan else 0
    return FanResult(
        fan=capped + bonus,
        patterns=tuple(ids),
        multipliers=tuple(rules.pattern_fan(p) for p in ids),
        raw_fan=raw,
        reading=reading,
        shukan_bonus=bonus,
    )


def _hand_patterns(before: Sequence[int], full: Sequence[int], win: int, melds: Sequence[Meld],
                   ctx: WinContext, rules: RuleSet) -> list[str]:
    """Patterns that do not depend on the reading."""
    ids: list[str] = []
    suits = {0 if t < 9 else 1 if t < 18 else 2 for t in range(NUM_KINDS) if full[t]}
    suits |= {0 if m.tile < 9 else 1 if m.tile < 18 else 2 for m in melds}
    if len(suits) == 1 and 2 not in suits:
        ids.append("qingyise")
    pungs = {int(m.tile) for m in melds if m.kind == "pung"}
    if rules.pindao == "full":
        # 频道 full: every four identical tiles kept without a kong counts, not only the winning tile.
        for t in range(NUM_KINDS):
            if full[t] == 4:
                ids.append("ansigui")
            elif full[t] == 1 and t in pungs:
                ids.append("mingsigui")
    elif before[win] == 3:
        ids.append("ansigui")
    elif win in pungs:
        ids.append("mingsigui")
    if len(melds) == 4:
        ids.append("shouzhuayi")
    if ctx.self_draw and ctx.kong_draw:
        ids.append("gangshangkaihua")
    if ctx.after_kong and not ctx.self_draw:
        ids.append("gangshangpao")
    if ctx.rob_kong:
        ids.append("qiangganghu")
    if ctx.last_tile and ctx.self_draw and rules.haidilao:
        ids.append("haidilao")
    if ctx.last_tile and not ctx.self_draw and rules.haidipao:
        ids.append("haidipao")
    if ctx.liangdao:
        ids.append("liangdao")
    return ids


def _reading_patterns(reading: Reading, full: Sequence[int], win: int, melds: Sequence[Meld],
                      rules: RuleSet) -> list[str]:
    if reading.kind == "qidui":
        quads = sum(1 for c in full if c == 4)
        family = _QIDUI_BY_QUADS[min(quads, 3)]
        if rules.sanyuan_qidui and all(full[d] >= 2 for d in _DRAGONS) \
                and rules.pattern_fan("sanyuan_qidui") > rules.pattern_fan(family):
            family = "sanyuan_qidui"
        return [family]
    ids: list[str] = []
    if not reading.sequences:
        ids.append("pengpenghu")
    dragon_sets = sum(1 for d in _DRAGONS if full[d] >= 3) + sum(1 for m in melds if m.tile >= 18)
    if dragon_sets == 3:
        ids.append("dasanyuan")
    elif dragon_sets == 2 and reading.pair is not None and reading.pair >= 18:
        ids.append("xiaosanyuan")
    if (win == _P5 or win == _S5) and (win - 1) in reading.sequences:
        ids.append("kawuxing")
    return ids


def _apply_cap(raw: int, ids: Sequence[str], rules: RuleSet) -> int:
    if rules.fan_cap is None:
        return raw
    cap = rules.fan_cap
    for p in ids:
        cap = max(cap, rules.fan_cap_exceptions.get(p, cap))
    return min(raw, cap)


def _shukan_bonus(reading: Reading, win: int, melds: Sequence[Meld], ctx: WinContext) -> int:
    """数坎: +1 per concealed triplet or 暗杠. A triplet completed by another player's tile is not concealed."""
    triplets = list(reading.triplets)
    if not ctx.self_draw and win in triplets:
        triplets.remove(win)
    return len(triplets) + sum(1 for m in melds if m.kind == "ankong")


def pattern_multipliers(rules: RuleSet = STANDARD) -> dict[str, int]:
    """Every pattern id with its multiplier under `rules` (for /kwx rules and the calculator)."""
    return {p: rules.pattern_fan(p) for p in PATTERN_FAN if p != "sanyuan_qidui" or rules.sanyuan_qidui}
