"""`python -m kwx verify SEED --ref SEED_REF [--actions FILE]`: check a hand's shuffle.

The board shows a commitment to each hand's seed from the deal (the ledger keeps it as the hand's
`seed_ref`); the result reveals the seed. This checks that the revealed SEED matches SEED_REF, rebuilds the
wall (and the dice) from it, and — given the hand's action log (`python -m kwx ledger hand ID --actions`) —
plays the hand again on that wall and compares the result with the one the ledger recorded.
Exit status 0 when everything matches, 2 (with one line saying what) when something does not. It speaks
$KWX_LANG (--lang); a reason the rules engine gives for an action it refuses stays in its English.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from kwx.cli import CliError, Subcommands, chosen_language, language, load_json_text, read_text, said
from kwx.engine.actions import Action, ActionFormatError, IllegalAction
from kwx.engine.hand import HandState
from kwx.engine.rules import RulesError, RuleSet
from kwx.engine.seeds import check_reveal
from kwx.engine.wall import dice_from_seed, format_sequence, wall_from_seed
from kwx.present.i18n import catalog, tr
from kwx.present.numbers import signed_points


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser("verify", help="check a hand's revealed seed against its commitment and replay it",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("seed", help="the seed the hand's result showed")
    p.add_argument("--ref", required=True, help="the hand's commitment (seed_ref: sha256:…)")
    p.add_argument("--actions", default=None, metavar="FILE",
                   help="the hand's action log from `python -m kwx ledger hand ID --actions` ('-' for stdin)")
    p.add_argument("--lang", type=language, default=None, help="zh-CN or en; default: $KWX_LANG or zh-CN")


def run(args: argparse.Namespace) -> int:
    lang = chosen_language(args.lang)
    try:
        seed = check_reveal(args.seed, args.ref)
    except ValueError as exc:
        no_seed = not args.seed.strip().partition("~")[0]
        raise CliError(str(exc), "cli.verify.no_seed" if no_seed else "cli.verify.mismatch") from None
    wall = wall_from_seed(seed)
    dice = dice_from_seed(seed)
    print(said("cli.verify.commitment_ok", lang, ref=args.ref.strip()))
    print(said("cli.verify.wall", lang, wall=format_sequence(wall)))
    print(said("cli.verify.dice", lang, first=dice[0], second=dice[1]))
    if args.actions is None:
        return 0
    log = load_json_text(read_text(args.actions, "action log"), "action log")
    if not isinstance(log, dict):
        raise CliError("the action log must hold one JSON object (python -m kwx ledger hand ID --actions)",
                       "cli.verify.not_object")
    print(replay_against(log, seed, args.ref.strip(), lang))
    return 0


def replay_against(log: dict[str, Any], seed: str, ref: str, lang: str) -> str:
    """Replay the logged hand on the wall of `seed`; a CliError unless it ends as the ledger recorded."""
    if log.get("seed_ref") not in (None, ref):
        raise CliError(f"the action log is of another hand (its commitment is {log.get('seed_ref')})",
                       "cli.verify.other_hand", ref=log.get("seed_ref"))
    if log.get("dice") is not None and list(log["dice"]) != list(dice_from_seed(seed)):
        raise CliError("the dice in the log are not the ones this seed gives", "cli.verify.dice_differ")
    try:
        rules = RuleSet.from_json(log.get("rules", "standard"))
        hand = HandState(rules, int(log["dealer"]), wall_from_seed(seed), [int(p) for p in log.get("piao", (0, 0, 0))],
                         int(log.get("base_multiplier", 1)))
    except (RulesError, KeyError, TypeError, ValueError) as exc:
        raise CliError(f"the action log cannot be dealt: {exc}", "cli.verify.cannot_deal", detail=exc) from None
    actions = log.get("actions")
    if not isinstance(actions, list):
        raise CliError("the action log has no list of actions", "cli.verify.no_actions")
    for k, raw in enumerate(actions):
        try:
            hand.apply(Action.from_json(raw))
        except (ActionFormatError, IllegalAction) as exc:
            shown = json.dumps(raw, ensure_ascii=False)
            raise CliError(f"action {k + 1} ({shown}) is not legal on this wall: {exc}", "cli.verify.illegal",
                           number=k + 1, action=shown, detail=exc) from None
    if hand.result is None:
        raise CliError(f"the {len(actions)} actions do not finish the hand", "cli.verify.unfinished",
                       count=len(actions))
    net = list(hand.result.net)
    if log.get("net") is not None and list(log["net"]) != net:
        raise CliError(f"the replay ends with net {net}, the ledger recorded {list(log['net'])}",
                       "cli.verify.net_differs", net=Nets(net), recorded=Nets(list(log["net"])))
    if log.get("outcome") not in (None, hand.result.outcome):
        raise CliError(f"the replay ends in a {hand.result.outcome}, the ledger recorded a {log['outcome']}",
                       "cli.verify.outcome_differs", outcome=Outcome(hand.result.outcome),
                       recorded=Outcome(str(log["outcome"])))
    return said("cli.verify.replayed", lang, count=len(actions), outcome=Outcome(hand.result.outcome).said(lang),
                net=Nets(net).said(lang))


class Nets(NamedTuple):
    """Each seat's net, a loss with a minus sign, listed the language's way: "−4, +2, +2" / "−4、+2、+2"."""

    net: Sequence[object]

    def said(self, lang: str) -> str:
        return tr("common.list_sep", lang).join(signed_points(n) if isinstance(n, int) else str(n) for n in self.net)


class Outcome(NamedTuple):
    """A hand's outcome (win, draw) in the language's word; one the catalog does not know as it is."""

    outcome: str

    def said(self, lang: str) -> str:
        key = f"cli.ledger.outcome.{self.outcome}"
        return said(key, lang) if catalog().template(key, lang) is not None else self.outcome
