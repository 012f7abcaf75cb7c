"""AI players: pure policies from what one seat can see to one of its legal actions.

`simple`   reduces shanten, claims what does not slow it down, never declares 亮倒. Fast.
`standard` also counts the tiles still unseen (ukeire: how many live tiles improve the hand), leans to
           清一色 / 碰碰胡 / 七对 when they are cheap, declares 亮倒 when its waits are live, and never feeds a
           亮倒 player's waits unless it has no other tile (feeding a declared hand is 包胡: double pay).
`strong`   plays for expected points and defends (kwx.engine.ai_strong); it reads who at the table throws
           declared waits (kwx.engine.reads) and declares more against them.
All are deterministic: ties break by tile order, so a seeded simulation replays exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

from kwx.engine.actions import Action
from kwx.engine.ai_base import Observation, _by_verb, _isolation, _pattern_lean, _tile
from kwx.engine.ai_strong import DEFAULT_PARAMS, StrongParams, choose_strong
from kwx.engine.analysis import improving_tiles, shanten, shanten_after_discards, waits
from kwx.engine.hand import HandState
from kwx.engine.reads import FeedRecord

AI_LEVELS = ("simple", "standard", "strong")
__all__ = ["AI_LEVELS", "DEFAULT_PARAMS", "Observation", "StrongParams", "choose", "decide", "observe"]


def choose(obs: Observation, level: str = "standard", *, strong_params: StrongParams = DEFAULT_PARAMS) -> Action:
    """The action this AI level takes; always one of obs.legal. `strong_params`: the strong AI's tuning."""
    if level == "simple":
        return _choose_simple(obs)
    if level == "standard":
        return _choose_standard(obs)
    if level == "strong":
        return choose_strong(obs, strong_params)
    raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(AI_LEVELS)}")


# -- shared helpers ----------------------------------------------------------------------------------
def _shanten_without(counts: list[int], tile: int, n_melds: int) -> int:
    counts[tile] -= 1
    s = shanten(counts, n_melds)
    counts[tile] += 1
    return s


def _kong_keeps_pace(obs: Observation, tile: int, removed: int) -> bool:
    """A kong is worth its money when it does not leave the hand further from ready."""
    counts = obs.counts
    n = len(obs.melds)
    before = shanten(counts, n)
    counts[tile] -= removed
    after = shanten(counts, n + 1)
    counts[tile] += removed
    return after <= before


def _pung_improves(obs: Observation, tile: int) -> bool:
    """After a pung we must discard, so the best discard after it decides."""
    counts = obs.counts
    n = len(obs.melds)
    before = shanten(counts, n)
    counts[tile] -= 2
    after = min(shanten_after_discards(counts, n + 1).values())
    counts[tile] += 2
    return after < before


# -- simple ------------------------------------------------------------------------------------------
def _choose_simple(obs: Observation) -> Action:
    acts = _by_verb(obs.legal)
    if "hu" in acts:
        return acts["hu"][0]
    for g in acts.get("gang", ()):
        tile = obs.claim_tile if obs.claim_tile is not None else _tile(g)
        removed = 3 if obs.claim_tile is not None else (4 if obs.counts[tile] == 4 else 1)
        if removed == 1 or _kong_keeps_pace(obs, tile, removed):
            return g
    if "peng" in acts and obs.claim_tile is not None and _pung_improves(obs, obs.claim_tile):
        return acts["peng"][0]
    discards = acts.get("discard")
    if discards:
        # The hand's 14-tile shanten is the best any discard can keep; try the most useless tiles first and
        # take the first that keeps it (usually the first or second try).
        n = len(obs.melds)
        counts = obs.counts
        target = shanten(counts, n)
        ordered = sorted(discards, key=lambda a: (-_isolation(counts, _tile(a)), _tile(a)))
        for a in ordered:
            if _shanten_without(counts, _tile(a), n) <= target:
                return a
        return ordered[0]
    if "pass" in acts:
        return acts["pass"][0]
    return obs.legal[0]


# -- standard ----------------------------------------------------------------------------------------
def _unseen(obs: Observation, t: int) -> int:
    return max(0, 4 - obs.visible[t])


def _ukeire(obs: Observation, counts: list[int], n_melds: int, current: int) -> int:
    """Live tiles that bring the hand (13 − 3n tiles) closer to ready than `current`."""
    return sum(_unseen(obs, u) for u in improving_tiles(counts, n_melds, current))


def _danger(obs: Observation, t: int) -> int:
    """How many declared 亮倒 hands this tile would feed."""
    return sum(1 for w in obs.liangdao_waits.values() if t in w)


