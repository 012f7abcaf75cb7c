"""Typed commands: a line in either notation or language → a Command → the legal choice it stands for."""

from __future__ import annotations

from dataclasses import dataclass

from kwx.engine.tiles import Tile, TileError, excerpt
from kwx.local.text import read_tile, say, tile_markup, tile_or_none, tiles_markup, verb_label
from kwx.present.i18n import error_text, resolve_lang, tr
from kwx.table.views import ActionChoice, PrivateView


class CommandError(Exception):
    """Input that cannot be acted on; `text` explains why, in the console's language."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Command:
    """A parsed line: `verb` is a service verb (discard, liangdao, gang, peng, hu, pass), moqie (the drawn tile's
    discard), or the terminal's own: help | hand | quit | back | confirm_on | confirm_off | one of AUTO_PASS."""

    verb: str
    tile: Tile | None = None


_VERB_WORDS: dict[str, tuple[str, ...]] = {
    "hu": ("胡", "和", "自摸", "hu", "win", "zimo", "ron", "hule"),
    "gang": ("杠", "槓", "gang", "kong"),
    "peng": ("碰", "peng", "pung", "pong"),
    "pass": ("过", "過", "pass", "guo", "skip", "no"),
    "liangdao": ("亮倒", "亮牌", "liangdao", "liang", "declare"),
    "discard": ("打", "出", "discard", "play", "d"),
    "help": ("help", "帮助", "?", "？", "h", "帮忙", "命令"),
    "hand": ("hand", "手牌", "board", "show", "看", "牌桌"),
    "quit": ("quit", "exit", "q", "退出", "离开", "bye"),
    "back": ("back", "回来", "取消托管", "接管", "b"),
    "confirm": ("confirm", "确认"),
    "auto_pass": ("autopass", "auto-pass", "自动过"),
    "moqie": ("moqie", "摸切", "tsumogiri"),
}
AUTO_PASS: dict[str, bool | None] = {"auto_pass": None, "auto_pass_on": True, "auto_pass_off": False}  # None: toggle
_ON_OFF = {"on": True, "开": True, "yes": True, "off": False, "关": False, "no": False}
_WORD_VERB = {w.lower(): verb for verb, words in _VERB_WORDS.items() for w in words}
# Chinese verbs may be written straight onto the tile: 杠5p, 亮倒五筒, 打红中. Longest first (亮倒 before 亮).
_CN_PREFIXES = sorted((w for w in _WORD_VERB if not w.isascii()), key=len, reverse=True)
_TAKES_TILE = frozenset({"discard", "liangdao", "gang"})


def _looks_like_tile(text: str) -> bool:
    return any(ch.isdigit() or ch in "一二三四五六七八九筒饼餅条條索中发發白" for ch in text)


def parse_command(line: str, lang: str = "zh-CN") -> Command | None:
    """Turn one typed line into a Command (None for an empty line). Raises CommandError with an explanation."""
    text = line.strip()
    if not text:
        return None
    head, _, rest = text.partition(" ")
    verb = _WORD_VERB.get(head.lower())
    if verb is None:
        for prefix in _CN_PREFIXES:
            if text.startswith(prefix) and len(text) > len(prefix):
                candidate = text[len(prefix):].strip()
                if _WORD_VERB[prefix] in _TAKES_TILE and tile_or_none(candidate) is not None:
                    verb, rest = _WORD_VERB[prefix], candidate
                    break
    if verb is None:  # a bare tile is a discard
        try:
            return Command("discard", read_tile(text))
        except TileError as exc:
            if _looks_like_tile(text):
                raise CommandError(error_text(exc, lang)) from None
            raise CommandError(say("unknown", lang, text=excerpt(text))) from None
    rest = rest.strip()
    if verb in ("help", "hand", "quit", "back", "moqie"):
        return Command(verb)
    if verb == "confirm":  # confirm on / off: the question before discarding a 胡口牌
        on = _ON_OFF.get(rest.lower(), True if not rest else None)
        if on is None:
            raise CommandError(say("unknown", lang, text=excerpt(text)))
        return Command("confirm_on" if on else "confirm_off")
    if verb == "auto_pass":  # autopass [on|off]: every claim offer but a win passed at once (bare: the other way)
        if not rest:
            return Command(verb)
        on = _ON_OFF.get(rest.lower())
        if on is None:
            raise CommandError(say("unknown", lang, text=excerpt(text)))
        return Command("auto_pass_on" if on else "auto_pass_off")
    if not rest:
        if verb == "discard":
            raise CommandError(say("discard_needs_tile", lang))
        return Command(verb)
    if verb not in _TAKES_TILE:
        raise CommandError(say("takes_no_tile", lang, verb=excerpt(head)))
    try:
        return Command(verb, read_tile(rest))
    except TileError as exc:
        raise CommandError(error_text(exc, lang)) from None


