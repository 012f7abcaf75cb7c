"""The public messages of a table: the lobby, the board of each hand (亮倒 reveals included) and the table list;
a hand's result post is cogs/result_post.py.

Pure rendering: each function takes the service's views (which never hold a concealed tile, see
kwx/table/viewbuild.py), the server's language and a TileFormatter, and returns embeds (and buttons, files).
Nothing here sends anything; `cogs/frontend.py` decides when to send or edit.

Sizes: a board with tile emojis (~29 characters a tile) stays well inside Discord's embed limits in practice;
when a render would not fit (1024 a field, 4096 a description, 6000 a message) it is done again with text
tiles (5筒), which are ten times shorter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import discord

from cogs.buttons import TableButton
from cogs.emoji import TileFormatter
from kwx.engine.tiles import Tile, TileError, parse_tile
from kwx.present.i18n import catalog, join_names, tr
from kwx.present.numbers import signed_points
from kwx.table.views import (
    MeldView,
    PlayerRef,
    PublicView,
    SeatView,
    TableInfo,
    TableSummary,
)

MAX_LISTED = 15  # tables shown by /kwx tables (an embed holds 4096 characters)
TEXT_TILES = TileFormatter()  # no emojis: the fallback when emojis would overflow an embed
FIELD_MAX = 1024
DESCRIPTION_MAX = 4096
MESSAGE_MAX = 6000
RECENT_LINES = 4  # how many of the latest actions the board lists
NEWEST_MARK = "➤{tile}"  # a pond's newest discard, set apart from the older ones by a space

COLOR_LOBBY = discord.Colour.blurple()
COLOR_PLAY = discord.Colour.dark_green()
COLOR_DONE = discord.Colour.dark_grey()
COLOR_WIN = discord.Colour.gold()

Line = tuple[Any, ...]  # ("event", public event dict) | ("notice", key, fmt)


# -- small helpers ---------------------------------------------------------------------------------------
def esc(text: str) -> str:
    """A player's name, safe inside markdown (no formatting, no pings)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def player_name(player: PlayerRef, lang: str) -> str:
    """A seat's name as players read it; an AI seat's name says so itself ("AI 1")."""
    return esc(player.name)


def preset_name(preset: str, lang: str) -> str:
    """A rules preset as players read it ("标准"), its id beside it when the name is a translation."""
    key = f"choice.{preset}"
    name = tr(key, lang) if catalog().template(key, lang) is not None else preset
    return name if name.lower() == preset else f"{name} ({preset})"


def seat_name(view: PublicView, seat: int | None, lang: str) -> str:
    if seat is None or not 0 <= seat < len(view.seats):
        return "?"
    return player_name(view.seats[seat].player, lang)



def timestamp(deadline: float | None) -> str | None:
    """A Discord relative timestamp ("in 25 seconds"), which every client counts down by itself."""
    return None if deadline is None else f"<t:{int(deadline)}:R>"


def _tile(text: Any) -> Tile | None:
    if text is None:
        return None
    if isinstance(text, int):
        return Tile(text)
    try:
        return parse_tile(str(text))
    except TileError:
        return None


def meld_row(meld: MeldView) -> list[int | None]:
    """A meld's tiles as shown, None face down. A concealed kong lies with both ends face down and its tile
    between (■55■, as 雀魂 shows one) where its tile may be seen — its owner, or after 亮倒 or the hand —
    and as four backs where it may not: anyone can tell it from an exposed kong at a glance."""
    if meld.kind == "pung":
        return [None if meld.tile is None else int(meld.tile)] * 3
    if meld.tile is None:
        return [None] * 4
    tile = int(meld.tile)
    return [None, tile, tile, None] if meld.kind == "ankong" else [tile] * 4


def meld_text(melds: Iterable[MeldView], fmt: TileFormatter, lang: str) -> str:
    """Each meld apart from the next (board.meld_sep: ｜ in Chinese, | in English): tile emojis sit edge to edge,
    so a gap alone is lost."""
    return tr("board.meld_sep", lang).join(fmt.row(meld_row(m)) for m in melds)


def hand_text(tiles: Sequence[int], melds: Iterable[MeldView], fmt: TileFormatter, lang: str) -> str:
    """Concealed tiles, then each meld, set apart by board.meld_sep."""
    melds_part = meld_text(melds, fmt, lang)
    hand_part = fmt.tiles(tiles) if tiles else ""
    return tr("board.meld_sep", lang).join(p for p in (hand_part, melds_part) if p) or tr("common.none", lang)


