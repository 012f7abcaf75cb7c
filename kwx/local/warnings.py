"""Warnings before costly moves at the terminal (both modes): 胡口牌 (tiles that win for a declared 亮倒 hand,
from the private view's public facts) and what feeding one costs, a discard a 亮倒 hand may 直杠 and its cost, and
the preview before declaring 亮倒.

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


def cost_text(view: PrivateView, lang: str) -> str:
    return say("baohu_cost" if view.baohu_risk else "feed_cost", lang)


def danger_line(fe: Renderer, view: PrivateView) -> str | None:
    """`⚠ 胡口牌 7条 (AI 2) — 包胡: …` for the tiles you hold that win for a 亮倒 seat; None if there are none."""
    held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
    tiles = sorted({x for x in held if feeds(view, x)})
    if not tiles:
        return None
    seats = sorted({s for x in tiles for s in feeds(view, x)})
    players = join_names([fe.name(s) for s in seats], fe.lang)
    return (f"[bold red]⚠ {say('danger_legend', fe.lang, tiles=tiles_markup(tiles, fe.lang), players=players)}"
            f"[/] {cost_text(view, fe.lang)}")


def hint_suffix(view: PrivateView, tile: Tile, lang: str) -> str:
    """Appended to a "discard X → waiting on Y" hint when X feeds a 亮倒 hand: the hint says what it costs."""
    return f" [bold red]⚠ {say('hint_danger', lang, cost=cost_text(view, lang))}[/]" if feeds(view, tile) else ""


def warning(fe: Renderer, view: PrivateView, choice: ActionChoice, *, confirm_danger: bool = True) -> str | None:
    """The question to ask before `choice`, or None when it needs none."""
    parts: list[str] = []
    tile = choice.tile
    if choice.verb == "liangdao" and tile is not None:
        held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        held.remove(tile)
        waits = view.discard_waits.get(tile, ())
        parts.append(say("confirm_liangdao", fe.lang, tile=tile_markup(tile, fe.lang),
                         hand=tiles_markup(sorted(held), fe.lang), waits=tiles_markup(waits, fe.lang)))
    if choice.verb in ("discard", "liangdao") and tile is not None and feeds(view, tile) and (
            confirm_danger or choice.verb == "liangdao"):
        players = join_names([fe.name(s) for s in feeds(view, tile)], fe.lang)
        parts.append(f"[bold red]⚠ {say('confirm_discard', fe.lang, tile=tile_markup(tile, fe.lang), players=players)}"
                     f"[/] {cost_text(view, fe.lang)}")
    elif choice.verb == "discard" and tile is not None and tile in view.kong_feed and confirm_danger:
        # The fourth tile of a 亮倒 seat's revealed triplet: 直杠 money and a free draw for that seat.
        seat, cost = view.kong_feed[tile]
        said = say("confirm_kong", fe.lang, tile=tile_markup(tile, fe.lang), player=fe.name(seat), cost=cost)
        parts.append(f"[bold red]⚠ {said}[/]")
    return "\n".join(parts) if parts else None


async def confirm_setting(store: Any, guild: str, player_id: str) -> bool:
    """Whether the player wants the confirmation before discarding a 胡口牌 (on unless turned off)."""
    getter = getattr(store, "player_setting", None)
    if getter is None:
        return True
    try:
        return (await getter(guild, player_id, CONFIRM_SETTING)) != "off"
    except Exception:
        return True


async def set_confirm_setting(store: Any, guild: str, player_id: str, on: bool) -> None:
    await store.set_player_setting(guild, player_id, CONFIRM_SETTING, None if on else "off")


def is_yes(line: str) -> bool:
    return line.strip().lower() in YES_WORDS


def tiles_of(choices: Iterable[ActionChoice]) -> list[Tile]:
    return [c.tile for c in choices if c.tile is not None]
