"""One hand of Ka Wu Xing as a pure, deterministic state machine (docs/rules.md §2–§6; money in payments.py).

    hand = HandState(rules, dealer, wall, piao)
    while not hand.finished:
        seat = next(iter(hand.to_act()))
        hand.apply(choose(hand.legal_actions(seat)))     # -> list[Event]

Phases seen from outside: `turn` (the seat `turn` holds 14 − 3n tiles and must act), `claim` (a discard is
pending; every seat with a claim answers, in any order, before anything resolves), `rob` (a 补杠 is pending;
seats that win on its tile answer hu or pass), `over`. Draws, the discards of locked 亮倒 hands and the end of
the hand happen inside `apply` and come back as events.

Choices where the rules (docs/rules.md) are silent (documented here and in the tests):
- 亮倒 needs a discard after which the hand waits on at least one tile that would reach `min_fan` by 自摸
  (亮倒 doubling included). Under `forbid_feeding` the declaring discard may not feed either. The player
  counts as declared from that discard on: it is never 包胡, and it is not restricted afterwards.
- A locked 亮倒 hand may only kong with the tile it just drew (暗杠 of three in hand + the draw, or 补杠), and
  only when the waits stay the same; a fourth tile kept in the revealed hand is never konged.
- 漏胡 also follows answering 碰/杠 instead of 胡, and passing a robbable kong. A seat whose win is blocked by
  漏胡 is not offered 胡 at all. Any own draw (also a kong replacement) lifts it.
- A robbed 补杠 counts as a discard of that tile by its declarer (it lands in their discards, claimed): 包胡
  applies to it as to a discard, it pays no kong money, and it carries 抢杠胡 but never 杠上炮.
- The dealer's first turn has no "drawn tile": a 天胡 is scored with the winning tile that gives the most fan.
  It is the only turn that may win without a drawn tile: after a 碰 the player must discard (亮倒 allowed, no
  kong, docs/rules.md §3) and 胡 waits for their next draw (a kong replacement counts).
- forbid_feeding: a non-declared player who may neither discard nor 胡 nor 杠 (every tile held feeds a 亮倒
  hand) ends the hand at once (outcome `draw`, end `forbid_feeding`); no 荒庄 payments; dealer as after 荒庄.
- 暗杠 tiles are hidden from the other seats until the final reveal (see actions.Gang.for_viewer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress
from typing import TypedDict

from kwx.engine.actions import (
    Action,
    Deal,
    Discard,
    Draw,
    Event,
    Gang,
    Hu,
    Huangzhuang,
    IllegalAction,
    Liangdao,
    Maima,
    Pass,
    Peng,
    Reveal,
    RobWindow,
    Settlement,
    Stuck,
    Win,
)
from kwx.engine.analysis import Meld, is_win, shanten, waits
from kwx.engine.fan import FanResult, WinContext, score_counts
from kwx.engine.payments import (
    Payment,
    PaymentJson,
    WinShare,
    chajiao_payments,
    check_payments,
    draw_liangdao_payments,
    forbid_feeding_payments,
    is_baohu,
    kong_payments,
    maima_value,
    net,
    win_payments,
)
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import NUM_KINDS, Tile, from_counts
from kwx.engine.wall import check_wall

N_SEATS = 3
TURN, CLAIM, ROB, OVER = "turn", "claim", "rob", "over"
_DRAW, _REPLACE = "draw", "replace"  # transient: `turn` draws from the front / the back inside apply()

# Interned actions: legal-action lists are built on every step, so they reuse these objects.
_TILES = tuple(Tile)
_DISCARD = tuple(tuple(Action(s, "discard", t) for t in _TILES) for s in range(N_SEATS))
_LIANGDAO = tuple(tuple(Action(s, "liangdao", t) for t in _TILES) for s in range(N_SEATS))
_GANG_T = tuple(tuple(Action(s, "gang", t) for t in _TILES) for s in range(N_SEATS))
_GANG = tuple(Action(s, "gang") for s in range(N_SEATS))
_PENG = tuple(Action(s, "peng") for s in range(N_SEATS))
_HU = tuple(Action(s, "hu") for s in range(N_SEATS))
_PASS = tuple(Action(s, "pass") for s in range(N_SEATS))
_SEATS = frozenset(range(N_SEATS))
_OTHERS = tuple(((s + 1) % N_SEATS, (s + 2) % N_SEATS) for s in range(N_SEATS))  # in play order


@cache
def _ctx(self_draw: bool = False, liangdao: bool = False, kong_draw: bool = False, after_kong: bool = False,
         rob_kong: bool = False, last_tile: bool = False) -> WinContext:
    """Shared WinContext instances (a few dozen at most: one per combination of flags and way of calling)."""
    return WinContext(self_draw, liangdao, kong_draw, after_kong, rob_kong, last_tile)


def _isolated(counts: Sequence[int], tile: int) -> bool:
    """No other tile of the hand within two ranks of `tile` in its suit (dragons: any other kind)."""
    if tile >= 18:
        return True
    rank = tile % 9
    lo = tile - min(rank, 2)
    hi = tile + min(8 - rank, 2)
    return sum(counts[lo:hi + 1]) == counts[tile]


def _sorted_tiles(counts: Sequence[int]) -> tuple[Tile, ...]:
    return tuple(_TILES[t] for t in range(NUM_KINDS) for _ in range(counts[t]))


class HandResultJson(TypedDict):
    """A finished hand's result as JSON (`HandResult.to_json`); seats as keys are written as text."""

    outcome: str  # win | draw
    end: str
    winners: list[int]
    fan: dict[str, int]  # winning seat → fan
    patterns: dict[str, list[str]]  # winning seat → pattern ids
    payments: list[PaymentJson]
    net: list[int]
    next_dealer: int


