"""`python -m kwx verify SEED --ref SEED_REF [--actions FILE]`: check a hand's shuffle.

The board shows a commitment to each hand's seed from the deal (the ledger keeps it as the hand's
`seed_ref`); the result reveals the seed. This checks that the revealed SEED matches SEED_REF, rebuilds the
wall (and the dice) from it, and — given the hand's action log (`python -m kwx ledger hand ID --actions`) —
plays the hand again on that wall and compares the result with the one the ledger recorded.
Exit status 0 when everything matches, 2 (with one line saying what) when something does not.
"""

from __future__ import annotations

import argparse
from typing import Any

from kwx.cli import CliError, Subcommands, load_json_text, read_text
from kwx.engine.actions import Action, ActionFormatError, IllegalAction
from kwx.engine.hand import HandState
from kwx.engine.rules import RulesError, RuleSet
from kwx.engine.seeds import check_reveal
from kwx.engine.wall import dice_from_seed, format_sequence, wall_from_seed


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser("verify", help="check a hand's revealed seed against its commitment and replay it",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("seed", help="the seed the hand's result showed")
    p.add_argument("--ref", required=True, help="the hand's commitment (seed_ref: sha256:…)")
    p.add_argument("--actions", default=None, metavar="FILE",
                   help="the hand's action log from `python -m kwx ledger hand ID --actions` ('-' for stdin)")


def run(args: argparse.Namespace) -> int:
    try:
        seed = check_reveal(args.seed, args.ref)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    wall = wall_from_seed(seed)
    dice = dice_from_seed(seed)
    print(f"commitment: ok ({args.ref.strip()})")
    print(f"wall: {format_sequence(wall)}")
    print(f"dice: {dice[0]} {dice[1]}")
    if args.actions is None:
        return 0
    log = load_json_text(read_text(args.actions, "action log"), "action log")
    if not isinstance(log, dict):
        raise CliError("the action log must hold one JSON object (python -m kwx ledger hand ID --actions)")
    print(replay_against(log, seed, args.ref.strip()))
    return 0


def replay_against(log: dict[str, Any], seed: str, ref: str) -> str:
    """Replay the logged hand on the wall of `seed`; a CliError unless it ends as the ledger recorded."""
    if log.get("seed_ref") not in (None, ref):
        raise CliError(f"the action log is of another hand (its commitment is {log.get('seed_ref')})")
    if log.get("dice") is not None and list(log["dice"]) != list(dice_from_seed(seed)):
        raise CliError("the dice in the log are not the ones this seed gives")
    try:
        rules = RuleSet.from_json(log.get("rules", "standard"))
        hand = HandState(rules, int(log["dealer"]), wall_from_seed(seed), [int(p) for p in log.get("piao", (0, 0, 0))],
                         int(log.get("base_multiplier", 1)))
    except (RulesError, KeyError, TypeError, ValueError) as exc:
        raise CliError(f"the action log cannot be dealt: {exc}") from None
    actions = log.get("actions")
    if not isinstance(actions, list):
        raise CliError("the action log has no list of actions")
    for k, raw in enumerate(actions):
        try:
            hand.apply(Action.from_json(raw))
        except (ActionFormatError, IllegalAction) as exc:
            raise CliError(f"action {k + 1} ({raw}) is not legal on this wall: {exc}") from None
    if hand.result is None:
        raise CliError(f"the {len(actions)} actions do not finish the hand")
    net = list(hand.result.net)
    if log.get("net") is not None and list(log["net"]) != net:
        raise CliError(f"the replay ends with net {net}, the ledger recorded {list(log['net'])}")
    if log.get("outcome") not in (None, hand.result.outcome):
        raise CliError(f"the replay ends in a {hand.result.outcome}, the ledger recorded a {log['outcome']}")
    return f"replay: {len(actions)} actions on this wall end as the ledger recorded ({hand.result.outcome}, net {net})"
