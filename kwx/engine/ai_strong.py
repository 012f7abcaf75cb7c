"""The `strong` AI: plays for expected points, declares 亮倒 when it pays, and defends.

A pure, deterministic policy of one seat's `Observation` (its own tiles, everything public, the waits shown by
亮倒 hands; nothing of another concealed hand, nothing of the wall order). Every decision compares the
expected points of the hands it can keep:

- **A ready hand** (听牌) is worth P(win) × (pay + the loss a win spares). Per round of play the hand wins with
  rate p = Σ over waits of live(w)/unseen × (1 own draw + the discards that may feed it: players throw a lone
  dragon or 1/9 far more readily than a middle tile, so a concealed wait on one is fed more), against a hazard h that
  someone else ends the hand first; over the k rounds left P(win) = p/(p+h)·(1 − (1−p−h)^k). Each wait pays what
  the fan scorer says (so 清一色, 碰碰胡, 七对 and its dragon forms, 卡五星, 四归, 手抓一 all count, under the
  table's caps), ×2 from each opponent when self-drawn, with 漂 added per payment; waits below `min_fan` (or
  `min_fan_discard` on a discard) are worth nothing there.
- **Speed**: a step towards ready comes with each tile that improves the hand, by our own draw; a tile we hold a
  pair of also comes by a 碰 of an opponent's discard (as readily as that opponent throws it), so pairs count as
  faster than run shapes waiting on one tile.
- **One tile from ready**: for each live tile that makes it ready, the best ready hand after the best discard,
  weighted by how many such tiles are live and discounted by the rounds it takes (two plies, cached by shape).
  A tile a declared hand waits on is never that discard: it can never leave our hand.
- **Further away**: per route (plain sets, 七对, 碰碰胡, 清一色 and their products) the route's distance and
  acceptance give a chance to be ready in time, times what such a hand typically pays. Routes compete: the
  best one decides the value.
- **Loose tiles**: the model looks one or two draws ahead, where a lone dragon or a suit tile with no neighbours
  may still look as good as a tile of a connected shape; further ahead it adds nothing. Each discard gets a small
  bonus by how loose the tile is, so such near-ties throw the loose tile.
- **Kong money to come**: a concealed triplet whose last copy is live may still become a 暗杠 or a 直杠, an
  exposed pung a 补杠; the hand is worth that much more, so a triplet is not broken lightly.
- **What a win spares**: besides the average loss an opponent's win would cost, a declared opponent's win costs
  the fan its shown hand makes on its waits; the more it shows, the more being first is worth.
- **亮倒** is the same formula twice: declared (fan ×2, 包胡 from a feeder, but opponents stop feeding the
  waits, a locked hand, the 荒庄 penalty) against concealed (every discard may feed it), plus an edge for what
  shown waits do to the others (they must hold those tiles back), the larger the more of them are live. The
  larger wins.
- **Defence**: a tile that wins for a declared hand is never discarded while another tile is legal (包胡 pays
  double); a tile a declared hand shows three of costs the 直杠 money and the free draw it gives that hand.
  Against an undeclared opponent a discard costs P(ready) × P(that tile) × what a win costs; a weak hand then
  gives way to the safest tile (it folds), a strong one pushes.
- **Claims and kongs**: 杠 is taken when the hand after it (plus the kong money and a 杠上开花 chance) is worth
  more than the hand without, 碰 only when it is worth clearly more (it exposes the hand and spends a pair); a
  补杠 is not made into a declared hand's wait (robbing it is 包胡).
- **What the table has shown of its players**: a player seen in earlier hands to throw declared waits (a careless
  player, 包胡 for us) is expected to go on doing so, at the rate its record shows (`Observation.feed_records`,
  kwx.engine.reads); with no record, opponents are expected to hold declared waits back.
- **漏胡**: a win on offer is taken unless it is below what waiting for a self-draw is worth by a wide margin
  (passing blocks discard wins until our next draw).
Ties break by tile order, so a seeded simulation replays exactly. Shape results (waits, fans, improving tiles)
are cached per rules object; live counts are applied per decision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kwx.engine.actions import Action
from kwx.engine.ai_base import Observation, _by_verb, _isolation, _pattern_lean, _tile
from kwx.engine.analysis import (
    Meld,
    _suit_keys,
    improving_tiles,
    shanten,
    shanten_after_discards,
    shanten_keys,
    waits,
)
from kwx.engine.fan import WinContext, score_counts
from kwx.engine.reads import FeedRecord
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import NUM_KINDS, Tile


# -- model constants (tuned on simulated tables) --------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StrongParams:
    """The model's tuned constants, passed to every decision (`DEFAULT_PARAMS` is how `strong` plays). Each was
    measured on simulated tables, most by playing the same hands again with a changed copy (paired)."""

    # what a win saves on average: the points an opponent's win would have cost us
    spared_loss: float = 1.5
    # an undeclared opponent's discard feeds a concealed wait about as often as a draw
    ron_concealed: float = 0.9
    # opponents avoid a declared wait; now and then one is forced (包胡)
    ron_declared_from_undeclared: float = 0.08
    # how much of a player's feeding record (in feeds expected of a careless player) it takes to move that belief
    # halfway to what the record shows: a player seen to throw declared waits is fed on to that rate
    feed_prior: float = 2.0
    # a declared opponent discards its draws blind: as likely as our own draw
    locked_feed: float = 1.0
    # a concealed hand may still change its waits for a better one
    concealed_option: float = 1.08
    # live winning tiles of a typical ready hand (for hands still far from ready)
    typical_live: float = 5.0
    # each step towards ready accepts fewer tiles than the last
    step_decay: float = 0.6
    # a discard that leaves the hand a step further from ready needs a clearly better route
    slower_weight: float = 0.75
    # discards valued in full per decision (the time budget)
    exact_candidates: int = 4
    # what declaring gains beyond the model: undeclared opponents must hold our waits back (it slows them, and now
    # and then one is forced to feed: 包胡), while a concealed hand must hold back every wait a declared opponent
    # shows. Measured: +0.05 base per hand over three sets of development seeds
    declare_edge: float = 0.3
    # and that edge grows with the share of the unseen tiles our shown waits have live: the more tiles opponents
    # must hold back, the more of their hands is frozen, while a thin wait, shown, is simply avoided. Found by
    # replaying close 亮倒 calls both ways on the same wall; measured +0.03 to +0.05 base per hand
    wait_hold: float = 10.0
    # where that edge is declare_edge: about four live winning tiles in 46 unseen
    typical_wait_share: float = 0.09
    # what feeding a declared opponent's wait costs a declared hand (fan ×2, no 包胡)
    declared_win_cost: float = 2.5
    # a passed win blocks discard wins until our next draw
    louhu_discount: float = 0.85
    # and the hand must be worth this much more than the win to pass it
    louhu_margin: float = 1.6
    # what a declared opponent's 自摸 costs us when its fan cannot be read (a hidden 暗杠)
    declared_sd_cost: float = 3.0
    # a win also spares us a declared hand's win: this much more per declared opponent, scaled by its fan over 3.
    # Measured: +0.019 base per hand (paired, 16,000 hands)
    spared_per_declared: float = 1.0
    # the model looks one or two draws ahead; a loose tile (a lone dragon, a suit tile with no neighbours, a stray
    # of a big pattern's suit) adds nothing further ahead either, which it does not see. Each point of a discard's
    # looseness (ai_base._isolation plus the pattern lean) adds this much to throwing it, so near-ties break
    # towards keeping connected shapes. Measured +0.025 base per hand, 95 % interval +0.006 to +0.045 (paired,
    # 160,000 hands on eight development seeds; every seed gained)
    loose_weight: float = 0.06
    # a pair becomes a triplet by our own draw or by a 碰 of anyone's discard, so a step that pairs up comes sooner
    # than a step that needs a run's tile (there is no 吃). Counted at half weight: a 碰 exposes the hand, and not
    # every pair is worth claiming. Measured +0.023 base per hand, 95 % interval +0.007 to +0.039 (paired, 120,000
    # hands on six development seeds; every seed gained); full weight +0.011, double −0.010
    pung_speed: float = 0.5
    # a 碰 is taken only when the hand after it is worth this much more than the hand without: the pung exposes
    # the hand and spends a pair (the hand's head, a 七对 route, a pair to 碰 later) in ways the model values only
    # in part. Measured against the earlier 1.03: +0.015 base per hand, 95 % interval +0.002 to +0.028 (paired,
    # 120,000 hands on six development seeds; every seed gained); 0.9 −0.017, 1.25 −0.031 (d1, d2)
    peng_margin: float = 1.12
    # but where a plain hand cannot win (min_fan ≥ 2), a 碰 that heads for a pattern is worth more than the model
    # says: 1.12 there cost 0.10 base per hand under online-3d (95 % interval +0.00 to +0.20, paired, 16,000
    # hands), so such tables keep the earlier margin
    peng_margin_min_fan2: float = 1.03
    # the chance a triplet's last live copy shows before the hand ends, per 3 rounds / unseen
    kong_later: float = 0.6


DEFAULT_PARAMS = StrongParams()

# How often opponents discard a tile, relative to its share of the unseen tiles, by kind (dragon, 1/9, 2/8,
# 3–7) and by how many of it we have seen (0–3): measured over simulated discards of `standard` and `strong`
# players in mid-hand. Dragons and terminals leave hands early and often; middle tiles are kept.
DISCARD_SHAPE = (
    (1.7, 2.2, 2.0, 1.8),  # dragons
    (1.2, 1.6, 1.85, 2.0),  # 1 and 9
    (0.8, 1.0, 1.35, 1.5),  # 2 and 8
    (0.42, 0.6, 0.87, 0.95),  # 3 to 7
)
_SHAPE_OF_TILE = tuple(  # each tile kind's row of DISCARD_SHAPE: dragons, else by distance from the suit's edge
    DISCARD_SHAPE[0 if t.is_dragon else min(3, t.number, 10 - t.number)] for t in Tile)
NEVER = 1000.0  # the cost of feeding a declared hand while another tile is legal

_SD = WinContext(self_draw=True)
_SD_L = WinContext(self_draw=True, liangdao=True)
_RON = WinContext()
_RON_L = WinContext(liangdao=True)
_KAIHUA = WinContext(self_draw=True, kong_draw=True)
_MAX_CACHE = 200_000

# Shape caches per rules object (kept alive with it, so its id is not reused while cached).
WaitFans = tuple[tuple[int, int, int], ...]  # (wait, fan by 自摸, fan on a discard) per wait
ReadyAfter = tuple[tuple[int, WaitFans], ...]  # (discard, the waits' fans after it) per discard leaving it ready
_Shape = tuple[tuple[int, ...], tuple[Meld, ...]]  # concealed counts and melds
_FanCache = dict[_Shape, WaitFans]
_AfterCache = dict[_Shape, ReadyAfter]
_CACHES: dict[int, tuple[RuleSet, _FanCache, _AfterCache, _FanCache]] = {}
_IMPROVING: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}


def _caches(rules: RuleSet) -> tuple[_FanCache, _AfterCache, _FanCache]:
    found = _CACHES.get(id(rules))
    if found is None or found[0] is not rules:
        if len(_CACHES) > 16:
            _CACHES.clear()
        found = _CACHES[id(rules)] = (rules, {}, {}, {})
    ready, after, decl = found[1], found[2], found[3]
    if len(ready) + len(after) + len(decl) > _MAX_CACHE:
        ready.clear()
        after.clear()
        decl.clear()
    return ready, after, decl


# -- shapes ------------------------------------------------------------------------------------------------
def _wait_fans(counts: list[int], melds: tuple[Meld, ...], rules: RuleSet, cache: _FanCache,
               declared: bool = False) -> WaitFans:
    """(wait, fan by 自摸, fan on a discard) of a ready hand of 13 − 3n tiles; () when not ready."""
    key = (tuple(counts), melds)
    found = cache.get(key)
    if found is None:
        out = []
        sd, ron = (_SD_L, _RON_L) if declared else (_SD, _RON)
        for w in waits(counts, melds):
            a = score_counts(counts, w, melds, sd, rules)
            b = score_counts(counts, w, melds, ron, rules)
            out.append((int(w), a.fan if a else 0, b.fan if b else 0))
        found = cache[key] = tuple(out)
    return found


def _ready_after(counts: list[int], melds: tuple[Meld, ...], rules: RuleSet, ready: _FanCache,
                 after: _AfterCache) -> ReadyAfter:
    """For a hand of 14 − 3n tiles: every discard that leaves it ready, with the waits' fans."""
    key = (tuple(counts), melds)
    found = after.get(key)
    if found is None:
        out = []
        n = len(melds)
        for t, s in shanten_after_discards(counts, n).items():
            if s == 0:
                counts[t] -= 1
                wf = _wait_fans(counts, melds, rules, ready)
                counts[t] += 1
                if wf:
                    out.append((t, wf))
        found = after[key] = tuple(out)
    return found