def pond_text(seat: SeatView, fmt: TileFormatter, lang: str) -> str:
    """A seat's discards in order: a tile another seat claimed stays in its place, faded (struck through as
    text), and the newest is marked (NEWEST_MARK), so a glance finds what was just thrown."""
    pond = seat.pond or tuple((tile, False) for tile in seat.discards)
    if not pond:
        return tr("common.none", lang)
    parts = [fmt.claimed(tile) if claimed else fmt.tile(tile) for tile, claimed in pond]
    emojis = all(p.startswith("<:") for p in parts)
    older = ("" if emojis else " ").join(parts[:-1])
    return (older + " " if older else "") + NEWEST_MARK.format(tile=parts[-1])


def verb_text(verb: Any, lang: str) -> str:
    key = f"action.{verb}"
    return tr(key, lang) if catalog().template(key, lang) is not None else str(verb)


def fits(embeds: Sequence[discord.Embed]) -> bool:
    if sum(len(e) for e in embeds) > MESSAGE_MAX:
        return False
    for e in embeds:
        if e.description and len(e.description) > DESCRIPTION_MAX:
            return False
        if any(len(f.value or "") > FIELD_MAX or len(f.name or "") > 256 for f in e.fields):
            return False
        if len(e.fields) > 25:
            return False
    return True


def fitted(build: Callable[[TileFormatter], list[discord.Embed]], fmt: TileFormatter) -> list[discord.Embed]:
    """Render with emojis; again with text tiles when that does not fit Discord's limits."""
    embeds = build(fmt)
    if fmt.has_emojis and not fits(embeds):
        embeds = build(TEXT_TILES)
    if not fits(embeds):  # pathological: cut every long text rather than have Discord refuse the message
        for e in embeds:
            if e.description:
                e.description = e.description[: DESCRIPTION_MAX - 1]
            for i, f in enumerate(e.fields):
                e.set_field_at(i, name=f.name, value=(f.value or "")[: FIELD_MAX - 1], inline=f.inline)
    return embeds


def add_lines_field(embed: discord.Embed, name: str, lines: Sequence[str], *, inline: bool = False) -> None:
    """One field, or several when the lines do not fit in 1024 characters (the others named blank)."""
    chunk: list[str] = []
    size = 0
    first = True
    for line in lines:
        if chunk and size + len(line) + 1 > FIELD_MAX:
            embed.add_field(name=name if first else "\u200b", value="\n".join(chunk), inline=inline)
            first, chunk, size = False, [], 0
        chunk.append(line)  # an over-long line makes the embed not fit: `fitted` renders it again as text
        size += len(line) + 1
    embed.add_field(name=name if first else "\u200b", value="\n".join(chunk) or "\u200b", inline=inline)


def short_ref(ref: str | None) -> str:
    """A commitment as people compare it: its first 16 hex digits (the ledger keeps all of it)."""
    return (ref or "").removeprefix("sha256:")[:16]


def footer(table_id: int, hand_no: int, lang: str) -> str:
    """"Table 7 · hand 3"; before the first hand (the lobby) just "Table 7"."""
    if hand_no < 1:
        return tr("board.footer_table", lang, table=table_id)
    return tr("board.footer", lang, table=table_id, hand=hand_no)


# -- the lines of recent actions ------------------------------------------------------------------------
def event_line(event: Mapping[str, Any], view: PublicView, lang: str, fmt: TileFormatter) -> str | None:
    """One line for a public event, or None for those the board shows otherwise (draws, deals, reveals)."""
    kind = event.get("kind")
    seat = event.get("seat")
    who = seat_name(view, seat if isinstance(seat, int) else None, lang)
    tile = _tile(event.get("tile"))
    tm = fmt.tile(tile) if tile is not None else ""
    if kind == "discard":
        return tr("event.discard", lang, player=who, tile=tm)
    if kind == "liangdao":
        waits = [w for w in (_tile(x) for x in event.get("waits") or ()) if w is not None]
        return tr("event.liangdao", lang, player=who, waits=fmt.tiles(waits))
    if kind == "peng":
        return tr("event.pung", lang, player=who, tile=tm)
    if kind == "gang":
        sort = event.get("gang")
        if sort == "angang":
            return tr("event.angang", lang, player=who)
        return tr("event.bugang" if sort == "bugang" else "event.zhigang", lang, player=who, tile=tm)
    if kind == "rob_window":
        return None  # the status line shows the 补杠 while it is held; its line comes when it completes
    if kind == "hu":
        return _hu_line(event, view, lang, tm)
    if kind == "huangzhuang":
        return tr("event.huangzhuang", lang)
    if kind == "forbid_feeding":
        return tr("event.forbid_feeding", lang, player=who)
    if kind == "maima":
        return tr("event.maima", lang, tile=tm, value=event.get("value", 0))
    return None