@dataclass(frozen=True)
class HandResult:
    """How a hand ended. `end`: `hu`, `huangzhuang` or `forbid_feeding`. Seats are this hand's seats."""

    outcome: str  # win | draw
    end: str
    winners: tuple[int, ...]
    fan: dict[int, int]
    patterns: dict[int, tuple[str, ...]]
    payments: tuple[Payment, ...]  # every payment of the hand, kong money included, in order
    net: tuple[int, ...]
    next_dealer: int
    self_draw: bool = False
    from_seat: int | None = None  # discarder / robbed kong's declarer
    first_liangdao: int | None = None

    @property
    def double_win(self) -> bool:
        """一炮双响: two winners on one discard."""
        return len(self.winners) > 1

    def to_json(self) -> HandResultJson:
        return {
            "outcome": self.outcome,
            "end": self.end,
            "winners": list(self.winners),
            "fan": {str(s): f for s, f in self.fan.items()},
            "patterns": {str(s): list(p) for s, p in self.patterns.items()},
            "payments": [p.to_json() for p in self.payments],
            "net": list(self.net),
            "next_dealer": self.next_dealer,
        }


class HandState:
    """One hand. Construct with the 84-tile wall in draw order; the dealer takes the first 14 tiles, seat
    dealer+1 the next 13, seat dealer+2 the next 13. Draws come from the front, kong replacements (and the
    买码 tile) from the back."""

    def __init__(self, rules: RuleSet = STANDARD, dealer: int = 0, wall: Sequence[int] = (),
                 piao: Sequence[int] = (0, 0, 0), base_multiplier: int = 1) -> None:
        check_wall(wall)
        if dealer not in range(N_SEATS):
            raise ValueError(f"dealer must be 0, 1 or 2, not {dealer!r}")
        piao = tuple(int(p) for p in piao)
        if len(piao) != N_SEATS:
            raise ValueError("piao needs one pick per seat")
        limit = rules.piao or 0
        if any(not 0 <= p <= limit for p in piao):
            raise ValueError(f"漂 picks must be 0…{limit} under these rules, not {list(piao)}")
        if base_multiplier < 1:
            raise ValueError("base_multiplier must be ≥ 1")
        self.rules = rules
        self.dealer = dealer
        self.piao = piao
        self.base = rules.base * base_multiplier
        self._discard_min = max(rules.min_fan, rules.min_fan_discard)
        self._liangdao_min_wall = rules.liangdao_min_wall
        # 亮倒 doubles every win, so a declared hand is sure to reach min_fan when this is ≥ min_fan.
        sure = rules.pattern_fan("liangdao")
        if rules.fan_cap is not None:
            sure = min(sure, rules.fan_cap)
        self._liangdao_sure = rules.min_fan <= sure

        self._wall: list[Tile] = [_TILES[t] for t in wall]
        self._front = 0
        self._back = len(self._wall)
        self._counts: list[list[int]] = [[0] * NUM_KINDS for _ in range(N_SEATS)]
        for i, seat in enumerate((dealer, (dealer + 1) % N_SEATS, (dealer + 2) % N_SEATS)):
            n = 14 if i == 0 else 13
            for t in self._wall[self._front:self._front + n]:
                self._counts[seat][t] += 1
            self._front += n
        self._melds: list[list[Meld]] = [[] for _ in range(N_SEATS)]
        self._discards: list[list[Tile]] = [[] for _ in range(N_SEATS)]
        self._claimed: list[list[bool]] = [[] for _ in range(N_SEATS)]
        self._declared = [False] * N_SEATS
        self._declare_order: list[int] = []
        self._waits: list[tuple[Tile, ...]] = [()] * N_SEATS
        self._feed: list[dict[int, int]] = [{} for _ in range(N_SEATS)]  # 亮倒 seat: tile -> fan it wins with
        self._louhu = [0] * N_SEATS  # > 0: 漏胡, the largest fan passed up

        self._phase = TURN
        self._turn = dealer
        self._drawn: Tile | None = None
        self._from_back = False
        self._last_draw = False
        self._after_peng = False
        self._first_turn = True  # the dealer's first turn: the only turn that may win with no drawn tile
        self._chain = 0  # kongs in the current 杠上杠 chain

        self._pending: Tile | None = None  # the discard (or 补杠 tile) being answered
        self._pending_from = -1
        self._pending_last = False
        self._pending_after_kong = False
        self._options: dict[int, list[Action]] = {}
        self._answers: dict[int, Action] = {}
        self._win_fans: dict[int, FanResult] = {}

        self._payments: list[Payment] = []
        self._result: HandResult | None = None
        self._step = 0
        self._pause = False  # see apply(pause=True)
        self._legal: dict[int, list[Action]] = {}
        self._shanten_floor = [-1] * N_SEATS  # a lower bound on the seat's shanten at its next decision
        self._events: list[Event] = [Deal(dealer, tuple(_sorted_tiles(c) for c in self._counts),
                                          self.wall_remaining, piao, self.base)]
        self._advance(self._events)

    def clone(self) -> HandState:
        """An independent copy (for look-ahead by an AI, or trying an action in tests). Rules, tiles, melds
        and events are immutable and shared; the containers are copied."""
        new = object.__new__(HandState)
        new.__dict__.update(self.__dict__)
        new._counts = [list(c) for c in self._counts]
        new._melds = [list(m) for m in self._melds]
        new._discards = [list(d) for d in self._discards]
        new._claimed = [list(c) for c in self._claimed]
        new._declared = list(self._declared)
        new._declare_order = list(self._declare_order)
        new._waits = list(self._waits)
        new._feed = [dict(f) for f in self._feed]
        new._louhu = list(self._louhu)
        new._shanten_floor = list(self._shanten_floor)
        new._options = {s: list(o) for s, o in self._options.items()}
        new._answers = dict(self._answers)
        new._win_fans = dict(self._win_fans)
        new._payments = list(self._payments)
        new._legal = dict(self._legal)
        new._events = list(self._events)
        return new

    # == public read-only views ==========================================================================
    @property
    def step(self) -> int:
        """+1 per applied action; a front end rejects a button press made for an older step."""
        return self._step

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def turn(self) -> int:
        """The seat whose turn it is (in `claim`/`rob`: the discarder / the 补杠 declarer)."""
        return self._turn

    @property
    def drawn(self) -> Tile | None:
        """The tile the seat on turn just drew (None on the dealer's first turn and after a 碰)."""
        return self._drawn if self._phase == TURN else None

    @property
    def wall_remaining(self) -> int:
        return self._back - self._front

    @property
    def finished(self) -> bool:
        return self._phase == OVER

    @property
    def result(self) -> HandResult | None:
        return self._result

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, the deal first."""
        return tuple(self._events)

    @property
    def payments(self) -> tuple[Payment, ...]:
        """Payments so far (kong money during the hand; everything once it is over)."""
        return tuple(self._payments)

    @property
    def pending(self) -> tuple[int, Tile] | None:
        """(seat, tile) of the discard or 补杠 now open to claims."""
        if self._phase in (CLAIM, ROB):
            assert self._pending is not None
            return self._pending_from, self._pending
        return None

    @property
    def declare_order(self) -> tuple[int, ...]:
        """Seats that declared 亮倒, first declarer first."""
        return tuple(self._declare_order)

    def concealed(self, seat: int) -> list[Tile]:
        """The seat's concealed tiles, sorted (the drawn tile included)."""
        return list(_sorted_tiles(self._counts[seat]))

    def counts(self, seat: int) -> tuple[int, ...]:
        return tuple(self._counts[seat])

    def melds(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._melds[seat])

    def discards(self, seat: int) -> tuple[tuple[Tile, bool], ...]:
        """The seat's discards in order, each with `claimed` (taken by 碰/杠/胡, or a robbed 补杠)."""
        return tuple(zip(self._discards[seat], self._claimed[seat]))

    def declared(self, seat: int) -> bool:
        """Has the seat declared 亮倒?"""
        return self._declared[seat]

    def liangdao_waits(self, seat: int) -> tuple[Tile, ...]:
        """The waits shown by a 亮倒 seat (empty if it has not declared)."""
        return self._waits[seat]

    def louhu(self, seat: int) -> bool:
        """Is the seat under 漏胡 (may not win on a discard until its next draw)?"""
        return self._louhu[seat] > 0

    def remaining_wall(self) -> list[Tile]:
        """The undrawn tiles in draw order. SECRET: for audits and tests, never for players."""
        return self._wall[self._front:self._back]

    def census(self) -> list[int]:
        """How many of each tile kind are in hands, melds, discards and the wall: four each, always."""
        counts = [0] * NUM_KINDS
        for s in range(N_SEATS):
            for t, c in enumerate(self._counts[s]):
                counts[t] += c
            for m in self._melds[s]:
                counts[m.tile] += m.size
            for t, claimed in zip(self._discards[s], self._claimed[s]):
                if not claimed:  # a claimed discard sits in the claimer's meld, or is the winning tile below
                    counts[t] += 1
        for t in self.remaining_wall():
            counts[t] += 1
        for event in self._events:
            if isinstance(event, Hu) and not event.self_draw:
                counts[event.tile] += 1
        return counts

    def to_act(self) -> set[int]:
        """Seats that must answer now."""
        if self._phase == TURN:
            return {self._turn}
        if self._phase in (CLAIM, ROB):
            return {s for s in self._options if s not in self._answers}
        return set()

    # == legal actions ==================================================================================
    def legal_actions(self, seat: int | None) -> list[Action]:
        """Exactly the actions `seat` may take now (cached per step)."""
        if seat is None:
            return []
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._compute_legal(seat)
            self._legal[seat] = cached
        return list(cached)

    def _compute_legal(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase == TURN:
            return self._turn_actions(seat) if seat == self._turn else []
        if phase in (CLAIM, ROB):
            if seat in self._answers:
                return []
            return self._options.get(seat, [])
        return []

    def _turn_actions(self, seat: int) -> list[Action]:
        c = self._counts[seat]
        out: list[Action] = []
        drawn = self._drawn
        can_kong = self._back > self._front and not self._after_peng
        if self._declared[seat]:  # locked: only the drawn tile may win or kong; otherwise it is discarded
            if drawn is None:
                return out
            if self._zimo_result(seat) is not None:
                out.append(_HU[seat])
            if can_kong and self._declared_self_kong_ok(seat, drawn):
                out.append(_GANG_T[seat][drawn])
            if out:
                out.append(_PASS[seat])
            return out
        if ((drawn is not None or self._first_turn) and is_win(c, len(self._melds[seat]))
                and self._zimo_result(seat) is not None):
            out.append(_HU[seat])
        if can_kong:
            if 4 in c:
                gangs = _GANG_T[seat]
                out.extend(gangs[t] for t in range(NUM_KINDS) if c[t] == 4)
            if drawn is not None and c[drawn] and any(m.tile == drawn and m.kind == "pung" for m in self._melds[seat]):
                out.append(_GANG_T[seat][drawn])
        forbidden = self._forbidden()
        if forbidden:
            out.extend(a for a in compress(_DISCARD[seat], c) if a.tile not in forbidden)
        else:
            out.extend(compress(_DISCARD[seat], c))
        if self._back - self._front >= self._liangdao_min_wall:
            floor = self._shanten_floor[seat]
            if drawn is not None and c[drawn] == 1 and _isolated(c, drawn):
                floor += 1  # an isolated draw cannot lower shanten: the bound from last turn holds whole
            if floor > 0:  # see _liangdao_discards
                self._shanten_floor[seat] = floor - 1
            else:
                ld = _LIANGDAO[seat]
                out.extend(ld[t] for t in self._liangdao_discards(seat) if t not in forbidden)
        return out

    def _forbidden(self) -> set[int]:
        """forbid_feeding: tiles an undeclared seat may not discard: every declared hand's winning tiles on a
        discard (recorded only under the option; a declared seat's discards are automatic)."""
        out: set[int] = set()
        for s in self._declare_order:
            out.update(self._feed[s])
        return out

    def _liangdao_discards(self, seat: int) -> list[int]:
        """Tiles whose discard leaves the hand ready to declare 亮倒."""
        c = self._counts[seat]
        melds = self._melds[seat]
        # Cheap filter: shanten > 0 means no discard leaves a ready hand. A draw lowers shanten by at most one
        # and a discard never does, so a known shanten s spares the next s − 1 turns the computation; every
        # meld resets the bound (see _kong_done and the 碰 in _answer).
        sh = shanten(c, len(melds))
        self._shanten_floor[seat] = sh - 1
        if sh > 0:
            return []
        out = []
        for t in range(NUM_KINDS):
            if not c[t]:
                continue
            c[t] -= 1
            try:
                w = waits(c, melds)
                if w and (self._liangdao_sure or any(self._zimo_fan_on(c, x, melds, True) >= self.rules.min_fan
                                                     for x in w)):
                    out.append(t)
            finally:
                c[t] += 1
        return out

    def _zimo_fan_on(self, counts: list[int], tile: int, melds: Sequence[Meld], declared: bool) -> int:
        r = score_counts(counts, tile, melds, _ctx(True, declared), self.rules)
        return r.fan if r else 0

    def _declared_self_kong_ok(self, seat: int, tile: Tile) -> bool:
        """A locked 亮倒 hand may kong its drawn tile if the waits stay the same."""
        c = self._counts[seat]
        melds = self._melds[seat]
        if c[tile] == 4:
            after = list(c)
            after[tile] = 0
            new_melds = [*melds, Meld("ankong", tile)]
        elif any(m.tile == tile and m.kind == "pung" for m in melds):
            after = list(c)
            after[tile] -= 1
            new_melds = [Meld("kong", tile) if m.tile == tile else m for m in melds]
        else:
            return False
        return tuple(waits(after, new_melds)) == self._waits[seat]

    def _zimo_result(self, seat: int) -> tuple[FanResult, Tile] | None:
        """The 自摸 this seat may declare now (fan ≥ min_fan), with its winning tile. Only a drawn tile (a kong
        replacement included) wins, or on the dealer's first turn (天胡) the best of the 14; never right after
        a 碰, which draws nothing."""
        if self._drawn is None and not self._first_turn:
            return None
        c = self._counts[seat]
        melds = self._melds[seat]
        if not is_win(c, len(melds)):
            return None
        ctx = _ctx(True, self._declared[seat], kong_draw=self._from_back, last_tile=self._last_draw)
        candidates = [self._drawn] if self._drawn is not None else list(compress(_TILES, c))
        best: tuple[FanResult, Tile] | None = None
        for t in candidates:
            before = list(c)
            before[t] -= 1
            r = score_counts(before, t, melds, ctx, self.rules)
            if r is not None and (best is None or r.fan > best[0].fan):
                best = (r, t)
        if best is None or best[0].fan < self.rules.min_fan:
            return None
        return best

    def _discard_win(self, seat: int, tile: Tile, after_kong: bool, rob_kong: bool, last: bool) -> FanResult | None:
        """The win `seat` may take on `tile` from another player (discard or robbed kong), if any."""
        c = self._counts[seat]
        melds = self._melds[seat]
        c[tile] += 1
        won = is_win(c, len(melds))
        c[tile] -= 1
        if not won:
            return None
        ctx = _ctx(liangdao=self._declared[seat], after_kong=after_kong, rob_kong=rob_kong, last_tile=last)
        r = score_counts(c, tile, melds, ctx, self.rules)
        if r is None or r.fan < self._discard_min:
            return None
        missed = self._louhu[seat]
        if missed and not (self.rules.louhu_bigger_ok and r.fan > missed):
            return None
        return r

    # == apply ==========================================================================================
    def apply(self, action: Action, *, pause: bool = False) -> list[Event]:
        """Apply one action; returns the events it caused (automatic draws and discards included).
        Raises IllegalAction, changing nothing, when the action is not legal now.

        pause=True (for showing a hand, on a clone): stop at every discard and 补杠 declaration as if a claim
        window were open even when nobody can claim (`held`); `resume()` goes on to the next such moment.
        The hand reaches the same state as without pausing."""
        if action.__class__ is not Action:
            action = Action(*action)
        seat = action[0]
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._compute_legal(seat) if seat in _SEATS else []
            self._legal[seat] = legal
        try:
            action = legal[legal.index(action)]  # the interned one: its tile is a real Tile
        except ValueError:
            raise IllegalAction(self._why_illegal(action)) from None
        events: list[Event] = []
        self._step += 1
        self._legal = {}
        self._pause = pause
        phase = self._phase
        if phase == TURN:
            self._apply_turn(action, events)
        elif phase == CLAIM:
            self._answer(action, events)
        else:
            self._answer_rob(action, events)
        self._advance(events)
        self._events.extend(events)
        return events

    @property
    def held(self) -> bool:
        """Stopped by apply(..., pause=True) at a discard or 补杠 that nobody can claim."""
        return self._phase in (CLAIM, ROB) and not self._options

    def resume(self) -> list[Event]:
        """Close a window `held` open with nobody to answer and go on, stopping at the next such moment."""
        if not self.held:
            raise IllegalAction("nothing is held")
        events: list[Event] = []
        self._legal = {}
        self._pause = True
        if self._phase == CLAIM:
            self._phase = _DRAW
            self._turn = (self._pending_from + 1) % N_SEATS
        else:
            self._phase = TURN
            assert self._pending is not None
            self._complete_bugang(self._pending_from, self._pending, events)
        self._advance(events)
        self._events.extend(events)
        return events

    def _apply_turn(self, action: Action, events: list[Event]) -> None:
        seat, verb, tile = action
        if verb in ("discard", "liangdao"):
            assert tile is not None  # both verbs always name a tile (Action.from_json checks it)
            self._discard(seat, tile, events, liangdao=verb == "liangdao")
        elif verb == "hu":
            found = self._zimo_result(seat)
            assert found is not None  # apply() only accepts actions from _turn_actions, which checked it
            r, win_tile = found
            before = list(self._counts[seat])
            before[win_tile] -= 1
            self._finish_win([(seat, r, before)], win_tile, True, None, False, events)
        elif verb == "gang":
            assert tile is not None
            if self._counts[seat][tile] == 4:
                c = self._counts[seat]
                c[tile] = 0
                self._melds[seat].append(Meld("ankong", tile))
                self._kong_done(seat, "angang", tile, None, events)
            else:
                self._declare_bugang(seat, tile, events)
        elif verb == "pass":  # a locked 亮倒 hand declining its win / kong: the draw is discarded
            events.append(Pass(seat))
            assert self._drawn is not None
            self._discard(seat, self._drawn, events, auto=True)
        else:  # pragma: no cover - legal_actions never offers it
            raise AssertionError(action)

    def _discard(self, seat: int, tile: Tile, events: list[Event], *, auto: bool = False,
                 liangdao: bool = False) -> None:
        self._counts[seat][tile] -= 1
        self._discards[seat].append(tile)
        self._claimed[seat].append(False)
        self._drawn = None
        self._first_turn = False
        events.append(Discard(seat, tile, auto, liangdao))
        if liangdao:
            self._declare(seat, events)
        self._pending = tile
        self._pending_from = seat
        self._pending_last = self._back == self._front
        self._pending_after_kong = self._chain > 0
        after_kong = self._pending_after_kong
        last = self._pending_last
        options: dict[int, list[Action]] = {}
        fans: dict[int, FanResult] = {}
        for s in _OTHERS[seat]:
            cs = self._counts[s]
            n = cs[tile]
            cs[tile] = n + 1
            won = is_win(cs, len(self._melds[s]))
            cs[tile] = n
            if not won and (n < 2 or last):
                continue
            opts: list[Action] = []
            r = self._discard_win(s, tile, after_kong, False, last) if won else None
            if r is not None:
                opts.append(_HU[s])
                fans[s] = r
            if not last:
                if n == 3 and (not self._declared[s] or self.declared_zhigang_ok(s, tile)):
                    opts.append(_GANG[s])
                if n >= 2 and not self._declared[s]:
                    opts.append(_PENG[s])
            if opts:
                opts.append(_PASS[s])
                options[s] = opts
        self._options = options
        self._answers = {}
        self._win_fans = fans
        if options or self._pause:
            self._phase = CLAIM
        else:
            self._phase = _DRAW
            self._turn = (seat + 1) % N_SEATS

    def declared_zhigang_ok(self, seat: int, tile: Tile) -> bool:
        """A declared (亮倒) seat holding three of `tile` may 直杠 a discard of it only if its waits stay the same."""
        after = list(self._counts[seat])
        after[tile] = 0
        return tuple(waits(after, [*self._melds[seat], Meld("kong", tile)])) == self._waits[seat]

    def _declare(self, seat: int, events: list[Event]) -> None:
        self._declared[seat] = True
        self._declare_order.append(seat)
        self._refresh_waits(seat)
        events.append(Liangdao(seat, tuple(self.concealed(seat)), tuple(self._melds[seat]), self._waits[seat]))

    def _refresh_waits(self, seat: int) -> None:
        """A 亮倒 hand's shown waits, and (for forbid_feeding) the fan each would win with on a discard."""
        c = self._counts[seat]
        melds = self._melds[seat]
        self._waits[seat] = tuple(waits(c, melds))
        if self.rules.forbid_feeding:
            feed = {}
            for t in self._waits[seat]:
                r = score_counts(c, t, melds, _ctx(False, True), self.rules)
                if r is not None and r.fan >= self._discard_min:
                    feed[int(t)] = r.fan
            self._feed[seat] = feed

    def _answer(self, action: Action, events: list[Event]) -> None:
        seat, verb, _ = action
        self._answers[seat] = action
        missed = verb != "hu" and seat in self._win_fans
        if missed:
            self._louhu[seat] = max(self._louhu[seat], self._win_fans[seat].fan)
        if verb == "pass":
            events.append(Pass(seat, missed))
        if len(self._answers) < len(self._options):
            return
        tile = self._pending
        discarder = self._pending_from
        assert tile is not None
        winners = self._winners_in_order(discarder)
        if winners:
            self._claimed[discarder][-1] = True
            wins = [(s, self._win_fans[s], list(self._counts[s])) for s in winners]
            self._finish_win(wins, tile, False, discarder, False, events)
            return
        for s, a in self._answers.items():
            if a.verb == "gang":
                self._claimed[discarder][-1] = True
                self._counts[s][tile] = 0
                self._melds[s].append(Meld("kong", tile))
                self._turn = s
                self._kong_done(s, "zhigang", tile, discarder, events)
                return
            if a.verb == "peng":
                self._claimed[discarder][-1] = True
                self._counts[s][tile] -= 2
                self._melds[s].append(Meld("pung", tile))
                self._chain = 0
                self._shanten_floor[s] = -1
                self._turn = s
                self._drawn = None
                self._after_peng = True
                self._phase = TURN
                events.append(Peng(s, tile, discarder))
                return
        self._phase = _DRAW
        self._turn = (discarder + 1) % N_SEATS

    def _winners_in_order(self, from_seat: int) -> list[int]:
        """Seats that answered 胡, in play order after `from_seat`."""
        return [s for s in ((from_seat + 1) % N_SEATS, (from_seat + 2) % N_SEATS)
                if (a := self._answers.get(s)) is not None and a.verb == "hu"]

    # -- kongs --------------------------------------------------------------------------------------------
    def _declare_bugang(self, seat: int, tile: Tile, events: list[Event]) -> None:
        options: dict[int, list[Action]] = {}
        fans: dict[int, FanResult] = {}
        for s in ((seat + 1) % N_SEATS, (seat + 2) % N_SEATS):
            r = self._discard_win(s, tile, False, True, False)
            if r is not None:
                options[s] = [_HU[s], _PASS[s]]
                fans[s] = r
        if not options and not self._pause:
            self._complete_bugang(seat, tile, events)
            return
        self._pending = tile
        self._pending_from = seat
        self._pending_last = False
        self._pending_after_kong = False
        self._options = options
        self._answers = {}
        self._win_fans = fans
        self._phase = ROB
        events.append(RobWindow(seat, tile))

    def _answer_rob(self, action: Action, events: list[Event]) -> None:
        seat, verb, _ = action
        self._answers[seat] = action
        if verb == "pass":
            self._louhu[seat] = max(self._louhu[seat], self._win_fans[seat].fan)
            events.append(Pass(seat, True))
        if len(self._answers) < len(self._options):
            return
        tile = self._pending
        declarer = self._pending_from
        assert tile is not None
        winners = self._winners_in_order(declarer)
        if winners:  # 抢杠胡: the tile leaves the declarer's hand as if discarded; the kong never happened
            self._counts[declarer][tile] -= 1
            self._discards[declarer].append(tile)
            self._claimed[declarer].append(True)
            wins = [(s, self._win_fans[s], list(self._counts[s])) for s in winners]
            self._finish_win(wins, tile, False, declarer, True, events)
            return
        self._phase = TURN
        self._complete_bugang(declarer, tile, events)

    def _complete_bugang(self, seat: int, tile: Tile, events: list[Event]) -> None:
        self._counts[seat][tile] -= 1
        melds = self._melds[seat]
        for i, m in enumerate(melds):
            if m.tile == tile and m.kind == "pung":
                melds[i] = Meld("kong", tile)
                break
        self._kong_done(seat, "bugang", tile, None, events)

    def _kong_done(self, seat: int, kind: str, tile: Tile, from_seat: int | None, events: list[Event]) -> None:
        """Pay the kong money (杠上杠 position included) and go to the replacement draw."""
        self._chain += 1
        self._shanten_floor[seat] = -1
        pays = kong_payments(kind, seat, from_seat=from_seat, chain=self._chain, base=self.base, rules=self.rules)
        self._payments.extend(pays)
        events.append(Gang(seat, kind, tile, from_seat, self._chain, tuple(pays)))
        if self._declared[seat]:
            self._refresh_waits(seat)
        self._drawn = None
        self._first_turn = False
        self._phase = _REPLACE

    # -- automatic progress ---------------------------------------------------------------------------------
    def _advance(self, events: list[Event]) -> None:
        """Run draws, locked 亮倒 discards and forced endings until someone must decide or the hand is over."""
        while True:
            phase = self._phase
            if phase == _DRAW:
                if self._back == self._front:
                    self._huangzhuang(events)
                else:
                    self._draw(self._turn, False, events)
            elif phase == _REPLACE:
                self._draw(self._turn, True, events)
            elif phase == TURN:
                seat = self._turn
                if self._declared[seat]:
                    if self._legal.get(seat) is None:
                        self._legal[seat] = self._turn_actions(seat)
                    if self._legal[seat]:
                        return
                    self._legal = {}
                    assert self._drawn is not None
                    self._discard(seat, self._drawn, events, auto=True)
                elif self.rules.forbid_feeding and self._declare_order:
                    if self._legal.get(seat) is None:
                        self._legal[seat] = self._turn_actions(seat)
                    if self._legal[seat]:
                        return
                    self._legal = {}
                    self._stuck(seat, events)
                else:
                    return
            else:
                return

    def _draw(self, seat: int, from_back: bool, events: list[Event]) -> None:
        if from_back:
            self._back -= 1
            tile = self._wall[self._back]
        else:
            tile = self._wall[self._front]
            self._front += 1
            self._chain = 0
        self._counts[seat][tile] += 1
        self._turn = seat
        self._drawn = tile
        self._from_back = from_back
        self._last_draw = self._back == self._front
        self._after_peng = False
        self._louhu[seat] = 0
        self._phase = TURN
        events.append(Draw(seat, tile, from_back, self._back - self._front))

    # == the end of the hand ===============================================================================
    def _finish_win(self, wins: list[tuple[int, FanResult, list[int]]], tile: Tile, self_draw: bool,
                    from_seat: int | None, rob: bool, events: list[Event]) -> None:
        shares = [WinShare(s, r.fan, self._declared[s]) for s, r, _ in wins]
        payer_declared = from_seat is not None and self._declared[from_seat]
        maima = 0
        maima_event = None
        if self_draw and self.rules.maima and self._back > self._front:
            shown = self._wall[self._back - 1]
            maima = maima_value(shown)
            maima_event = Maima(shown, maima)
        pays = win_payments(shares, self_draw=self_draw, payer=from_seat, payer_declared=payer_declared,
                            base=self.base, piao=self.piao, maima=maima)
        events.append(Hu(tile, self_draw, from_seat, rob, tuple(
            Win(s, r.fan, r.raw_fan, r.patterns, r.multipliers, tuple(from_counts(before)), tuple(self._melds[s]),
                not self_draw and is_baohu(self._declared[s], payer_declared))
            for s, r, before in wins)))
        if maima_event is not None:
            events.append(maima_event)
        winners = tuple(s for s, _, _ in wins)
        next_dealer = winners[0] if len(winners) == 1 else from_seat
        assert next_dealer is not None
        self._finish("win", "hu", pays, next_dealer, events, winners=winners,
                     fan={s: r.fan for s, r, _ in wins}, patterns={s: r.patterns for s, r, _ in wins},
                     self_draw=self_draw, from_seat=from_seat)

    def _draw_dealer(self) -> int:
        if self.rules.draw_dealer == "first_liangdao" and self._declare_order:
            return self._declare_order[0]
        return self.dealer

    def _huangzhuang(self, events: list[Event]) -> None:
        events.append(Huangzhuang())
        pays = draw_liangdao_payments(self._declare_order, base=self.base, rules=self.rules)
        if self.rules.draw_chajiao:
            ready = {}
            for s in range(N_SEATS):
                fan = self.best_ready_fan(s)
                if fan:
                    ready[s] = fan
            pays += chajiao_payments(ready, base=self.base)
        self._finish("draw", "huangzhuang", pays, self._draw_dealer(), events)

    def best_ready_fan(self, seat: int) -> int:
        """The largest fan the seat's waiting hand (13 − 3n tiles) could win with by 自摸 (0: not ready or
        below min_fan). Used by 查叫."""
        c = self._counts[seat]
        melds = self._melds[seat]
        best = 0
        for t in waits(c, melds):
            fan = self._zimo_fan_on(c, t, melds, self._declared[seat])
            if fan >= self.rules.min_fan and fan > best:
                best = fan
        return best

    def _stuck(self, seat: int, events: list[Event]) -> None:
        c = self._counts[seat]
        events.append(Stuck(seat, tuple(self.concealed(seat))))
        feed_fan = {}
        for s in self._declare_order:
            fans = [f for t, f in self._feed[s].items() if c[t]]
            if fans:
                feed_fan[s] = max(fans)
        pays = forbid_feeding_payments(seat, feed_fan, base=self.base)
        self._finish("draw", "forbid_feeding", pays, self._draw_dealer(), events)

    def _finish(self, outcome: str, end: str, pays: list[Payment], next_dealer: int, events: list[Event], *,
                winners: tuple[int, ...] = (), fan: dict[int, int] | None = None,
                patterns: dict[int, tuple[str, ...]] | None = None, self_draw: bool = False,
                from_seat: int | None = None) -> None:
        self._payments.extend(pays)
        check_payments(self._payments)
        totals = tuple(net(self._payments))
        events.append(Reveal(tuple(tuple(self.concealed(s)) for s in range(N_SEATS)),
                             tuple(tuple(m) for m in self._melds)))
        events.append(Settlement(outcome, tuple(pays), totals, next_dealer))
        self._result = HandResult(
            outcome=outcome, end=end, winners=winners, fan=fan or {}, patterns=patterns or {},
            payments=tuple(self._payments), net=totals, next_dealer=next_dealer, self_draw=self_draw,
            from_seat=from_seat, first_liangdao=self._declare_order[0] if self._declare_order else None)
        self._phase = OVER
        self._options = {}
        self._pending = None

    # == why an action is illegal ============================================================================
    def _why_illegal(self, a: Action) -> str:
        seat, verb, tile = a.seat, a.verb, a.tile
        what = f"{verb} {tile.compact}" if isinstance(tile, Tile) else verb
        if self._phase == OVER:
            return "the hand is over"
        if seat not in range(N_SEATS):
            return f"there is no seat {seat!r}: seats are 0, 1 and 2"
        if self._phase == TURN:
            turn = self._turn
            if seat != turn:
                return f"it is seat {turn}'s turn, not seat {seat}'s"
            c = self._counts[seat]
            if verb in ("peng",) or (verb == "gang" and tile is None):
                return f"seat {seat} cannot {verb} on its own turn: there is no discard to claim"
            if self._declared[seat]:
                if verb in ("discard", "liangdao"):
                    return f"seat {seat} has declared 亮倒: its draws are discarded automatically"
                if verb == "gang":
                    if tile != self._drawn:
                        return f"a 亮倒 hand may only kong the tile it just drew ({self._drawn})"
                    return f"kong of {tile} would change seat {seat}'s 亮倒 waits"
            if verb == "pass":
                return f"seat {seat} must discard: pass is only for claims and 亮倒 draws"
            if verb == "hu":
                if self._drawn is None and not self._first_turn:
                    return (f"seat {seat} has drawn no tile since its 碰: it must discard now, and may win "
                            f"only after its next draw")
                if not is_win(c, len(self._melds[seat])):
                    return f"seat {seat}'s hand does not win"
                return f"seat {seat}'s win is below min_fan {self.rules.min_fan}"
            if tile is None:
                return f"{verb} needs a tile"
            if not c[tile]:
                return f"seat {seat} holds no {tile}"
            if verb == "gang":
                if self._after_peng:
                    return "no kong after a pung in the same turn"
                if self._back == self._front:
                    return "no kong after the last tile has been drawn"
                if any(m.tile == tile and m.kind == "pung" for m in self._melds[seat]):
                    return f"补杠 only with the tile just drawn: {tile} was kept in hand"
                return f"seat {seat} needs four {tile} (or a pung of it and {tile} just drawn) to kong"
            if tile in self._forbidden():
                return f"{tile} would feed a 亮倒 player (forbid_feeding)"
            if verb == "liangdao":
                if self.wall_remaining < self.rules.liangdao_min_wall:
                    return (f"no 亮倒 with {self.wall_remaining} tiles left in the wall "
                            f"(liangdao_min_wall {self.rules.liangdao_min_wall})")
                return f"after discarding {tile} seat {seat}'s hand is not ready for 亮倒"
            return f"{what} is not legal now"
        # claim / rob window
        kind = "discard" if self._phase == CLAIM else "补杠"
        pending = f"{self._pending} ({kind} of seat {self._pending_from})"
        if seat == self._pending_from:
            return f"seat {seat} is waiting for the others to answer its {kind}"
        if seat not in self._options:
            return f"seat {seat} has no claim on {pending}"
        if seat in self._answers:
            return f"seat {seat} has already answered"
        if verb in ("discard", "liangdao"):
            return f"seat {seat} must answer {pending} first"
        if verb == "hu":
            return f"{pending} does not win for seat {seat}"
        if verb == "gang" and tile is not None:
            return "a 直杠 on a discard takes no tile"
        if verb in ("gang", "peng") and self._pending_last:
            return "the discard of the last tile can only be won on"
        if verb in ("gang", "peng") and self._declared[seat]:
            return f"seat {seat} has declared 亮倒: no pung, and a kong only when the waits stay the same"
        return f"seat {seat} cannot {what} on {pending}"