def _improving(counts: list[int], n: int, s: int) -> tuple[int, ...]:
    key = (tuple(counts), n)
    found = _IMPROVING.get(key)
    if found is None:
        if len(_IMPROVING) > _MAX_CACHE:
            _IMPROVING.clear()
        found = _IMPROVING[key] = tuple(improving_tiles(counts, n, s))
    return found


def _pph_shanten(counts: Sequence[int], need: int) -> int:
    trips = pairs = 0
    for c in counts:
        if c >= 3:
            trips += 1
        elif c == 2:
            pairs += 1
    trips = min(trips, need)
    head = 1 if pairs else 0
    t = min(pairs - head, need - trips)
    return 2 * (need - trips) - t - head


# -- the model -----------------------------------------------------------------------------------------------
class TableModel:
    """The strong AI's model of the table at one decision: what the seat knows of it (`Observation`) in the
    model's terms, and the values of the hands it may keep."""

    def __init__(self, obs: Observation, params: StrongParams = DEFAULT_PARAMS) -> None:
        rules = obs.rules
        self.obs = obs
        self.params = params
        self.rules = rules
        self.seat = obs.seat
        self.live = [max(0, 4 - v) for v in obs.visible]
        self.unseen = max(1, sum(self.live))
        self.rounds = max(0.0, obs.wall_remaining / 3.0)
        self.depth = 1.0 - min(1.0, obs.wall_remaining / 44.0)  # 0 at the deal, 1 at the end of the wall
        others = [s for s in range(3) if s != obs.seat]
        self.others = others
        self.declared_opp = [s for s in others if s in obs.liangdao_waits]
        self.ready_cache, self.after_cache, self.decl_cache = _caches(rules)
        self.decl_fan: dict[int, float] = {}  # what a declared opponent's win costs us, where it can be read
        for s in self.declared_opp:
            fan = _declared_fan(obs, s, self.live, self.decl_cache)
            if fan is not None:
                self.decl_fan[s] = fan
        self.spared = params.spared_loss + sum(
            params.spared_per_declared * self.decl_fan.get(s, params.declared_sd_cost) / 3.0
            for s in self.declared_opp)
        # how often each undeclared opponent's discard feeds a declared wait of ours, relative to our own draw
        self.feed_rate = {s: _feed_rate(obs.feed_records.get(s), params) for s in others
                          if s not in obs.liangdao_waits}
        # per tile, how readily opponents discard it, and so how often each round, relative to our own draw, an
        # opponent's discard of it comes our way: an undeclared opponent throws it as readily as its shape says, a
        # declared one throws its draws blind. It feeds a concealed wait on the tile, or it is a 碰 for a pair of it.
        self.discard_shape = [shape[min(3, seen)] for shape, seen in zip(_SHAPE_OF_TILE, obs.visible)]
        n_decl = len(self.declared_opp)
        self.locked_feed = n_decl * params.locked_feed
        concealed_feed = (2 - n_decl) * params.ron_concealed
        self.discard_feed = [self.locked_feed + concealed_feed * d for d in self.discard_shape]
        piao = obs.piao or (0, 0, 0)
        self.piao_in = [piao[obs.seat] + piao[s] for s in others]
        self.min_fan = rules.min_fan
        self.min_fan_discard = rules.min_fan_discard
        hazard = 0.0
        self.p_ready: dict[int, float] = {}
        for s in others:
            if s in obs.liangdao_waits:
                live = sum(self.live[w] for w in obs.liangdao_waits[s])
                hazard += live / self.unseen * (1.0 + 0.3 * (len(self.declared_opp) - 1 + 0.2))
            else:
                melds = obs.meld_counts.get(s, 0)
                turns = len(obs.discards.get(s, ()))
                pr = min(0.85, 0.04 * turns + 0.12 * melds)
                self.p_ready[s] = pr
                hazard += 0.02 + 0.08 * pr
        self.hazard = max(0.02, hazard)
        # per round, what a locked hand's blind discard is expected to pay out
        risk = 0.0
        for s, ws in obs.liangdao_waits.items():
            risk += sum(self.live[w] for w in ws) / self.unseen * self.decl_fan.get(s, params.declared_win_cost)
        for pr in self.p_ready.values():
            risk += pr * 0.09 * (2.5 + params.spared_loss)
        self.locked_risk = risk
        self.feeds: set[int] = set()
        for ws in obs.liangdao_waits.values():
            self.feeds.update(int(w) for w in ws)
        # a declared opponent's chance to win on any one draw of its own
        self.draw_win = {s: sum(self.live[w] for w in ws) / self.unseen for s, ws in obs.liangdao_waits.items()}
        # tiles a declared opponent holds three of and may 直杠 off our discard (kong money and a free draw)
        self.kong_feed: dict[int, float] = {}
        for s, shown in obs.shown_hands.items():
            ws = tuple(obs.liangdao_waits.get(s, ()))
            for t, c in enumerate(shown):
                if c == 3:
                    after = list(shown)
                    after[t] = 0
                    if tuple(waits(after, (Meld("kong", Tile(t)),))) == ws:
                        cost = rules.zhigang_pay + self.draw_win.get(s, 0.0) * (
                            2 * self.decl_fan.get(s, params.declared_sd_cost) + params.spared_loss)
                        self.kong_feed[t] = self.kong_feed.get(t, 0.0) + cost

    # -- winning chances ------------------------------------------------------------------------------
    def win_prob(self, p: float, rounds: float) -> float:
        h = self.hazard
        q = p + h
        if p <= 0 or rounds <= 0:
            return 0.0
        q = min(q, 0.95)
        none_yet: float = (1.0 - q) ** rounds  # no win and no hazard in any of the rounds
        return p / q * (1.0 - none_yet)

    def ready_value(self, wf: Sequence[tuple[int, int, int]], declared: bool, rounds: float,
                    live: list[int] | None = None) -> float:
        """Expected points of a ready hand with waits/fans `wf` (fans already ×2 when declared)."""
        if not wf:
            return 0.0
        live = live or self.live
        u = self.unseen
        n_undecl = 2 - len(self.declared_opp)
        piao = self.piao_in
        piao_self = sum(piao)
        piao_ron = piao_self / 2.0
        rate = value = 0.0
        ron_bao = sum(self.feed_rate.values()) if declared else 0.0
        for w, fs, fr in wf:
            lw = live[w] / u
            if not lw:
                continue
            if fs >= self.min_fan:
                rate += lw
                value += lw * (2 * fs + piao_self)
            if fr >= self.min_fan_discard:
                # opponents hold a declared wait back: only a declared opponent's blind discard feeds it
                ron_plain = self.locked_feed if declared else self.discard_feed[w]
                rate += lw * (ron_plain + ron_bao)
                value += lw * (ron_plain * (fr + piao_ron) + ron_bao * 2 * (fr + piao_ron))
        if rate <= 0:
            return 0.0
        pay = value / rate + self.spared
        win = self.win_prob(rate, rounds)
        ev = win * pay
        if declared:
            q = min(0.95, rate + self.hazard)
            # 荒庄: a declared hand pays each undeclared player 1 × base
            ev -= (1.0 - q) ** rounds * n_undecl
            # A locked hand discards every draw: into a declared opponent's wait it pays that win (no way to
            # hold the tile back), and it cannot fold against a ready opponent either.
            locked_rounds = (1.0 - (1.0 - q) ** rounds) / q
            ev -= locked_rounds * self.locked_risk
        return ev

    def declared_value(self, counts: list[int], melds: tuple[Meld, ...]) -> float:
        """A ready hand of 13 − 3n tiles, declared now: the model's value, the edge of showing its waits (larger
        the more of them are live) and the kong money still to come."""
        wf = _wait_fans(counts, melds, self.rules, self.decl_cache, declared=True)
        waits_live = sum(self.live[w] for w, _, _ in wf) / self.unseen
        params = self.params
        return (self.ready_value(wf, True, self.rounds) + params.declare_edge
                + params.wait_hold * (waits_live - params.typical_wait_share)
                + self.kong_chances(counts, melds, self.rounds))

    # -- a hand of 13 − 3n tiles (waiting for a draw) -----------------------------------------------------------
    def hand_value(self, counts: list[int], melds: tuple[Meld, ...], rounds: float | None = None) -> float:
        if rounds is None:
            rounds = self.rounds
        n = len(melds)
        s = shanten(counts, n)
        if s == 0:
            wf = _wait_fans(counts, melds, self.rules, self.ready_cache)
            best = self.ready_value(wf, False, rounds) * self.params.concealed_option
        elif s == 1:
            best = self._one_away(counts, melds, rounds)
        else:
            best = self._plain_far(counts, n, s, rounds)
        best = max(best, self._routes(counts, melds, s, rounds))
        return best + self.kong_chances(counts, melds, rounds)

    def kong_chances(self, counts: list[int], melds: tuple[Meld, ...], rounds: float) -> float:
        """Kong money still to come: a concealed triplet whose last copy is live becomes a 暗杠 (2 from each)
        when we draw it or a 直杠 (2) when someone discards it; an exposed pung becomes a 补杠 (1 from each)
        only when we draw its fourth tile ourselves."""
        shows = min(1.0, 3.0 * rounds / self.unseen) * self.params.kong_later
        out = 0.0
        for t in range(NUM_KINDS):
            if counts[t] == 3 and self.live[t]:
                out += shows * 3.0
        for m in melds:
            if m.kind == "pung" and self.live[m.tile]:
                out += shows / 3.0 * 2.0
        return out

    def _draw_weight(self, counts: list[int], u: int) -> float:
        """How often, relative to one draw of ours, tile `u` comes our way each round: by our own draw, and for a
        tile we hold a pair of, also by a 碰 of someone's discard."""
        live = self.live[u]
        return live * (1.0 + self.params.pung_speed * self.discard_feed[u]) if counts[u] == 2 else live

    def _acceptance(self, counts: list[int], n: int, s: int) -> float:
        return sum(self._draw_weight(counts, u) for u in _improving(counts, n, s)) / self.unseen

    def _one_away(self, counts: list[int], melds: tuple[Meld, ...], rounds: float) -> float:
        n = len(melds)
        live = self.live
        imp = _improving(counts, n, 1)
        total = 0.0
        acc = 0.0
        weight = {u: self._draw_weight(counts, u) for u in imp}
        a = sum(weight.values()) / self.unseen
        if a <= 0:
            return 0.0
        h = self.hazard
        reach = self.win_prob(a, rounds)
        later = max(1.0, rounds - 1.0 / min(0.95, a + h))
        for u in imp:
            lu = live[u]
            if not lu:
                continue
            counts[u] += 1
            options: Sequence[tuple[int, WaitFans]] = _ready_after(counts, melds, self.rules, self.ready_cache,
                                                                   self.after_cache)
            counts[u] -= 1
            if self.feeds:  # a tile a declared hand waits on is never ours to discard: no plan may need it
                options = [o for o in options if o[0] not in self.feeds]
            if not options:
                continue
            live[u] -= 1
            best = max(self.ready_value(wf, False, later) for _, wf in options)
            live[u] += 1
            acc += weight[u] * best
            total += weight[u]
        if not total:
            return 0.0
        return reach * acc / total * self.params.concealed_option

    def _far(self, steps: Sequence[float], rounds: float, fan: float = 1.0, live: float | None = None) -> float:
        """A hand still len(steps) draws from ready, each step accepting that share of the unseen tiles: the
        chance to be ready in time (before the wall ends, before someone else wins) times what a typical ready
        hand of that route (`live` winning tiles, by default typical_live; `fan`) then earns."""
        t_ready = 0.0
        for a in steps:
            if a <= 0.003:
                return 0.0
            t_ready += 1.0 / a
        if rounds <= 0:
            return 0.0
        survive = math.exp(-self.hazard * t_ready)
        in_time = 1.0 / (1.0 + (t_ready / rounds) ** 3)
        later = max(1.0, rounds - t_ready)
        ron = self.params.ron_concealed
        p = (self.params.typical_live if live is None else live) / self.unseen * (1.0 + 2 * ron)
        pay = (2 * fan + 2 * ron * fan) / (1.0 + 2 * ron) + self.spared
        return survive * in_time * self.win_prob(p, later) * pay

    def _plain_far(self, counts: list[int], n: int, s: int, rounds: float) -> float:
        a = self._acceptance(counts, n, s)
        return self._far([a * self.params.step_decay ** i for i in range(s)], rounds)

    def _routes(self, counts: list[int], melds: tuple[Meld, ...], s: int, rounds: float) -> float:
        """The big patterns still in reach: 七对, 碰碰胡, 清一色 and their products."""
        rules = self.rules
        live = self.live
        u = self.unseen
        n = len(melds)
        need = 4 - n
        best = 0.0
        fan_of = rules.pattern_fan
        cap = rules.fan_cap
        single_kinds = [t for t in range(NUM_KINDS) if counts[t] == 1]
        singles_live = sum(live[t] for t in single_kinds)
        per_single = singles_live / len(single_kinds) if single_kinds else 0.0
        # 七对: each step pairs one of the singles; the singles left shrink by two a step
        if not n:
            pairs = min(7, sum(c >> 1 for c in counts))
            sq = 6 - pairs
            if sq >= 2:
                left = len(single_kinds)
                steps = [max(0, left - 2 * i) * per_single / u for i in range(sq)]
                best = max(best, self._far(steps, rounds, _capped(fan_of("qidui"), cap), 2.5))
        # 碰碰胡
        sp = _pph_shanten(counts, need)
        if sp >= 2:
            pairs_live = sum(live[t] for t in range(NUM_KINDS) if counts[t] == 2)
            a = (singles_live + pairs_live) / u * 0.6
            steps = [a * self.params.step_decay ** i for i in range(sp)]
            best = max(best, self._far(steps, rounds, _capped(fan_of("pengpenghu"), cap), 3.5))
        # 清一色 in the suit that holds most
        suit_tiles = [sum(counts[0:9]), sum(counts[9:18])]
        meld_suits = {0 if m.tile < 9 else 1 if m.tile < 18 else 2 for m in melds}
        main = 0 if suit_tiles[0] >= suit_tiles[1] else 1
        if meld_suits <= {main} and suit_tiles[main] >= 6:
            o = 9 * main
            only = [0] * NUM_KINDS
            only[o:o + 9] = counts[o:o + 9]
            kp, ks = _suit_keys(only)
            sq = shanten_keys(kp, ks, 0, 0, need)
            if not n:
                sq = min(sq, 6 - min(7, sum(c >> 1 for c in only)))
            if sq >= 2:
                near = 0
                for t in range(o, o + 9):
                    if live[t] and (only[t] or (t > o and only[t - 1]) or (t < o + 8 and only[t + 1])):
                        near += live[t]
                a = near / u * 0.7
                steps = [a * self.params.step_decay ** i for i in range(sq)]
                best = max(best, self._far(steps, rounds, _capped(fan_of("qingyise"), cap)))
        return best

    # -- defence -------------------------------------------------------------------------------------------------
    def danger(self, t: int) -> float:
        """The expected cost of discarding `t` now."""
        if t in self.feeds:
            return NEVER
        cost = self.kong_feed.get(t, 0.0)
        visible = self.obs.visible
        if visible[t] >= 4:
            return cost
        if t >= 18:
            shape = 0.35 if visible[t] <= 2 else 0.12
        else:
            r = t % 9
            shape = (0.55, 0.8, 1.0, 1.0, 1.1, 1.0, 1.0, 0.8, 0.55)[r]
            if visible[t] == 3:
                shape *= 0.5
        for pr in self.p_ready.values():
            if pr <= 0:
                continue
            cost += pr * 0.09 * shape * (2.5 + self.params.spared_loss)
        return cost


