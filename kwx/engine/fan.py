"""Fan (番) of a winning hand (docs/rules.md §7): patterns per reading, the best reading, the cap, 数坎.

The fan of a win is the product of the multipliers of its patterns within ONE reading; the reading with the
highest (capped) product wins and patterns of different readings never combine. Which seat pays what is not
decided here: see `payments.py`. `min_fan` is checked by the hand state machine, which knows whether the win
is on a discard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kwx.engine.analysis import (
    _DRAGON_STATUS,
    _SUIT_STATUS,
    Meld,
    Reading,
    is_seven_pairs,
    qidui_pairs,
    suit_splits,
    waits,
)
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import ALL_TILES, NUM_KINDS, Tile, to_counts

_P5, _S5 = int(Tile.P5), int(Tile.S5)
_DRAGONS = (18, 19, 20)
_QIDUI_BY_QUADS = ("qidui", "longqidui", "shuanglong_qidui", "sanlong_qidui")
_FOUR_KIND_QIDUI = frozenset(_QIDUI_BY_QUADS[1:])
_NO_READING = Reading("sets")  # no reading found yet: an empty sets reading


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
    return score_counts(to_counts(concealed), win, melds, ctx, rules)


def score_counts(counts: Sequence[int], win: int, melds: Sequence[Meld] = (), ctx: WinContext = WinContext(),
                 rules: RuleSet = STANDARD) -> FanResult | None:
    """As `score`, from the counts of the concealed tiles before the win.

    None when the tiles do not win, including when their number does not fit the melds (13 − 3n before the win).
    Only two patterns depend on the reading (碰碰胡 and 卡五星; 数坎 counts its triplets), so the reading-free
    patterns are found once and each reading adds its own.
    """
    melds = tuple(melds)
    full = list(counts)
    full[win] += 1
    if sum(full) + 3 * len(melds) != 14:
        return None
    c = full
    kp = c[0] | c[1] << 3 | c[2] << 6 | c[3] << 9 | c[4] << 12 | c[5] << 15 | c[6] << 18 | c[7] << 21 | c[8] << 24
    ks = (c[9] | c[10] << 3 | c[11] << 6 | c[12] << 9 | c[13] << 12 | c[14] << 15 | c[15] << 18 | c[16] << 21
          | c[17] << 24)
    sp = _SUIT_STATUS.get(kp)
    ss = _SUIT_STATUS.get(ks)
    d0, d1, d2 = _DRAGON_STATUS[c[18]], _DRAGON_STATUS[c[19]], _DRAGON_STATUS[c[20]]
    standard = (sp is not None and ss is not None and d0 is not None and d1 is not None and d2 is not None
                and sp + ss + d0 + d1 + d2 == 1)
    qidui = not melds and is_seven_pairs(c)
    if not standard and not qidui:
        return None

    fan_of = rules.fan_table
    common = _hand_patterns(counts, full, win, melds, ctx, rules)
    common_fan = 1
    for p in common:
        common_fan *= fan_of[p]
    capped_rules = rules.fan_cap is not None
    self_draw = ctx.self_draw or ctx.kong_draw
    ankongs = sum(1 for m in melds if m.kind == "ankong") if rules.shukan else 0
    single_wait: list[bool] = []  # computed at most once, when a reading has 卡五星 and the option is on

    # The best reading so far: total (capped, plus 数坎), raw product, pattern ids, the reading (or the parts of a
    # sets reading, built into a Reading once at the end), 数坎 bonus. Ties keep the earlier reading, 七对 first.
    best_total = best_raw = -1
    best_ids: list[str] = []
    best_reading: Reading | tuple[tuple[Tile, ...], tuple[Tile, ...], Tile | None] = _NO_READING
    best_bonus = 0

    if qidui:
        family = _qidui_family(full, rules)
        ids = common + [family]
        raw = common_fan * fan_of[family]
        if family in _FOUR_KIND_QIDUI and ("ansigui" in common or "mingsigui" in common):
            ids = [p for p in ids if p != "ansigui" and p != "mingsigui"]
            raw = 1
            for p in ids:
                raw *= fan_of[p]
        total = _apply_cap(raw, ids, rules) if capped_rules else raw
        best_total, best_raw, best_ids, best_reading = total, raw, ids, Reading("qidui", pairs=qidui_pairs(full))

    if standard:
        dragon_trips = tuple(ALL_TILES[d] for d in _DRAGONS if c[d] == 3)
        dragon_pair = ALL_TILES[18] if d0 == 1 else ALL_TILES[19] if d1 == 1 else ALL_TILES[20] if d2 == 1 else None
        dragon_sets = len(dragon_trips) + sum(1 for m in melds if m.tile >= 18)
        sanyuan = ("dasanyuan" if dragon_sets == 3
                   else "xiaosanyuan" if dragon_sets == 2 and dragon_pair is not None else None)
        # 卡五星 needs the 4-5-6 of the winning 5's suit: its lowest tile is the 4 of that suit.
        kawu_p = win == _P5
        kawu_s = win == _S5
        four = ALL_TILES[win - 1] if kawu_p or kawu_s else None
        base_ids = common + [sanyuan] if sanyuan else common
        base_fan = common_fan * fan_of[sanyuan] if sanyuan else common_fan
        splits_s = suit_splits(ks, 1)
        for seq_p, trip_p, pair_p in suit_splits(kp, 0):
            kawu_here = kawu_p and four in seq_p
            for seq_s, trip_s, pair_s in splits_s:
                if (pair_p is not None) + (pair_s is not None) + (dragon_pair is not None) != 1:
                    continue
                ids = base_ids
                raw = base_fan
                if not seq_p and not seq_s:
                    ids = ids + ["pengpenghu"]
                    raw *= fan_of["pengpenghu"]
                if kawu_here or (kawu_s and four in seq_s):
                    if rules.kawuxing_single_wait:
                        if not single_wait:
                            single_wait.append(waits(counts, melds) == [win])
                        kawu_ok = single_wait[0]
                    else:
                        kawu_ok = True
                    if kawu_ok:
                        ids = ids + ["kawuxing"]
                        raw *= fan_of["kawuxing"]
                total = _apply_cap(raw, ids, rules) if capped_rules else raw
                bonus = 0
                if rules.shukan:
                    bonus = _concealed_triplets(trip_p + trip_s + dragon_trips, seq_p + seq_s, win, self_draw) + ankongs
                    total += bonus
                if total > best_total or (total == best_total and raw > best_raw):
                    best_total, best_raw, best_ids, best_bonus = total, raw, ids, bonus
                    pair = pair_p if pair_p is not None else pair_s if pair_s is not None else dragon_pair
                    best_reading = (seq_p + seq_s, trip_p + trip_s + dragon_trips, pair)

    reading = best_reading if isinstance(best_reading, Reading) else Reading("sets", *best_reading)
    ids = sorted(best_ids) or ["pinghu"]
    return FanResult(
        fan=best_total,
        patterns=tuple(ids),
        multipliers=tuple(fan_of[p] for p in ids),
        raw_fan=best_raw,
        reading=reading,
        shukan_bonus=best_bonus,
    )


def _qidui_family(full: Sequence[int], rules: RuleSet) -> str:
    quads = 0
    for n in full:
        if n == 4:
            quads += 1
    family = _QIDUI_BY_QUADS[min(quads, 3)]
    if rules.sanyuan_qidui and full[18] >= 2 and full[19] >= 2 and full[20] >= 2 \
            and rules.pattern_fan("sanyuan_qidui") > rules.pattern_fan(family):
        family = "sanyuan_qidui"
    return family


def _hand_patterns(before: Sequence[int], full: Sequence[int], win: int, melds: Sequence[Meld],
                   ctx: WinContext, rules: RuleSet) -> list[str]:
    """Patterns that do not depend on the reading."""
    ids: list[str] = []
    f = full
    has_p = f[0] or f[1] or f[2] or f[3] or f[4] or f[5] or f[6] or f[7] or f[8]
    has_s = f[9] or f[10] or f[11] or f[12] or f[13] or f[14] or f[15] or f[16] or f[17]
    has_z = f[18] or f[19] or f[20]
    pungs: set[int] = set()
    if melds:
        for m in melds:
            if m.tile < 9:
                has_p = True
            elif m.tile < 18:
                has_s = True
            else:
                has_z = True
        pungs = {int(m.tile) for m in melds if m.kind == "pung"}
    if not has_z and (not has_p or not has_s):
        ids.append("qingyise")
    if rules.pindao == "full":
        # 频道 full: every four identical tiles kept without a kong counts, not only the winning tile.
        for t in range(NUM_KINDS):
            if f[t] == 4:
                ids.append("ansigui")
            elif f[t] == 1 and t in pungs:
                ids.append("mingsigui")
    elif before[win] == 3:
        ids.append("ansigui")
    elif win in pungs:
        ids.append("mingsigui")
    if len(melds) == 4:
        ids.append("shouzhuayi")
    self_draw = ctx.self_draw or ctx.kong_draw  # a kong replacement is always drawn by the winner
    if ctx.kong_draw:
        ids.append("gangshangkaihua")
    if ctx.after_kong and not self_draw:
        ids.append("gangshangpao")
    if ctx.rob_kong and not self_draw:
        ids.append("qiangganghu")
    if ctx.last_tile:
        if self_draw:
            if rules.haidilao:
                ids.append("haidilao")
        elif rules.haidipao:
            ids.append("haidipao")
    if ctx.liangdao:
        ids.append("liangdao")
    return ids


def _apply_cap(raw: int, ids: Sequence[str], rules: RuleSet) -> int:
    if rules.fan_cap is None:
        return raw
    cap = rules.fan_cap
    for p in ids:
        cap = max(cap, rules.fan_cap_exceptions.get(p, cap))
    return min(raw, cap)


def _concealed_triplets(triplets: Sequence[int], sequences: Sequence[int], win: int, self_draw: bool) -> int:
    """Concealed triplets of a reading for 数坎. A triplet completed by another player's tile is exposed, unless
    the reading also has a sequence through that tile: the claimed copy is then read as the sequence's."""
    n = len(triplets)
    if not self_draw and win in triplets:
        suit_start = 0 if win < 9 else 9
        in_sequence = any(suit_start <= s <= win <= s + 2 and s + 2 < suit_start + 9 for s in sequences)
        if not in_sequence:
            n -= 1
    return n
