"""A hand played in person, entered by hand (`/kwx record`): its fan and who pays whom, by the engine's rules.

    win = ManualWin(winner="1", payer="2", third="3", self_draw=False, fan=8)       # or fan from the tiles:
    fan, patterns = fan_from_tiles(rules, "1122334456677p", "5p", melds=(), self_draw=False, liangdao=False)
    payments = manual_payments(win, base=rules.base)        # store Payments, player ids
    record = manual_record(guild, win, payments, names, by="1", rules=rules)  # for Store.record_manual_hand

Win money only (docs/rules.md §8): 自摸 — each other player pays base × fan; on a discard the discarder pays base × fan,
or twice that as 包胡 when the winner had declared 亮倒 and the discarder had not (§6). Kong money, 漂 and 买码
are not part of a recorded hand. Errors are `ManualHandError(code, **fmt)`; the code is a catalog key suffix
(`ledger.record.error.<code>`). Nothing here imports discord.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwx.engine.calculator import InputError, calculate, context
from kwx.engine.payments import WinShare, win_payments
from kwx.engine.rules import RuleSet
from kwx.store import LedgerHand, LedgerPayment, SeatResult

MAX_AMOUNT = 1_000_000  # the most one payment (or one /kwx pay) may move
MAX_FAN = 100_000


class ManualHandError(ValueError):
    def __init__(self, code: str, **fmt: Any) -> None:
        super().__init__(code if not fmt else f"{code}: {fmt}")
        self.code = code
        self.fmt = fmt


@dataclass(frozen=True)
class ManualWin:
    winner: str
    payer: str  # the discarder, or on a self-draw one of the two who pay
    third: str | None = None  # the third player (needed on a self-draw: they pay too)
    self_draw: bool = False
    fan: int = 1
    patterns: tuple[str, ...] = ()
    liangdao: bool = False  # the winner had declared 亮倒
    payer_liangdao: bool = False  # the discarder had declared 亮倒 too (then no 包胡)
    extra: Mapping[str, Any] = field(default_factory=dict)  # kept in the hand's summary (tiles, rules)

    @property
    def players(self) -> list[str]:
        return [p for p in (self.winner, self.payer, self.third) if p is not None]

    def check(self) -> None:
        if len(set(self.players)) != len(self.players):
            raise ManualHandError("same_player")
        if self.self_draw and self.third is None:
            raise ManualHandError("need_third")
        if not 1 <= self.fan <= MAX_FAN:
            raise ManualHandError("bad_fan", max=MAX_FAN)


def fan_from_tiles(rules: RuleSet, hand: str, win: str, *, melds: Sequence[str] = (), self_draw: bool = False,
                   liangdao: bool = False) -> tuple[int, tuple[str, ...]]:
    """Fan and pattern ids of a win given as tiles (the calculator's parsing and checks)."""
    ctx = context((self_draw, liangdao, False, False, False, False))
    try:
        calc = calculate(hand, win, list(melds), ctx, rules)
    except InputError as exc:
        raise ManualHandError("bad_hand", detail=exc) from None
    if calc.result is None:
        raise ManualHandError("not_win")
    if calc.result.fan < calc.min_fan:
        raise ManualHandError("below_min", fan=calc.result.fan, min=calc.min_fan)
    return calc.result.fan, tuple(calc.result.patterns)


def manual_payments(win: ManualWin, *, base: int) -> list[LedgerPayment]:
    """The win's payments between player ids (seat 0 winner, 1 payer, 2 third)."""
    win.check()
    players = win.players
    engine = win_payments([WinShare(0, win.fan, win.liangdao)], self_draw=win.self_draw,
                          payer=None if win.self_draw else 1, payer_declared=win.payer_liangdao, base=base,
                          piao=[0] * len(players), n_seats=len(players))
    payments = [LedgerPayment(players[p.from_seat], players[p.to_seat], p.amount, p.reason) for p in engine]
    for p in payments:
        if p.amount > MAX_AMOUNT:
            raise ManualHandError("too_much", amount=p.amount, max=MAX_AMOUNT)
    return payments


def payers(payments: Sequence[LedgerPayment]) -> list[str]:
    """Players whose money a hand takes, in order of first payment."""
    out: list[str] = []
    for p in payments:
        if p.from_player not in out:
            out.append(p.from_player)
    return out


def manual_record(guild: str, win: ManualWin, payments: Sequence[LedgerPayment], names: Mapping[str, str], *,
                  by: str, note: str | None = None) -> LedgerHand:
    """The LedgerHand `Store.record_manual_hand` takes (hand number 0: the server's next manual hand)."""
    seats = [SeatResult(player_id=player, seat=seat, name=names.get(player), won=seat == 0,
                        self_draw=win.self_draw and seat == 0, liangdao=win.liangdao and seat == 0,
                        fan=win.fan if seat == 0 else 0, patterns=win.patterns if seat == 0 else ())
             for seat, player in enumerate(win.players)]
    summary = {"manual": True, "self_draw": win.self_draw, "fan": win.fan, **dict(win.extra)}
    return LedgerHand(guild=guild, table_id=None, hand_no=0, seats=seats, payments=list(payments),
                      outcome="win", summary=summary, created_by=by, note=note)