def _declared_fan(obs: Observation, seat: int, live: Sequence[int], decl_cache: _FanCache) -> float | None:
    """The fan a declared hand's shown tiles make on its waits (the ×2 of 亮倒 included), weighted by how many
    of each wait are live; None while the hand hides a 暗杠 (its tiles change the fan) or no wait is live.
    A declared hand is locked, so its fans come from the shape cache after the first decision that reads them."""
    shown = obs.shown_hands.get(seat)
    melds = tuple(obs.exposed.get(seat, ()))
    if shown is None or len(melds) != obs.meld_counts.get(seat, len(melds)):
        return None
    shown_waits = set(obs.liangdao_waits[seat])
    total = weight = 0
    for w, fan, _ in _wait_fans(list(shown), melds, obs.rules, decl_cache, declared=True):
        if fan and live[w] and w in shown_waits:
            total += live[w] * fan
            weight += live[w]
    return total / weight if weight else None


def _feed_rate(record: FeedRecord | None, params: StrongParams) -> float:
    """An undeclared opponent's rate of feeding a declared wait, per discard and relative to a draw: the prior
    (opponents hold declared waits back) moved towards the player's record at this table, at most the rate at
    which a discard feeds a concealed wait. A record only ever raises it: the prior is also where the model
    plays best against players who never feed (tuned against `standard`, which feeds about once in 3,000 hands)."""
    if record is None:
        return params.ron_declared_from_undeclared
    feeds, expected = record
    rate = (feeds + params.ron_declared_from_undeclared * params.feed_prior) / (expected + params.feed_prior)
    return min(params.ron_concealed, max(params.ron_declared_from_undeclared, rate))


