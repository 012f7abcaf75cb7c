"""The fan calculation from text: parse a hand, its melds and the winning tile, check them, and score them.

    calc = calculate("1122334456677p", "5p", [], context((False,) * 6), RuleSet.preset("standard"))
    calc.result.fan, calc.result.patterns, calc.is_win, calc.to_json()

Shared by `python -m kwx fan` / `waits`, `/kwx calc` and a hand recorded by hand (kwx/table/manual.py). Bad
input raises InputError (one line for the user).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from kwx.engine.analysis import MELD_KINDS, Meld, waits
from kwx.engine.fan import FanResult, WinContext, score_counts
from kwx.engine.rules import RulesError, RuleSet
from kwx.engine.tiles import Tile, TileError, check_counts, excerpt, parse_tile, parse_tiles, to_counts

CONTEXT_FLAGS = ("self_draw", "liangdao", "kong_draw", "after_kong", "rob_kong", "last_tile")
# Every way a meld's kind may be written: English, pinyin, Chinese.
_MELD_ALIASES = {k: k for k in MELD_KINDS} | {"peng": "pung", "gang": "kong", "minggang": "kong", "angang": "ankong",
                                             "碰": "pung", "杠": "kong", "明杠": "kong", "暗杠": "ankong"}
_MELD_SIZE = {"pung": 3, "kong": 4, "ankong": 4}
_KIND_THEN_TILE = re.compile(  # 碰5p, peng 555p, 暗杠红中: the kind, then its tile (longest kind first: 暗杠 before 杠)
    "(?P<kind>" + "|".join(sorted(map(re.escape, _MELD_ALIASES), key=len, reverse=True)) + r")\s*(?P<tile>.+)",
    re.IGNORECASE | re.DOTALL)
_MELD_SEPARATORS = re.compile(r"[\s,，、;；]+")


# English lines for logs and the command-line tools; players read the catalog's `calc.error.<code>`.
INPUT_ERRORS = {
    "meld_format": 'meld "{text}" is not KIND:TILE, e.g. pung:5p, kong:7z or ankong:1s (碰:5p 杠:7z 暗杠:1s too)',
    "meld_kind": 'unknown meld kind "{kind}": use pung (peng, 碰), kong (gang, 杠: exposed) or ankong (angang, 暗杠)',
    "meld_tile": 'meld "{text}": {error}',
    "meld_size": 'meld "{text}": write its tile once (pung:5p) or all {size} of them (pung:555p)',
    "too_many_melds": "{count} melds given: a hand has at most four",
    "tile": "{error}",
    "tiles_together": "{error} (hand, melds and winning tile together)",
    "self_draw_not_discard": "a win on the discard after a kong or on a robbed kong is not a self-draw",
    "kong_draw_own_tile": "a kong replacement draw is the winner's own tile: not a discard, not a robbed kong",
    "rob_or_after_kong": "a robbed kong is not the discard after a kong: choose one",
    "rob_last_tile": "no kong may be declared on the last tile, so it cannot be robbed",
    "kong_draw_needs_kong": "a win on a kong replacement tile needs the kong among the melds (kong:TILE or ankong:TILE)",
    "rules": "{error}",
}


class InputError(ValueError):
    """Bad calculator input. `code` says what was wrong (a key of INPUT_ERRORS, or `hand_size`; `message` for
    the command line's own checks) and `fmt` what it was about — a TileError inside as `error`. The
    presentation floor renders it in the player's language (`calc.error.<code>`); str() is one English line."""

    catalog = "calc.error"

    def __init__(self, code: str, message: str | None = None, **fmt: object) -> None:
        self.code = code
        self.fmt = fmt
        super().__init__(message if message is not None else INPUT_ERRORS[code].format(**fmt))


def parse_meld(text: str) -> Meld:
    """One meld: its kind, then its tile once or all of it: `pung:5p`, `碰:5p`, `碰5p`, `peng 555p`, `暗杠：红中`.

    Kinds: pung (peng, 碰); kong (gang, 杠, 明杠: exposed); ankong (angang, 暗杠: concealed)."""
    raw = str(text).strip().replace("：", ":")
    kind, sep, tile = raw.partition(":")
    if not sep:
        found = _KIND_THEN_TILE.fullmatch(raw)
        if found is None:
            raise InputError("meld_format", text=excerpt(text))
        kind, tile = found["kind"], found["tile"]
    canonical = _MELD_ALIASES.get(kind.strip().lower())
    if canonical is None:
        raise InputError("meld_kind", kind=excerpt(kind.strip()))
    try:
        tiles = parse_tiles(tile, check_copies=False)
        if not tiles:
            raise TileError("empty")
    except TileError as exc:
        raise InputError("meld_tile", text=excerpt(text), error=exc) from None
    if len(tiles) != 1 and (len(set(tiles)) != 1 or len(tiles) != _MELD_SIZE[canonical]):
        raise InputError("meld_size", text=excerpt(text), size=_MELD_SIZE[canonical])
    return Meld(canonical, tiles[0])


def parse_melds(texts: Iterable[str]) -> tuple[Meld, ...]:
    """Melds given as texts, each holding one meld or several (spaces, commas or 、 between them); a kind
    written apart from its tile (`碰 5p`, or "碰", "5p" as two texts) is read with it."""
    words = [w for text in texts for w in _MELD_SEPARATORS.split(str(text).strip()) if w]
    joined: list[str] = []
    for word in words:
        if joined and joined[-1].rstrip(":：").lower() in _MELD_ALIASES:
            joined[-1] += word
        else:
            joined.append(word)
    melds = tuple(parse_meld(t) for t in joined)
    if len(melds) > 4:
        raise InputError("too_many_melds", count=len(melds))
    return melds


def check_hand(hand: Sequence[int], melds: Sequence[Meld], *, extra: Sequence[int] = (), what: str) -> None:
    """The concealed count must fit the melds (13 − 3 per meld); no tile may appear five times overall."""
    need = 13 - 3 * len(melds)
    if len(hand) != need:
        with_melds = f"with {len(melds)} meld{'s' if len(melds) != 1 else ''}" if melds else "without melds"
        raise InputError("hand_size", f"the hand has {len(hand)} tile{'s' if len(hand) != 1 else ''}; {with_melds} it "
                         f"needs {need} {what} (13 − 3 per meld)", count=len(hand), melds=len(melds), need=need)
    meld_tiles = [m.tile for m in melds for _ in range(m.size)]
    try:
        check_counts(hand, [*extra, *meld_tiles])
    except TileError as exc:
        raise InputError("tiles_together" if extra or melds else "tile", error=exc) from None


def check_context(ctx: WinContext, melds: Sequence[Meld]) -> None:
    if ctx.self_draw and (ctx.after_kong or ctx.rob_kong):
        raise InputError("self_draw_not_discard")
    if ctx.kong_draw and (ctx.after_kong or ctx.rob_kong):
        raise InputError("kong_draw_own_tile")
    if ctx.after_kong and ctx.rob_kong:
        raise InputError("rob_or_after_kong")
    if ctx.rob_kong and ctx.last_tile:
        raise InputError("rob_last_tile")
    if ctx.kong_draw and not any(m.is_kong for m in melds):
        raise InputError("kong_draw_needs_kong")


_rules_cache: dict[str, RuleSet] = {}


def rules_for(spec: Any) -> RuleSet:
    """A preset name (or {"preset": ..., "options": {...}}) to its RuleSet, built once per process."""
    key = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)
    rules = _rules_cache.get(key)
    if rules is None:
        try:
            rules = RuleSet.from_json(spec)
        except RulesError as exc:
            raise InputError("rules", error=exc) from None
        _rules_cache[key] = rules
    return rules


