"""Rendering shared by the local front ends: the board, your hand, event lines and the result, as rich text.

`Renderer` holds what a front end knows (language, who you are, the latest board, your hand, a clock) and turns
views into rich markup or renderables; the line mode (kwx.local.plain) prints them, the game screen
(kwx.local.app) puts them into its panes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kwx.local.commands import describe_choices
from kwx.local.tables import YOU_ID
from kwx.local.text import (
    VERB_LABELS,
    catalog_text,
    money_style,
    say,
    tile_markup,
    tile_or_none,
    tile_text,
    tiles_markup,
    tiles_or_none,
    tiles_text,
)
from kwx.local.warnings import danger_lines, hint_suffix, marked_tiles
from kwx.present.formula import payment_formula
from kwx.present.i18n import pattern_name, resolve_lang, tr
from kwx.present.numbers import signed_points
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView

# Service notices worded for Discord that read otherwise at the terminal: there is no bot to restart here.
DANGER_MARK = "⚠"  # after a tile you would pay for discarding (kwx.local.warnings.marked_tiles)
TERMINAL_WORDING = {"table.restarted": "local.table_resumed"}


class Renderer:
    """Views → rich text for one local player (`player_id`) in one language."""

    def __init__(self, *, player_id: str = YOU_ID, lang: str = "zh-CN",
                 clock: Callable[[], float] = time.time) -> None:
        self.player_id = player_id
        self.lang = resolve_lang(lang)
        self.clock = clock
        self.board: PublicView | None = None
        self.hand: PrivateView | None = None
        self.auto_pass = False  # your auto-pass setting (kwx.table.player_settings), shown in the status line

    def name(self, seat: int | None, view: PublicView | None = None) -> str:
        """A seat's display name (markup-safe); you are 你 / you."""
        view = view or self.board
        if seat is None or view is None or not 0 <= seat < len(view.seats):
            return "?"
        player = view.seats[seat].player
        return self.player_name(player)

    def player_name(self, player: PlayerRef) -> str:
        if player.player_id == self.player_id:
            return f"[bold yellow]{say('you', self.lang)}[/]"
        return f"[cyan]{escape(player.name)}[/]"

    def is_you(self, seat: object, view: PublicView | None = None) -> bool:
        view = view or self.board
        return (isinstance(seat, int) and view is not None and 0 <= seat < len(view.seats)
                and view.seats[seat].player.player_id == self.player_id)

    def said(self, key: str, you: str | None = None, **fmt: Any) -> str:
        """The catalog's `key`, worded for you when the placeholder `you` names you: "You discard 5p", "wins on
        your 5p" (catalog `local.yours.<key>.<placeholder>`; Chinese needs no other form, but has the keys)."""
        if you is not None:
            text = catalog_text(f"local.yours.{key}.{you}", self.lang, **fmt)
            if text:
                return text
        return tr(key, self.lang, **fmt)

    def seconds_left(self, deadline: float | None) -> int | None:
        if deadline is None:
            return None
        return max(0, int(deadline - self.clock() + 0.5))

    def header(self, view: PublicView) -> str:
        dealer = next((s.seat for s in view.seats if s.is_dealer), None)
        title = tr("board.title", self.lang, hand=view.hand_no, dealer=self.name(dealer, view))
        base = f"{tr('term.base', self.lang)} {view.base}"
        commitment = self.commitment(view)
        return f"\n[bold]━━ {title} · {base} ━━[/]" + (f" [dim]{escape(commitment)}[/]" if commitment else "")

    def unused_timer_line(self, table_id: int, current: float) -> str:
        """`--turn-seconds` on a table that resumed: it keeps its own timer; `--new` starts another table."""
        now = say("timer_seconds", self.lang, secs=int(current)) if current else say("timer_none", self.lang)
        return f"[yellow]{escape(say('turn_seconds_unused', self.lang, table=table_id, current=now))}[/]"

    def commitment(self, view: PublicView) -> str | None:
        """The hand's commitment to its seed, shortened (the ledger and `ledger hand` keep it whole): shown from
        the deal, so the seed revealed at the end can be checked against what was promised before play."""
        ref = getattr(view, "seed_ref", None)
        if not ref:
            return None
        return say("commitment", self.lang, ref=ref.removeprefix("sha256:")[:12])

    def check_line(self, result: ResultView, hand_id: int, *, short: bool = False) -> str | None:
        """Where a finished hand's seed stays findable once its result is closed: the seed (its start when
        `short`, for the log; `ledger hand` prints it whole) and the command that checks the shuffle."""
        seed = getattr(result, "seed", None)
        if not seed:
            return None
        shown = f"{seed[:12]}…" if short and len(seed) > 12 else seed
        return f"[dim]{escape(say('hand_check', self.lang, hand=result.hand_no, seed=shown, hand_id=hand_id))}[/]"

    def event_line(self, event: Mapping[str, Any], view: PublicView) -> str | None:
        """One compact log line for a public event, or None for events the board or the result block show."""
        kind = event.get("kind")
        lang = self.lang
        seat = event.get("seat")
        tile = tile_or_none(event.get("tile"))
        tm = tile_markup(tile, lang) if tile is not None else ""
        who = self.name(seat, view) if isinstance(seat, int) else "?"
        mine = "player" if self.is_you(seat, view) else None
        if kind == "deal":
            return self.header(view)
        if kind == "discard":  # a 亮倒 discard too: the reveal line follows it
            arrow = "[dim]→[/]" if not event.get("auto") else "[dim]⇢[/]"
            return f"{arrow} {self.said('event.discard', mine, player=who, tile=tm)}"
        if kind == "peng":
            return f"[bold]◆[/] {self.said('event.pung', mine, player=who, tile=tm)}"
        if kind == "gang":
            sort = event.get("gang")
            if sort == "angang":
                return f"[bold]◆[/] {self.said('event.angang', mine, player=who)}"
            key = "event.bugang" if sort == "bugang" else "event.zhigang"
            return f"[bold]◆[/] {self.said(key, mine, player=who, tile=tm)}"
        if kind == "rob_window":
            return None  # the status line shows the 补杠 while it is held; its line comes when it completes
        if kind == "liangdao":  # after its declaring discard, before anything that follows it
            hand = tiles_markup(tiles_or_none(event.get("hand")), lang)
            waits = tiles_markup(tiles_or_none(" ".join(event.get("waits") or ())), lang)
            line = tr("board.liangdao_reveal", lang, player=who, hand=hand)
            return f"[bold magenta]★[/] {line}  [bold]{say('waits', lang, tiles=waits)}[/]"
        if kind == "hu":
            return self._hu_line(event, view, tm)
        if kind == "huangzhuang":
            return f"[bold]■[/] {tr('event.huangzhuang', lang)}"
        if kind == "forbid_feeding":
            return f"[bold]■[/] {self.said('local.forbid_feeding', mine, player=who)}"
        if kind == "maima":
            return f"[dim]· {say('maima', lang, tile=tm, value=event.get('value', 0))}[/]"
        return None  # draw, pass, reveal, settlement, service bookkeeping

    def _hu_line(self, event: Mapping[str, Any], view: PublicView, tm: str) -> str:
        lang = self.lang
        winners = [w.get("seat") for w in event.get("winners", [])]
        names = [self.name(s, view) for s in winners]
        discarder = self.name(event.get("from"), view) if event.get("from") is not None else "?"
        fed = "discarder" if self.is_you(event.get("from"), view) else None
        won = "winner" if any(self.is_you(s, view) for s in winners) else None
        if event.get("self_draw"):
            text = self.said("event.zimo", won and "player", player=names[0] if names else "?", tile=tm)
        elif event.get("rob_kong"):
            text = self.said("event.qianggang", won or (fed and "player"),
                             winner=tr("common.list_sep", lang).join(names), player=discarder, tile=tm)
        elif len(names) > 1:
            text = self.said("event.yipao_shuangxiang", fed, winners=tr("common.and", lang, a=names[0], b=names[1]),
                             discarder=discarder, tile=tm)
        else:
            text = self.said("event.dianpao", won or fed, winner=names[0] if names else "?", discarder=discarder,
                             tile=tm)
        if any(w.get("baohu") for w in event.get("winners", [])):
            text += "  " + self.said("event.baohu", fed, discarder=discarder)
        return f"[bold yellow]★ {text}[/]"

    def meld_text(self, melds: Sequence[Any]) -> Text:
        parts: list[Text] = []
        for m in melds:
            if m.tile is None:
                parts.append(Text(f"[{say('kong_hidden', self.lang)}]", style="dim"))
                continue
            n = 3 if m.kind == "pung" else 4
            label = Text("[")
            sep = " " if self.lang == "en" else ""  # GrnGrnGrn would not read
            label.append_text(tiles_text([m.tile] * n, self.lang, sep))
            label.append("]" + ("*" if m.kind == "ankong" else ""))
            parts.append(label)
        return Text(" ").join(parts)

    def seat_table(self, view: PublicView) -> Table:
        lang = self.lang
        table = Table(box=None, pad_edge=False, show_header=True, header_style="dim", expand=False)
        table.add_column(say("seat", lang), no_wrap=True)
        table.add_column(say("tiles", lang), justify="right")
        table.add_column(say("score", lang), justify="right")
        table.add_column(f"{tr('board.melds', lang)} / {tr('board.discards', lang)}", overflow="fold")
        for s in view.seats:
            marks = []
            if s.is_dealer:
                marks.append(f"[bold magenta]{tr('board.dealer_mark', lang)}[/]")
            if s.autoplay:
                marks.append(f"[yellow]{say('autoplay', lang)}[/]")
            on_turn = view.turn_seat == s.seat and view.phase in ("turn", "claim")
            pointer = "[bold yellow]▶[/]" if on_turn else " "
            name = f"{pointer} {self.name(s.seat, view)} {' '.join(marks)}".rstrip()
            body = Text()
            if s.melds:
                body.append_text(self.meld_text(s.melds))
                body.append("  ")
            body.append_text(tiles_text(s.discards, lang))
            if s.liangdao:
                body.append("\n")
                body.append(f"{tr('term.liangdao', lang)} ", style="bold magenta")
                body.append_text(tiles_text(s.revealed, lang))
                body.append("  ")
                body.append(say("waits", lang, tiles=""), style="bold")
                body.append_text(tiles_text(s.waits, lang))
            table.add_row(Text.from_markup(name), str(s.concealed_count), Text(signed_points(s.score), money_style(s.score)),
                          body)
        return table

    def status_line(self, view: PublicView) -> str:
        lang = self.lang
        parts = [tr("board.wall", lang, count=view.wall_remaining)]
        if view.phase == "turn" and view.turn_seat is not None:
            parts.append(say("turn_of", lang, player=self.name(view.turn_seat, view)))
        elif view.phase == "claim" and view.turn_seat is not None and view.claim_tile is not None:
            who, tile = self.name(view.turn_seat, view), tile_markup(view.claim_tile, lang)
            parts.append(tr("event.bugang", lang, player=who, tile=tile) if view.claim_kind == "bugang"
                         else say("claim_on", lang, player=who, tile=tile))
        secs = self.seconds_left(view.deadline)
        if secs is not None:
            parts.append(f"⏱ {secs}s")
        if self.auto_pass:
            parts.append(f"[cyan]{tr('panel.auto_pass_on', lang)}[/]")
        return " · ".join(parts)

    def hand_row(self, view: PrivateView) -> list[Text]:
        """Your tiles, the drawn one apart; in Chinese a second, dim row gives what to type for each."""
        lang = self.lang
        tiles = list(view.concealed)
        row = Text()
        codes = Text(style="dim")
        width = 4  # 5筒 and Red (an English dragon) take three columns: one more keeps tiles apart
        # 胡口牌 (wins for a 亮倒 hand) and the fourth of a 亮倒 hand's revealed triplet (its 直杠): marked alike,
        # with a character as well as a style, so that a pipe or a screen reader keeps the mark
        danger = marked_tiles(view)
        for x in tiles:
            label = tile_text(x, lang)
            if x in danger:
                label.stylize("reverse underline")
                label.append(DANGER_MARK, style="bold red")
            cell = max(width, cell_len(label.plain) + 1)
            row.append_text(label)
            row.append(" " * (cell - cell_len(label.plain)))
            codes.append(x.compact + " " * (cell - 2))
        if view.drawn is not None:
            row.append(f"  {say('drew', lang)} ", style="dim")
            pad = cell_len(say("drew", lang)) + 3
            codes.append(" " * pad)
            drawn = tile_text(view.drawn, lang)
            if view.drawn in danger:
                drawn.stylize("reverse underline")
                drawn.append(DANGER_MARK, style="bold red")
            row.append_text(drawn)
            codes.append(view.drawn.compact)
        melds = self.meld_text(view.melds)
        if view.melds:
            row.append("   ")
            row.append_text(melds)
        rows = [row]
        if resolve_lang(lang) != "en":
            rows.append(codes)
        return rows

    def hand_lines(self, view: PrivateView) -> list[Any]:
        lang = self.lang
        out: list[Any] = [f"[bold]{say('hand', lang)}[/]"]
        out.extend(self.hand_row(view))
        if view.waits:
            out.append(f"[bold green]{say('waits', lang, tiles=tiles_markup(view.waits, lang))}[/]")
        if view.discard_waits:
            sep = "；" if resolve_lang(lang) != "en" else "; "
            items = sep.join(say("ready_discard", lang, tile=tile_markup(d, lang), waits=tiles_markup(w, lang))
                             + hint_suffix(view, d, lang) for d, w in sorted(view.discard_waits.items()))
            out.append(say("ready_discards", lang, list=items))
        if view.choices:
            out.extend(danger_lines(self, view))
        if view.choices:
            out.append(say("choices", lang, list=describe_choices(view, lang)))
        return out

    def result_lines(self, result: ResultView, view: PublicView, ledger: Mapping[str, int],
                     check: str | None = None) -> list[Any]:
        """The fan breakdown (each pattern with its multiplier), every payment with how its amount was reached
        (kwx.present.formula, as the Discord result shows it) and the balances; `check` (check_line) in place of
        the bare seed when the ledger's id of the hand is known."""
        lang = self.lang
        names = [self.player_name(s.player) for s in view.seats]

        def seat_name(seat: int | None) -> str:
            return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

        out: list[Any] = [f"\n[bold reverse] {tr('result.title', lang, hand=result.hand_no)} [/]"]
        if not result.winners:
            out.append(f"[bold]{tr('result.draw', lang)}[/]")
        for w in result.winners:
            you = "player" if self.is_you(w.seat, view) else "discarder" if self.is_you(w.from_seat, view) else None
            if w.self_draw:
                head = self.said("result.win_zimo", you, player=seat_name(w.seat))
            else:
                head = self.said("result.win_discard", you, player=seat_name(w.seat),
                                 discarder=seat_name(w.from_seat))
            out.append(f"[bold yellow]★ {head}[/]  {say('win_tile', lang, tile=tile_markup(w.win_tile, lang))}  "
                       f"[bold]{tr('result.fan', lang, fan=w.fan)}[/]")
            for pid, mult in w.patterns:
                out.append(f"    {pattern_name(pid, lang)}  ×{mult}")
        if result.hands:
            out.append(f"[dim]{say('result_hands', lang)}[/]")
            for h in result.hands:
                line = Text.from_markup(f"  {seat_name(h.seat)}  ")
                line.append_text(tiles_text(h.concealed, lang))
                if h.melds:
                    line.append("  ")
                    line.append_text(self.meld_text(h.melds))
                out.append(line)
        if result.payments:
            out.append(f"[bold]{tr('result.payments', lang)}[/]")
            fans = {w.player.player_id: w.fan for w in result.winners}
            piao = {s.player.player_id: s.piao for s in view.seats}
            for p in result.payments:
                payer, payee = p.from_player.player_id, p.to_player.player_id
                formula = payment_formula(p.reason, p.amount, view.base, lang, fan=fans.get(payee),
                                          piao=(piao[payer], piao[payee]) if payer in piao and payee in piao else None)
                who = {"payer": self.player_name(p.from_player), "payee": self.player_name(p.to_player)}
                if formula is None:
                    reason = catalog_text(f"payment.{p.reason}", lang) or p.reason
                    paid = tr("result.payment_line", lang, **who, amount=p.amount, reason=reason)
                else:
                    bold = f"[bold]{p.amount}[/]"  # the catalog's markdown ** around the amount, as the terminal bolds
                    paid = tr("result.formula_line", lang, **who, formula=formula, amount=bold).replace(f"**{bold}**",
                                                                                                       bold)
                out.append("  " + paid)
        table = Table(box=None, pad_edge=False, header_style="dim", title=tr("result.balances", lang),
                      title_justify="left", title_style="bold")
        table.add_column("")
        table.add_column(say("hand_net", lang), justify="right")
        table.add_column(say("table_total", lang), justify="right")
        for seat, name in enumerate(names):
            net = result.net[seat] if seat < len(result.net) else 0
            score = result.scores[seat] if seat < len(result.scores) else 0
            table.add_row(Text.from_markup(name), Text(signed_points(net), money_style(net)),
                          Text(signed_points(score), money_style(score)))
        out.append(table)
        if self.player_id in ledger:
            amount = ledger[self.player_id]
            out.append(say("ledger_you", lang, amount=f"[{money_style(amount)}]{signed_points(amount)}[/]"))
        seed = getattr(result, "seed", None) or getattr(result, "hand_seed", None)
        if check:
            out.append(check)
        elif seed:  # the shuffle can be checked once the hand is over
            out.append(f"[dim]{escape(say('hand_seed', lang, seed=seed))}[/]")
        if result.next_dealer is not None:
            out.append(f"[dim]{tr('result.next_dealer', lang, player=seat_name(result.next_dealer))}[/]")
        return out

    # -- shared by both front ends ---------------------------------------------------------------------------
    def in_autoplay(self) -> bool:
        """Whether you are in 托管 (the AI plays for you) by the latest views."""
        if self.hand is not None and self.hand.autoplay:
            return True
        board = self.board
        return board is not None and any(s.autoplay and s.player.player_id == self.player_id for s in board.seats)

    @property
    def must_act(self) -> bool:
        """A decision of yours is open."""
        return self.hand is not None and bool(self.hand.choices)

    def is_paused(self) -> bool:
        return self.board is not None and getattr(self.board, "paused", None) is not None

    def away(self) -> bool:
        """The table waits for you to come back: you are in 托管, or the table is paused."""
        return self.in_autoplay() or self.is_paused()

    def prompt_line(self, view: PrivateView) -> str:
        """What is asked of you now, with the time left when there is a timer."""
        secs = self.seconds_left(view.deadline)
        claim = view.claim_tile
        if claim is not None and not any(c.verb == "discard" for c in view.choices):
            args = {"tile": tile_markup(claim, self.lang), "actions": describe_choices(view, self.lang)}
            return say("prompt_claim_open", self.lang, **args) if secs is None else \
                say("prompt_claim", self.lang, secs=secs, **args)
        return say("prompt_turn_open", self.lang) if secs is None else say("prompt_turn", self.lang, secs=secs)

    def shows_notice(self, key: str) -> bool:
        """Lobby notices are the terminal's own doing (seating the AI players): not announced. That a resumed
        table's decisions have their full time again means nothing at a table without a timer."""
        if key == "table.restarted":
            return any(v is not None and v.deadline is not None for v in (self.board, self.hand))
        return not key.startswith("lobby.") or key == "lobby.stopped"

    def notice_text(self, key: str, fmt: Mapping[str, object]) -> str:
        """A service notice (catalog key) as markup, with names and verbs in the front end's words."""
        values: dict[str, Any] = {k: (self.player_name(v) if isinstance(v, PlayerRef) else v) for k, v in fmt.items()}
        if isinstance(fmt.get("player"), str):
            values["player"] = self.player_name(PlayerRef(str(fmt.get("player_id", "")), str(fmt["player"])))
        if "seat" in values and "player" not in values and isinstance(values["seat"], int):
            values["player"] = self.name(values["seat"])
        if "action" in values and isinstance(values["action"], str) and values["action"] in VERB_LABELS:
            values["action"] = tr(f"action.{values['action']}", self.lang)  # one language: 出牌 / Discard
        player = fmt.get("player")
        yours = (fmt.get("player_id") == self.player_id or self.is_you(fmt.get("seat"))
                 or (isinstance(player, PlayerRef) and player.player_id == self.player_id))
        return self.said(TERMINAL_WORDING.get(key, key), "player" if yours else None, **values)

    def summary_lines(self, summary: Any) -> list[str]:
        """A closed table's sitting (TableSummary): hands played, each player's net here, the biggest hand."""
        lang = self.lang
        out = [f"[bold reverse] {escape(say('summary_title', lang, hands=summary.hands))} [/]"]
        for player, net in summary.net:
            out.append(f"  {self.player_name(player)}  [{money_style(net)}]{signed_points(net)}[/]")
        if summary.biggest is not None:
            hand, player, amount = summary.biggest
            out.append(say("summary_biggest", lang, hand=hand, player=self.player_name(player), amount=amount))
        return out
