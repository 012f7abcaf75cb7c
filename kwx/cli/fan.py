"""`python -m kwx fan`: the fan (番) calculator (RULES.md §5, §7, §10, §11).

    python -m kwx fan HAND WIN [--meld KIND:TILE]... [--self-draw] [--liangdao] [--kong-draw] [--after-kong]
                               [--rob-kong] [--last-tile] [--rules PRESET] [--json]
    python -m kwx fan --jsonl [--rules PRESET]  < hands.jsonl  > results.jsonl

HAND is the concealed tiles before the win (13 − 3 per meld), WIN the winning tile, both in compact (1123p456s77z)
or Chinese (五筒 七条 红中) notation. `--json` prints one object: {"win": true, "fan": 16, "patterns": [...]} or
{"win": false, "reason": ...}. `--jsonl` scores one JSON object a line from standard input, one result a line;
a bad line gives {"error": "..."} and the batch goes on.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from kwx.cli import CliError
from kwx.engine.analysis import MELD_KINDS, Meld, Reading, shanten, waits
from kwx.engine.fan import FanResult, WinContext, score_counts
from kwx.engine.rules import PATTERN_NAMES, PRESETS, RulesError, RuleSet
from kwx.engine.tiles import (
    SHORT_CHINESE,
    Tile,
    TileError,
    check_counts,
    format_chinese,
    format_compact,
    parse_tile,
    parse_tiles,
    to_counts,
)

CONTEXT_FLAGS = ("self_draw", "liangdao", "kong_draw", "after_kong", "rob_kong", "last_tile")
_MELD_ALIASES = {k: k for k in MELD_KINDS} | {"碰": "pung", "杠": "kong", "明杠": "kong", "暗杠": "ankong"}
_MELD_LABELS = {"pung": "碰 pung", "kong": "杠 kong", "ankong": "暗杠 ankong"}


class InputError(ValueError):
    """Bad calculator input; the message is one line meant for the user."""


# -- parsing and checks (shared with `kwx waits`) ---------------------------------------------------------
def parse_meld(text: str) -> Meld:
    """`KIND:TILE`, e.g. `pung:5p`, `kong:红中`, `ankong:1s`."""
    kind, sep, tile = str(text).partition(":")
    if not sep:
        raise InputError(f'meld "{text}" is not KIND:TILE, e.g. pung:5p, kong:7z or ankong:1s')
    canonical = _MELD_ALIASES.get(kind.strip().lower())
    if canonical is None:
        raise InputError(f'unknown meld kind "{kind.strip()}": use pung, kong (exposed) or ankong (concealed)')
    try:
        return Meld(canonical, parse_tile(tile))
    except TileError as exc:
        raise InputError(f'meld "{text}": {exc}') from None


def parse_melds(texts: Iterable[str]) -> tuple[Meld, ...]:
    melds = tuple(parse_meld(t) for t in texts)
    if len(melds) > 4:
        raise InputError(f"{len(melds)} melds given: a hand has at most four")
    return melds


def check_hand(hand: Sequence[int], melds: Sequence[Meld], *, extra: Sequence[int] = (), what: str) -> None:
    """The concealed count must fit the melds (13 − 3 per meld); no tile may appear five times overall."""
    need = 13 - 3 * len(melds)
    if len(hand) != need:
        with_melds = f"with {len(melds)} meld{'s' if len(melds) != 1 else ''}" if melds else "without melds"
        raise InputError(f"the hand has {len(hand)} tile{'s' if len(hand) != 1 else ''}; {with_melds} it needs {need} {what} (13 − 3 per meld)")
    meld_tiles = [m.tile for m in melds for _ in range(m.size)]
    try:
        check_counts(hand, [*extra, *meld_tiles])
    except TileError as exc:
        raise InputError(f"{exc} (hand, melds and winning tile together)" if extra or melds else str(exc)) from None


def check_context(ctx: WinContext, melds: Sequence[Meld]) -> None:
    if ctx.self_draw and (ctx.after_kong or ctx.rob_kong):
        raise InputError("a win on the discard after a kong or on a robbed kong is not a self-draw")
    if ctx.kong_draw and (ctx.after_kong or ctx.rob_kong):
        raise InputError("a kong replacement draw is the winner's own tile: not a discard, not a robbed kong")
    if ctx.after_kong and ctx.rob_kong:
        raise InputError("a robbed kong is not the discard after a kong: choose one")
    if ctx.rob_kong and ctx.last_tile:
        raise InputError("no kong may be declared on the last tile, so it cannot be robbed")
    if ctx.kong_draw and not any(m.is_kong for m in melds):
        raise InputError("a win on a kong replacement tile needs the kong among the melds (kong:TILE or ankong:TILE)")


_rules_cache: dict[str, RuleSet] = {}


def rules_for(spec: Any) -> RuleSet:
    """A preset name (or {"preset": ..., "options": {...}}) to its RuleSet, built once per process."""
    key = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)
    rules = _rules_cache.get(key)
    if rules is None:
        try:
            rules = RuleSet.from_json(spec)
        except RulesError as exc:
            raise InputError(str(exc)) from None
        _rules_cache[key] = rules
    return rules


# -- the calculation ---------------------------------------------------------------------------------------
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

    def to_json(self) -> dict[str, Any]:
        r = self.result
        if r is None:
            return {"win": False, "reason": "not_complete", "waits": [t.compact for t in self.hand_waits()]}
        if r.fan < self.min_fan:
            return {"win": False, "reason": "below_min_fan", "fan_found": r.fan, "min_fan": self.min_fan,
                    "patterns": list(r.patterns)}
        out: dict[str, Any] = {"win": True, "fan": r.fan, "patterns": list(r.patterns),
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
        raise InputError(str(exc)) from None
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


# -- command line ------------------------------------------------------------------------------------------
def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "fan", help="fan (番) of a winning hand",
        description="Score a Ka Wu Xing win: patterns, multipliers, total (RULES.md §7). "
                    "Tiles in compact (1123p456s77z) or Chinese (五筒 七条 红中) notation.",
    )
    p.add_argument("hand", nargs="?", help="concealed tiles before the win, 13 − 3 per meld (quote Chinese names)")
    p.add_argument("win", nargs="?", help="the winning tile, e.g. 5p or 五筒")
    p.add_argument("--meld", action="append", default=[], metavar="KIND:TILE",
                   help="a declared meld: pung, kong (exposed: 直杠/补杠) or ankong (暗杠); repeat for each")
    p.add_argument("--self-draw", action="store_true", help="自摸: drew the winning tile")
    p.add_argument("--liangdao", action="store_true", help="the winner had declared 亮倒")
    p.add_argument("--kong-draw", action="store_true", help="won on a kong replacement tile (杠上开花; a self-draw)")
    p.add_argument("--after-kong", action="store_true", help="won on the discard after the discarder's kong (杠上炮)")
    p.add_argument("--rob-kong", action="store_true", help="robbed a 补杠 (抢杠胡)")
    p.add_argument("--last-tile", action="store_true", help="the win used the wall's last tile (海底)")
    p.add_argument("--rules", default="standard", metavar="PRESET", help=f"rules preset: {', '.join(PRESETS)}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--jsonl", action="store_true",
                   help="score JSON lines from standard input: {hand, win, melds, self_draw, …, rules}")


def run(args: argparse.Namespace) -> int:
    if args.jsonl:
        if args.hand is not None or args.meld or args.json or any(getattr(args, f) for f in CONTEXT_FLAGS):
            raise CliError("--jsonl reads every hand from standard input: give HAND, WIN, melds and flags per line")
        try:
            default_rules = rules_for(args.rules)
        except InputError as exc:
            raise CliError(str(exc)) from None
        run_jsonl(sys.stdin, sys.stdout, default_rules)
        return 0
    if args.hand is None or args.win is None:
        raise CliError("give HAND and WIN, e.g. `python -m kwx fan 1122334456677p 5p` (or --jsonl)")
    try:
        rules = rules_for(args.rules)
        ctx = context(tuple(bool(getattr(args, f)) for f in CONTEXT_FLAGS))
        calc = calculate(args.hand, args.win, args.meld, ctx, rules)
    except InputError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(calc.to_json(), ensure_ascii=False))
    else:
        print(render_text(calc))
    return 0


# -- JSON lines --------------------------------------------------------------------------------------------
_LINE_KEYS = frozenset({"hand", "win", "melds", "rules", "id", *CONTEXT_FLAGS})


def score_line(line: str | bytes, default_rules: RuleSet) -> dict[str, Any]:
    """One JSON line to its result object; bad input gives {"error": ...}."""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        return {"error": "empty line" if not text.strip() else f"not JSON: {exc}"}
    try:
        out = _score_object(obj, default_rules)
    except InputError as exc:
        out = {"error": str(exc)}
    except (TileError, RulesError) as exc:  # defensive: every known input error is one line
        out = {"error": str(exc)}
    if isinstance(obj, dict) and "id" in obj:
        out["id"] = obj["id"]
    return out


def _score_object(obj: Any, default_rules: RuleSet) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise InputError("each line must be a JSON object with at least hand and win")
    if not _LINE_KEYS.issuperset(obj):
        unknown = sorted(k for k in obj if k not in _LINE_KEYS)
        raise InputError(f"unknown key {unknown[0]!r}: keys are {', '.join(sorted(_LINE_KEYS))}")
    hand = obj.get("hand")
    win = obj.get("win")
    if not isinstance(hand, str) or not isinstance(win, str):
        raise InputError('"hand" and "win" must both be given as strings, e.g. "hand": "1122334456677p", "win": "5p"')
    melds = obj.get("melds")
    if melds is None:
        melds = ()
    elif type(melds) is not list or any(type(m) is not str for m in melds):
        raise InputError('"melds" must be a list of "KIND:TILE" strings, e.g. ["pung:7z"]')
    flags = (obj.get("self_draw", False), obj.get("liangdao", False), obj.get("kong_draw", False),
             obj.get("after_kong", False), obj.get("rob_kong", False), obj.get("last_tile", False))
    ctx = _CONTEXTS.get(flags)
    if ctx is None:
        for name, v in zip(CONTEXT_FLAGS, flags):
            if v is not True and v is not False:
                raise InputError(f'"{name}" must be true or false')
        ctx = context(flags)
    spec = obj.get("rules")
    rules = default_rules if spec is None else rules_for(spec)
    return calculate(hand, win, melds, ctx, rules).to_json()


def _line_batches(stream: TextIO) -> Iterator[list[bytes] | list[str]]:
    """Lines of `stream` in batches of what has arrived: a pipe fed line by line gets each answer at once,
    a file is read in large chunks."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation, ValueError):
        fd = -1
    if fd < 0:
        batch: list[str] = []
        for line in stream:
            batch.append(line)
            if len(batch) >= 4096:
                yield batch
                batch = []
        if batch:
            yield batch
        return
    rest = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        if lines:
            yield lines
    if rest.strip():
        yield [rest]