def describe_choices(view: PrivateView, lang: str) -> str:
    """Markup listing what you may do: 胡(hu) · 杠(gang) 5筒 · 亮倒(liangdao) 3筒/7条 · discard a tile."""
    parts: list[str] = []
    by_verb: dict[str, list[Tile | None]] = {}
    for c in view.choices:
        by_verb.setdefault(c.verb, []).append(c.tile)
    for verb in ("hu", "gang", "peng", "liangdao", "pass"):
        if verb not in by_verb:
            continue
        tiles = [x for x in by_verb[verb] if x is not None]
        label = verb_label(verb, lang)
        parts.append(f"{label} {tiles_markup(tiles, lang, '/')}" if tiles else label)
    if "discard" in by_verb:
        parts.append(say("discard_any", lang))
    return " · ".join(parts)


def resolve_command(cmd: Command, view: PrivateView | None, lang: str) -> ActionChoice:
    """The legal choice a game command stands for, or CommandError saying why it is not possible now."""
    if view is None or not view.choices:
        raise CommandError(tr("error.not_your_turn", lang))
    choices = view.choices
    verbs = {c.verb for c in choices}
    held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
    if cmd.verb == "moqie":  # 摸切: the tile just drawn
        if view.drawn is None:
            raise CommandError(say("moqie_none", lang) if "discard" in verbs else tr("error.not_your_turn", lang))
        cmd = Command("discard", view.drawn)
    if cmd.verb == "discard":
        assert cmd.tile is not None
        if "discard" not in verbs:
            if "pass" in verbs and view.claim_tile is not None:
                raise CommandError(say("cant_discard_claim", lang, tile=tile_markup(view.claim_tile, lang),
                                       actions=describe_choices(view, lang)))
            if view.liangdao and view.drawn is not None:
                raise CommandError(say("cant_discard_locked", lang, tile=tile_markup(view.drawn, lang)))
            raise CommandError(tr("error.no_legal_tile", lang))
        if cmd.tile not in held:
            raise CommandError(say("no_tile", lang, tile=tile_markup(cmd.tile, lang)))
        if ActionChoice("discard", cmd.tile) not in choices:
            if view.liangdao and view.drawn is not None:
                raise CommandError(say("cant_discard_locked", lang, tile=tile_markup(view.drawn, lang)))
            raise CommandError(tr("error.no_legal_tile", lang))
        return ActionChoice("discard", cmd.tile)
    if cmd.verb == "liangdao":
        options = [c.tile for c in choices if c.verb == "liangdao" and c.tile is not None]
        if not options:
            raise CommandError(say("liangdao_none", lang) if "discard" in verbs else tr("error.not_your_turn", lang))
        if cmd.tile is None:
            raise CommandError(say("liangdao_needs_tile", lang, tile=tile_markup(options[0], lang)))
        if cmd.tile not in held:
            raise CommandError(say("no_tile", lang, tile=tile_markup(cmd.tile, lang)))
        if cmd.tile not in options:
            raise CommandError(say("liangdao_bad_tile", lang, tile=tile_markup(cmd.tile, lang),
                                   tiles=tiles_markup(options, lang, "、" if resolve_lang(lang) != "en" else ", ")))
        return ActionChoice("liangdao", cmd.tile)
    if cmd.verb == "gang":
        gangs = [c for c in choices if c.verb == "gang"]
        if not gangs:
            raise CommandError(tr("error.action_not_allowed", lang, action=verb_label("gang", lang)))
        gang_tiles = [tile for g in gangs if (tile := g.tile if g.tile is not None else view.claim_tile) is not None]
        gang_options = " / ".join(f"{verb_label('gang', lang)} {tile_markup(tile, lang)}" for tile in gang_tiles)
        if cmd.tile is None:
            if len(gangs) > 1:
                raise CommandError(say("gang_which", lang, options=gang_options))
            return gangs[0]
        for g in gangs:  # 直杠 on a discard has no tile in the choice: the tile under claim is meant
            if g.tile == cmd.tile or (g.tile is None and view.claim_tile == cmd.tile):
                return g
        raise CommandError(say("gang_not_that", lang, tile=tile_markup(cmd.tile, lang), options=gang_options))
    if cmd.verb in ("hu", "peng", "pass"):
        choice = next((c for c in choices if c.verb == cmd.verb), None)
        if choice is None:
            if cmd.verb == "pass" and "discard" in verbs:
                raise CommandError(say("nothing_to_pass", lang))
            raise CommandError(tr("error.action_not_allowed", lang, action=verb_label(cmd.verb, lang)))
        return choice
    raise CommandError(say("unknown", lang, text=cmd.verb))

