"""What the AI decides at a table: for its AI seats, for a human in 托管, and for a seat whose time ran out.

Pure reads of a table's record (kwx/table/record.py); the service writes what these return as the seat's
move (`by` says who decided: kwx.table.log_records.By). How the AI picks a move in a hand is the service's
`ai_policy` (`TableService(..., ai_policy=...)`: the engine's `decide` in play; a test scripts the AI seats with
its own); a 漂 amount and a timed-out seat's move are the engine's and this module's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kwx.engine.actions import Action, Verb
from kwx.engine.ai import choose, decide, observe
from kwx.engine.hand import CLAIM, ROB, HandState
from kwx.engine.piao import seat_piao
from kwx.engine.reads import FeedRecord
from kwx.table.log_records import By
from kwx.table.phases import PIAO
from kwx.table.record_state import RecordState

AUTOPLAY_LEVEL = "strong"  # the AI that plays for a human in 托管

# How the AI picks a seat's move in a hand: (hand, seat, AI level, what the table has seen of its players
# feeding declared hands) -> one of hand.legal_actions(seat)
AiPolicy = Callable[[HandState, int, str, Mapping[int, FeedRecord] | None], Action]
ENGINE_AI: AiPolicy = decide  # what every table plays with


def machine_moves(t: RecordState, policy: AiPolicy = ENGINE_AI) -> list[tuple[int, Action | int, By]]:
    """(seat, action or 漂 amount, by) for every seat the AI decides for that must act now (a move in a hand
    as `policy` picks it)."""
    out: list[tuple[int, Action | int, By]] = []
    known = None
    for seat in t.to_act():
        player = t.seat_player(seat)
        if player.is_ai:
            by, level = By.AI, player.ai_level or AUTOPLAY_LEVEL
        elif player.player_id in t.autoplay:
            by, level = By.AUTO, AUTOPLAY_LEVEL
        else:
            continue
        if t.status == PIAO:
            assert t.state is not None
            amount = seat_piao(t.state, seat, level, table_seed=t.secret.text, hand_no=t.hand_no,
                               player_id=player.player_id) if by == By.AI else 0
            out.append((seat, amount, by))
        else:
            assert t.hand is not None
            if known is None:
                known = _feed_records(t)
            out.append((seat, policy(t.hand, seat, level, known), by))
    return out


def timeout_move(t: RecordState, seat: int) -> Action | int:
    """What a seat does when its time runs out: 漂 0; pass a claim; discard the drawn tile. A 亮倒 seat takes
    its win if it has one (else passes, which discards the draw). With no drawn tile (after a 碰, or the
    dealer's first turn) or when the drawn tile may not be discarded, the AI picks the discard."""
    if t.status == PIAO:
        return 0
    hand = t.hand
    assert hand is not None
    legal = hand.legal_actions(seat)
    if hand.phase in (CLAIM, ROB):
        return Action(seat, Verb.PASS)
    if hand.declared(seat):
        for verb in (Verb.HU, Verb.PASS):
            if Action(seat, verb) in legal:
                return Action(seat, verb)
    drawn = hand.drawn
    if drawn is not None and Action(seat, Verb.DISCARD, drawn) in legal:
        return Action(seat, Verb.DISCARD, drawn)
    discards = [a for a in legal if a.verb == Verb.DISCARD]
    if discards:
        obs = observe(hand, seat, _feed_records(t))
        obs.legal = discards
        return choose(obs, AUTOPLAY_LEVEL)
    return legal[0]


def _feed_records(t: RecordState) -> dict[int, FeedRecord]:
    """What the table has seen of its players feeding declared hands, per seat of this hand."""
    assert t.state is not None
    return t.state.reads.for_seats(t.state.seated)
