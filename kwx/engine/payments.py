"""Who pays whom (docs/rules.md §6, §8, §10): every money rule of a hand is decided here, as pure functions.

- win money (自摸, win on a discard, 一炮双响, robbed kong) ........ `win_payments`
- 包胡 (a non-declared player feeds a 亮倒 player) .................. `is_baohu`, used by `win_payments`
- kong money and 杠上杠 chains ...................................... `kong_payments`
- 荒庄: 亮倒 penalty (`draw_liangdao`) and 查叫 (`chajiao`) ........... `draw_liangdao_payments`, `chajiao_payments`
- forbid_feeding (a player left with only feeding tiles) ........... `forbid_feeding_payments`
- 漂 (`piao`) and 买码 (`maima`) ..................................... inside `win_payments`; `maima_value`
The state machine (hand.py) decides *what happened*; these functions turn it into Payment records. Amounts
are base × fan (× 2 for 包胡); the fan cap lives in fan.py and never touches kong money, 漂 or 买码.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from kwx.engine.rules import PAYMENT_REASONS, RuleSet
from kwx.engine.tiles import Tile

# A payment's JSON form ("from" is a keyword, hence the call).
PaymentJson = TypedDict("PaymentJson", {"from": int, "to": int, "amount": int, "reason": str})


@dataclass(frozen=True, slots=True)
class Payment:
    from_seat: int
    to_seat: int
    amount: int  # > 0, in points
    reason: str  # one of rules.PAYMENT_REASONS

    def to_json(self) -> PaymentJson:
        return {"from": self.from_seat, "to": self.to_seat, "amount": self.amount, "reason": self.reason}

    @classmethod
    def from_json(cls, data: PaymentJson) -> Payment:
        return cls(int(data["from"]), int(data["to"]), int(data["amount"]), str(data["reason"]))


@dataclass(frozen=True, slots=True)
class WinShare:
    """One winner's part of a win, as the state machine saw it."""

    seat: int
    fan: int
    declared: bool  # the winner had declared 亮倒


def _others(seat: int, n_seats: int) -> list[int]:
    return [s for s in range(n_seats) if s != seat]


# -- 包胡 ---------------------------------------------------------------------------------------------
def is_baohu(winner_declared: bool, discarder_declared: bool) -> bool:
    """包胡 (docs/rules.md §6): a player who has NOT declared 亮倒 feeds a 亮倒 player's winning tile (on a discard or a
    robbed 补杠) and then pays alone, twice the win's points. If the discarder had also declared (the declaring
    discard counts as declared), it is an ordinary win on a discard."""
    return winner_declared and not discarder_declared


# -- wins ----------------------------------------------------------------------------------------------
def win_payments(winners: Sequence[WinShare], *, self_draw: bool, payer: int | None, payer_declared: bool,
                 base: int, piao: Sequence[int], maima: int = 0, n_seats: int = 3) -> list[Payment]:
    """The money of one win.

    自摸: each other seat pays base × fan. On a discard (or a robbed kong) the discarder (`payer`) pays each
    winner base × fan — 一炮双响 is simply two winners — or 2 × base × fan as `baohu`. 漂: every win payment
    between two seats adds (their two picks) × base as its own `piao` record. 买码 (`maima` = the shown tile's
    value, only after a 自摸) adds maima × base to each payment, as `maima`.
    """
    out: list[Payment] = []
    for w in winners:
        points = base * w.fan
        if self_draw:
            pairs = [(s, points, "hu") for s in _others(w.seat, n_seats)]
        else:
            assert payer is not None
            if is_baohu(w.declared, payer_declared):
                pairs = [(payer, 2 * points, "baohu")]
            else:
                pairs = [(payer, points, "hu")]
        for from_seat, amount, reason in pairs:
            out.append(Payment(from_seat, w.seat, amount, reason))
            piao_points = (piao[from_seat] + piao[w.seat]) * base
            if piao_points:
                out.append(Payment(from_seat, w.seat, piao_points, "piao"))
            if self_draw and maima:
                out.append(Payment(from_seat, w.seat, maima * base, "maima"))
    return out


