"""A player's private hand panel: the same embed and buttons in a DM and in the ephemeral "My hand" message.

The hand is sorted with the drawn tile apart, the waits shown when ready (and, on a turn, which discards keep
the hand ready). Buttons — at most 25, five to a row, sized for a phone:
- rows 0–2: one button per distinct tile that may be discarded (the drawn tile highlighted);
- then 胡 / 杠 (one per kong tile) / 碰 / 亮倒 / 过 when legal, or the 漂 amounts in the 漂 phase.
亮倒 always names the tile it discards. Rather than a second row of tiles, the 亮倒 button switches the panel to
a "亮倒 mode" showing only the tiles whose discard allows 亮倒 (and a Back button): two taps, no clutter.
Costly moves ask once ("confirm mode"): picking the 亮倒 tile shows the hand it reveals and its waits; a tile that
wins for another seat's 亮倒 hand (胡口牌, from the private view's public facts) is a red ⚠ button, and pressing
it says what it costs (包胡) unless the player turned that question off. A tile a 亮倒 hand may 直杠 (the fourth of its
revealed triplet) is marked the same way and asks once with the 直杠 money.

Every prompt opens with one line of the table (who discarded what, the wall, each 亮倒 seat's waits), waits show how
many of each are still unseen to the player ("听 4p(2) 7p(3)"), a 摸切 button discards the drawn tile, and an
auto-pass toggle (kept per player and server) passes every claim but a win at once.

Every button's custom id names the table, hand and step (cogs/buttons.py), so a press on an old panel is
refused by the service as stale. When the hand's result is posted the panel becomes one line (`hand_over_line`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, TypedDict

import discord

from cogs.board import footer, meld_text, seat_name, timestamp, verb_text
from cogs.buttons import NO_ARG, ActButton, ActId, PanelVerb, act_arg
from cogs.emoji import TileFormatter
from kwx.engine.tiles import Tile
from kwx.present.i18n import tr
from kwx.present.numbers import signed_points
from kwx.table.advice import warning_for
from kwx.table.advice_text import liangdao_text, warning_text, zimo_text
from kwx.table.views import ActionChoice, PrivateView, PublicView, ResultView, WinnerView

NORMAL, LIANGDAO, CONFIRM = "normal", "liangdao", "confirm"
MAX_BUTTONS = 25
PER_ROW = 5
READY_HINTS = 5  # at most this many "discard X → waiting on Y" lines


def panel_key(view: PrivateView, auto_pass: bool = False, mode: str = NORMAL,
              confirm: ActionChoice | None = None) -> str:
    """A stable digest of everything the panel shows (to skip sending what the player already sees)."""
    parts = (view.table_id, view.hand_no, view.step, view.concealed, view.drawn, view.melds, view.choices,
             view.deadline, view.waits, view.claim_tile, view.liangdao, view.autoplay, sorted(view.danger),
             view.last_discard, view.wall_remaining, sorted(view.unseen.items()), sorted(view.kong_feed), auto_pass,
             view.warnings, view.zimo_gain, mode, confirm)
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:16]


def waits_text(tiles: Sequence[Tile], view: PrivateView, fmt: TileFormatter) -> str:
    """Waits with how many of each the player has not seen yet: 4p(2) 7p(3)."""
    return " ".join(f"{fmt.tile(w)}({view.unseen[w]})" if w in view.unseen else fmt.tile(w) for w in tiles)


def context_line(view: PrivateView, board: PublicView | None, lang: str, fmt: TileFormatter) -> str:
    """What a player needs of the table to decide, without switching to the channel: who discarded what (or
    added to a kong), the wall, each 亮倒 seat's waits."""
    parts: list[str] = []

    def name(seat: int) -> str:
        if seat == view.seat:
            return tr("panel.you", lang)
        return seat_name(board, seat, lang) if board is not None else "?"

    if view.claim_tile is not None and board is not None and board.claim_kind == "bugang" \
            and board.turn_seat is not None:
        parts.append(tr("event.bugang", lang, player=name(board.turn_seat), tile=fmt.tile(view.claim_tile)))
    elif view.last_discard is not None and not _claimed(view.last_discard[0], board):
        seat, tile = view.last_discard
        parts.append(tr("event.discard", lang, player=name(seat), tile=fmt.tile(tile)))
    parts.append(tr("panel.context_wall", lang, count=view.wall_remaining))
    if board is not None and board.hand_no == view.hand_no:
        for s in board.seats:
            if s.liangdao and s.seat != view.seat:
                parts.append(tr("panel.context_declared", lang, player=name(s.seat),
                                tiles=waits_text(s.waits, view, fmt)))
    return " · ".join(parts)


