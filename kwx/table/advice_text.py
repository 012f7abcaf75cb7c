"""The words of kwx.table.advice's facts, the same for every front end (each passes its own way of writing a
tile and a seat's name): what a costly move costs and who gains, what a 自摸 would win, what 亮倒 reveals.

    warning_text(w, lang, tile=fmt.tile, name=seat_name)   # 打出 5条 会让亮倒的 Ann 胡牌：包胡，你一个人付 8。
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kwx.engine.tiles import Tile
from kwx.present.i18n import join_names, tr
from kwx.table.advice import FEED_KONG, MoveWarning

TileWords = Callable[[Tile], str]
SeatName = Callable[[int], str]


def warning_text(w: MoveWarning, lang: str, *, tile: TileWords, name: SeatName) -> str:
    """打出 X 会让亮倒的 Ann 胡牌 / 直杠, and what you would pay (to whom, when more than one gains)."""
    players = join_names([name(g.seat) for g in w.gains], lang)
    if len(w.gains) == 1:
        payments = str(w.cost)
    else:
        payments = tr("common.list_sep", lang).join(
            tr("warning.payment", lang, player=name(g.seat), amount=g.amount) for g in w.gains)
    key = "warning.feed_kong" if w.kind == FEED_KONG else "warning.baohu" if w.baohu else "warning.feed_win"
    return tr(key, lang, tile=tile(w.tile), players=players, payments=payments)


def zimo_text(drawn: Tile, gain: int, lang: str, *, tile: TileWords) -> str:
    """你摸到 X，可以自摸：赢 N。"""
    return tr("warning.zimo", lang, tile=tile(drawn), gain=gain)


def liangdao_text(discard: Tile, hand: Sequence[Tile], waits: Sequence[Tile], lang: str, *,
                  tiles: Callable[[Sequence[Tile]], str], tile: TileWords) -> str:
    """亮倒 and discard X: the hand everybody will see, and its waits."""
    return tr("warning.liangdao", lang, tile=tile(discard), hand=tiles(hand), waits=tiles(waits))
