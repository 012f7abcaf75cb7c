"""Plain values the store takes and returns: frozen dataclasses, no database handles inside.

Money is always an `int`. Player ids and guild (server) ids are `str`: a Discord snowflake as text,
`local:you`, `ai:standard:1`; the terminal's guild is `local`. Timestamps are timezone-aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any, Literal

from kwx.engine.rules import PAYMENT_REASONS
from kwx.store.errors import DuplicateEvent as DuplicateEvent  # the errors live in kwx.store.errors
from kwx.store.errors import NotFound as NotFound
from kwx.store.errors import StoreError as StoreError

# Reason ids of a hand's payments (docs/rules.md §8), shared with the engine.
PLAY_REASONS: frozenset[str] = frozenset(PAYMENT_REASONS)
SETTLEMENT = "settlement"  # cash changed hands outside the ledger; moves balance from payee to payer
PAY = "pay"  # a voluntary transfer of balance from one player to another
LEDGER_REASONS: frozenset[str] = PLAY_REASONS | {SETTLEMENT, PAY}
# Reasons whose money counts as winnings in leaderboards (settlements and transfers are not winnings).
WINNING_REASONS = PLAY_REASONS
# Payments that make the payer the discarder of a win (a deal-in) when the winner did not self-draw.
DEAL_IN_REASONS = frozenset({"hu", "baohu"})

Period = Literal["all", "month", "week"]
PERIODS: tuple[Period, ...] = ("all", "month", "week")



class ReversalRefused(ValueError):
    """A correction the ledger refuses. `code` says why:
    'already' (the entry or hand was already reversed), 'reversal' (the entry is itself a reversal: reversing
    it would put money back without the hand's stats), 'hand' (the entry is part of hand `hand_id`: undo the
    whole hand so balances and stats stay in agreement)."""

    def __init__(self, code: str, message: str, *, hand_id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.hand_id = hand_id


# ---------------------------------------------------------------------------------------------- tables/events


@dataclass(frozen=True)
class TableRow:
    """A persisted table. `seed` is secret: it is kept out of repr() so it cannot leak into logs."""

    id: int
    guild: str
    channel: str | None
    rules: Any
    seats: Any
    status: Literal["open", "closed"]
    options: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    seed: str = field(repr=False)


@dataclass(frozen=True)
class EventRow:
    table_id: int
    seq: int
    hand_no: int
    kind: str
    payload: Any
    created_at: datetime


@dataclass(frozen=True)
class NewEvent:
    """One event to append; `seq=None` takes the next number of the table's log."""

    hand_no: int
    kind: str
    payload: Any = None
    seq: int | None = None


# ---------------------------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class LedgerPayment:
    """`from_player` pays `to_player` `amount` (> 0) for `reason` (a docs/rules.md §8 reason id): a payment as
    the ledger keeps it, between players. The engine's `kwx.engine.payments.Payment` is between seats."""

    from_player: str
    to_player: str
    amount: int
    reason: str


@dataclass(frozen=True)
class SeatResult:
    """What one seated player did in a hand.

    `fan` and `patterns` matter for winners only (`patterns` is stored as given: a list of pattern ids or of
    {id, fan} objects). `dealt_in=None` derives it from the payments: the player paid `hu`/`baohu` to a winner
    who did not self-draw. `net=None` derives it from the payments; when given it must agree with them.
    """

    player_id: str
    seat: int
    name: str | None = None
    won: bool = False
    self_draw: bool = False
    liangdao: bool = False
    fan: int = 0
    patterns: Sequence[Any] = ()
    dealt_in: bool | None = None
    net: int | None = None


@dataclass(frozen=True)
class LedgerHand:
    """A finished hand, written by `Store.finish_hand` in one transaction with its payments: the hand as the
    ledger keeps it, by player. The engine's `kwx.engine.table.HandRecord` is the hand as played, by seat.

    `table_id=None` is a hand recorded by hand (in person, outside a table); give `created_by` then.
    `outcome=None` means "win" when a seat won, else "draw".
    """

    guild: str
    table_id: int | None
    hand_no: int
    seats: Sequence[SeatResult]
    payments: Sequence[LedgerPayment]
    dealer: str | None = None
    seed_ref: str | None = None
    outcome: Literal["win", "draw"] | None = None
    summary: Any = None
    created_by: str | None = None
    note: str | None = None
    at: datetime | None = None


def payments_from_seats(payments: Sequence[Any], players: Sequence[str]) -> list[LedgerPayment]:
    """Turn engine payments (`from_seat`, `to_seat`, `amount`, `reason`) into player-id payments."""
    return [LedgerPayment(players[p.from_seat], players[p.to_seat], p.amount, p.reason) for p in payments]


# ---------------------------------------------------------------------------------------------- ledger


@dataclass(frozen=True)
class LedgerEntry:
    """One append-only ledger line: `amount` of balance moves from `from_player` to `to_player`.

    A reversal has `reverses_id` set and moves the same amount back, with the original's reason.
    A cash settlement (payer hands payee cash) is recorded from payee to payer: it cancels the debt.
    """

    id: int | None
    guild: str
    from_player: str
    to_player: str
    amount: int
    reason: str
    created_at: datetime
    hand_id: int | None = None
    created_by: str | None = None
    note: str | None = None
    reverses_id: int | None = None


# ---------------------------------------------------------------------------------------------- query results


@dataclass(frozen=True)
class BalanceRow:
    player: str
    name: str
    balance: int
    hands: int


@dataclass(frozen=True)
class BalanceSheet:
    hands: int  # hands recorded in the guild (reversed hands not counted)
    rows: list[BalanceRow]


@dataclass(frozen=True)
class LeaderRow:
    rank: int  # competition ranking: equal nets share a rank (1, 2, 2, 4)
    player: str
    name: str
    net: int  # winnings in the period (hand payments only; settlements and transfers excluded)
    hands: int


@dataclass(frozen=True)
class HandHistory:
    hand_id: int
    table_id: int | None
    hand_no: int
    created_at: datetime
    outcome: str
    dealer: str | None
    winners: list[str]
    fan: dict[str, int]  # winner -> fan
    patterns: dict[str, Any]  # winner -> patterns as recorded
    summary: Any
    seat: int
    net: int  # this player's net for the hand as recorded
    won: bool
    self_draw: bool
    dealt_in: bool
    liangdao: bool
    reversed: bool  # the hand was reversed later (its money returned)


@dataclass(frozen=True)
class PlayerStats:
    """Statistics over a player's hands that were not reversed.

    self_draw_rate = self_draws / wins; deal_in_rate = deal_ins / hands; win_rate = wins / hands;
    avg_fan over wins; liangdao_win_rate = liangdao_wins / liangdao. Rates are 0.0 when undefined.
    """

    player: str
    name: str
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    liangdao: int
    liangdao_wins: int
    max_fan: int
    avg_fan: float
    net: int
    win_rate: float
    self_draw_rate: float
    deal_in_rate: float
    liangdao_win_rate: float


@dataclass(frozen=True)
class Transfer:
    from_player: str
    to_player: str
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"from": self.from_player, "to": self.to_player, "amount": self.amount}


def as_dict(obj: Any) -> Any:
    """JSON-friendly form of a result dataclass (datetimes as ISO strings; fields hidden from repr left out)."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: as_dict(getattr(obj, f.name)) for f in fields(obj) if f.repr}
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, Mapping):
        return {k: as_dict(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [as_dict(v) for v in obj]
    return obj
