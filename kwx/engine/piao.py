"""How an AI seat picks 漂 before a hand (rules option `piao`: each player picks 0…max).

漂 adds (the two players' picks) × base to every win payment between two players. A player's own pick p therefore
earns p × base for each win payment it receives and costs as much for each one it pays: its value is
p × (payments received − payments paid), linear in p, so the pick worth making is the maximum or nothing.

- `simple` and `standard` pick at random, fixed by the table seed (seeds.ai_piao), as casual players do.
- `strong` picks what a strong local player would: the maximum when it expects to receive more win payments than
  it pays this hand, else 0. Before it knows the table it assumes equal players, among whom the dealer (a tile
  ahead from the deal) receives a little more than it pays and the others a little less; then what the table's
  record shows of its own win payments (kwx.engine.reads.BalanceRecord, public: every payment is shown) moves that
  expectation, against a prior worth RECORD_PRIOR hands.

A seat in 托管 picks 0 (the table service decides that): the AI does not raise an absent player's stakes.
"""

from __future__ import annotations

from kwx.engine.reads import BalanceRecord
from kwx.engine.seeds import ai_piao
from kwx.engine.table import TableState

# Win payments received − paid per hand among equal players (three `standard` seats, 3,000 hands): the dealer
# +0.06, each other seat −0.03 (they sum to zero over the three seats).
DEALER_BALANCE = 0.06
OTHER_BALANCE = -0.03
# Hands of record it takes to move the expectation halfway to what the record shows: one hand's balance varies by
# about ±1.1 payments while players differ by about 0.1 a hand, so a short lucky run says little.
RECORD_PRIOR = 100.0


def expected_balance(dealer: bool, record: BalanceRecord | None) -> float:
    """Win payments a player expects to receive − pay in its next hand: the seat's share among equal players,
    plus how far its record at this table has run above (or below) that share, shrunk towards nothing."""
    seat_share = DEALER_BALANCE if dealer else OTHER_BALANCE
    if record is None:
        return seat_share
    par = record.dealt * DEALER_BALANCE + (record.hands - record.dealt) * OTHER_BALANCE
    return seat_share + (record.balance - par) / (record.hands + RECORD_PRIOR)


def choose_piao(level: str, maximum: int, *, dealer: bool, record: BalanceRecord | None, table_seed: str,
                hand_no: int, player_id: str) -> int:
    """The 漂 pick (0…maximum) of an AI seat of `level` that will (or will not) deal the next hand."""
    if maximum <= 0:
        return 0
    if level == "strong":
        return maximum if expected_balance(dealer, record) > 0 else 0
    return ai_piao(table_seed, hand_no, player_id, maximum)


def seat_piao(table: TableState, seat: int, level: str, *, table_seed: str, hand_no: int, player_id: str) -> int:
    """The pick of the AI seat `seat` for the hand `table` deals next (between hands: its dealer and seating)."""
    return choose_piao(level, table.rules.piao or 0, dealer=seat == table.dealer_seat,
                       record=table.balances.by_player.get(table.seated[seat]), table_seed=table_seed,
                       hand_no=hand_no, player_id=player_id)