# -- the calculation ---------------------------------------------------------------------------------------
class NotCompleteJson(TypedDict):
    win: Literal[False]
    reason: Literal["not_complete"]
    waits: list[str]  # what the hand waits on instead


class BelowMinFanJson(TypedDict):
    win: Literal[False]
    reason: Literal["below_min_fan"]
    fan_found: int
    min_fan: int
    patterns: list[str]


class ScoredJson(TypedDict):
    win: Literal[True]
    fan: int
    patterns: list[str]
    multipliers: list[int]
    raw_fan: int
    capped: bool
    shukan_bonus: NotRequired[int]  # rules with 数坎 only


CalculationJson: TypeAlias = NotCompleteJson | BelowMinFanJson | ScoredJson  # `python -m kwx fan --json`


@dataclass(slots=True)
class Calculation:
    hand: Sequence[Tile]
    win: Tile
    melds: tuple[Meld, ...]
    ctx: WinContext
    rules: RuleSet
    result: FanResult | None  # None: the tiles do not form a complete hand
    min_fan: int  # the smallest fan this win may have (min_fan, or the discard minimum)
    counts: Sequence[int]  # of the hand before the win

    @property
    def self_draw(self) -> bool:
        return self.ctx.self_draw or self.ctx.kong_draw

    @property
    def is_win(self) -> bool:
        return self.result is not None and self.result.fan >= self.min_fan

    def hand_waits(self) -> list[Tile]:
        return waits(self.counts, self.melds)

    def to_json(self) -> CalculationJson:
        r = self.result
        if r is None:
            return {"win": False, "reason": "not_complete", "waits": [t.compact for t in self.hand_waits()]}
        if r.fan < self.min_fan:
            return {"win": False, "reason": "below_min_fan", "fan_found": r.fan, "min_fan": self.min_fan,
                    "patterns": list(r.patterns)}
        out: ScoredJson = {"win": True, "fan": r.fan, "patterns": list(r.patterns),
                               "multipliers": list(r.multipliers), "raw_fan": r.raw_fan, "capped": r.capped}
        if self.rules.shukan:
            out["shukan_bonus"] = r.shukan_bonus
        return out


