"""Settle-up: a short list of cash transfers that brings every balance to zero.

Greedy matching: the largest debtor pays the largest creditor the smaller of the two amounts, which zeroes at
least one of them, so n players with non-zero balances need at most n-1 transfers. (The true minimum is
NP-hard in general; this is what card tables do by hand.)
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from kwx.store.models import Transfer


def settle_up(balances: Mapping[str, int]) -> list[Transfer]:
    """Transfers (debtor pays creditor in cash) that zero `balances`, which must sum to zero."""
    if sum(balances.values()) != 0:
        raise ValueError(f"balances sum to {sum(balances.values())}, not zero")
    # Max-heaps by amount; the player id breaks ties so the result is deterministic.
    creditors = [(-amount, player) for player, amount in balances.items() if amount > 0]
    debtors = [(amount, player) for player, amount in balances.items() if amount < 0]  # most negative first
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    transfers: list[Transfer] = []
    while creditors and debtors:
        owed, creditor = heapq.heappop(creditors)
        owes, debtor = heapq.heappop(debtors)
        amount = min(-owed, -owes)
        transfers.append(Transfer(debtor, creditor, amount))
        if -owed > amount:
            heapq.heappush(creditors, (owed + amount, creditor))
        if -owes > amount:
            heapq.heappush(debtors, (owes + amount, debtor))
    return transfers
