"""Ledger hands for the store and ledger tests: `make_hand(table, hand_no, payments, winners=...)` among players
a, b, c (d), named in NAMES."""

from __future__ import annotations

from collections.abc import Sequence

from kwx.store import LedgerHand, LedgerPayment, SeatResult
from tests.support.players import GUILD

NAMES = {"a": "Ann", "b": "Bob", "c": "Cy", "d": "Dee"}


def make_hand(table_id: int | None, hand_no: int, payments: Sequence[tuple[str, str, int, str]], *,
              winners: dict[str, int] | None = None, self_draw: Sequence[str] = (), liangdao: Sequence[str] = (),
              players: str = "abc", guild: str = GUILD, patterns: dict[str, list[str]] | None = None,
              nets: dict[str, int] | None = None, **extra) -> LedgerHand:
    """A hand among `players`: payments as (from, to, amount, reason); winners as {player: fan}."""
    winners = winners or {}
    seats = [SeatResult(p, i, name=NAMES.get(p), won=p in winners, self_draw=p in self_draw,
                        liangdao=p in liangdao, fan=winners.get(p, 0), patterns=(patterns or {}).get(p, ()),
                        net=None if nets is None else nets[p]) for i, p in enumerate(players)]
    return LedgerHand(guild=guild, table_id=table_id, hand_no=hand_no, seats=seats,
                      payments=[LedgerPayment(*p) for p in payments], dealer=players[0], seed_ref=f"hand-{hand_no}",
                      **extra)
