"""What the table tells a player before a move, from the engine's own payments: what a costly discard would cost
and who would gain it, and what a 自摸 would win.

Every front end renders these facts (the Discord panel, the terminal, the web table); none computes a cost.
A fact is found by playing the move on a copy of the hand and reading the payments the engine makes, so it is
exactly what the ledger would record:

- 胡口牌: a discard (or a 亮倒 discard) that a declared 亮倒 hand wins on. While you have not declared, that is
  包胡 (you alone pay, double); a 亮倒 discard counts as declared, so it is an ordinary win on a discard.
- 杠口牌: a discard a declared hand may 直杠 (the fourth of its revealed triplet): its kong money.
- 自摸: the win on the tile just drawn, less 买码 (its tile is still in the wall, unseen).

Only public facts decide a warning: a declared hand's tiles are shown to everyone, and the copy asks nothing
of an undeclared seat (it passes), so a warning never tells whether an undeclared seat could claim.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kwx.engine.actions import Action, Event, Gang, Settlement
from kwx.engine.hand import CLAIM, TURN, HandState
from kwx.engine.payments import Payment
from kwx.engine.tiles import Tile

FEED_WIN = "win"  # a declared hand wins on the discard (胡口牌)
FEED_KONG = "kong"  # a declared hand may 直杠 it (杠口牌)
WARNED_VERBS = ("discard", "liangdao")


@dataclass(frozen=True)
class Gain:
    """One seat's gain from a move: `amount` points, paid by the player who moves."""

    seat: int
    amount: int


@dataclass(frozen=True)
class MoveWarning:
    """A move that pays another seat: `verb` of `tile` would let declared hands win (FEED_WIN) or 直杠
    (FEED_KONG); `gains` is who would take what from you, `baohu` whether you would pay alone, double."""

    verb: str  # discard | liangdao
    tile: Tile
    kind: str  # FEED_WIN | FEED_KONG
    gains: tuple[Gain, ...]
    baohu: bool = False

    @property
    def cost(self) -> int:
        """What you would pay, in points."""
        return sum(g.amount for g in self.gains)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(g.seat for g in self.gains)


def move_warnings(hand: HandState, seat: int, choices: Iterable[tuple[str, Tile | None]]) -> tuple[MoveWarning, ...]:
    """The warnings for `seat`'s offered discards and 亮倒 discards, one per (verb, tile) that pays a declared
    hand; empty when no other seat has declared (the usual case: nothing is copied then)."""
    if hand.phase != TURN or hand.turn != seat:
        return ()
    declared = [s for s in range(3) if s != seat and hand.declared(s)]
    if not declared:
        return ()
    out: list[MoveWarning] = []
    seen: set[tuple[str, Tile]] = set()
    for verb, tile in choices:
        if verb not in WARNED_VERBS or tile is None or (verb, tile) in seen:
            continue
        seen.add((verb, tile))
        if not any(_may_take(hand, s, tile) for s in declared):
            continue
        warning = _feed(hand, seat, verb, tile, declared)
        if warning is not None:
            out.append(warning)
    return tuple(out)


def warning_for(warnings: Iterable[MoveWarning], verb: str, tile: Tile | None) -> MoveWarning | None:
    """The warning about `verb` of `tile`, if any (a 摸切 is a discard)."""
    return next((w for w in warnings if w.verb == verb and w.tile == tile), None)


def zimo_gain(hand: HandState, seat: int) -> int | None:
    """What `seat` would win by declaring 自摸 now (its payments in, 买码 left out), or None when it may not."""
    if hand.phase != TURN or hand.turn != seat:
        return None
    win = Action(seat, "hu", None)
    if win not in hand.legal_actions(seat):
        return None
    copy = hand.clone()
    events = copy.apply(win)
    return sum(p.amount for p in _settled(events) if p.to_seat == seat and p.reason != "maima")


def _may_take(hand: HandState, other: int, tile: Tile) -> bool:
    """Whether a declared hand could claim `tile` at all (a wait, or three of it shown): the cheap test before
    playing the discard on a copy."""
    return tile in hand.liangdao_waits(other) or hand.counts(other)[tile] == 3


def _feed(hand: HandState, seat: int, verb: str, tile: Tile, declared: Sequence[int]) -> MoveWarning | None:
    copy = hand.clone()
    copy.apply(Action(seat, verb, tile))
    if copy.phase != CLAIM:
        return None
    answers = [_answer(copy, s, declared) for s in sorted(copy.to_act())]
    events: list[Event] = []
    for action in answers:
        if copy.phase != CLAIM:
            break
        events += copy.apply(action)
    paid = [p for p in _settled(events) if p.from_seat == seat and p.to_seat in declared]
    if not paid:
        return None
    kind = FEED_WIN if any(isinstance(e, Settlement) for e in events) else FEED_KONG
    return MoveWarning(verb, tile, kind, _gains(paid), baohu=any(p.reason == "baohu" for p in paid))


def _answer(copy: HandState, other: int, declared: Sequence[int]) -> Action:
    """A declared hand takes what it may (a win before a kong); an undeclared seat passes."""
    legal = copy.legal_actions(other)
    if other in declared:
        for verb in ("hu", "gang"):
            taken = next((a for a in legal if a.verb == verb), None)
            if taken is not None:
                return taken
    return Action(other, "pass", None)


def _settled(events: Iterable[Event]) -> list[Payment]:
    """The payments these events made: kong money and the end of the hand's settlement."""
    out: list[Payment] = []
    for e in events:
        if isinstance(e, Gang | Settlement):
            out += e.payments
    return out


def _gains(paid: Iterable[Payment]) -> tuple[Gain, ...]:
    totals: dict[int, int] = {}
    for p in paid:
        totals[p.to_seat] = totals.get(p.to_seat, 0) + p.amount
    return tuple(Gain(s, a) for s, a in sorted(totals.items()))
