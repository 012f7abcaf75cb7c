"""Checking a hand's record before the store writes it: who sat, what was paid, that the money sums to zero."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kwx.store.models import DEAL_IN_REASONS, PLAY_REASONS, LedgerHand, LedgerPayment


@dataclass(frozen=True)
class CheckedHand:
    outcome: str
    payments: list[LedgerPayment]  # zero amounts dropped
    nets: dict[str, int]
    dealt_in: dict[str, bool]


def check_hand(record: LedgerHand) -> CheckedHand:
    """Validate a hand record; ValueError says what is wrong.

    A hand's money must sum to zero: each LedgerPayment moves money between two seated players, and seat nets the
    caller gives (the engine's settlement) must sum to zero and agree with the payments.
    """
    if not record.guild:
        raise ValueError("a hand needs a server (guild) id")
    if not record.seats:
        raise ValueError("a hand needs its seated players")
    players = [s.player_id for s in record.seats]
    if len(set(players)) != len(players):
        raise ValueError("a player is seated twice")
    if len({s.seat for s in record.seats}) != len(players):
        raise ValueError("two players share a seat number")
    for s in record.seats:
        if not is_int(s.fan) or s.fan < 0:
            raise ValueError(f"{s.player_id}: fan must be a non-negative int, not {s.fan!r}")
        if s.self_draw and not s.won:
            raise ValueError(f"{s.player_id}: a self-draw is a win")
    nets = dict.fromkeys(players, 0)
    payments = []
    for p in record.payments:
        if p.reason not in PLAY_REASONS:
            raise ValueError(f"unknown payment reason {p.reason!r}")
        if not is_int(p.amount) or p.amount < 0:
            raise ValueError(f"payment amounts are non-negative ints, not {p.amount!r}")
        if p.from_player not in nets or p.to_player not in nets:
            raise ValueError(f"payment {p} names a player who is not seated")
        if p.from_player == p.to_player:
            raise ValueError(f"payment {p} pays a player to themselves")
        if p.amount:
            nets[p.from_player] -= p.amount
            nets[p.to_player] += p.amount
            payments.append(p)
    given = {s.player_id: s.net for s in record.seats if s.net is not None}
    if any(not is_int(net) for net in given.values()):
        raise ValueError("seat nets are ints")
    if len(given) == len(players) and sum(given.values()) != 0:
        raise ValueError(f"hand payments must sum to zero; the seat nets sum to {sum(given.values())}")
    for player, net in given.items():
        if net != nets[player]:
            raise ValueError(f"{player}'s payments come to {nets[player]}, not the {net} given")
    winners = [s for s in record.seats if s.won]
    outcome = record.outcome or ("win" if winners else "draw")
    if outcome not in ("win", "draw") or (outcome == "win") != bool(winners):
        raise ValueError(f"outcome {outcome!r} does not fit {len(winners)} winner(s)")
    discard_winners = {s.player_id for s in winners if not s.self_draw}
    dealt_in = {
        s.player_id: s.dealt_in if s.dealt_in is not None else any(
            p.from_player == s.player_id and p.reason in DEAL_IN_REASONS and p.to_player in discard_winners
            for p in payments)
        for s in record.seats
    }
    return CheckedHand(outcome, payments, nets, dealt_in)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_amount(amount: Any) -> None:
    if not is_int(amount) or amount <= 0:
        raise ValueError(f"amounts are positive ints, not {amount!r}")


def need_text(**values: str) -> None:
    for name, value in values.items():
        if not value or not str(value).strip():
            raise ValueError(f"{name} is required")
