"""A player's private hand panel: the same embed and buttons in a DM and in the ephemeral "My hand" message.

The hand is sorted with the drawn tile apart, the waits shown when ready (and, on a turn, which discards keep
the hand ready). Buttons — at most 25, five to a row, sized for a phone:
- rows 0–2: one button per distinct tile that may be discarded (the drawn tile highlighted);
- then 胡 / 杠 (one per kong tile) / 碰 / 亮倒 / 过 when legal, or the 漂 amounts in the 漂 phase.
亮倒 always names the tile it discards. Rather than a second row of tiles, the 亮倒 button switches the panel to
a "亮倒 mode" showing only the tiles whose discard allows 亮倒 (and a Back button): two taps, no clutter.
Costly moves ask once ("confirm mode"): picking the 亮倒 tile shows the hand it reveals and its waits; a tile that
wins for another seat's 亮倒 hand (胡口牌, from the private view's public facts) is a red ⚠ button, and pressing
it says what it costs (包胡) unless the player turned that question off.

Every button's custom id names the table, hand and step (cogs/buttons.py), so a press on an old panel is
refused by the service as stale.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypedDict

import discord

from cogs.board import footer, meld_text, timestamp, verb_text
from cogs.buttons import NO_ARG, ActButton, ActId, act_arg
from cogs.emoji import TileFormatter
from kwx.engine.tiles import Tile
from kwx.present.i18n import tr
from kwx.table.views import ActionChoice, PrivateView

NORMAL, LIANGDAO, CONFIRM = "normal", "liangdao", "confirm"
MAX_BUTTONS = 25
PER_ROW = 5
READY_HINTS = 5  # at most this many "discard X → waiting on Y" lines


def panel_key(view: PrivateView) -> str:
    """A stable digest of everything the panel shows (to skip sending what the player already sees)."""
    parts = (view.table_id, view.hand_no, view.step, view.concealed, view.drawn, view.melds, view.choices,
             view.deadline, view.waits, view.claim_tile, view.liangdao, view.autoplay, sorted(view.danger))
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:16]


def _verbs(view: PrivateView) -> set[str]:
    return {c.verb for c in view.choices}


def confirm_text(view: PrivateView, choice: ActionChoice, lang: str, fmt: TileFormatter) -> str:
    """The question before a costly move: 亮倒 (what is revealed, the waits) and feeding a 亮倒 hand (包胡)."""
    tile = choice.tile
    assert tile is not None
    parts: list[str] = []
    if choice.verb == "liangdao":
        held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        held.remove(tile)
        parts.append(tr("panel.confirm_liangdao", lang, tile=fmt.tile(tile), hand=fmt.tiles(sorted(held)),
                       waits=fmt.tiles(view.discard_waits.get(tile, ()))))
    if tile in view.danger:
        parts.append(tr("panel.confirm_discard", lang, tile=fmt.tile(tile), cost=_cost(view, lang)))
    return "\n".join(parts)


def _cost(view: PrivateView, lang: str) -> str:
    return tr("panel.baohu_cost" if view.baohu_risk else "panel.feed_cost", lang)


def panel_embed(view: PrivateView, lang: str, fmt: TileFormatter, *, mode: str = NORMAL,
                piao_max: int = 0, confirm: ActionChoice | None = None) -> discord.Embed:
    lines: list[str] = []
    hand = fmt.tiles(view.concealed) if view.concealed else ""
    if view.drawn is not None:
        hand = f"{hand}　{tr('board.you_drew', lang, tile=fmt.tile(view.drawn))}"
    if hand:
        lines.append(hand)
    if view.melds:
        lines.append(f"{tr('board.melds', lang)} {meld_text(view.melds, fmt)}")
    if view.liangdao:
        lines.append(f"{tr('term.liangdao', lang)} · {tr('board.waits', lang, tiles=fmt.tiles(view.waits))}")
    elif view.waits:
        lines.append(tr("board.waits", lang, tiles=fmt.tiles(view.waits)))
    prompt = _prompt(view, lang, fmt, mode, piao_max)
    if prompt:
        due = timestamp(view.deadline)
        lines.append(f"**{prompt}**" + (f" · {tr('board.deadline', lang, time=due)}" if due else ""))
    if mode == NORMAL and view.discard_waits and "discard" in _verbs(view):
        hints = sorted(view.discard_waits.items(), key=lambda kv: -len(kv[1]))[:READY_HINTS]
        lines += [tr("panel.ready_discard", lang, tile=fmt.tile(tile), waits=fmt.tiles(ws))
                  + (f" **{tr('panel.hint_danger', lang)}**" if tile in view.danger else "") for tile, ws in hints]
    held = set(view.concealed) | ({view.drawn} if view.drawn is not None else set())
    danger = sorted(x for x in view.danger if x in held)
    if mode == NORMAL and danger and "discard" in _verbs(view):
        lines.append(f"{tr('panel.danger', lang, tiles=fmt.tiles(danger))} {_cost(view, lang)}")
    if mode == CONFIRM and confirm is not None:
        lines.append(f"**{confirm_text(view, confirm, lang, fmt)}**")
    if view.autoplay:
        lines.append(tr("panel.autoplay", lang))
    embed = discord.Embed(title=tr("panel.title", lang, hand=view.hand_no), description="\n".join(lines) or "\u200b",
                          colour=discord.Colour.dark_teal() if view.choices else discord.Colour.dark_grey())
    embed.set_footer(text=footer(view.table_id, view.hand_no, lang))
    return embed


def _prompt(view: PrivateView, lang: str, fmt: TileFormatter, mode: str, piao_max: int) -> str | None:
    verbs = _verbs(view)
    if not verbs:
        return None
    if "piao" in verbs:
        return tr("panel.piao", lang, max=piao_max)
    if mode == LIANGDAO:
        return tr("panel.liangdao_pick", lang)
    if view.claim_tile is not None:
        actions = tr("common.list_sep", lang).join(verb_text(v, lang) for v in ("hu", "gang", "peng") if v in verbs)
        return tr("board.can_claim", lang, tile=fmt.tile(view.claim_tile), actions=actions or verb_text("pass", lang))
    if "discard" in verbs or "liangdao" in verbs:
        return tr("board.your_turn", lang)
    return tr("panel.decide", lang)


def _tile_button(view: PrivateView, verb: str, tile: Tile, fmt: TileFormatter, *, label: str | None,
                 style: discord.ButtonStyle, disabled: bool) -> ActButton:
    emoji = fmt.partial_emoji(tile)
    text = fmt.text(tile)
    if label is None and emoji is None:
        label = text
    elif label is not None and emoji is None:
        label = f"{label} {text}"
    act = ActId(view.table_id, view.hand_no, view.step, verb, act_arg(tile))
    return ActButton(act, label=label, emoji=emoji, style=style, disabled=disabled)


def panel_buttons(view: PrivateView, lang: str, fmt: TileFormatter, *, mode: str = NORMAL, piao_max: int = 0,
                  disabled: bool = False, confirm: ActionChoice | None = None) -> discord.ui.View | None:
    """The panel's buttons, or None when nothing is asked of the player."""
    if not view.choices:
        return None
    verbs = _verbs(view)
    tiles_row: list[ActButton] = []
    actions: list[ActButton] = []

    def act(verb: str, arg: str = NO_ARG) -> ActId:
        return ActId(view.table_id, view.hand_no, view.step, verb, arg)

    if "piao" in verbs:
        for amount in range(min(piao_max, MAX_BUTTONS - 1) + 1):
            actions.append(ActButton(act("piao", str(amount)), label=f"{tr('term.piao', lang)} {amount}",
                                     style=discord.ButtonStyle.primary if amount else discord.ButtonStyle.secondary,
                                     disabled=disabled))
    elif mode == CONFIRM and confirm is not None and confirm.tile is not None:
        if confirm.verb == "liangdao":
            actions.append(_tile_button(view, "lok", confirm.tile, fmt, label=tr("panel.liangdao_go", lang),
                                        style=discord.ButtonStyle.danger, disabled=disabled))
        else:
            actions.append(_tile_button(view, "dok", confirm.tile, fmt, label=tr("panel.confirm_go", lang),
                                        style=discord.ButtonStyle.danger, disabled=disabled))
            actions.append(_tile_button(view, "dnc", confirm.tile, fmt, label=tr("panel.confirm_never", lang),
                                        style=discord.ButtonStyle.secondary, disabled=disabled))
        actions.append(ActButton(act("back"), label=tr("panel.back", lang), disabled=disabled))
    elif mode == LIANGDAO:
        for tile in sorted({c.tile for c in view.choices if c.verb == "liangdao" and c.tile is not None}):
            tiles_row.append(_tile_button(view, "liangdao", tile, fmt, label=tr("action.liangdao", lang),
                                          style=discord.ButtonStyle.danger, disabled=disabled))
        actions.append(ActButton(act("back"), label=tr("panel.back", lang), disabled=disabled))
    else:
        for tile in sorted({c.tile for c in view.choices if c.verb == "discard" and c.tile is not None}):
            style = discord.ButtonStyle.primary if tile == view.drawn else discord.ButtonStyle.secondary
            label = None
            if tile in view.danger:  # 胡口牌: red and flagged
                style, label = discord.ButtonStyle.danger, "⚠"
            tiles_row.append(_tile_button(view, "discard", tile, fmt, label=label, style=style, disabled=disabled))
        if "hu" in verbs:
            label = tr("action.zimo" if view.claim_tile is None else "action.hu", lang)
            actions.append(ActButton(act("hu"), label=label, style=discord.ButtonStyle.success, disabled=disabled))
        for c in view.choices:
            if c.verb == "gang":
                if c.tile is None:
                    actions.append(ActButton(act("gang"), label=tr("action.gang", lang),
                                             style=discord.ButtonStyle.primary, disabled=disabled))
                else:
                    actions.append(_tile_button(view, "gang", c.tile, fmt, label=tr("action.gang", lang),
                                                style=discord.ButtonStyle.primary, disabled=disabled))
        if "peng" in verbs:
            actions.append(ActButton(act("peng"), label=tr("action.peng", lang), style=discord.ButtonStyle.primary,
                                     disabled=disabled))
        if "liangdao" in verbs:
            actions.append(ActButton(act("ld"), label=tr("action.liangdao", lang), style=discord.ButtonStyle.danger,
                                     disabled=disabled))
        if "pass" in verbs:
            actions.append(ActButton(act("pass"), label=tr("action.pass", lang), disabled=disabled))
    return _layout(tiles_row, actions)