def run_jsonl(stdin: TextIO, stdout: TextIO, default_rules: RuleSet,
              score: Callable[[str | bytes, RuleSet], dict[str, Any]] = score_line) -> int:
    """Score every line of `stdin`; returns the number of lines."""
    n = 0
    dumps = json.dumps
    for batch in _line_batches(stdin):
        out = []
        for line in batch:
            if isinstance(line, str):
                line = line.rstrip("\n")
            out.append(dumps(score(line, default_rules), ensure_ascii=False))
        stdout.write("\n".join(out) + "\n")
        stdout.flush()
        n += len(batch)
    return n


# -- readable text -----------------------------------------------------------------------------------------
def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def both_notations(tiles: Iterable[int], *, grouped: bool = True) -> str:
    """`1123p (1筒 1筒 2筒 3筒)`; grouped=False spells every tile: `5p 8p (5筒 8筒)` (for waits)."""
    tiles = sorted(tiles)
    if not tiles:
        return "—"
    compact = format_compact(tiles) if grouped else " ".join(Tile(t).compact for t in tiles)
    return f"{compact} ({format_chinese(tiles)})"


def describe_melds(melds: Sequence[Meld]) -> str:
    return ", ".join(f"{_MELD_LABELS[m.kind]} {SHORT_CHINESE[m.tile]} {m.tile.compact}" for m in melds)


