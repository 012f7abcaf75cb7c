"""What the game screen (kwx.local.app) draws under its log, from the front end's views: the status line, your
hand with a key under each tile, the hints and warnings, and the action bar.

The action bar gives each choice but a plain discard a key (1–9, then 0) and wraps onto a second row when one
row cannot hold them all (four or five 亮倒 choices at 80 columns); should two rows still be too narrow, a run of
choices of one verb names the verb once (亮倒 3筒 · 7条 · 9条). Every choice stays visible and has its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text
from textual.screen import Screen

from kwx.engine.tiles import Tile
from kwx.local.app_port import AppFrontEnd
from kwx.local.text import say, tile_markup, tile_text, verb_label
from kwx.local.warnings import danger_lines, hint_suffix, marked_tiles
from kwx.local.widgets import ActionView, TileView
from kwx.present.i18n import tr
from kwx.table.views import ActionChoice

TILE_KEYS = "abcdefghijklmn"  # one per tile of a full hand (14)
ACTION_KEYS = "1234567890"  # one per choice that is not a plain discard
ACTION_ROWS = 2  # rows of the action bar
ACTION_GAP = 2  # columns between two choices (the CSS margin of .action)


def status_text(fe: AppFrontEnd) -> Text:
    """The status line: hand, dealer, wall, whose turn and the time left, auto-pass, 托管 or a pause."""
    lang = fe.lang
    parts: list[str] = []
    if fe.board is not None and fe.board.hand_no:
        dealer = next((s.seat for s in fe.board.seats if s.is_dealer), None)
        parts.append(tr("board.title", lang, hand=fe.board.hand_no, dealer=fe.name(dealer, fe.board)))
        parts.append(fe.status_line(fe.board))
    elif fe.auto_pass:
        parts.append(f"[cyan]{tr('panel.auto_pass_on', lang)}[/]")
    if fe.is_paused():
        parts.append(f"[bold reverse yellow] {escape(say('paused_prompt', lang))} [/]")
    elif fe.in_autoplay():
        parts.append(f"[bold reverse yellow] {escape(say('autoplay_prompt', lang))} [/]")
    text = Text.from_markup(" · ".join(parts), overflow="ellipsis")
    text.no_wrap = True
    return text


def draw_hand(screen: Screen[Any], fe: AppFrontEnd, tiles: Sequence[Tile], selected: int | None) -> None:
    """Your tiles, each with its key (⚠ on a tile the service warns of), the drawn one apart."""
    hand = fe.hand
    danger = marked_tiles(hand) if hand is not None else set()
    for i, view in enumerate(screen.query(TileView)):
        if i >= len(tiles):
            view.update("")
            view.display = False
            continue
        view.display = True
        tile = tiles[i]
        label = tile_text(tile, fe.lang)
        key = Text(f"{TILE_KEYS[i]}⚠", style="bold red") if tile in danger else Text(TILE_KEYS[i], style="dim")
        view.update(Text.assemble(label, "\n", key))
        view.set_class(hand is not None and hand.drawn is not None and i == len(tiles) - 1, "drawn")
        view.set_class(i == selected, "selected")
        view.set_class(tile in danger, "danger")


def action_labels(fe: AppFrontEnd, actions: Sequence[ActionChoice], *, grouped: bool) -> list[str]:
    """Each action's label as markup, its key first; `grouped`: after the first of a run of one verb, the tile
    alone."""
    hand = fe.hand
    labels = []
    for i, c in enumerate(actions):
        acted_on = c.tile if c.tile is not None else (
            hand.claim_tile if hand is not None and c.verb in ("gang", "peng", "hu") else None)
        same_run = grouped and i > 0 and actions[i - 1].verb == c.verb and acted_on is not None
        what = "" if same_run else verb_label(c.verb, fe.lang)
        if acted_on is not None:
            what = f"{what} {tile_markup(acted_on, fe.lang)}".strip()
        labels.append(f"[reverse] {ACTION_KEYS[i]} [/] {what}")
    return labels


def rows_of(labels: Sequence[str], width: int) -> list[list[int]]:
    """The labels' indices row by row, as many in a row as `width` columns hold."""
    rows: list[list[int]] = [[]]
    used = 0
    for i, label in enumerate(labels):
        need = cell_len(Text.from_markup(label).plain) + ACTION_GAP
        if rows[-1] and used + need > width:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += need
    return rows


def draw_actions(screen: Screen[Any], fe: AppFrontEnd, actions: Sequence[ActionChoice], width: int) -> None:
    """The action bar: one row, or two when one cannot hold every choice."""
    labels = action_labels(fe, actions, grouped=False)
    rows = rows_of(labels, width)
    if len(rows) > ACTION_ROWS:
        labels = action_labels(fe, actions, grouped=True)
        rows = rows_of(labels, width)
    bars = list(screen.query(".action-row"))
    for r, bar in enumerate(bars):
        placed = rows[r] if r < len(rows) else []
        if r == len(bars) - 1:  # the last row takes whatever is left (never more than the keys)
            placed = [i for row in rows[r:] for i in row]
        bar.display = bool(placed) or r == 0
        for slot, button in enumerate(bar.query(ActionView)):
            if slot >= len(placed):
                button.display = False
                continue
            button.index = placed[slot]
            button.display = True
            button.update(Text.from_markup(labels[placed[slot]]))


def info_text(fe: AppFrontEnd) -> Text:
    """What is asked of you, the discards that leave you ready, the ⚠ legend and what you wait on."""
    hand = fe.hand
    lang = fe.lang
    lines: list[str] = []
    if fe.is_paused():
        lines.append(f"[bold reverse yellow] {escape(say('paused_banner', lang))} [/]")
    elif fe.in_autoplay():
        lines.append(f"[bold reverse yellow] {escape(say('autoplay_banner', lang))} [/]")
    elif hand is not None and hand.choices:
        lines.append(f"[bold yellow]▶[/] {fe.prompt_line(hand)}")
        if hand.discard_waits:
            sep = "；" if lang != "en" else "; "
            items = sep.join(say("ready_discard", lang, tile=tile_markup(d, lang),
                                 waits=" ".join(tile_markup(x, lang) for x in w))
                             + hint_suffix(hand, d, lang) for d, w in sorted(hand.discard_waits.items()))
            lines.append(say("ready_discards", lang, list=items))
        lines[1:1] = danger_lines(fe, hand)
    if hand is not None and hand.waits:
        lines.append(f"[bold green]{say('waits', lang, tiles=' '.join(tile_markup(x, lang) for x in hand.waits))}[/]")
    return Text.from_markup("\n".join(lines))