def _capped(f: int, cap: int | None) -> float:
    return float(min(f, cap)) if cap is not None else float(f)


# -- decisions -------------------------------------------------------------------------------------------------
class Valued(NamedTuple):
    """One legal action and what strong makes of it: expected points as it weighs them (its margins for a 碰 and
    for passing a win included), or None where it decides by rule (a locked 亮倒 hand's win or kong, an action it
    does not weigh against a win on offer)."""

    action: Action
    value: float | None


def evaluate(obs: Observation, also: Sequence[Action] = (), *, params: StrongParams = DEFAULT_PARAMS) -> list[Valued]:
    """Every legal action with strong's value (its model tuned by `params`), the one it plays first
    (`choose_strong` plays `[0]`), the others best first. Strong values at most `params.exact_candidates` discards
    in full per decision (its time budget) and the rest by their routes; the discards in `also` are valued in full
    as well, which never changes `[0]`. Deterministic: strong does not sample, so a value has no spread."""
    acts = _by_verb(obs.legal)
    if len(obs.legal) == 1:
        return [Valued(obs.legal[0], None)]
    if obs.declared:  # a locked hand: win, or a kong that keeps the waits (money, a 杠上开花 chance)
        order = [a for verb in ("hu", "gang", "pass") for a in acts.get(verb, ())]
        return [Valued(a, None) for a in order or obs.legal]
    model = TableModel(obs, params)
    if obs.claim_tile is not None:
        return _claim(obs, model, acts)
    return _turn(obs, model, acts, {int(a.tile) for a in also if a.tile is not None})


