"""`python -m kwx waits HAND [--meld KIND:TILE]... [--json]`: the tiles a hand waits on (听牌), docs/rules.md §5.

HAND is the concealed tiles, 13 − 3 per meld. `--json` prints {"waits": ["5p", "8p"], "shanten": 0} (waits in
display order; a tile whose four copies are all in the hand is left out). Not ready: empty waits and the shanten
(how many tiles from ready).
"""

from __future__ import annotations

import argparse
import json

from kwx.cli import CliError, Subcommands
from kwx.cli.fan import both_notations, describe_melds
from kwx.engine.analysis import shanten, waits
from kwx.engine.calculator import InputError, check_hand, parse_melds
from kwx.engine.tiles import TileError, parse_tiles, to_counts


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser(
        "waits", help="the tiles a ready hand waits on (听牌)",
        description="List the winning tiles of a hand of 13 − 3 per meld concealed tiles, or how far it is from ready.",
    )
    p.add_argument("hand", help="concealed tiles, compact (1122334456677p) or Chinese (quote it)")
    p.add_argument("--meld", action="append", default=[], metavar="KIND:TILE",
                   help="a declared meld: pung, kong (exposed) or ankong; repeat for each")
    p.add_argument("--json", action="store_true", help='print {"waits": [...], "shanten": n}')


def run(args: argparse.Namespace) -> int:
    try:
        hand = parse_tiles(args.hand, check_copies=False)
        melds = parse_melds(args.meld)
        check_hand(hand, melds, what="to wait")
    except (InputError, TileError) as exc:
        raise CliError(str(exc)) from None
    counts = to_counts(hand)
    found = waits(counts, melds)
    distance = shanten(counts, len(melds))
    if args.json:
        print(json.dumps({"waits": [t.compact for t in found], "shanten": distance}, ensure_ascii=False))
        return 0
    print(f"Hand 手牌:  {both_notations(hand)}")
    if melds:
        print(f"Melds 副露: {describe_melds(melds)}")
    if found:
        print(f"Waits 听牌: {both_notations(found, grouped=False)}")
    elif distance <= 0:
        print("Waits 听牌: none — the hand is shaped to wait only on a tile it already holds all four of.")
    else:
        print(f"Not ready 未听牌: {distance} tile{'s' if distance != 1 else ''} from ready (向听 {distance}).")
    return 0