_PLAIN_DISCARD = WinContext()
_CONTEXTS: dict[tuple[bool, ...], WinContext] = {(False,) * len(CONTEXT_FLAGS): _PLAIN_DISCARD}
_WIN_TILES: dict[str, Tile] = {t.compact: t for t in Tile}  # the usual spelling of WIN skips the parser


def context(flags: tuple[bool, ...]) -> WinContext:
    """WinContext for the six flags in CONTEXT_FLAGS order, one instance per combination."""
    ctx = _CONTEXTS.get(flags)
    if ctx is None:
        ctx = _CONTEXTS[flags] = WinContext(*flags)
    return ctx


def calculate(hand_text: str, win_text: str, meld_texts: Iterable[str], ctx: WinContext, rules: RuleSet) -> Calculation:
    """Parse, check and score one hand. Raises InputError for bad input (one-line message)."""
    try:
        hand = parse_tiles(hand_text, check_copies=False)
        win = _WIN_TILES.get(win_text)
        if win is None:
            win = parse_tile(win_text)
    except TileError as exc:
        raise InputError("tile", error=exc) from None
    melds = parse_melds(meld_texts) if meld_texts else ()
    counts = to_counts(hand)
    used = counts
    if melds:
        used = list(counts)
        for m in melds:
            used[m.tile] += m.size
    if len(hand) != 13 - 3 * len(melds) or used[win] >= 4 or max(used) > 4:
        check_hand(hand, melds, extra=(win,), what="before the winning tile")  # raises with the reason
    if ctx.kong_draw or ctx.after_kong or ctx.rob_kong:
        check_context(ctx, melds)
    result = score_counts(counts, win, melds, ctx, rules)
    self_draw = ctx.self_draw or ctx.kong_draw
    min_fan = rules.min_fan if self_draw else max(rules.min_fan, rules.min_fan_discard)
    return Calculation(hand, win, melds, ctx, rules, result, min_fan, counts)