def _claimed(seat: int, board: PublicView | None) -> bool:
    """Whether that seat's latest discard was taken (a 碰 or 杠, one's own included): no longer on the table."""
    if board is None or not 0 <= seat < len(board.seats) or not board.seats[seat].pond:
        return False
    return board.seats[seat].pond[-1][1]


def _verbs(view: PrivateView) -> set[str]:
    return {c.verb for c in view.choices}


def confirm_text(view: PrivateView, choice: ActionChoice, lang: str, fmt: TileFormatter,
                 board: PublicView | None = None) -> str:
    """The question before a costly move (kwx.table.press asks it): 亮倒 (what is revealed, the waits) and a
    discard that feeds a declared hand's win or 直杠, with what it costs and who gains (kwx.table.advice)."""
    tile = choice.tile
    assert tile is not None
    parts: list[str] = []
    if choice.verb == "liangdao":
        held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        held.remove(tile)
        parts.append(liangdao_text(tile, sorted(held), view.discard_waits.get(tile, ()), lang, tiles=fmt.tiles,
                                   tile=fmt.tile))
    warning = warning_for(view.warnings, choice.verb, tile)
    if warning is not None:
        parts.append(warning_text(warning, lang, tile=fmt.tile, name=lambda s: _name(view, board, s, lang)))
    parts.append(tr("warning.sure", lang))
    return "\n".join(parts)


def _name(view: PrivateView, board: PublicView | None, seat: int, lang: str) -> str:
    if seat == view.seat:
        return tr("panel.you", lang)
    return seat_name(board, seat, lang) if board is not None else "?"


def asks_before(view: PrivateView, tile: Tile) -> bool:
    """A discard the panel marks: it feeds a 亮倒 hand's win or its 直杠 (the service asks before it)."""
    return warning_for(view.warnings, "discard", tile) is not None


def panel_embed(view: PrivateView, lang: str, fmt: TileFormatter, *, mode: str = NORMAL,
                piao_max: int = 0, confirm: ActionChoice | None = None, board: PublicView | None = None,
                auto_pass: bool = False) -> discord.Embed:
    lines: list[str] = []
    if view.choices and "piao" not in _verbs(view) and view.concealed:
        lines.append(context_line(view, board, lang, fmt))
    hand = fmt.tiles(view.concealed) if view.concealed else ""
    if view.drawn is not None:
        hand = tr("board.hand_and_draw", lang, hand=hand, drew=tr("board.you_drew", lang, tile=fmt.tile(view.drawn)))
    if hand:
        lines.append(hand)
    if view.melds:
        lines.append(f"{tr('board.melds', lang)} {meld_text(view.melds, fmt, lang)}")
    if view.liangdao:
        lines.append(f"{tr('term.liangdao', lang)} · {tr('board.waits', lang, tiles=waits_text(view.waits, view, fmt))}")
    elif view.waits:
        lines.append(tr("board.waits", lang, tiles=waits_text(view.waits, view, fmt)))
    prompt = _prompt(view, lang, fmt, mode, piao_max)
    if prompt:
        due = timestamp(view.deadline)
        lines.append(f"**{prompt}**" + (f" · {tr('board.deadline', lang, time=due)}" if due else ""))
    if mode == NORMAL and view.discard_waits and "discard" in _verbs(view):
        # the discards that leave the most live waits first
        hints = sorted(view.discard_waits.items(),
                       key=lambda kv: (-sum(view.unseen.get(w, 4) for w in kv[1]), -len(kv[1])))[:READY_HINTS]
        lines += [tr("panel.ready_discard", lang, tile=fmt.tile(tile), waits=waits_text(ws, view, fmt))
                  + _hint_mark(view, tile, lang) for tile, ws in hints]
    if mode == LIANGDAO:  # what each 亮倒 pick would wait on, with how many of each are left to the player
        picks = sorted({c.tile for c in view.choices if c.verb == "liangdao" and c.tile is not None})
        lines += [tr("panel.ready_discard", lang, tile=fmt.tile(tile),
                     waits=waits_text(view.discard_waits.get(tile, ()), view, fmt)) for tile in picks]
    held = set(view.concealed) | ({view.drawn} if view.drawn is not None else set())
    danger = sorted(x for x in view.danger if x in held)
    if mode == NORMAL and danger and "discard" in _verbs(view):
        lines.append(tr("panel.danger", lang, tiles=fmt.tiles(danger)))
    kong_feed = sorted(x for x in view.kong_feed if x in held and x not in view.danger)
    if mode == NORMAL and kong_feed and "discard" in _verbs(view):
        lines.append(tr("panel.kong_feed", lang, tiles=fmt.tiles(kong_feed)))
    if mode == CONFIRM and confirm is not None:
        lines.append(f"**{confirm_text(view, confirm, lang, fmt, board)}**")
    if view.autoplay:
        lines.append(tr("panel.autoplay", lang))
    elif auto_pass and view.choices:
        lines.append(tr("panel.auto_pass_told", lang))
    embed = discord.Embed(title=tr("panel.title", lang, hand=view.hand_no), description="\n".join(lines) or "\u200b",
                          colour=discord.Colour.dark_teal() if view.choices else discord.Colour.dark_grey())
    embed.set_footer(text=footer(view.table_id, view.hand_no, lang))
    return embed


