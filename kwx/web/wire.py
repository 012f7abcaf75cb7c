"""The service's views as the JSON the table page draws, in one player's language.

The page draws structure (tiles as compact names, `5p`, which are also their picture's file name) and shows
words the server has already put in the viewer's language from the catalog: event lines, the warning before a
costly move, refusals, the result's patterns and payments. Nothing here decides what is hidden: a public view
carries no concealed tile (kwx.table.viewbuild decides that) and a private view is only ever sent to the
socket of its own seat (kwx.web.hub).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kwx.engine.tiles import Tile, parse_tile
from kwx.present.i18n import join_names, pattern_name, tile_label, tr
from kwx.table.advice_text import liangdao_text, warning_text, zimo_text
from kwx.table.press import Question
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PlayerRef,
    PrivateView,
    PublicView,
    ResultView,
    SeatView,
    TableSummary,
)

Json = dict[str, Any]

# Catalog keys whose words the page itself shows (buttons, headings): sent once, when a socket is welcomed.
PAGE_KEY_PREFIXES = ("web.", "action.", "phase.", "result.", "term.", "board.", "panel.", "tile.hidden")


def page_strings(lang: str, keys: Iterable[str]) -> dict[str, str]:
    """The page's words in `lang`, unformatted (the page fills {placeholders} it knows, such as {count})."""
    from kwx.present.i18n import catalog

    out: dict[str, str] = {}
    for key in keys:
        if key.startswith(PAGE_KEY_PREFIXES):
            template = catalog().template(key, lang)
            if template is not None:
                out[key] = template
    return out


def tiles(values: Iterable[Tile]) -> list[str]:
    return [t.compact for t in values]


def meld(m: MeldView) -> Json:
    return {"kind": m.kind, "tile": m.tile.compact if m.tile is not None else None, "from": m.from_seat}


def player(p: PlayerRef | None) -> Json | None:
    if p is None:
        return None
    return {"id": p.player_id, "name": p.name, "ai": p.ai_level is not None}


def seat(s: SeatView) -> Json:
    return {"seat": s.seat, "player": player(s.player), "score": s.score, "concealed": s.concealed_count,
            "melds": [meld(m) for m in s.melds], "pond": [[t.compact, claimed] for t, claimed in s.pond],
            "liangdao": s.liangdao, "revealed": tiles(s.revealed), "waits": tiles(s.waits),
            "dealer": s.is_dealer, "autoplay": s.autoplay, "piao": s.piao}


class Words:
    """One viewer's sentences: names from the board, tiles and templates from the catalog."""

    def __init__(self, lang: str, view: PublicView, viewer: str | None = None) -> None:
        self.lang = lang
        self.view = view
        self.viewer = viewer

    def name(self, seat_no: object) -> str:
        if not isinstance(seat_no, int) or not 0 <= seat_no < len(self.view.seats):
            return "?"
        p = self.view.seats[seat_no].player
        return tr("local.you", self.lang) if p.player_id == self.viewer else p.name

    def tile(self, value: object) -> str:
        if isinstance(value, Tile):
            return tile_label(value, self.lang)
        if isinstance(value, str):
            try:
                return tile_label(parse_tile(value), self.lang)
            except ValueError:
                return value
        return "?"

    def tile_list(self, values: Iterable[object]) -> str:
        return " ".join(self.tile(v) for v in values)

    def event(self, e: Mapping[str, Any]) -> str | None:
        """One line for the table's log, or None for what the board itself shows (draws, passes, the deal)."""
        kind, lang = e.get("kind"), self.lang
        who = self.name(e.get("seat"))
        tile = self.tile(e.get("tile"))
        if kind == "discard":
            return tr("event.discard", lang, player=who, tile=tile)
        if kind == "peng":
            return tr("event.pung", lang, player=who, tile=tile)
        if kind == "gang":
            sort = e.get("gang")
            if sort == "angang":
                return tr("event.angang", lang, player=who)
            return tr("event.bugang" if sort == "bugang" else "event.zhigang", lang, player=who, tile=tile)
        if kind == "liangdao":
            return tr("event.liangdao", lang, player=who, waits=self.tile_list(e.get("waits") or ()))
        if kind == "hu":
            return self._win(e, tile)
        if kind == "huangzhuang":
            return tr("event.huangzhuang", lang)
        if kind == "forbid_feeding":
            return tr("event.forbid_feeding", lang, player=who)
        return None

    def _win(self, e: Mapping[str, Any], tile: str) -> str:
        lang = self.lang
        names = [self.name(w.get("seat")) for w in e.get("winners", [])]
        discarder = self.name(e.get("from"))
        if e.get("self_draw"):
            text = tr("event.zimo", lang, player=names[0] if names else "?", tile=tile)
        elif e.get("rob_kong"):
            text = tr("event.qianggang", lang, winner=join_names(names, lang), player=discarder, tile=tile)
        elif len(names) > 1:
            text = tr("event.yipao_shuangxiang", lang, winners=join_names(names, lang), discarder=discarder,
                      tile=tile)
        else:
            text = tr("event.dianpao", lang, winner=names[0] if names else "?", discarder=discarder, tile=tile)
        if any(w.get("baohu") for w in e.get("winners", [])):
            text += " " + tr("event.baohu", lang, discarder=discarder)
        return text