def _choose_standard(obs: Observation) -> Action:
    acts = _by_verb(obs.legal)
    if "hu" in acts:
        return acts["hu"][0]
    counts = obs.counts
    n = len(obs.melds)
    if obs.claim_tile is not None:  # a claim window on someone's discard
        for g in acts.get("gang", ()):
            if obs.declared or _kong_keeps_pace(obs, obs.claim_tile, 3):
                return g
        if "peng" in acts and not obs.liangdao_waits and _pung_improves(obs, obs.claim_tile):
            return acts["peng"][0]
        return acts.get("pass", obs.legal)[0]
    for g in acts.get("gang", ()):
        removed = 4 if counts[_tile(g)] == 4 else 1
        if obs.declared or removed == 1 or _kong_keeps_pace(obs, _tile(g), removed):
            return g
    discard_like = acts.get("discard", []) + acts.get("liangdao", [])
    if not discard_like:
        return acts.get("pass", obs.legal)[0]
    after = shanten_after_discards(counts, n)
    scored = [(after[t], t) for t in sorted({_tile(a) for a in discard_like})]
    best_s = min(s for s, _ in scored)
    contenders = sum(1 for s, t in scored if s == best_s and not _danger(obs, t))
    candidates = []
    for s, t in scored:
        danger = _danger(obs, t)
        # Feeding a declared hand costs double (包胡); fold unless every tile is dangerous.
        rank_s = s + (10 * danger)
        uke = 0
        if s == best_s and s <= 2 and not danger and contenders > 1:
            counts[t] -= 1
            uke = _ukeire(obs, counts, n, s)
            counts[t] += 1
        value = (-rank_s, uke + _pattern_lean(counts, obs.melds, t), _isolation(counts, t), -t)
        candidates.append((value, t))
    candidates.sort(reverse=True)
    chosen = candidates[0][1]
    liangdao = [a for a in acts.get("liangdao", ()) if a.tile == chosen]
    if liangdao and _worth_declaring(obs, chosen):
        return liangdao[0]
    for a in acts.get("discard", ()):
        if a.tile == chosen:
            return a
    return liangdao[0] if liangdao else discard_like[0]


def _worth_declaring(obs: Observation, discard: int) -> bool:
    counts = obs.counts
    counts[discard] -= 1
    ws = waits(counts, obs.melds)
    counts[discard] += 1
    live = sum(_unseen(obs, w) for w in ws)
    return live >= 3 or (live >= 2 and obs.wall_remaining >= 20)


# -- from a hand to what one seat sees ---------------------------------------------------------------------
def observe(hand: HandState, seat: int, feed_records: Mapping[int, FeedRecord] | None = None) -> Observation:
    """What `seat` knows in `hand` (a HandState): its own tiles, every discard and exposed meld, and the hands
    of declared 亮倒 seats. Another seat's 暗杠 stays unknown, as it is to a player. `feed_records` (seat →
    record, from the table's earlier hands: `FeedReads.for_seats`) is public too; the seat's own is
    dropped."""
    visible = list(hand.counts(seat))
    for s in range(3):
        for tile, claimed in hand.discards(s):
            if not claimed:
                visible[tile] += 1
        for m in hand.melds(s):
            if s == seat or m.kind != "ankong":
                visible[m.tile] += m.size
        if s != seat and hand.declared(s):
            for t, c in enumerate(hand.counts(s)):
                visible[t] += c
    pending = hand.pending
    claim_tile = None
    if pending is not None and pending[0] != seat:
        claim_tile = pending[1]
        if hand.phase == "rob":  # a discard is already among the discards; a 补杠 tile is still in hand
            visible[claim_tile] += 1
    return Observation(
        seat=seat,
        legal=hand.legal_actions(seat),
        counts=list(hand.counts(seat)),
        melds=hand.melds(seat),
        visible=visible,
        liangdao_waits={s: hand.liangdao_waits(s) for s in range(3) if s != seat and hand.declared(s)},
        declared=hand.declared(seat),
        wall_remaining=hand.wall_remaining,
        claim_tile=claim_tile,
        rules=hand.rules,
        piao=tuple(hand.piao),
        discards={s: tuple(t for t, _ in hand.discards(s)) for s in range(3)},
        meld_counts={s: len(hand.melds(s)) for s in range(3)},
        shown_hands={s: tuple(hand.counts(s)) for s in range(3) if s != seat and hand.declared(s)},
        exposed={s: tuple(m for m in hand.melds(s) if m.kind != "ankong") for s in range(3) if s != seat},
        feed_records={s: r for s, r in (feed_records or {}).items() if s != seat},
    )


def decide(hand: HandState, seat: int, level: str = "standard",
           feed_records: Mapping[int, FeedRecord] | None = None, *,
           strong_params: StrongParams = DEFAULT_PARAMS) -> Action:
    """The action the AI of `level` takes for `seat` now (one of hand.legal_actions(seat)). `feed_records`: what
    the table has learned of its players (see `observe`); `strong_params`: the strong AI's tuning."""
    legal = hand.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    if level == "simple":  # it looks at nothing but its own tiles: skip counting the table
        pending = hand.pending
        claim_tile = pending[1] if pending is not None and pending[0] != seat else None
        return _choose_simple(Observation(seat, legal, list(hand.counts(seat)), hand.melds(seat),
                                          claim_tile=claim_tile))
    return choose(observe(hand, seat, feed_records), level, strong_params=strong_params)
