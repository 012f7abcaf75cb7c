"""Hand analysis with per-suit tables: win check, every reading of a win, waits, shanten (RULES.md §5).

A hand's concealed part is a list of 21 counts. Each suit's nine counts pack into one integer key, three bits
a rank (`count << 3*rank`), so adding or removing a tile is one addition and a suit's shape is a dict/set
lookup:
- `_SETS_ONLY` / `_SETS_AND_PAIR`: every suit shape that splits into sets (sequences and triplets), without or
  with exactly one pair. Built once at import from the 16 set shapes (≈ 4k keys, a few ms).
- the decompositions of a suit shape (for readings) and its partial-set options (for shanten) are computed
  the first time a shape is met and cached; the number of shapes seen in play is small.
Dragons never form sequences, so their three counts are judged directly: 0 or 3 is a set, 2 is the pair.
Melds (exposed pungs and kongs, concealed kongs) are outside the counts; a hand with n melds has 14 − 3n
concealed tiles when complete and 13 − 3n when waiting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from kwx.engine.tiles import NUM_KINDS, Tile

SUIT_OFFSETS = (0, 9)
_RANK_BIT = tuple(1 << (3 * r) for r in range(9))
_SEQ_SHAPES = tuple((1 << (3 * r)) | (1 << (3 * (r + 1))) | (1 << (3 * (r + 2))) for r in range(7))
_TRIPLET_SHAPES = tuple(3 << (3 * r) for r in range(9))
_PAIR_SHAPES = tuple(2 << (3 * r) for r in range(9))


def suit_key(counts: Sequence[int], offset: int) -> int:
    c = counts
    o = offset
    return (c[o] | c[o + 1] << 3 | c[o + 2] << 6 | c[o + 3] << 9 | c[o + 4] << 12 | c[o + 5] << 15
            | c[o + 6] << 18 | c[o + 7] << 21 | c[o + 8] << 24)


def _key_counts(key: int) -> list[int]:
    return [(key >> (3 * r)) & 7 for r in range(9)]


def _fits(key: int) -> bool:
    """No rank above four copies."""
    return all(((key >> (3 * r)) & 7) <= 4 for r in range(9))


def _build_tables() -> tuple[frozenset[int], frozenset[int]]:
    sets_only = {0}
    frontier = {0}
    for _ in range(4):
        nxt = set()
        for k in frontier:
            for shape in _SEQ_SHAPES + _TRIPLET_SHAPES:
                n = k + shape
                if _fits(n) and n not in sets_only:
                    nxt.add(n)
        sets_only |= nxt
        frontier = nxt
    with_pair = {k + p for k in sets_only for p in _PAIR_SHAPES if _fits(k + p)}
    return frozenset(sets_only), frozenset(with_pair)


_SETS_ONLY, _SETS_AND_PAIR = _build_tables()


# -- melds ------------------------------------------------------------------------------------------
MELD_KINDS = ("pung", "kong", "ankong")


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared meld. kind: `pung` (碰), `kong` (exposed: 直杠 or 补杠), `ankong` (暗杠)."""

    kind: str
    tile: Tile

    @property
    def is_kong(self) -> bool:
        return self.kind != "pung"

    @property
    def size(self) -> int:
        return 3 if self.kind == "pung" else 4

    def to_json(self) -> str:
        return f"{self.kind}:{self.tile.compact}"


# -- win check ---------------------------------------------------------------------------------------
def is_standard_win(counts: Sequence[int]) -> bool:
    """Sets + one pair over the concealed counts (melds already taken out)."""
    pairs = 0
    for o in (0, 9):
        k = suit_key(counts, o)
        if k in _SETS_ONLY:
            continue
        if k in _SETS_AND_PAIR:
            pairs += 1
        else:
            return False
    for d in (18, 19, 20):
        c = counts[d]
        if c == 2:
            pairs += 1
        elif c == 1 or c == 4:
            return False
    return pairs == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """七对 over 14 concealed tiles; four identical tiles count as two pairs."""
    total = 0
    for c in counts:
        if c & 1:
            return False
        total += c
    return total == 14


def is_win(counts: Sequence[int], n_melds: int = 0) -> bool:
    """Does this concealed part (14 − 3·n_melds tiles) complete the hand? Fan ≥ min_fan is checked elsewhere."""
    if is_standard_win(counts):
        return True
    return n_melds == 0 and is_seven_pairs(counts)


