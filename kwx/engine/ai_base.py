"""What every AI level shares: the `Observation` one seat acts on, and small tile judgements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kwx.engine.actions import Action
from kwx.engine.analysis import Meld
from kwx.engine.reads import FeedRecord
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import NUM_KINDS, Tile


@dataclass
class Observation:
    """Everything one seat may know when it must act (nothing of another seat's concealed hand)."""

    seat: int
    legal: Sequence[Action]  # the seat's legal actions
    counts: list[int]  # own concealed tiles, the drawn tile included
    melds: Sequence[Meld] = ()
    visible: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # tiles seen anywhere, own hand included
    liangdao_waits: dict[int, Sequence[int]] = field(default_factory=dict)  # other declared seats → their waits
    declared: bool = False  # this seat has declared 亮倒
    wall_remaining: int = 84
    claim_tile: int | None = None  # the discard (or kong tile) under claim, if this is a claim window
    rules: RuleSet = STANDARD  # the table's rules (min_fan, caps, forbid_feeding …)
    piao: Sequence[int] = (0, 0, 0)  # every seat's 漂 pick (public once the hand is dealt)
    discards: dict[int, Sequence[int]] = field(default_factory=dict)  # every seat → its discards, in order
    meld_counts: dict[int, int] = field(default_factory=dict)  # every seat → how many melds it has declared
    shown_hands: dict[int, Sequence[int]] = field(default_factory=dict)  # other declared seats → their shown tiles
    exposed: dict[int, Sequence[Meld]] = field(default_factory=dict)  # other seats → their exposed melds (no 暗杠)
    # other seats → how readily the player there fed declared hands in this table's earlier hands
    # (kwx.engine.reads); a seat with no record is absent
    feed_records: Mapping[int, FeedRecord] = field(default_factory=dict)


def _by_verb(legal: Sequence[Action]) -> dict[str, list[Action]]:
    out: dict[str, list[Action]] = {}
    for a in legal:
        out.setdefault(a.verb, []).append(a)
    return out


def _tile(action: Action) -> Tile:
    """The tile of an action that names one (a discard, a 亮倒, a kong of our own turn)."""
    assert action.tile is not None
    return action.tile


def _isolation(counts: Sequence[int], t: int) -> int:
    """Higher = more useless: dragons alone, then suit tiles with no neighbours, terminals before middles."""
    if t >= 18:
        return 6 if counts[t] == 1 else 0
    r = t % 9
    near = 0
    for d in (-2, -1, 1, 2):
        if 0 <= r + d <= 8:
            near += counts[t + d]
    score = 4 - min(near, 4) + (counts[t] == 1)
    return score + (1 if r in (0, 8) else 0)


def _pattern_lean(counts: Sequence[int], melds: Sequence[Meld], t: int) -> int:
    """Bonus for discarding `t` when a big pattern is within reach: 清一色 (drop the minority suit and
    dragons), 七对/碰碰胡 (keep pairs)."""
    suit_tiles = [sum(counts[0:9]) + sum(3 for m in melds if m.tile < 9),
                  sum(counts[9:18]) + sum(3 for m in melds if 9 <= m.tile < 18)]
    total = sum(counts) + 3 * len(melds)
    bonus = 0
    main = 0 if suit_tiles[0] >= suit_tiles[1] else 1
    if suit_tiles[main] >= total - 4:  # 清一色 is cheap: at most four strays
        tile_suit = 0 if t < 9 else 1 if t < 18 else 2
        if tile_suit != main:
            bonus += 3
    pairs = sum(1 for c in counts if c >= 2)
    if not melds and pairs >= 5 and counts[t] == 1:
        bonus += 2  # 七对 within reach: singles go first
    return bonus
