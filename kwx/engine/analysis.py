"""Hand analysis with per-suit tables: win check, every reading of a win, waits, shanten (docs/rules.md §5).

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
from functools import cache

from kwx.engine.tiles import ALL_TILES, NUM_KINDS, Tile

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


_LOW_BITS = sum(1 << (3 * r) for r in range(9))  # bit 0 of every rank's three bits


def _fits(key: int) -> bool:
    """No rank above four copies (counts up to 7 only: 5, 6 and 7 have bit 2 and another bit set)."""
    return not ((key >> 2) & (key | (key >> 1)) & _LOW_BITS)


def _build_tables() -> tuple[frozenset[int], frozenset[int]]:
    sets_only = {0}
    frontier = {0}
    shapes = _SEQ_SHAPES + _TRIPLET_SHAPES
    for _ in range(4):
        nxt = {k + shape for k in frontier for shape in shapes}
        nxt = {n for n in nxt if _fits(n)} - sets_only
        sets_only |= nxt
        frontier = nxt
    with_pair = {n for n in (k + p for k in sets_only for p in _PAIR_SHAPES) if _fits(n)}
    return frozenset(sets_only), frozenset(with_pair)


_SETS_ONLY, _SETS_AND_PAIR = _build_tables()
# One lookup per suit in the hot paths: 0 = sets only, 1 = sets and one pair, absent = neither.
_SUIT_STATUS: dict[int, int] = dict.fromkeys(_SETS_ONLY, 0) | dict.fromkeys(_SETS_AND_PAIR, 1)
# A dragon count as a group: 0 or 3 is sets only, 2 is the pair, 1 or 4 cannot complete.
_DRAGON_STATUS = (0, None, 1, 0, None)


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
# The two suit keys are spelled out inline in the hot functions below: a call to suit_key costs as much as
# the lookup it feeds.
def is_standard_win(counts: Sequence[int]) -> bool:
    """Sets + one pair over the concealed counts (melds already taken out)."""
    c = counts
    sp = _SUIT_STATUS.get(c[0] | c[1] << 3 | c[2] << 6 | c[3] << 9 | c[4] << 12 | c[5] << 15 | c[6] << 18
                          | c[7] << 21 | c[8] << 24)
    if sp is None:
        return False
    ss = _SUIT_STATUS.get(c[9] | c[10] << 3 | c[11] << 6 | c[12] << 9 | c[13] << 12 | c[14] << 15
                          | c[15] << 18 | c[16] << 21 | c[17] << 24)
    if ss is None:
        return False
    d0 = _DRAGON_STATUS[c[18]]
    d1 = _DRAGON_STATUS[c[19]]
    d2 = _DRAGON_STATUS[c[20]]
    if d0 is None or d1 is None or d2 is None:
        return False
    return sp + ss + d0 + d1 + d2 == 1


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
    c = counts
    sp = _SUIT_STATUS.get(c[0] | c[1] << 3 | c[2] << 6 | c[3] << 9 | c[4] << 12 | c[5] << 15 | c[6] << 18
                          | c[7] << 21 | c[8] << 24)
    if sp is not None:
        ss = _SUIT_STATUS.get(c[9] | c[10] << 3 | c[11] << 6 | c[12] << 9 | c[13] << 12 | c[14] << 15
                              | c[15] << 18 | c[16] << 21 | c[17] << 24)
        if ss is not None:
            d0 = _DRAGON_STATUS[c[18]]
            d1 = _DRAGON_STATUS[c[19]]
            d2 = _DRAGON_STATUS[c[20]]
            if d0 is not None and d1 is not None and d2 is not None and sp + ss + d0 + d1 + d2 == 1:
                return True
    return n_melds == 0 and is_seven_pairs(c)


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


@cache
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


# A suit's splits with Tile objects already built: (sequences, triplets, pair or None), keyed by suit key,
# one dict per suit. Filled on first sight of a shape; only complete shapes (≈ 4k per suit) ever get in.
SuitSplit = tuple[tuple[Tile, ...], tuple[Tile, ...], "Tile | None"]
_SPLITS: tuple[dict[int, tuple[SuitSplit, ...]], dict[int, tuple[SuitSplit, ...]]] = ({}, {})


def suit_splits(key: int, suit: int) -> tuple[SuitSplit, ...]:
    """The splits of a complete suit shape (`suit` 0 = 筒, 1 = 条) as Tile tuples; cached per shape."""
    cache = _SPLITS[suit]
    found = cache.get(key)
    if found is None:
        o = 9 * suit
        found = cache[key] = tuple(
            (tuple(ALL_TILES[o + r] for r in seqs), tuple(ALL_TILES[o + r] for r in trips),
             ALL_TILES[o + pair] if pair >= 0 else None)
            for seqs, trips, pair in _suit_decompositions(key)
        )
    return found


def qidui_pairs(counts: Sequence[int]) -> tuple[Tile, ...]:
    """The pairs of a seven-pairs hand in display order; a four gives two equal entries."""
    return tuple(ALL_TILES[t] for t in range(NUM_KINDS) for _ in range(counts[t] >> 1))


def readings(counts: Sequence[int], n_melds: int = 0) -> list[Reading]:
    """Every reading of a complete concealed part (empty list when it does not win)."""
    out: list[Reading] = []
    if n_melds == 0 and is_seven_pairs(counts):
        out.append(Reading("qidui", pairs=qidui_pairs(counts)))
    if not is_standard_win(counts):
        return out
    dragon_trips = tuple(ALL_TILES[d] for d in (18, 19, 20) if counts[d] == 3)
    dragon_pair = next((ALL_TILES[d] for d in (18, 19, 20) if counts[d] == 2), None)
    for seq_p, trip_p, pair_p in suit_splits(suit_key(counts, 0), 0):
        for seq_s, trip_s, pair_s in suit_splits(suit_key(counts, 9), 1):
            present = [x for x in (pair_p, pair_s, dragon_pair) if x is not None]
            if len(present) != 1:
                continue
            out.append(Reading("sets", seq_p + seq_s, trip_p + trip_s + dragon_trips, present[0]))
    return out


# -- waits -------------------------------------------------------------------------------------------
@cache
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


# Per suit, key -> (tiles that leave it sets only, tiles that leave it sets + a pair), as tile indices.
_COMPLETIONS: tuple[dict[int, tuple[tuple[int, ...], tuple[int, ...]]], ...] = ({}, {})


def _completions(key: int, suit: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    cache = _COMPLETIONS[suit]
    found = cache.get(key)
    if found is None:
        o = 9 * suit
        to_sets, to_pair = _suit_completions(key)
        found = cache[key] = (tuple(o + r for r in to_sets), tuple(o + r for r in to_pair))
    return found


def waits(counts: Sequence[int], melds: Iterable[Meld] = ()) -> list[Tile]:
    """The tiles that complete a waiting hand (13 − 3n concealed tiles), in display order.

    A tile of which all four copies are already in this hand (concealed or melded) cannot come and is left out.
    """
    c = counts
    kp = c[0] | c[1] << 3 | c[2] << 6 | c[3] << 9 | c[4] << 12 | c[5] << 15 | c[6] << 18 | c[7] << 21 | c[8] << 24
    ks = (c[9] | c[10] << 3 | c[11] << 6 | c[12] << 9 | c[13] << 12 | c[14] << 15 | c[15] << 18 | c[16] << 21
          | c[17] << 24)
    # Five groups (筒, 条, 中, 发, 白), each sets only (0), sets + pair (1) or broken (None). The winning tile
    # joins one group; every other group must already be whole, with one pair among all five at the end.
    status = (_SUIT_STATUS.get(kp), _SUIT_STATUS.get(ks),
              _DRAGON_STATUS[c[18]], _DRAGON_STATUS[c[19]], _DRAGON_STATUS[c[20]])
    found: list[int] = []
    broken = -1
    pairs = 0
    for g in range(5):
        st = status[g]
        if st is None:
            if broken >= 0:
                break  # two broken groups: one tile cannot mend both
            broken = g
        else:
            pairs += st
    else:
        for g in range(5) if broken < 0 else (broken,):
            st = status[g]
            elsewhere = pairs - st if st is not None else pairs
            if elsewhere > 1:
                continue
            if g < 2:
                to_sets, to_pair = _completions(kp if g == 0 else ks, g)
                found.extend(to_pair if elsewhere == 0 else to_sets)
            else:
                n = c[16 + g] + 1
                if (n == 2 and elsewhere == 0) or (n == 3 and elsewhere == 1):
                    found.append(16 + g)
    melds = tuple(melds)
    if not melds:
        odd = -1
        total = 0
        for t in range(NUM_KINDS):
            n = c[t]
            total += n
            if n & 1:
                if odd >= 0:
                    odd = -2
                    break
                odd = t
        if odd >= 0 and total == 13 and odd not in found:
            found.append(odd)
            found.sort()
        return [ALL_TILES[t] for t in found if c[t] < 4]
    used = list(c)
    for m in melds:
        used[m.tile] += 3 if m.kind == "pung" else 4
    return [ALL_TILES[t] for t in found if used[t] < 4]


# -- shanten -----------------------------------------------------------------------------------------
@cache
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
    # Keep the options no other beats in every component. In descending order a dominating option comes first.
    best: list[tuple[int, int, int]] = []
    for x in sorted(cand, reverse=True):
        m, t, h = x
        for y in best:
            if y[0] >= m and y[1] >= t and y[2] >= h:
                break
        else:
            best.append(x)
    return tuple(best)


def _suit_keys(c: Sequence[int]) -> tuple[int, int]:
    kp = c[0] | c[1] << 3 | c[2] << 6 | c[3] << 9 | c[4] << 12 | c[5] << 15 | c[6] << 18 | c[7] << 21 | c[8] << 24
    ks = (c[9] | c[10] << 3 | c[11] << 6 | c[12] << 9 | c[13] << 12 | c[14] << 15 | c[15] << 18 | c[16] << 21
          | c[17] << 24)
    return kp, ks


def _dragon_blocks(c: Sequence[int]) -> tuple[int, int]:
    """(triplets, pairs) among the three dragons."""
    dm = dt = 0
    for n in (c[18], c[19], c[20]):
        if n >= 3:
            dm += 1
        elif n == 2:
            dt += 1
    return dm, dt


def shanten_keys(kp: int, ks: int, dm: int, dt: int, need: int) -> int:
    """Sets + pair shanten from the two suit keys, the dragon triplets/pairs and the sets still needed. The
    AI calls this directly while it changes one suit key at a time (ukeire, discard choice)."""
    best = 8
    parts_s = _suit_partials(ks)
    for m1, t1, h1 in _suit_partials(kp):
        for m2, t2, h2 in parts_s:
            h = h1 + h2
            if h > 1:
                continue
            m = m1 + m2 + dm
            t = t1 + t2 + dt
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


def shanten_standard(counts: Sequence[int], n_melds: int = 0) -> int:
    """Distance to ready for sets + pair: 0 = ready (听牌), −1 = complete."""
    kp, ks = _suit_keys(counts)
    dm, dt = _dragon_blocks(counts)
    return shanten_keys(kp, ks, dm, dt, 4 - n_melds)


def _dragon_after(c: int, delta: int, dm: int, dt: int) -> tuple[int, int]:
    """Dragon (triplets, pairs) after one dragon's count goes from c to c + delta."""
    n = c + delta
    dm += (n >= 3) - (c >= 3)
    dt += (n == 2) - (c == 2)
    return dm, dt