def describe_reading(reading: Reading, melds: Sequence[Meld]) -> str:
    if reading.kind == "qidui":
        groups = [format_compact([t, t]) for t in reading.pairs]
    else:
        groups = [format_compact([s, s + 1, s + 2]) for s in sorted(reading.sequences)]
        groups += [format_compact([t] * 3) for t in sorted(reading.triplets)]
        if reading.pair is not None:
            groups.append(format_compact([reading.pair] * 2))
    groups += [f"[{format_compact([m.tile] * m.size)}]" for m in melds]
    return " ".join(groups)


def _how(calc: Calculation) -> str:
    ctx = calc.ctx
    parts = ["自摸 self-draw" if calc.self_draw else "点炮 on a discard"]
    if ctx.kong_draw:
        parts.append("on a kong replacement 杠上")
    if ctx.after_kong:
        parts.append("after the discarder's kong 杠后")
    if ctx.rob_kong:
        parts.append("robbing a kong 抢杠")
    if ctx.last_tile:
        parts.append("last tile 海底")
    if ctx.liangdao:
        parts.append("after 亮倒")
    return ", ".join(parts)


def render_text(calc: Calculation) -> str:
    lines = [
        f"Hand 手牌:  {both_notations(calc.hand)}",
    ]
    if calc.melds:
        lines.append(f"Melds 副露: {describe_melds(calc.melds)}")
    lines += [
        f"Win 和牌:   {calc.win.compact} ({SHORT_CHINESE[calc.win]}), {_how(calc)}",
        f"Rules 规则: {calc.rules.preset_name}",
        "",
    ]
    r = calc.result
    if r is None:
        lines.append(f"Not a win 不能胡: {format_compact(calc.hand)} + {calc.win.compact} is not a complete hand "
                     "(four sets and a pair, or seven pairs).")
        ws = calc.hand_waits()
        if ws:
            lines.append(f"The hand is ready 听牌 on {both_notations(ws, grouped=False)}.")
        else:
            s = shanten(calc.counts, len(calc.melds))
            if s <= 0:
                lines.append("The hand is ready only on tiles it already holds all four of: nothing can complete it.")
            else:
                lines.append(f"The hand is not ready 未听牌: {s} tile{'s' if s != 1 else ''} from ready (向听 {s}).")
        return "\n".join(lines)

    lines.append(f"Reading 牌型: {describe_reading(r.reading, calc.melds)}")
    rows = [(PATTERN_NAMES[p][0], PATTERN_NAMES[p][1], f"×{m}") for p, m in zip(r.patterns, r.multipliers)]
    w0 = max(_width(a) for a, _, _ in rows)
    w1 = max(_width(b) for _, b, _ in rows)
    for zh, en, mult in rows:
        lines.append(f"  {_pad(zh, w0)}  {_pad(en, w1)}  {mult:>5}")
    rule = "  " + "─" * (w0 + w1 + 9)
    lines.append(rule)
    if r.capped:
        cap = r.fan - r.shukan_bonus
        lines.append(f"  Product {r.raw_fan}, capped 封顶 at {cap}")
    if r.shukan_bonus:
        lines.append(f"  数坎 concealed triplets/kongs: +{r.shukan_bonus}")
    lines.append(f"  Fan 番: {r.fan}")
    if r.fan < calc.min_fan:
        where = "a self-draw" if calc.self_draw else "a discard"
        lines += ["", f"Not a win 不够番: fan {r.fan} is below the minimum of {calc.min_fan} for {where} "
                      f"under {calc.rules.preset_name} rules."]
    return "\n".join(lines)