def _hu_line(event: Mapping[str, Any], view: PublicView, lang: str, tm: str) -> str:
    names = [seat_name(view, w.get("seat"), lang) for w in event.get("winners") or ()]
    discarder = seat_name(view, event.get("from"), lang)
    if event.get("self_draw"):
        return tr("event.zimo", lang, player=names[0] if names else "?", tile=tm)
    if event.get("rob_kong"):
        return tr("event.qianggang", lang, winner=join_names(names, lang), player=discarder, tile=tm)
    if len(names) > 1:
        return tr("event.yipao_shuangxiang", lang, winners=join_names(names, lang), discarder=discarder, tile=tm)
    return tr("event.dianpao", lang, winner=names[0] if names else "?", discarder=discarder, tile=tm)


def notice_line(key: str, fmt_values: Mapping[str, Any], view: PublicView | None, lang: str) -> str:
    values: dict[str, Any] = {}
    for k, v in fmt_values.items():
        if isinstance(v, PlayerRef):
            v = player_name(v, lang)
        elif isinstance(v, str) and k in ("player", "name", "host"):
            v = esc(v)
        values[k] = v
    if isinstance(values.get("action"), str):
        values["action"] = verb_text(values["action"], lang)
    if "player" not in values and isinstance(values.get("seat"), int) and view is not None:
        values["player"] = seat_name(view, values["seat"], lang)
    return tr(key, lang, **values)


def render_lines(lines: Sequence[Line], view: PublicView, lang: str, fmt: TileFormatter) -> list[str]:
    """The latest RECENT_LINES lines (of the last few items: draws and passes show nothing)."""
    out = []
    for line in lines[-3 * RECENT_LINES:]:
        text = event_line(line[1], view, lang, fmt) if line[0] == "event" else notice_line(line[1], line[2], view, lang)
        if text:
            out.append(text)
    return out[-RECENT_LINES:]


# -- the lobby -------------------------------------------------------------------------------------------
def lobby_embed(view: PublicView, lang: str, lines: Sequence[str], *, host: PlayerRef | None = None,
                spectators: Sequence[PlayerRef] = (), capacity: int = 3) -> discord.Embed:
    desc = [tr("lobby.rules", lang, preset=preset_name(view.rules_name, lang)) + f" · {tr('term.base', lang)} {view.base}"]
    if host is not None:
        desc.append(tr("lobby.host", lang, host=player_name(host, lang)))
    seated = len(view.seats) + (1 if view.waiting_player else 0)
    desc.append(tr("lobby.ready_to_start", lang) if seated >= capacity
                else tr("lobby.waiting", lang, count=seated, total=capacity))
    embed = discord.Embed(title=tr("lobby.title", lang, table=view.table_id), description="\n".join(desc),
                          colour=COLOR_LOBBY)
    players = [s.player for s in view.seats] + ([view.waiting_player] if view.waiting_player else [])
    seat_lines = [tr("lobby.seat_line", lang, seat=i + 1, name=player_name(p, lang)) for i, p in enumerate(players)]
    seat_lines += [tr("lobby.seat_line", lang, seat=i + 1, name=tr("lobby.seat_empty", lang))
                   for i in range(len(players), capacity)]
    embed.add_field(name=tr("lobby.seats", lang), value="\n".join(seat_lines), inline=False)
    if spectators:
        names = tr("common.list_sep", lang).join(player_name(p, lang) for p in spectators)
        embed.add_field(name="\u200b", value=tr("lobby.spectators", lang, names=names)[:FIELD_MAX], inline=False)
    if lines:
        embed.add_field(name=tr("board.recent", lang), value="\n".join(lines)[:FIELD_MAX], inline=False)
    embed.set_footer(text=footer(view.table_id, view.hand_no, lang))
    return embed