def choose_strong(obs: Observation, params: StrongParams = DEFAULT_PARAMS) -> Action:
    """The strong AI's action (one of obs.legal), its model tuned by `params`."""
    return evaluate(obs, params=params)[0].action


def _ranked(chosen: Valued, others: Sequence[tuple[tuple[float, ...], Valued]]) -> list[Valued]:
    """`chosen` first, then the others best first by their sort keys (unvalued ones last)."""
    rest = sorted((o for o in others if o[1] is not chosen), key=lambda o: o[0], reverse=True)
    return [chosen, *(v for _, v in rest)]


def _claim(obs: Observation, model: TableModel, acts: dict[str, list[Action]]) -> list[Valued]:
    assert obs.claim_tile is not None  # a claim window
    tile = int(obs.claim_tile)
    claimed = Tile(tile)
    counts = list(obs.counts)
    melds = tuple(obs.melds)
    pass_value = model.hand_value(counts, melds)
    if "hu" in acts:
        hu, passed = _win_values(obs, model, counts, melds, tile, pass_value)
        win, skip = Valued(acts["hu"][0], hu), Valued(acts["pass"][0], passed)
        first, second = (win, skip) if hu is None or hu >= passed else (skip, win)
        return [first, second, *(Valued(a, None) for a in obs.legal if a.verb not in ("hu", "pass"))]
    # in this order, so that a tie keeps the earlier: pass, then 杠, then 碰
    options = [(pass_value, Valued(acts.get("pass", obs.legal)[0], pass_value))]
    if "gang" in acts:
        counts[tile] -= 3
        v = model.hand_value(counts, (*melds, Meld("kong", claimed))) + obs.rules.zhigang_pay
        v += _kaihua(model, counts, (*melds, Meld("kong", claimed)))
        counts[tile] += 3
        options.append((v, Valued(acts["gang"][0], v)))
    if "peng" in acts:
        counts[tile] -= 2
        new_melds = (*melds, Meld("pung", claimed))
        after = shanten_after_discards(counts, len(new_melds))
        v = 0.0
        lo = min(after.values())
        for t, s in after.items():
            if s > lo + 1:
                continue
            counts[t] -= 1
            v = max(v, model.hand_value(counts, new_melds) - model.danger(t))
            counts[t] += 1
        counts[tile] += 2
        margin = model.params.peng_margin if model.min_fan <= 1 else model.params.peng_margin_min_fan2
        worth = v / margin  # taken only when worth `margin` times the best
        options.append((worth, Valued(acts["peng"][0], worth)))
    best_value, best = options[0]
    for value, option in options[1:]:
        if value > best_value:
            best_value, best = value, option
    return _ranked(best, [((value, -i), option) for i, (value, option) in enumerate(options)])


