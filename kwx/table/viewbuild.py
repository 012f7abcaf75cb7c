"""Views from the engine's state — THE one place where hidden tiles are filtered.

What the public (the channel, spectators, every seat) may see of a hand in play:
- each seat's discards (claimed ones left out; its pond keeps them, marked), melds (another seat's 暗杠 face
  down: tile None, until that seat declares 亮倒 or the hand is over), how many concealed tiles it holds, its 漂
  once the hand is dealt;
- a 亮倒 seat's concealed hand and waits — but not a tile it has just drawn and not yet discarded;
- the engine events' `public_json()` (another seat's draw, the deal and a 暗杠 tile hidden; passes hidden).
A seat's own hand goes only into its PrivateView. (AI seats decide through the engine's `ai.decide`, whose
Observation holds the seat's own tiles and the same public facts.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kwx.engine.actions import Discard, Event, Hu, Reveal
from kwx.engine.analysis import Meld, waits
from kwx.engine.event_json import EventJson
from kwx.engine.hand import CLAIM, OVER, ROB, TURN, HandState
from kwx.engine.tiles import NUM_KINDS, Tile
from kwx.table.advice import move_warnings, zimo_gain
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PaymentView,
    PrivateView,
    PublicView,
    ResultView,
    RevealedHand,
    SeatView,
    WinnerView,
)

if TYPE_CHECKING:
    from kwx.table.record_state import RecordState

_TILES = tuple(Tile)
PIAO_CHOICE = ActionChoice("piao")  # the amount goes in act(..., amount=n); 0 … rules.piao


# -- what a seat shows the table -------------------------------------------------------------------------
def public_concealed(hand: HandState, seat: int) -> tuple[Tile, ...]:
    """The concealed tiles of a 亮倒 seat as the table sees them: its hand without a tile it has just drawn
    (or is adding to a kong under 抢杠 claims). Empty for a seat that has not declared."""
    if not hand.declared(seat):
        return ()
    counts = list(hand.counts(seat))
    held = None
    if hand.phase == TURN and hand.turn == seat:
        held = hand.drawn
    elif hand.phase == ROB:
        pending = hand.pending
        if pending is not None and pending[0] == seat:
            held = pending[1]
    if held is not None and counts[held]:
        counts[held] -= 1
    return tuple(_TILES[t] for t in range(NUM_KINDS) for _ in range(counts[t]))


def _meld_views(t: RecordState, hand: HandState, seat: int, *, owner: bool) -> tuple[MeldView, ...]:
    show_ankong = owner or hand.declared(seat) or hand.phase == OVER
    return tuple(MeldView(m.kind, m.tile if (m.kind != "ankong" or show_ankong) else None,
                          t.meld_from.get((seat, int(m.tile))) if m.kind != "ankong" else None)
                 for m in hand.melds(seat))


# -- the board -------------------------------------------------------------------------------------------
def board_phase(t: RecordState) -> str:
    if t.status == PLAYING and t.hand is not None:
        phase = t.hand.phase
        return "turn" if phase == TURN else "claim" if phase in (CLAIM, ROB) else "finished"
    if t.status == BETWEEN:
        return "finished" if t.hand is not None else "lobby"
    return {LOBBY: "lobby", PIAO: "piao", CLOSED: "closed"}.get(t.status, t.status)


def public_view(t: RecordState, last_events: Iterable[EventJson] = ()) -> PublicView:
    hand = t.hand if t.status in (PLAYING, BETWEEN, CLOSED) else None
    seats: list[SeatView] = []
    if t.status == LOBBY or (t.setup is None and hand is None):
        for i, player in enumerate(t.lobby[:3]):
            seats.append(SeatView(i, player, t.scores[player.player_id], 0))
        waiting = t.lobby[3] if len(t.lobby) > 3 else None
    else:
        ids = t.seating
        dealer = t.setup.dealer if t.setup is not None else -1
        for s, pid in enumerate(ids):
            player = t.players[pid]
            score, is_dealer, autoplay = t.scores[pid], s == dealer, pid in t.shown_autoplay
            if hand is None:  # 漂 phase: no tiles yet, picks kept secret until the deal
                seats.append(SeatView(s, player, score, concealed_count=0, is_dealer=is_dealer, autoplay=autoplay))
                continue
            declared = hand.declared(s)
            seats.append(SeatView(
                s, player, score, concealed_count=sum(hand.counts(s)), melds=_meld_views(t, hand, s, owner=False),
                discards=tuple(tile for tile, claimed in hand.discards(s) if not claimed),
                pond=hand.discards(s), liangdao=declared,
                revealed=public_concealed(hand, s), waits=tuple(hand.liangdao_waits(s)) if declared else (),
                piao=hand.piao[s], is_dealer=is_dealer, autoplay=autoplay))
        waiting = t.waiting
    turn_seat = claim_tile = claim_kind = None
    if hand is not None and t.status == PLAYING:
        pending = hand.pending
        if pending is not None:
            turn_seat, claim_tile = pending
            claim_kind = "bugang" if hand.phase == ROB else "discard"
        elif hand.phase == TURN:
            turn_seat = hand.turn
    if hand is not None:
        base, wall = hand.base, hand.wall_remaining
    else:
        setup = t.setup or t.next
        base, wall = t.rules.base * (setup.base_multiplier if setup else 1), 0
    phase = board_phase(t)
    # A claim window's deadline is the claimants' business; the board shows the discard (or 补杠) alone.
    deadline = None if phase == "claim" else t.deadline
    return PublicView(table_id=t.id, hand_no=t.hand_no, step=t.public_step, phase=phase, seats=tuple(seats),
                      wall_remaining=wall, turn_seat=turn_seat, claim_tile=claim_tile, deadline=deadline,
                      base=base, rules_name=t.rules.preset_name, last_events=tuple(last_events),
                      waiting_player=waiting, paused=t.paused, claim_kind=claim_kind,
                      seed_ref=t.seed_ref if hand is not None else None, host=t.players.get(t.host),
                      spectators=tuple(t.spectators.values()), capacity=t.capacity, piao_max=t.rules.piao or 0)


def public_events(events: Iterable[Event]) -> list[EventJson]:
    """The public JSON of engine events (hidden ones dropped)."""
    out: list[EventJson] = []
    for e in events:
        j = e.public_json()
        if j is not None:
            out.append(j)
    return out


# -- one seat's hand -------------------------------------------------------------------------------------
def choices(t: RecordState, seat: int) -> tuple[ActionChoice, ...]:
    if t.status == PIAO:
        return (PIAO_CHOICE,) if seat not in t.piao_picks else ()
    return tuple(ActionChoice(a.verb, a.tile) for a in t.legal(seat))


def _discard_waits(counts: list[int], melds: Sequence[Meld], offered: Iterable[Tile]) -> dict[Tile, tuple[Tile, ...]]:
    out: dict[Tile, tuple[Tile, ...]] = {}
    for tile in sorted(set(offered)):
        counts[tile] -= 1
        w = waits(counts, melds)
        counts[tile] += 1
        if w:
            out[tile] = tuple(w)
    return out


def private_view(t: RecordState, seat: int) -> PrivateView:
    pid = t.seating[seat]
    offered = choices(t, seat)
    step = t.prompt_step.get(seat, t.step) if offered else t.step
    deadline = t.deadline if offered else None
    hand = t.hand if t.status in (PLAYING, BETWEEN, CLOSED) else None
    autoplay = pid in t.autoplay
    timed_out = pid in t.missed_turn and not autoplay
    if hand is None:
        return PrivateView(t.id, t.hand_no, step, seat, pid, (), None, (), offered, deadline,
                           autoplay=autoplay, timed_out=timed_out, piao_max=t.rules.piao or 0)
    counts = list(hand.counts(seat))
    drawn = hand.drawn if hand.turn == seat else None
    if drawn is not None:
        counts[drawn] -= 1
    concealed = tuple(_TILES[x] for x in range(NUM_KINDS) for _ in range(counts[x]))
    if drawn is not None:
        counts[drawn] += 1
    melds = hand.melds(seat)
    declared = hand.declared(seat)
    ready: tuple[Tile, ...] = ()
    discard_waits: dict[Tile, tuple[Tile, ...]] = {}
    if declared:
        ready = tuple(hand.liangdao_waits(seat))
    elif sum(counts) % 3 == 1:
        ready = tuple(waits(counts, melds))
    elif offered and hand.phase == TURN:
        discard_waits = _discard_waits(counts, melds, (c.tile for c in offered if c.verb == "discard" and c.tile is not None))
    pending = hand.pending if t.status == PLAYING else None
    danger: dict[Tile, tuple[int, ...]] = {}
    for other in range(3):  # public facts only: a declared 亮倒 hand's waits are shown to everyone
        if other != seat and hand.declared(other):
            for tile in hand.liangdao_waits(other):
                danger[_TILES[tile]] = (*danger.get(_TILES[tile], ()), other)
    # counted for the panel: its own waits and each declared hand's (the context line shows them)
    shown_waits = {w for ws in discard_waits.values() for w in ws} | set(ready) | set(danger)
    return PrivateView(
        table_id=t.id, hand_no=t.hand_no, step=step, seat=seat, player_id=pid, concealed=concealed, drawn=drawn,
        melds=_meld_views(t, hand, seat, owner=True), choices=offered, deadline=deadline, waits=ready,
        discard_waits=discard_waits, claim_tile=pending[1] if pending is not None and pending[0] != seat else None,
        liangdao=declared, autoplay=autoplay, timed_out=timed_out, danger=danger,
        last_discard=_last_discard(hand), wall_remaining=hand.wall_remaining,
        unseen=_unseen(hand, seat, shown_waits) if shown_waits else {},
        kong_feed=_kong_feed(t, hand, seat) if offered and hand.phase == TURN else {}, piao_max=t.rules.piao or 0,
        warnings=move_warnings(hand, seat, ((c.verb, c.tile) for c in offered)) if offered else (),
        zimo_gain=zimo_gain(hand, seat) if offered else None)


def _last_discard(hand: HandState) -> tuple[int, Tile] | None:
    for e in reversed(hand.events):
        if isinstance(e, Discard):
            return e.seat, e.tile
    return None


def _unseen(hand: HandState, seat: int, tiles: Iterable[Tile]) -> dict[Tile, int]:
    """How many copies of each tile `seat` has not seen: 4 less its own tiles, every discard and exposed meld,
    and the revealed hands of 亮倒 seats — public facts only (another seat's 暗杠 and a 亮倒 seat's fresh draw
    stay unseen, as they are to a player). A discard (or robbed 补杠) won on counts as seen: it is marked claimed
    in the pond and held in no hand, but everyone saw it played."""
    seen = list(hand.counts(seat))
    for e in hand.events[::-1] if hand.phase == OVER else ():
        if isinstance(e, Hu):
            if not e.self_draw:
                seen[e.tile] += 1
            break
    for s in range(3):
        for tile, claimed in hand.discards(s):
            if not claimed:
                seen[tile] += 1
        for m in hand.melds(s):
            if s == seat or m.kind != "ankong" or hand.declared(s):
                seen[m.tile] += m.size
        if s != seat:
            for tile in public_concealed(hand, s):
                seen[tile] += 1
    return {tile: max(0, 4 - seen[tile]) for tile in tiles}


def _kong_feed(t: RecordState, hand: HandState, seat: int) -> dict[Tile, tuple[int, int]]:
    """Tiles whose discard lets another seat's 亮倒 hand 直杠 (three of it revealed, and the kong keeps its waits,
    as the engine allows a locked hand): each with that seat and the 直杠 money the discarder pays."""
    out: dict[Tile, tuple[int, int]] = {}
    for other in range(3):
        if other == seat or not hand.declared(other):
            continue
        counts = [0] * NUM_KINDS
        for tile in public_concealed(hand, other):
            counts[tile] += 1
        for kind in range(NUM_KINDS):
            if counts[kind] == 3 and hand.declared_zhigang_ok(other, _TILES[kind]):
                out[_TILES[kind]] = (other, t.rules.zhigang_pay * hand.base)
    return out


# -- the end of a hand -----------------------------------------------------------------------------------
def result_view(t: RecordState) -> ResultView:
    hand = t.hand
    assert hand is not None and hand.result is not None and t.setup is not None
    result = hand.result
    ids = t.seating
    player = [t.players[pid] for pid in ids]
    winners: list[WinnerView] = []
    hands: tuple[RevealedHand, ...] = ()
    for e in hand.events:
        if isinstance(e, Hu):
            winners = [WinnerView(w.seat, player[w.seat], w.fan, tuple(zip(w.patterns, w.multipliers)), e.tile,
                                  e.self_draw, e.from_seat) for w in e.winners]
        elif isinstance(e, Reveal):
            hands = tuple(RevealedHand(s, tuple(e.hands[s]), _meld_views(t, hand, s, owner=True))
                          for s in range(3))
    payments = tuple(PaymentView(player[p.from_seat], player[p.to_seat], p.amount, p.reason)
                     for p in result.payments)
    seed, ref = t.revealed_seed()
    return ResultView(table_id=t.id, hand_no=t.hand_no, outcome=result.outcome, winners=tuple(winners),
                      payments=payments, net=tuple(result.net), scores=tuple(t.scores[pid] for pid in ids),
                      hands=hands, next_dealer=result.next_dealer, seed=seed, seed_ref=ref)
