"""A table's finished hand as the ledger keeps it (kwx.store.LedgerHand): by player, with the payments between
them, the commitment to the hand's seed and a summary of how it ended. Written by `Store.finish_hand`."""

from __future__ import annotations

from typing import Literal

from kwx.store import LedgerHand, SeatResult, payments_from_seats
from kwx.table.record_state import RecordState


def ledger_hand(t: RecordState) -> LedgerHand:
    """The hand just finished at `t`: seats, payments (engine reason ids), nets."""
    hand, setup = t.hand, t.setup
    assert hand is not None and hand.result is not None and setup is not None
    result = hand.result
    ids = setup.seating
    seats = [
        SeatResult(player_id=pid, seat=s, name=t.players[pid].name, won=s in result.winners,
                   self_draw=s in result.winners and result.self_draw, liangdao=hand.declared(s),
                   fan=result.fan.get(s, 0), patterns=list(result.patterns.get(s, ())), net=result.net[s])
        for s, pid in enumerate(ids)]
    summary = {"end": result.end, "base": hand.base, "piao": list(hand.piao), "dealer_seat": setup.dealer,
               "next_dealer": result.next_dealer, "from_seat": result.from_seat}
    outcome: Literal["win", "draw"] = "win" if result.outcome == "win" else "draw"
    return LedgerHand(guild=t.guild, table_id=t.id, hand_no=setup.hand_no, seats=seats,
                      payments=payments_from_seats(result.payments, ids), dealer=ids[setup.dealer],
                      seed_ref=t.secret.commitment(setup.hand_no), outcome=outcome, summary=summary)