def _win_values(obs: Observation, model: TableModel, counts: list[int], melds: tuple[Meld, ...], tile: int,
                pass_value: float) -> tuple[float | None, float]:
    """漏胡: passing a win on a discard blocks every discard win until our next draw. Pass only when the
    hand, waiting on, is worth far more than this win (a cheap 屁胡 offered to a hand whose other waits pay
    big); otherwise take the points and end the hand. (the win's value, passing's value as weighed against it)"""
    passed = pass_value * model.params.louhu_discount / model.params.louhu_margin
    r = score_counts(counts, tile, melds, _RON, model.rules)
    if r is None:
        return None, passed
    piao = obs.piao or (0, 0, 0)
    return r.fan + sum(piao) / 2.0 + model.params.spared_loss, passed


def _kaihua(model: TableModel, counts: list[int], melds: tuple[Meld, ...]) -> float:
    """The chance the kong's replacement tile wins at once (杠上开花), in points."""
    if shanten(counts, len(melds)) != 0:
        return 0.0
    out = 0.0
    for w in waits(counts, melds):
        r = score_counts(counts, w, melds, _KAIHUA, model.rules)
        if r is not None and r.fan >= model.min_fan:
            out += model.live[w] / model.unseen * (2 * r.fan + model.params.spared_loss)
    return out