def _layout(tiles: Sequence[ActButton], actions: Sequence[ActButton]) -> discord.ui.View:
    """Tiles first (rows 0–2), the actions on the rows after them; never more than 25 buttons."""
    view = discord.ui.View(timeout=None)
    tiles = list(tiles)[: 3 * PER_ROW]
    first_action_row = -(-len(tiles) // PER_ROW)
    actions = list(actions)[: (5 - first_action_row) * PER_ROW]
    for i, item in enumerate(tiles):
        item.row = i // PER_ROW
        view.add_item(item)
    for i, item in enumerate(actions):
        item.row = first_action_row + i // PER_ROW
        view.add_item(item)
    return view


class PanelMessage(TypedDict, total=False):
    """A private panel as keyword arguments for send / edit (`view=None` removes old buttons, on an edit)."""

    content: str
    embed: discord.Embed
    view: discord.ui.View | None


def panel_message(view: PrivateView, lang: str, fmt: TileFormatter, *, mode: str = NORMAL, piao_max: int = 0,
                  disabled: bool = False, confirm: ActionChoice | None = None) -> PanelMessage:
    """Keyword arguments for send / edit: the embed and the buttons (view=None removes old buttons). `mode`
    CONFIRM with `confirm` asks before that move (亮倒, or a discard that feeds a 亮倒 hand)."""
    return {"embed": panel_embed(view, lang, fmt, mode=mode, piao_max=piao_max, confirm=confirm),
            "view": panel_buttons(view, lang, fmt, mode=mode, piao_max=piao_max, disabled=disabled, confirm=confirm)}
