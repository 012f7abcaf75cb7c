"""Warnings before costly moves at the terminal (both modes), drawn from the service's facts (kwx.table.advice,
in the words of kwx.table.advice_text, as every front end): 胡口牌 (tiles that win for a declared 亮倒 hand) and a
discard a 亮倒 hand may 直杠, each with what it costs and who gains, and the preview before declaring 亮倒.

The service decides when to ask (kwx.table.press: 亮倒 always, a costly discard unless the player turned that
question off); these functions put its facts into the terminal's words.
"""

from __future__ import annotations

from typing import Protocol

from kwx.engine.tiles import Tile
from kwx.local.text import say, tile_markup, tiles_markup
from kwx.present.i18n import join_names
from kwx.table.advice import FEED_KONG, FEED_WIN, warning_for
from kwx.table.advice_text import liangdao_text, warning_text
from kwx.table.press import Question
from kwx.table.views import PrivateView

YES_WORDS = frozenset({"y", "yes", "ok", "是", "确定", "确认", "好"})


class Renderer(Protocol):
    """What the warnings need of a front end's renderer (kwx.local.render.Renderer)."""

    lang: str

    def name(self, seat: int | None) -> str: ...


def feeds(view: PrivateView, tile: Tile) -> tuple[int, ...]:
    """The 亮倒 seats that a discard of `tile` would let win."""
    return tuple(getattr(view, "danger", {}).get(tile, ()))


def marked_tiles(view: PrivateView) -> set[Tile]:
    """The tiles the hand marks ⚠: a discard the service warns of (it wins for a declared hand, or one may 直杠 it),
    and out of your turn the public facts behind them (胡口牌, a declared hand's revealed triplet)."""
    return ({w.tile for w in view.warnings if w.verb == "discard"} | set(getattr(view, "danger", {}))
            | set(getattr(view, "kong_feed", {})))


def danger_lines(fe: Renderer, view: PrivateView) -> list[str]:
    """The ⚠ legend, one line per kind of warned discard, each tile with who gains and what you pay:
    `⚠ 胡口牌（打出就点炮给亮倒的人）：4筒 给 AI 1，你付 4；3条 给 AI 1和AI 2，你付 8`, and the same for a 直杠."""
    sep = "; " if fe.lang == "en" else "；"
    lines = []
    for kind, legend, item in ((FEED_WIN, "danger_legend", "danger_item"), (FEED_KONG, "kong_legend", "kong_item")):
        found = sorted((w for w in view.warnings if w.verb == "discard" and w.kind == kind), key=lambda w: w.tile)
        if found:
            items = sep.join(say(item, fe.lang, tile=tile_markup(w.tile, fe.lang), cost=w.cost,
                                 players=join_names([fe.name(s) for s in w.seats], fe.lang)) for w in found)
            lines.append(f"[bold red]⚠ {say(legend, fe.lang, list=items)}[/]")
    return lines


def hint_suffix(view: PrivateView, tile: Tile, lang: str) -> str:
    """Appended to a "discard X → waiting on Y" hint when X feeds a 亮倒 hand: what it would cost."""
    w = warning_for(view.warnings, "discard", tile)
    if w is None or w.kind != FEED_WIN:
        return ""
    return f" [bold red]⚠ {say('hint_danger', lang, cost=w.cost)}[/]"


def question_text(fe: Renderer, view: PrivateView | None, question: Question) -> str:
    """The service's question before a move (kwx.table.press.Question), rendered: for 亮倒 what it reveals and
    its waits, for a costly discard (and a 亮倒 that pays a declared hand) what it costs and who gains."""
    parts: list[str] = []
    tile = question.tile
    if question.verb == "liangdao" and view is not None:
        held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        if tile in held:
            held.remove(tile)
        parts.append(liangdao_text(tile, sorted(held), view.discard_waits.get(tile, ()), fe.lang,
                                   tiles=lambda ts: tiles_markup(ts, fe.lang), tile=lambda x: tile_markup(x, fe.lang)))
    if question.warning is not None:
        said = warning_text(question.warning, fe.lang, tile=lambda x: tile_markup(x, fe.lang), name=fe.name)
        parts.append(f"[bold red]⚠ {said}[/]")
    return "\n".join(parts)


def is_yes(line: str) -> bool:
    return line.strip().lower() in YES_WORDS