def lobby_buttons(table_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(TableButton(table_id, "join", label=tr("lobby.join", lang), style=discord.ButtonStyle.success))
    view.add_item(TableButton(table_id, "leave", label=tr("lobby.leave", lang)))
    view.add_item(TableButton(table_id, "addbot", label=tr("lobby.add_ai", lang), style=discord.ButtonStyle.primary))
    view.add_item(TableButton(table_id, "start", label=tr("lobby.start", lang), style=discord.ButtonStyle.primary))
    return view


# -- the board of a hand ---------------------------------------------------------------------------------
def status_line(view: PublicView, lang: str, fmt: TileFormatter) -> str:
    if view.paused is not None:
        return tr("board.paused", lang)
    deadline = timestamp(view.deadline)
    due = f" · {tr('board.deadline', lang, time=deadline)}" if deadline else ""
    if view.phase == "turn":
        return "▶ " + tr("board.turn", lang, player=seat_name(view, view.turn_seat, lang)) + due
    if view.phase == "claim":
        # Claims are being weighed: said after every discard and 补杠 alike, since the service holds each of
        # them for the same pause whether or not anyone may claim it (kwx/table/delivery.py). So the line tells
        # nobody that a player holds a pair or a win for this tile; and no claim deadline, which would.
        tile = fmt.tile(view.claim_tile) if view.claim_tile is not None else "?"
        key = "event.bugang" if view.claim_kind == "bugang" else "board.claim_open"
        return tr("board.claims_weighed", lang) + " · " + tr(key, lang, player=seat_name(view, view.turn_seat, lang),
                                                           tile=tile)
    if view.phase == "piao":
        return tr("board.piao_phase", lang) + due
    return tr(f"phase.{view.phase}", lang) if view.phase in ("finished", "closed", "lobby") else view.phase


def seat_field(view: PublicView, seat: int, lang: str, fmt: TileFormatter) -> tuple[str, list[str]]:
    s = view.seats[seat]
    marks = []
    if s.is_dealer:
        marks.append(tr("board.dealer_mark", lang))
    if s.autoplay:
        marks.append(tr("action.autoplay_on", lang))
    if s.piao:
        marks.append(f"{tr('term.piao', lang)} {s.piao}")
    if s.liangdao:
        marks.append(tr("term.liangdao", lang))
    # ▶ only while it is this seat's move: during a claim pause the status line says claims are weighed
    turn = "▶ " if view.turn_seat == seat and view.phase == "turn" else ""
    name = f"{turn}{player_name(s.player, lang)}" + (f" [{' · '.join(marks)}]" if marks else "")
    name += "  " + tr("board.seat_total", lang, score=signed_points(s.score))
    lines = []
    if s.melds:
        lines.append(f"{tr('board.melds', lang)} {meld_text(s.melds, fmt, lang)}")
    lines.append(f"{tr('board.discards', lang)} {pond_text(s, fmt, lang)}")
    if s.liangdao:
        lines.append(f"{tr('term.liangdao', lang)} {fmt.tiles(s.revealed) if s.revealed else ''}")
        lines.append(tr("board.waits", lang, tiles=fmt.tiles(s.waits)))
    elif view.phase not in ("piao", "lobby"):
        lines.append(f"{tr('board.hand', lang)} {tr('board.hand_count', lang, count=s.concealed_count)}")
    return name[:256], lines


def board_embeds(view: PublicView, lang: str, fmt: TileFormatter, lines: Sequence[str]) -> list[discord.Embed]:
    def build(f: TileFormatter) -> list[discord.Embed]:
        dealer = next((s.seat for s in view.seats if s.is_dealer), None)
        title = tr("board.title", lang, hand=view.hand_no, dealer=seat_name(view, dealer, lang))
        desc = [status_line(view, lang, f),
                tr("board.wall", lang, count=view.wall_remaining) + f" · {tr('term.base', lang)} {view.base}"]
        colour = COLOR_PLAY if view.phase in ("turn", "claim", "piao") else COLOR_DONE
        embed = discord.Embed(title=title, description="\n".join(desc), colour=colour)
        for seat in range(len(view.seats)):
            name, seat_lines = seat_field(view, seat, lang, f)
            add_lines_field(embed, name, seat_lines)
        if view.waiting_player is not None:
            embed.add_field(name="\u200b", value=tr("board.sitting_out", lang,
                                                   player=player_name(view.waiting_player, lang)), inline=False)
        recent = render_recent(lines)
        if recent:
            embed.add_field(name=tr("board.recent", lang), value=recent, inline=False)
        text = footer(view.table_id, view.hand_no, lang)
        if view.seed_ref:  # committed before the deal; the result reveals the seed
            text += " · " + tr("board.commitment", lang, ref=short_ref(view.seed_ref))
        embed.set_footer(text=text)
        return [embed]

    return fitted(build, fmt)


def render_recent(lines: Sequence[str]) -> str:
    return "\n".join(f"· {line}" for line in lines)[:FIELD_MAX]


def board_buttons(view: PublicView, lang: str, web: Sequence[discord.ui.Item[Any]] = ()) -> discord.ui.View | None:
    """The board's "My hand" button while a hand is in play (also for players whose DMs are closed); Resume
    while the table is paused; 取消托管 while a seat is in 托管 (only that player's press counts); the table
    page's buttons (`web`, cogs.web.web_buttons) while a hand is in play."""
    playing = view.phase in ("turn", "claim", "piao")
    if not playing and view.paused is None:
        return None
    buttons = discord.ui.View(timeout=None)
    if view.paused is not None and view.phase != "closed":
        buttons.add_item(TableButton(view.table_id, "resume", label=tr("action.resume", lang),
                                     style=discord.ButtonStyle.success))
    if playing:
        buttons.add_item(TableButton(view.table_id, "hand", label=tr("action.my_hand", lang),
                                     style=discord.ButtonStyle.primary))
    if any(s.autoplay for s in view.seats) and view.paused is None:
        buttons.add_item(TableButton(view.table_id, "unauto", label=tr("action.autoplay_off", lang)))
    if playing:
        for item in web:
            buttons.add_item(item)
    return buttons


def tables_embed(infos: Sequence[TableInfo], lang: str) -> discord.Embed:
    """`/kwx tables`: each open table of the server with its running totals."""
    lines = []
    for info in infos[:MAX_LISTED]:
        where = f"<#{info.channel}>" if info.channel and info.channel.isdigit() else "—"
        players = ", ".join(player_name(p, lang) for p in info.players) or "—"
        status = tr(f"tables.status.{info.status}", lang)
        if info.paused:
            status += f" ({tr(f'tables.paused.{info.paused}', lang)})"
        seen = timestamp(info.last_human_at)
        head = tr("tables.line", lang, table=info.table_id, channel=where, status=status, hands=info.hands,
                 seen=seen or "—")
        totals = " · ".join(f"{player_name(p, lang)} {signed_points(n)}" for p, n in info.summary.net if n)
        lines.append(f"{head}\n{players}" + (f"\n{totals}" if totals else ""))
    if len(infos) > MAX_LISTED:
        lines.append(tr("tables.more", lang, n=len(infos) - MAX_LISTED))
    return discord.Embed(title=tr("tables.title", lang, n=len(infos)),
                         description="\n\n".join(lines) or tr("tables.none", lang),
                         colour=discord.Colour.blurple())


def summary_embed(summary: TableSummary, lang: str) -> discord.Embed:
    """A table's close summary: hands, each player's net here, the biggest hand, the transfers that settle it."""
    lines = [tr("summary.hands", lang, n=summary.hands)]
    for player, net in sorted(summary.net, key=lambda x: -x[1]):
        lines.append(f"{player_name(player, lang)}: **{signed_points(net)}**")
    if summary.biggest is not None:
        hand_no, winner, amount = summary.biggest
        lines.append(tr("summary.biggest", lang, hand=hand_no, player=player_name(winner, lang), amount=amount))
    if summary.transfers:
        lines.append(tr("summary.settle", lang))
        lines += [f"• {player_name(x.from_player, lang)} → {player_name(x.to_player, lang)}: {x.amount}"
                  for x in summary.transfers]
    elif summary.hands:
        lines.append(tr("summary.even", lang))
    title_key = "summary.title" if summary.reason in ("stopped", "open") else f"summary.title_{summary.reason}"
    embed = discord.Embed(title=tr(title_key, lang, table=summary.table_id), description="\n".join(lines),
                          colour=discord.Colour.dark_grey())
    return embed
