"""How a payment's amount was reached, in words: "底 1 × 2 番 × 包胡 2" for 4.

Every amount of a hand is the base times a multiplier the rules name (docs/rules.md §6, §8, §10): a win's fan
(× 2 for 包胡), the two players' 漂 picks, the 买码 tile's value, a kong's 1, 2 or 2 × zhigang_pay (doubled again
along a 杠上杠 chain), a 查叫 or forbid_feeding fan, the 1 of a 荒庄 亮倒 penalty. The formula is read back
from the amount and what the result shows (the base, the winner's fan, the 漂 picks) and given only when its
product is the amount, so a formula is never wrong: anything else shows the bare amount. Nothing here imports
discord; `cogs/result_post.py` writes the result post's payment lines with it.
"""

from __future__ import annotations

from kwx.present.i18n import tr

FAN_REASONS = ("chajiao", "forbid_feeding")  # the payer pays a fan's worth
TIMES_REASONS = ("angang", "bugang", "zhigang", "draw_liangdao", "maima")  # the base times a plain number


def payment_formula(reason: str, amount: int, base: int, lang: str, *, fan: int | None = None,
                    piao: tuple[int, int] | None = None) -> str | None:
    """The multiplication that gives `amount`, or None when it cannot be told.

    `fan`: the receiving winner's fan (for hu and baohu); `piao`: the payer's and the receiver's picks."""
    if base <= 0 or amount <= 0:
        return None
    factors: list[str] = []
    if reason in ("hu", "baohu") and fan:
        factors.append(tr("result.formula.fan", lang, fan=fan))
        if reason == "baohu":
            factors.append(tr("result.formula.baohu", lang))
        product = base * fan * (2 if reason == "baohu" else 1)
    elif reason == "piao" and piao is not None:
        factors.append(tr("result.formula.piao", lang, payer=piao[0], payee=piao[1]))
        product = base * (piao[0] + piao[1])
    elif reason in FAN_REASONS + TIMES_REASONS and amount % base == 0:
        times = amount // base  # 1 too: "底 1 × 补杠 1" says why a kong cost the base
        key = "result.formula.reason_fan" if reason in FAN_REASONS else "result.formula.reason_times"
        factors.append(tr(key, lang, reason=tr(f"payment.{reason}", lang), n=times))
        product = amount
    else:
        return None
    if product != amount:
        return None
    return " × ".join([tr("result.formula.base", lang, base=base), *factors])
