"""Payments beyond the base of 1: every amount scales with the table's base (买码 and 查叫 too), and the books
refuse a record that is not a transfer between two seats at the table."""

from __future__ import annotations

import pytest

from kwx.engine.payments import (
    Payment,
    WinShare,
    chajiao_payments,
    check_payments,
    kong_payments,
    win_payments,
)
from kwx.engine.rules import RuleSet
from tests.support.hands import deal, play


def rows(pays: list[Payment]) -> list[tuple[int, int, int, str]]:
    return [(p.from_seat, p.to_seat, p.amount, p.reason) for p in pays]


def test_maima_is_paid_in_base() -> None:
    pays = win_payments([WinShare(0, 2, False)], self_draw=True, payer=None, payer_declared=False, base=3,
                        piao=(0, 0, 0), maima=7)
    assert rows(pays) == [(1, 0, 6, "hu"), (1, 0, 21, "maima"), (2, 0, 6, "hu"), (2, 0, 21, "maima")]


def test_chajiao_is_paid_in_base() -> None:
    assert rows(chajiao_payments({1: 4}, base=3)) == [(0, 1, 12, "chajiao"), (2, 1, 12, "chajiao")]


def test_kong_money_is_paid_in_base() -> None:
    rules = RuleSet.preset("standard")
    assert rows(kong_payments("angang", 0, from_seat=None, chain=1, base=3, rules=rules)) == [(1, 0, 6, "angang"),
                                                                                             (2, 0, 6, "angang")]
    assert rows(kong_payments("bugang", 0, from_seat=None, chain=2, base=3, rules=rules)) == [(1, 0, 6, "bugang"),
                                                                                             (2, 0, 6, "bugang")]


def test_an_unknown_kong_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown kong kind 'chigang'"):
        kong_payments("chigang", 0, from_seat=1, chain=1, base=1, rules=RuleSet.preset("standard"))


@pytest.mark.parametrize("record", [
    Payment(0, 1, 0, "hu"),  # nothing paid
    Payment(3, 0, 1, "hu"),  # from a seat the table does not have
    Payment(0, 3, 1, "hu"),  # to a seat the table does not have
])
def test_the_books_refuse_a_record_that_is_not_a_transfer_at_the_table(record: Payment) -> None:
    with pytest.raises(AssertionError):
        check_payments([record])


def test_the_books_of_a_four_seat_table_count_the_fourth_seat() -> None:
    check_payments([Payment(3, 1, 2, "hu"), Payment(0, 3, 1, "piao")], n_seats=4)


def test_a_self_drawn_win_is_scored_by_the_tables_fan_values() -> None:
    # seat 1 draws 5p at once: 卡五星, 2 fan as standard, 4 at a table that values it so
    rules = RuleSet.preset("standard", fan_values={"kawuxing": 4})
    hand = deal("57899p23s555z666z7z", "12346p789s111s77z", "35p347s258s69s5z6z7z", draws="5p", rules=rules)
    play(hand, "0 discard 7p", "1 hu")
    assert hand.result is not None and hand.result.fan[1] == 4
    assert rows(list(hand.payments)) == [(0, 1, 4, "hu"), (2, 1, 4, "hu")]