def _zimo_value(obs: Observation, model: TableModel) -> float | None:
    """What a self-drawn win is worth in the model's terms, on its best reading (a win on offer is always
    taken, so this is for showing, never for choosing)."""
    counts = list(obs.counts)
    melds = tuple(obs.melds)
    best: float | None = None
    for w in range(NUM_KINDS):
        if counts[w]:
            counts[w] -= 1
            r = score_counts(counts, w, melds, _SD, model.rules)
            counts[w] += 1
            if r is not None and (best is None or r.fan > best):
                best = r.fan
    return None if best is None else 2 * best + sum(model.piao_in) + model.spared


def _turn(obs: Observation, model: TableModel, acts: dict[str, list[Action]], also: set[int]) -> list[Valued]:
    counts = list(obs.counts)
    melds = tuple(obs.melds)
    n = len(melds)
    discard_like = acts.get("discard", []) + acts.get("liangdao", [])
    tiles = sorted({int(_tile(a)) for a in discard_like})
    after = shanten_after_discards(counts, n)
    lo = min((after[t] for t in tiles), default=0)
    # (value, isolation, -tile, declare): the largest is the discard played, ties broken by the rest
    scored: list[tuple[tuple[float, int, int, int], Valued]] = []
    ld_tiles = {int(_tile(a)) for a in acts.get("liangdao", ())}
    safe_exists = any(t not in model.feeds for t in tiles)
    dangers = {t: (model.danger(t) if safe_exists or t not in model.feeds else 0.0) for t in tiles}
    # The discards that keep the hand as close to ready as it can be are valued in full, the most promising
    # first and at most exact_candidates of them; a slower discard only for a big route, or as a fold.
    # How loose each tile is, once per decision: it orders the discards valued in full, and each point of it adds
    # loose_weight to throwing the tile.
    iso = {t: _isolation(counts, t) for t in tiles}
    lean = {t: _pattern_lean(counts, melds, t) for t in tiles}
    fastest = [t for t in tiles if after[t] == lo and dangers[t] < NEVER]
    fastest.sort(key=lambda t: (-lean[t], -iso[t], t))
    exact = set(fastest[:model.params.exact_candidates]) | (ld_tiles & set(fastest))
    action = {(a.verb, int(_tile(a))): a for a in discard_like}
    for t in tiles:
        s = after[t]
        danger = dangers[t]
        loose = model.params.loose_weight * (iso[t] + lean[t])
        counts[t] -= 1
        if t in exact:
            v = model.hand_value(counts, melds)
        elif s >= 1 and s <= lo + 1:
            v = model._routes(counts, melds, s, model.rounds) * (model.params.slower_weight if s > lo else 1.0)
        else:
            v = 0.0
        key = (round(v - danger + loose, 6), iso[t], -t, 0)
        shown = key[0] if t in exact or t not in also else round(model.hand_value(counts, melds) - danger + loose, 6)
        if ("discard", t) in action:
            scored.append((key, Valued(action["discard", t], shown)))
        if t in ld_tiles:
            dv = model.declared_value(counts, melds)
            scored.append(((round(dv - danger + loose, 6), iso[t], -t, 1),
                           Valued(action["liangdao", t], round(dv - danger + loose, 6))))
        counts[t] += 1
    # kongs of our own turn: kong money, a replacement draw (杠上开花), against the best discard now
    best_key, chosen = max(scored, key=lambda e: e[0]) if scored else ((-math.inf,), Valued(obs.legal[0], None))
    for g in acts.get("gang", ()):
        t = int(_tile(g))
        if counts[t] == 4:
            counts[t] = 0
            new_melds = (*melds, Meld("ankong", Tile(t)))
            money = 4.0
            restore = 4
        else:
            counts[t] -= 1
            new_melds = tuple(Meld("kong", Tile(t)) if m.tile == t and m.kind == "pung" else m for m in melds)
            money = 2.0
            restore = 1
            if t in model.feeds:
                money = -NEVER  # robbing a 补杠 is 包胡 for the declarer
        v = money + model.hand_value(counts, new_melds) + _kaihua(model, counts, new_melds)
        counts[t] += restore
        kong = Valued(g, v)
        scored.append(((v, 0, -t, 0), kong))
        if v >= best_key[0] and chosen.action.verb not in ("gang", "hu"):
            chosen = kong
    if "hu" in acts:  # a self-drawn win is always taken
        chosen = Valued(acts["hu"][0], _zimo_value(obs, model))
    return _ranked(chosen, scored)
