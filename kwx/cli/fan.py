"""`python -m kwx fan`: the fan (番) calculator (docs/rules.md §5, §7, §10, §11).

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
from typing import Any, TextIO

from kwx.cli import CliError, Subcommands
from kwx.engine.analysis import Meld, Reading, shanten
from kwx.engine.calculator import (  # noqa: F401 - the calculation's names, re-exported for the commands
    _CONTEXTS,
    CONTEXT_FLAGS,
    Calculation,
    CalculationJson,
    InputError,
    calculate,
    check_context,
    check_hand,
    context,
    parse_meld,
    parse_melds,
    rules_for,
)
from kwx.engine.rules import PRESETS, RulesError, RuleSet
from kwx.engine.tiles import SHORT_CHINESE, Tile, TileError, format_chinese, format_compact
from kwx.present.i18n import pattern_name

_MELD_LABELS = {"pung": "碰 pung", "kong": "杠 kong", "ankong": "暗杠 ankong"}


# -- command line ------------------------------------------------------------------------------------------
def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser(
        "fan", help="fan (番) of a winning hand",
        description="Score a Ka Wu Xing win: patterns, multipliers, total (the rules: docs/rules.md §7, "
                    "or python -m kwx rules). "
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
    out: dict[str, Any]
    try:
        out = {**_score_object(obj, default_rules)}  # a copy: the line's id is added to it
    except InputError as exc:
        out = {"error": str(exc)}
    except (TileError, RulesError) as exc:  # defensive: every known input error is one line
        out = {"error": str(exc)}
    if isinstance(obj, dict) and "id" in obj:
        out["id"] = obj["id"]
    return out


def _score_object(obj: Any, default_rules: RuleSet) -> CalculationJson:
    if not isinstance(obj, dict):
        raise InputError("line", "each line must be a JSON object with at least hand and win")
    if not _LINE_KEYS.issuperset(obj):
        unknown = sorted(k for k in obj if k not in _LINE_KEYS)
        raise InputError("line", f"unknown key {unknown[0]!r}: keys are {', '.join(sorted(_LINE_KEYS))}")
    hand = obj.get("hand")
    win = obj.get("win")
    if not isinstance(hand, str) or not isinstance(win, str):
        raise InputError("line", '"hand" and "win" must both be given as strings, e.g. "hand": "1122334456677p", "win": "5p"')
    melds = obj.get("melds")
    if melds is None:
        melds = ()
    elif type(melds) is not list or any(type(m) is not str for m in melds):
        raise InputError("line", '"melds" must be a list of "KIND:TILE" strings, e.g. ["pung:7z"]')
    flags = (obj.get("self_draw", False), obj.get("liangdao", False), obj.get("kong_draw", False),
             obj.get("after_kong", False), obj.get("rob_kong", False), obj.get("last_tile", False))
    ctx = _CONTEXTS.get(flags)
    if ctx is None:
        for name, v in zip(CONTEXT_FLAGS, flags):
            if v is not True and v is not False:
                raise InputError("line", f'"{name}" must be true or false')
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
    rows = [(pattern_name(p, "zh-CN"), pattern_name(p, "en"), f"×{m}") for p, m in zip(r.patterns, r.multipliers)]
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