# -- readings ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Reading:
    """One way to read a complete concealed part. kind `sets`: `sequences` (lowest tile of each 顺子),
    `triplets` (concealed 刻子) and `pair`. kind `qidui`: `pairs` (a four counts as two equal entries)."""

    kind: str
    sequences: tuple[Tile, ...] = ()
    triplets: tuple[Tile, ...] = ()
    pair: Tile | None = None
    pairs: tuple[Tile, ...] = ()


@lru_cache(maxsize=None)
def _suit_decompositions(key: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]:
    """Every split of one suit shape into sets and at most one pair: (seq ranks, triplet ranks, pair rank|-1)."""
    if key == 0:
        return (((), (), -1),)
    r = 0
    while not (key >> (3 * r)) & 7:
        r += 1
    out: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
    c = (key >> (3 * r)) & 7
    if c >= 3:
        for seqs, trips, pair in _suit_decompositions(key - _TRIPLET_SHAPES[r]):
            out.append((seqs, (r, *trips), pair))
    if c >= 2:
        for seqs, trips, pair in _suit_decompositions(key - _PAIR_SHAPES[r]):
            if pair < 0:
                out.append((seqs, trips, r))
    if r <= 6 and (key >> (3 * (r + 1))) & 7 and (key >> (3 * (r + 2))) & 7:
        for seqs, trips, pair in _suit_decompositions(key - _SEQ_SHAPES[r]):
            out.append(((r, *seqs), trips, pair))
    return tuple(dict.fromkeys(out))