def _hint_mark(view: PrivateView, tile: Tile, lang: str) -> str:
    if tile in view.danger:
        return f" **{tr('panel.hint_danger', lang)}**"
    if tile in view.kong_feed:
        return f" **{tr('panel.hint_kong', lang)}**"
    return ""


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
    if "hu" in verbs and view.zimo_gain is not None and view.drawn is not None:
        return zimo_text(view.drawn, view.zimo_gain, lang, tile=fmt.tile)
    if "discard" in verbs or "liangdao" in verbs:
        return tr("board.your_turn", lang)
    return tr("panel.decide", lang)


def _tile_button(view: PrivateView, verb: PanelVerb, tile: Tile, fmt: TileFormatter, *, label: str | None,
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
                  disabled: bool = False, confirm: ActionChoice | None = None, auto_pass: bool = False,
                  link: str | None = None) -> discord.ui.View | None:
    """The panel's buttons, or None when nothing is asked of the player (and no `link` is given). `link`: the
    player's personal URL of the table page, a link button after the actions when there is room for it."""
    extra: list[discord.ui.Item[Any]] = []
    if link is not None:  # a link button: Discord opens the URL itself, no interaction reaches the bot
        extra.append(discord.ui.Button(style=discord.ButtonStyle.link, url=link, label=tr("web.open_in_browser", lang)))
    if not view.choices:
        return _layout([], extra) if extra else None
    verbs = _verbs(view)
    tiles_row: list[ActButton] = []
    actions: list[ActButton] = []

    def act(verb: PanelVerb, arg: str = NO_ARG) -> ActId:
        return ActId(view.table_id, view.hand_no, view.step, verb, arg)

    if "piao" in verbs:
        for amount in range(min(piao_max, MAX_BUTTONS - 1) + 1):
            actions.append(ActButton(act(PanelVerb.PIAO, str(amount)), label=f"{tr('term.piao', lang)} {amount}",
                                     style=discord.ButtonStyle.primary if amount else discord.ButtonStyle.secondary,
                                     disabled=disabled))
    elif mode == CONFIRM and confirm is not None and confirm.tile is not None:
        if confirm.verb == "liangdao":
            actions.append(_tile_button(view, PanelVerb.CONFIRM_LIANGDAO, confirm.tile, fmt, label=tr("panel.liangdao_go", lang),
                                        style=discord.ButtonStyle.danger, disabled=disabled))
        else:
            actions.append(_tile_button(view, PanelVerb.CONFIRM_DISCARD, confirm.tile, fmt, label=tr("panel.confirm_go", lang),
                                        style=discord.ButtonStyle.danger, disabled=disabled))
            actions.append(_tile_button(view, PanelVerb.CONFIRM_DISCARD_NEVER_ASK, confirm.tile, fmt, label=tr("panel.confirm_never", lang),
                                        style=discord.ButtonStyle.secondary, disabled=disabled))
        actions.append(ActButton(act(PanelVerb.BACK), label=tr("panel.back", lang), disabled=disabled))
    elif mode == LIANGDAO:
        for tile in sorted({c.tile for c in view.choices if c.verb == "liangdao" and c.tile is not None}):
            tiles_row.append(_tile_button(view, PanelVerb.LIANGDAO, tile, fmt, label=tr("action.liangdao", lang),
                                          style=discord.ButtonStyle.danger, disabled=disabled))
        actions.append(ActButton(act(PanelVerb.BACK), label=tr("panel.back", lang), disabled=disabled))
    else:
        for tile in sorted({c.tile for c in view.choices if c.verb == "discard" and c.tile is not None}):
            style = discord.ButtonStyle.primary if tile == view.drawn else discord.ButtonStyle.secondary
            label = None
            if asks_before(view, tile):  # 胡口牌 or a 直杠 for a 亮倒 hand: red and flagged
                style, label = discord.ButtonStyle.danger, "⚠"
            tiles_row.append(_tile_button(view, PanelVerb.DISCARD, tile, fmt, label=label, style=style, disabled=disabled))
        drawn = view.drawn
        if drawn is not None and ActionChoice("discard", drawn) in view.choices:  # 摸切
            style = discord.ButtonStyle.danger if asks_before(view, drawn) else discord.ButtonStyle.secondary
            actions.append(ActButton(act(PanelVerb.MOQIE, act_arg(drawn)), label=tr("action.moqie", lang), style=style,
                                     disabled=disabled))
        if "hu" in verbs:
            label = tr("action.zimo" if view.claim_tile is None else "action.hu", lang)
            actions.append(ActButton(act(PanelVerb.HU), label=label, style=discord.ButtonStyle.success, disabled=disabled))
        for c in view.choices:
            if c.verb == "gang":
                if c.tile is None:
                    actions.append(ActButton(act(PanelVerb.GANG), label=tr("action.gang", lang),
                                             style=discord.ButtonStyle.primary, disabled=disabled))
                else:
                    actions.append(_tile_button(view, PanelVerb.GANG, c.tile, fmt, label=tr("action.gang", lang),
                                                style=discord.ButtonStyle.primary, disabled=disabled))
        if "peng" in verbs:
            actions.append(ActButton(act(PanelVerb.PENG), label=tr("action.peng", lang), style=discord.ButtonStyle.primary,
                                     disabled=disabled))
        if "liangdao" in verbs:
            actions.append(ActButton(act(PanelVerb.SHOW_LIANGDAO_PICKS), label=tr("action.liangdao", lang), style=discord.ButtonStyle.danger,
                                     disabled=disabled))
        if "pass" in verbs:
            actions.append(ActButton(act(PanelVerb.PASS), label=tr("action.pass", lang), disabled=disabled))
        actions.append(ActButton(act(PanelVerb.TOGGLE_AUTO_PASS), label=tr("panel.auto_pass_on" if auto_pass else "panel.auto_pass_off", lang),
                                 style=discord.ButtonStyle.success if auto_pass else discord.ButtonStyle.secondary,
                                 disabled=disabled))
    return _layout(tiles_row, [*actions, *extra])