def public(view: PublicView, lang: str, viewer: str | None = None) -> Json:
    words = Words(lang, view, viewer)
    log = [line for line in (words.event(e) for e in view.last_events) if line]
    return {"table": view.table_id, "hand": view.hand_no, "step": view.step, "phase": view.phase,
            "seats": [seat(s) for s in view.seats], "wall": view.wall_remaining, "turn": view.turn_seat,
            "claim_tile": view.claim_tile.compact if view.claim_tile is not None else None,
            "claim_kind": view.claim_kind, "deadline": view.deadline, "base": view.base, "paused": view.paused,
            "paused_text": tr(f"table.paused.{view.paused}", lang) if view.paused else None,
            "host": player(view.host), "spectators": [player(p) for p in view.spectators],
            "waiting": player(view.waiting_player), "piao_max": view.piao_max, "log": log}


def choice(c: ActionChoice) -> Json:
    return {"verb": c.verb, "tile": c.tile.compact if c.tile is not None else None}


def warnings(view: PrivateView, lang: str, names: Words | None) -> list[Json]:
    """The service's warnings (kwx.table.advice: what a costly discard would cost and who would gain), worded
    as every front end words them (kwx.table.advice_text)."""
    name = names.name if names is not None else (lambda seat: "?")
    return [{"verb": w.verb, "tile": w.tile.compact,
             "text": warning_text(w, lang, tile=lambda t: tile_label(t, lang), name=name)} for w in view.warnings]


def question(ask: Question, view: PrivateView | None, lang: str, names: Words | None) -> str:
    """What the service asks before a move (a costly discard, every 亮倒), in the page's language."""
    name = names.name if names is not None else (lambda seat: "?")
    if ask.warning is not None:
        text = warning_text(ask.warning, lang, tile=lambda t: tile_label(t, lang), name=name)
    else:
        hand = [] if view is None else list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
        if ask.tile in hand:
            hand.remove(ask.tile)
        waits = view.discard_waits.get(ask.tile, ()) if view is not None else ()
        text = liangdao_text(ask.tile, sorted(hand), waits, lang, tile=lambda t: tile_label(t, lang),
                             tiles=lambda ts: " ".join(tile_label(t, lang) for t in ts))
    return f"{text} {tr('warning.sure', lang)}"


def private(view: PrivateView, lang: str, board: PublicView | None = None) -> Json:
    names = Words(lang, board, view.player_id) if board is not None else None
    return {"table": view.table_id, "hand": view.hand_no, "step": view.step, "seat": view.seat,
            "concealed": tiles(view.concealed), "drawn": view.drawn.compact if view.drawn is not None else None,
            "melds": [meld(m) for m in view.melds], "choices": [choice(c) for c in view.choices],
            "warnings": warnings(view, lang, names), "auto_pass": view.auto_pass,
            "zimo": (zimo_text(view.drawn, view.zimo_gain, lang, tile=lambda t: tile_label(t, lang))
                     if view.zimo_gain is not None and view.drawn is not None else None),
            "deadline": view.deadline, "waits": tiles(view.waits),
            "discard_waits": {t.compact: tiles(w) for t, w in view.discard_waits.items()},
            "claim_tile": view.claim_tile.compact if view.claim_tile is not None else None,
            "liangdao": view.liangdao, "autoplay": view.autoplay,
            "unseen": {t.compact: n for t, n in view.unseen.items()}, "wall": view.wall_remaining,
            "piao_max": view.piao_max}


def result(r: ResultView, view: PublicView, lang: str, viewer: str | None = None) -> Json:
    words = Words(lang, view, viewer)
    winners = []
    for w in r.winners:
        how = (tr("result.win_zimo", lang, player=words.name(w.seat)) if w.self_draw
               else tr("result.win_discard", lang, player=words.name(w.seat), discarder=words.name(w.from_seat)))
        winners.append({"seat": w.seat, "line": how, "fan": w.fan, "tile": w.win_tile.compact,
                        "patterns": [tr("result.pattern_line", lang, name=pattern_name(p, lang), mult=m)
                                     for p, m in w.patterns]})
    payments = [tr("result.payment_line", lang, payer=_named(p.from_player, viewer, lang),
                   payee=_named(p.to_player, viewer, lang), amount=p.amount, reason=tr(f"payment.{p.reason}", lang))
                for p in r.payments]
    return {"table": r.table_id, "hand": r.hand_no, "outcome": r.outcome,
            "title": tr("result.title", lang, hand=r.hand_no),
            "headline": tr("result.draw", lang) if not r.winners else None, "winners": winners,
            "payments": payments, "net": list(r.net), "scores": list(r.scores),
            "hands": [{"seat": h.seat, "concealed": tiles(h.concealed), "melds": [meld(m) for m in h.melds]}
                      for h in r.hands],
            "seed": r.seed, "seed_ref": r.seed_ref}


def _named(p: PlayerRef, viewer: str | None, lang: str) -> str:
    return tr("local.you", lang) if p.player_id == viewer else p.name


def summary(s: TableSummary, lang: str) -> Json:
    return {"table": s.table_id, "hands": s.hands, "reason": s.reason,
            "net": [[p.name, n] for p, n in s.net],
            "transfers": [tr("result.payment_line", lang, payer=t.from_player.name, payee=t.to_player.name,
                             amount=t.amount, reason=tr("web.settle", lang)) for t in s.transfers]}