def shanten_after_discards(counts: Sequence[int], n_melds: int = 0) -> dict[int, int]:
    """For each tile held, the shanten after discarding it (both shapes), computed one suit key at a time."""
    kp, ks = _suit_keys(counts)
    dm, dt = _dragon_blocks(counts)
    need = 4 - n_melds
    pairs = sum(c >> 1 for c in counts)
    out: dict[int, int] = {}
    for t in range(NUM_KINDS):
        c = counts[t]
        if not c:
            continue
        if t < 9:
            s = shanten_keys(kp - _RANK_BIT[t], ks, dm, dt, need)
        elif t < 18:
            s = shanten_keys(kp, ks - _RANK_BIT[t - 9], dm, dt, need)
        else:
            s = shanten_keys(kp, ks, *_dragon_after(c, -1, dm, dt), need)
        if not n_melds:
            q = 6 - min(pairs - ((c & 1) == 0), 7)
            if q < s:
                s = q
        out[t] = s
    return out


def _has_neighbour(counts: Sequence[int], u: int) -> bool:
    r = u % 9
    base = u - r
    return any(counts[base + max(0, r - 2):base + min(8, r + 2) + 1])


def improving_tiles(counts: Sequence[int], n_melds: int = 0, current: int | None = None) -> list[int]:
    """Tiles whose draw brings this hand (13 − 3n tiles) closer to ready than `current` (its shanten)."""
    kp, ks = _suit_keys(counts)
    dm, dt = _dragon_blocks(counts)
    need = 4 - n_melds
    pairs = sum(c >> 1 for c in counts)
    if current is None:
        current = shanten_keys(kp, ks, dm, dt, need)
        if not n_melds:
            current = min(current, 6 - min(pairs, 7))
    out: list[int] = []
    for u in range(NUM_KINDS):
        c = counts[u]
        if c >= 4:
            continue
        # A tile with nothing of its own suit within two ranks (or a dragon not held) stays isolated in
        # every reading, so it cannot help.
        if not c and (u >= 18 or not _has_neighbour(counts, u)):
            continue
        if u < 9:
            s = shanten_keys(kp + _RANK_BIT[u], ks, dm, dt, need)
        elif u < 18:
            s = shanten_keys(kp, ks + _RANK_BIT[u - 9], dm, dt, need)
        else:
            s = shanten_keys(kp, ks, *_dragon_after(c, 1, dm, dt), need)
        if not n_melds:
            q = 6 - min(pairs + (c & 1), 7)
            if q < s:
                s = q
        if s < current:
            out.append(u)
    return out


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