def readings(counts: Sequence[int], n_melds: int = 0) -> list[Reading]:
    """Every reading of a complete concealed part (empty list when it does not win)."""
    out: list[Reading] = []
    if n_melds == 0 and is_seven_pairs(counts):
        out.append(Reading("qidui", pairs=tuple(Tile(t) for t in range(NUM_KINDS) for _ in range(counts[t] // 2))))
    if not is_standard_win(counts):
        return out
    dragon_trips = tuple(Tile(d) for d in (18, 19, 20) if counts[d] == 3)
    dragon_pair = next((Tile(d) for d in (18, 19, 20) if counts[d] == 2), None)
    per_suit = []
    for o in (0, 9):
        per_suit.append([
            (tuple(Tile(o + r) for r in seqs), tuple(Tile(o + r) for r in trips), Tile(o + pair) if pair >= 0 else None)
            for seqs, trips, pair in _suit_decompositions(suit_key(counts, o))
        ])
    for seq_p, trip_p, pair_p in per_suit[0]:
        for seq_s, trip_s, pair_s in per_suit[1]:
            present = [x for x in (pair_p, pair_s, dragon_pair) if x is not None]
            if len(present) != 1:
                continue
            pair = present[0]
            out.append(Reading("sets", seq_p + seq_s, trip_p + trip_s + dragon_trips, pair))
    return out


# -- waits -------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _suit_completions(key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ranks whose addition makes this suit shape (sets only, sets and a pair)."""
    to_sets, to_pair = [], []
    for r in range(9):
        if (key >> (3 * r)) & 7 >= 4:
            continue
        n = key + _RANK_BIT[r]
        if n in _SETS_ONLY:
            to_sets.append(r)
        elif n in _SETS_AND_PAIR:
            to_pair.append(r)
    return tuple(to_sets), tuple(to_pair)


def waits(counts: Sequence[int], melds: Iterable[Meld] = ()) -> list[Tile]:
    """The tiles that complete a waiting hand (13 − 3n concealed tiles), in display order.

    A tile of which all four copies are already in this hand (concealed or melded) cannot come and is left out.
    """
    meld_list = list(melds)
    used = list(counts)
    for m in meld_list:
        used[m.tile] += m.size
    found: set[int] = set()
    # Status of each group: 0 sets only, 1 sets + pair, None neither (then it must be the group the tile goes to).
    keys = (suit_key(counts, 0), suit_key(counts, 9))
    status = []
    for k in keys:
        status.append(0 if k in _SETS_ONLY else 1 if k in _SETS_AND_PAIR else None)
    dragon_status = []
    for d in (18, 19, 20):
        c = counts[d]
        dragon_status.append(0 if c in (0, 3) else 1 if c == 2 else None)
    groups = status + dragon_status  # five groups: p, s, 中, 发, 白
    broken = [i for i, st in enumerate(groups) if st is None]
    if len(broken) <= 1:
        for g in range(5):
            if broken and broken[0] != g:
                continue
            others = [st for i, st in enumerate(groups) if i != g]
            if None in others:
                continue
            pairs_elsewhere = sum(others)
            if pairs_elsewhere > 1:
                continue
            if g < 2:
                to_sets, to_pair = _suit_completions(keys[g])
                for r in (to_pair if pairs_elsewhere == 0 else to_sets):
                    found.add(SUIT_OFFSETS[g] + r)
            else:
                d = 18 + g - 2
                c = counts[d] + 1
                if (c == 2 and pairs_elsewhere == 0) or (c == 3 and pairs_elsewhere == 1):
                    found.add(d)
    if not meld_list:
        odd = [t for t in range(NUM_KINDS) if counts[t] & 1]
        if len(odd) == 1 and sum(counts) == 13:
            found.add(odd[0])
    return [Tile(t) for t in sorted(found) if used[t] < 4]


# -- shanten -----------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _suit_partials(key: int) -> tuple[tuple[int, int, int], ...]:
    """Pareto-best (sets, partial sets, head 0/1) for one suit shape; a partial set is two tiles a tile short
    of a set (a pair, 12, 13 …). Cached per shape."""
    if key == 0:
        return ((0, 0, 0),)
    r = 0
    while not (key >> (3 * r)) & 7:
        r += 1
    c = (key >> (3 * r)) & 7
    c1 = (key >> (3 * (r + 1))) & 7 if r <= 7 else 0
    c2 = (key >> (3 * (r + 2))) & 7 if r <= 6 else 0
    cand: set[tuple[int, int, int]] = set()
    cand.update(_suit_partials(key - _RANK_BIT[r]))  # this tile stays isolated
    if c >= 3:
        cand.update((m + 1, t, h) for m, t, h in _suit_partials(key - _TRIPLET_SHAPES[r]))
    if c1 and c2:
        cand.update((m + 1, t, h) for m, t, h in _suit_partials(key - _SEQ_SHAPES[r]))
    if c >= 2:
        for m, t, h in _suit_partials(key - _PAIR_SHAPES[r]):
            cand.add((m, t + 1, h))
            if not h:
                cand.add((m, t, 1))
    if c1:
        cand.update((m, t + 1, h) for m, t, h in _suit_partials(key - _RANK_BIT[r] - _RANK_BIT[r + 1]))
    if c2:
        cand.update((m, t + 1, h) for m, t, h in _suit_partials(key - _RANK_BIT[r] - _RANK_BIT[r + 2]))
    # keep the non-dominated options only
    best = [x for x in cand if not any(y != x and y[0] >= x[0] and y[0] + y[1] >= x[0] + x[1] and y[1] >= x[1]
                                       and y[2] >= x[2] for y in cand)]
    return tuple(sorted(best, reverse=True))


def shanten_standard(counts: Sequence[int], n_melds: int = 0) -> int:
    """Distance to ready for sets + pair: 0 = ready (听牌), −1 = complete."""
    need = 4 - n_melds
    dm = dt = 0  # dragons: triplets and pairs
    for d in (18, 19, 20):
        c = counts[d]
        if c >= 3:
            dm += 1
        elif c == 2:
            dt += 1
    best = 8
    for m1, t1, h1 in _suit_partials(suit_key(counts, 0)):
        for m2, t2, h2 in _suit_partials(suit_key(counts, 9)):
            if h1 + h2 > 1:
                continue
            m = m1 + m2 + dm
            t = t1 + t2 + dt
            h = h1 + h2
            if not h and dt:  # a dragon pair serves as the head
                h, t = 1, t - 1
            if m > need:
                m = need
            if m + t > need:
                t = need - m
            s = 2 * (need - m) - t - h
            if s < best:
                best = s
    return best


def shanten_qidui(counts: Sequence[int]) -> int:
    pairs = 0
    for c in counts:
        pairs += c >> 1
    return 6 - min(pairs, 7)


def shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Distance to ready over both shapes (seven pairs only without melds): 0 ready, −1 complete."""
    s = shanten_standard(counts, n_melds)
    if n_melds == 0:
        q = shanten_qidui(counts)
        if q < s:
            return q
    return s