def _layout(tiles: Sequence[ActButton], actions: Sequence[discord.ui.Item[Any]]) -> discord.ui.View:
    """Tiles first (rows 0–2), the actions on the rows after them; never more than 25 buttons (the last actions,
    the link first, give way)."""
    view = discord.ui.View(timeout=None)
    tiles = list(tiles)[: 3 * PER_ROW]
    first_action_row = -(-len(tiles) // PER_ROW)
    actions = list(actions)[: (5 - first_action_row) * PER_ROW]
    for i, tile in enumerate(tiles):
        tile.row = i // PER_ROW
        view.add_item(tile)
    for i, item in enumerate(actions):
        item.row = first_action_row + i // PER_ROW
        view.add_item(item)
    return view


class PanelMessage(TypedDict, total=False):
    """A private panel as keyword arguments for send / edit (`view=None` removes old buttons, on an edit)."""

    content: str | None  # None on an edit removes old text (a panel that had collapsed to its end line)
    embed: discord.Embed
    view: discord.ui.View | None


def panel_message(view: PrivateView, lang: str, fmt: TileFormatter, *, mode: str = NORMAL, piao_max: int = 0,
                  disabled: bool = False, confirm: ActionChoice | None = None, board: PublicView | None = None,
                  auto_pass: bool = False, link: str | None = None) -> PanelMessage:
    """Keyword arguments for send / edit: the embed and the buttons (view=None removes old buttons). `mode`
    CONFIRM with `confirm` asks before that move (亮倒, or a discard that feeds a 亮倒 hand). `board`: the table's
    public view, for the context line (names, 亮倒 waits); `auto_pass`: the player's toggle; `link`: the
    player's personal link to the table page (cogs.web.personal_link), a link button."""
    return {"content": None,
            "embed": panel_embed(view, lang, fmt, mode=mode, piao_max=piao_max, confirm=confirm, board=board,
                                 auto_pass=auto_pass),
            "view": panel_buttons(view, lang, fmt, mode=mode, piao_max=piao_max, disabled=disabled, confirm=confirm,
                                  auto_pass=auto_pass, link=link)}


def hand_over_line(result: ResultView, view: PublicView, seat: int, lang: str, fmt: TileFormatter) -> str:
    """牌桌 7 · 第 3 局 · 本局结束：bob 自摸 5s · 你 −2 — the hand's end as one seat reads it."""
    def name(s: int | None) -> str:
        return tr("panel.you", lang) if s == seat else seat_name(view, s, lang)

    def won(w: WinnerView) -> str:
        key = "dm.won_self" if w.self_draw else "dm.you_won_on" if w.seat == seat else \
            "dm.won_on_you" if w.from_seat == seat else "dm.won_on"
        return tr(key, lang, winner=name(w.seat), loser=name(w.from_seat), tile=fmt.tile(w.win_tile))

    wins = [won(w) for w in result.winners]
    outcome = tr("common.list_sep", lang).join(wins) if wins else tr("term.huangzhuang", lang)
    net = result.net[seat] if 0 <= seat < len(result.net) else 0
    return tr("dm.hand_over", lang, where=footer(result.table_id, result.hand_no, lang), outcome=outcome,
             net=signed_points(net))
