"""kwx.engine.piao: how AI seats pick 漂 — `strong` by the win payments it expects, the others at random."""

from __future__ import annotations

from kwx.engine.piao import choose_piao, expected_balance
from kwx.engine.reads import BalanceRecord
from kwx.engine.rules import RuleSet
from kwx.engine.seeds import ai_piao
from kwx.engine.simulate import simulate


def strong_pick(dealer: bool, record: BalanceRecord | None = None, maximum: int = 3) -> int:
    return choose_piao("strong", maximum, dealer=dealer, record=record, table_seed="s", hand_no=1, player_id="p")


def test_strong_raises_as_the_dealer_and_stays_at_zero_otherwise_at_a_new_table() -> None:
    assert strong_pick(dealer=True) == 3  # a tile ahead from the deal: it expects to be paid more than it pays
    assert strong_pick(dealer=False) == 0
    assert strong_pick(dealer=True, maximum=5) == 5


def test_strong_raises_against_players_it_has_been_winning_from() -> None:
    # 60 hands, 20 of them dealt, 25 more win payments received than paid: well above a seat's share
    winning = BalanceRecord(hands=60, dealt=20, balance=25)
    assert expected_balance(False, winning) > 0
    assert strong_pick(dealer=False, record=winning) == 3
    # and stays out where it has been paying more than it receives, even as the dealer
    losing = BalanceRecord(hands=60, dealt=20, balance=-25)
    assert expected_balance(True, losing) < 0
    assert strong_pick(dealer=True, record=losing) == 0


def test_a_short_record_moves_the_pick_little() -> None:
    lucky = BalanceRecord(hands=2, dealt=0, balance=1)  # one hand won: not yet a reason to raise as a non-dealer
    assert strong_pick(dealer=False, record=lucky) == 0


def test_the_other_levels_pick_at_random_from_the_table_seed() -> None:
    for level in ("simple", "standard"):
        picks = [choose_piao(level, 3, dealer=True, record=None, table_seed="t", hand_no=n, player_id="ai")
                 for n in range(1, 40)]
        assert picks == [ai_piao("t", n, "ai", 3) for n in range(1, 40)]
        assert len(set(picks)) > 1


def test_no_pick_without_the_option() -> None:
    assert choose_piao("strong", 0, dealer=True, record=None, table_seed="s", hand_no=1, player_id="p") == 0


def test_a_simulated_piao_table_plays_the_picks() -> None:
    report = simulate(40, "piao-sim", ("strong", "standard", "standard"), rules=RuleSet.preset("shiyan")).to_json()
    strong, *others = report["players"]
    assert report["checks"] == {"zero_sum": True, "tiles_conserved": True, "errors": 0}
    assert 0 < strong["mean_piao"] < 3  # the maximum as the dealer, 0 otherwise, until its record says more
    assert all(0 < p["mean_piao"] < 3 for p in others)
    plain = simulate(5, "piao-sim", ("strong", "standard", "standard")).to_json()
    assert all(p["mean_piao"] == 0 for p in plain["players"])
