"""`python -m kwx replay FILE|-`: play one scripted hand from JSON and print events and result as JSON.

Input: {"rules": "standard" | {"preset": ..., "options": {...}}, "dealer": 0, "piao": [0, 0, 0],
        "wall": "<the 84 tiles in draw order, compact notation>", "actions": [[seat, verb, tile?], ...]}
Output: {"events": [...], "result": {"outcome": "win" | "draw" | "incomplete", "winners", "fan", "patterns",
         "payments", "net", "next_dealer"}}.
An illegal action prints {"error": "...", "action_index": k} as the last line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from kwx.cli import CliError, Subcommands, bounded_int, load_json_text, read_text
from kwx.engine.actions import Action, ActionFormatError, IllegalAction
from kwx.engine.hand import HandResultJson, HandState
from kwx.engine.payments import net
from kwx.engine.rules import RulesError, RuleSet
from kwx.engine.tiles import TileError
from kwx.engine.wall import parse_wall


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser("replay", help="play one scripted hand from JSON and print events and result",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="JSON file with rules, dealer, piao, wall and actions ('-' for standard input)")
    p.add_argument("--indent", type=bounded_int(0, 8), default=None, help="pretty-print the output with this indent")


def load_spec(text: str) -> dict[str, Any]:
    spec = load_json_text(text, "replay file")
    if not isinstance(spec, dict):
        raise CliError("the replay file must hold one JSON object")
    return spec


def build_hand(spec: dict[str, Any]) -> HandState:
    try:
        rules = RuleSet.from_json(spec.get("rules", "standard"))
    except RulesError as exc:
        raise CliError(f"rules: {exc}") from None
    dealer = spec.get("dealer", 0)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in (0, 1, 2):
        raise CliError(f"dealer must be 0, 1 or 2, not {dealer!r}")
    piao = spec.get("piao", [0, 0, 0])
    if not isinstance(piao, list) or len(piao) != 3 or not all(isinstance(p, int) for p in piao):
        raise CliError("piao must be a list of three whole numbers")
    wall_text = spec.get("wall")
    if not isinstance(wall_text, str):
        raise CliError("wall must be a string with the 84 tiles in draw order")
    try:
        wall = parse_wall(wall_text)
    except TileError as exc:
        raise CliError(f"wall: {exc}") from None
    try:
        return HandState(rules, dealer, wall, piao)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def replay(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Play the spec. Returns (output, error) where error is {"error", "action_index"} or None."""
    hand = build_hand(spec)
    actions = spec.get("actions", [])
    if not isinstance(actions, list):
        raise CliError("actions must be a list of [seat, verb, tile?]")
    error = None
    for k, raw in enumerate(actions):
        if hand.finished:
            error = {"error": "the hand is over: no more actions", "action_index": k}
            break
        try:
            hand.apply(Action.from_json(raw))
        except (ActionFormatError, IllegalAction) as exc:
            error = {"error": str(exc), "action_index": k}
            break
    output = {"events": [e.to_json() for e in hand.events], "result": result_json(hand)}
    return output, error


def result_json(hand: HandState) -> HandResultJson | dict[str, object]:
    """The hand's result, or (a hand not played to its end) its payments so far."""
    if hand.result is not None:
        return hand.result.to_json()
    return {"outcome": "incomplete", "winners": [], "fan": {}, "patterns": {},
            "payments": [p.to_json() for p in hand.payments], "net": net(hand.payments), "next_dealer": None}


def run(args: argparse.Namespace) -> int:
    output, error = replay(load_spec(read_text(args.file, "replay file")))
    # On an illegal action the hand so far is printed too; the error object is always the last line.
    print(json.dumps(output, ensure_ascii=False, indent=args.indent))
    if error is not None:
        print(json.dumps(error, ensure_ascii=False))
        return 2
    return 0
