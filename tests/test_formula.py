"""A payment's formula (kwx.present.formula): the multiplication behind an amount, never a wrong one."""

from __future__ import annotations

import pytest

from kwx.present.formula import payment_formula


@pytest.mark.parametrize(("reason", "amount", "base", "extra", "zh", "en"), [
    ("hu", 4, 2, {"fan": 2}, "底 2 × 2 番", "base 2 × 2 fan"),
    ("baohu", 4, 1, {"fan": 2}, "底 1 × 2 番 × 包胡 2", "base 1 × 2 fan × 2 (sole payer)"),
    ("piao", 6, 2, {"piao": (1, 2)}, "底 2 × 漂 (1+2)", "base 2 × piao (1+2)"),
    ("angang", 4, 1, {}, "底 1 × 暗杠 4", "base 1 × 4 (concealed kong)"),  # second of a 杠上杠 chain
    ("zhigang", 6, 3, {}, "底 3 × 直杠 2", "base 3 × 2 (exposed kong)"),
    ("chajiao", 8, 1, {}, "底 1 × 查叫 8 番", "base 1 × 8 fan (not ready at a draw)"),
    ("maima", 14, 2, {}, "底 2 × 买码 7", "base 2 × 7 (bonus tile)"),
    ("bugang", 1, 1, {}, "底 1 × 补杠 1", "base 1 × 1 (added kong)"),  # not a bare "1（补杠）"
])
def test_an_amount_shows_how_it_was_reached(reason, amount, base, extra, zh, en) -> None:
    assert payment_formula(reason, amount, base, "zh-CN", **extra) == zh
    assert payment_formula(reason, amount, base, "en", **extra) == en


@pytest.mark.parametrize(("reason", "amount", "base", "extra"), [
    ("hu", 5, 2, {"fan": 2}),  # does not multiply out: shown as the bare amount
    ("hu", 4, 2, {}),  # the winner's fan is unknown
    ("piao", 3, 1, {"piao": (1, 1)}),
    ("angang", 3, 2, {}),
    ("unknown", 4, 1, {}),
])
def test_no_formula_rather_than_a_wrong_one(reason, amount, base, extra) -> None:
    assert payment_formula(reason, amount, base, "zh-CN", **extra) is None