def maima_value(tile: Tile) -> int:
    """买码: a suited tile is worth its number, a dragon 10."""
    return 10 if tile.is_dragon else tile.number


# -- kongs ---------------------------------------------------------------------------------------------
def kong_payments(kind: str, seat: int, *, from_seat: int | None, chain: int, base: int, rules: RuleSet,
                  n_seats: int = 3) -> list[Payment]:
    """Kong money (喜钱), paid when the kong completes and kept on 荒庄.

    暗杠 2 × base from each other seat; 补杠 1 × base from each other seat; 直杠 `zhigang_pay` × base from the
    discarder. 杠上杠: the n-th kong of a chain (`chain` = n ≥ 1) pays its amount × 2^(n−1).
    """
    factor = 1 << (chain - 1)
    if kind == "angang":
        return [Payment(s, seat, 2 * base * factor, "angang") for s in _others(seat, n_seats)]
    if kind == "bugang":
        return [Payment(s, seat, base * factor, "bugang") for s in _others(seat, n_seats)]
    if kind == "zhigang":
        assert from_seat is not None
        return [Payment(from_seat, seat, rules.zhigang_pay * base * factor, "zhigang")]
    raise ValueError(f"unknown kong kind {kind!r}")


# -- 荒庄 ----------------------------------------------------------------------------------------------
def draw_liangdao_payments(declared_order: Sequence[int], *, base: int, rules: RuleSet,
                           n_seats: int = 3) -> list[Payment]:
    """荒庄 with 亮倒 players (docs/rules.md §6). `each`: every declared seat pays every seat that has not declared
    1 × base, so when every seat declared nobody pays. `first`: the first declarer pays each other seat 1 × base
    however many declared ("几家亮倒荒庄由第一个亮倒赔"), all three too — but not under edition 1 (rules.py)."""
    declared = set(declared_order)
    if not declared_order or (rules.edition == 1 and len(declared) == n_seats):
        return []
    if rules.draw_liangdao_penalty == "first":
        first = declared_order[0]
        return [Payment(first, s, base, "draw_liangdao") for s in _others(first, n_seats)]
    return [Payment(d, s, base, "draw_liangdao")
            for d in declared_order for s in range(n_seats) if s not in declared]


def chajiao_payments(ready_fan: Mapping[int, int], *, base: int, n_seats: int = 3) -> list[Payment]:
    """查叫 (option `draw_chajiao`): at 荒庄 every seat that is not ready pays every ready seat that seat's
    largest possible fan × base. `ready_fan`: ready seat -> its largest fan."""
    return [Payment(s, r, fan * base, "chajiao")
            for r, fan in sorted(ready_fan.items()) for s in range(n_seats) if s not in ready_fan]


def forbid_feeding_payments(seat: int, feed_fan: Mapping[int, int], *, base: int) -> list[Payment]:
    """forbid_feeding: `seat` holds only tiles that win for 亮倒 players and the hand ends; it pays each such
    亮倒 seat the largest fan one of its tiles would give (`feed_fan`: 亮倒 seat -> that fan) × base."""
    return [Payment(seat, r, fan * base, "forbid_feeding") for r, fan in sorted(feed_fan.items())]


# -- totals --------------------------------------------------------------------------------------------
def net(payments: Iterable[Payment], n_seats: int = 3) -> list[int]:
    out = [0] * n_seats
    for p in payments:
        out[p.from_seat] -= p.amount
        out[p.to_seat] += p.amount
    return out


def check_payments(payments: Sequence[Payment], n_seats: int = 3) -> None:
    """Every record well-formed; a hand's payments always sum to zero (they are transfers)."""
    for p in payments:
        assert p.reason in PAYMENT_REASONS, p
        assert p.amount > 0 and p.from_seat != p.to_seat, p
        assert 0 <= p.from_seat < n_seats and 0 <= p.to_seat < n_seats, p
    assert sum(net(payments, n_seats)) == 0
