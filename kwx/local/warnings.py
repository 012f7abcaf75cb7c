"""Warnings before costly moves at the terminal (both modes), drawn from the service's facts (kwx.table.advice,
in the words of kwx.table.advice_text, as every front end): 胡口牌 (tiles that win for a declared 亮倒 hand) and a
discard a 亮倒 hand may 直杠, each with what it costs and who gains, and the preview before declaring 亮倒.

`CONFIRM_SETTING` is the per-player setting (the store's guild settings, keyed by player) that turns the
confirmation before discarding a 胡口牌 off; 亮倒 always asks once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from kwx.engine.tiles import Tile
from kwx.local.text import say, tile_markup, tiles_markup
from kwx.present.i18n import join_names
from kwx.store.settings import CONFIRM_DANGER
from kwx.table.advice import FEED_KONG, FEED_WIN, warning_for
from kwx.table.advice_text import liangdao_text, warning_text
from kwx.table.views import ActionChoice, PrivateView

CONFIRM_SETTING = CONFIRM_DANGER  # "off" turns the confirmation before discarding a 胡口牌 off
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


def warning(fe: Renderer, view: PrivateView, choice: ActionChoice, *, confirm_danger: bool = True) -> str | None:
    """The question to ask before `choice`, or None when it needs none: 亮倒 always (what it reveals), a
    discard that pays a declared hand (kwx.table.advice: its exact cost and who gains) unless turned off."""
    parts: list[str] = []
    tile = choice.tile
    if tile is None:
        return None
    if choice.verb == "liangdao":
        held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        held.remove(tile)
        parts.append(liangdao_text(tile, sorted(held), view.discard_waits.get(tile, ()), fe.lang,
                                   tiles=lambda ts: tiles_markup(ts, fe.lang), tile=lambda x: tile_markup(x, fe.lang)))
    w = warning_for(view.warnings, choice.verb, tile)
    if w is not None and (confirm_danger or choice.verb == "liangdao"):
        said = warning_text(w, fe.lang, tile=lambda x: tile_markup(x, fe.lang), name=fe.name)
        parts.append(f"[bold red]⚠ {said}[/]")
    return "\n".join(parts) if parts else None


async def confirm_setting(store: Any, guild: str, player_id: str) -> bool:
    """Whether the player wants the confirmation before discarding a 胡口牌 (on unless turned off)."""
    getter = getattr(store, "player_setting", None)
    if getter is None:
        return True
    try:
        setting: str | None = await getter(guild, player_id, CONFIRM_SETTING)
        return setting != "off"
    except Exception:
        return True


async def set_confirm_setting(store: Any, guild: str, player_id: str, on: bool) -> None:
    await store.set_player_setting(guild, player_id, CONFIRM_SETTING, None if on else "off")


def is_yes(line: str) -> bool:
    return line.strip().lower() in YES_WORDS


def tiles_of(choices: Iterable[ActionChoice]) -> list[Tile]:
    return [c.tile for c in choices if c.tile is not None]
