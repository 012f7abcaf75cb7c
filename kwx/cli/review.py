"""`python -m kwx review HAND [--db …] [--server ID] [--seat N] [--plain | --json] [--png FILE] [--html FILE]`

复盘: replay a finished hand with every tile shown, and see where the strong AI would have played otherwise.
HAND is a hand's id in the ledger (`python -m kwx ledger history`), or an action log exported with
`python -m kwx ledger hand ID --actions` together with `--seed` (the seed its result post revealed).
The hand is checked first: its seed against the ledger's commitment, its log replayed to the recorded result;
a hand that does not check out is reported (exit 2), not reviewed.

At a terminal it opens a screen to step through the hand (← → Home End, m: my next decision, x: next big
mistake, q: quit); `--plain` prints the summary and every step, `--json` the whole review. `--png FILE` draws a
step (`--step K`, default the end) and `--html FILE` writes one page to open in any browser, offline.
--seat N (0, 1, 2): whose decisions to judge; default your seat at the terminal's table, else seat 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from kwx.cli import (
    CliError,
    StoreCliError,
    Subcommands,
    bounded_int,
    chosen_language,
    language,
    load_json_text,
    read_text,
    said,
)
from kwx.engine.review import Review
from kwx.local.text import plain_code
from kwx.present.review_text import ReviewText
from kwx.table.reviews import ReviewRefused, ReviewSource, load_exported_hand, load_ledger_hand, review_hand

LOCAL_PLAYER = "local:you"  # the terminal's player (kwx.local.tables.YOU_ID)


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser("review", help="replay a finished hand with every tile shown and the AI's view",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hand", help="a hand id from the ledger, or an exported action log (JSON file, '-' for stdin)")
    p.add_argument("--db", default=None, help="ledger database file or postgresql:// URL (default as `ledger`)")
    p.add_argument("--server", default="local", help="server (guild) id; default: local")
    p.add_argument("--seed", default=None, help="for an exported action log: the seed its result revealed")
    p.add_argument("--seat", type=bounded_int(0, 2), default=None, help="whose decisions to judge: 0, 1 or 2")
    p.add_argument("--lang", type=language, default=None, help="zh-CN or en; default: $KWX_LANG or zh-CN")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--plain", action="store_true", help="print the summary and every step as text")
    out.add_argument("--json", action="store_true", help="print the review as JSON")
    p.add_argument("--png", default=None, metavar="FILE", help="draw one step as a PNG")
    p.add_argument("--step", type=bounded_int(1, 10_000), default=None,
                   help="the step --png draws and the page opens at (default: the end for --png, 1 for --html)")
    p.add_argument("--html", default=None, metavar="FILE", help="write a self-contained HTML page")


def run(args: argparse.Namespace) -> int:
    lang = chosen_language(args.lang)
    source = load(args)
    seat = args.seat if args.seat is not None else (source.seat_of(LOCAL_PLAYER) or 0)
    try:
        done = review_hand(source, seat)
    except ReviewRefused as exc:
        raise refused(exc) from None
    wrote = _write_files(args, done, source, lang)
    if args.json:
        print(json.dumps(review_json(done, source), ensure_ascii=False))
    elif args.plain or (not wrote and not sys.stdout.isatty()):
        print(plain_text(done, source, lang))
    elif not wrote:
        from kwx.local.review import run_review_screen

        run_review_screen(done, source, lang)
    return 0


def load(args: argparse.Namespace) -> ReviewSource:
    """The hand named on the command line, checked (CliError when it is not there or does not check out)."""
    try:
        if args.hand.isdigit():
            return asyncio.run(_from_ledger(args))
        text = read_text(args.hand, "action log")  # first: a mistyped hand id is named as no such file
        if not args.seed:
            raise CliError("an exported action log needs --seed (the seed its result post revealed)",
                           "cli.review.needs_seed")
        log = load_json_text(text, "action log")
        return load_exported_hand(log, args.seed)
    except ReviewRefused as exc:
        raise refused(exc) from None


def refused(exc: ReviewRefused) -> CliError:
    """Why a hand is not reviewed, in the catalog's words (review.refused.<code>, as /kwx review says it)."""
    return CliError(str(exc), f"review.refused.{exc.code}", **{"hand": "?", "detail": "", "member": "?", **exc.fmt})


async def _from_ledger(args: argparse.Namespace) -> ReviewSource:
    from kwx.cli.ledger import UsageError, ledger_target
    from kwx.store import Store, StoreError

    try:
        target = ledger_target(args.db)
        async with await Store.open(target) as store:
            return await load_ledger_hand(store, args.server, int(args.hand), sees_all=True)
    except StoreError as exc:
        raise StoreCliError(exc) from None
    except (UsageError, OSError) as exc:
        raise CliError(str(exc)) from None


def _write_files(args: argparse.Namespace, done: Review, source: ReviewSource, lang: str) -> bool:
    last = len(done.frames)
    if args.step is not None and args.step > last:
        raise CliError(f"--step must be from 1 to {last} (this hand has {last} steps)", "cli.review.step", last=last)
    if args.png:
        from kwx.present.review_art import render_step

        step = (args.step or last) - 1
        _write(lang, args.png, render_step(done, source.names, step, lang, hand_id=source.hand_id))
    if args.html:
        from kwx.present.review_html import review_page

        page = review_page(done, source.names, lang, hand_id=source.hand_id, start=(args.step or 1) - 1)
        _write(lang, args.html, page.encode("utf-8"))
    return bool(args.png or args.html)


def _write(lang: str, path: str, data: bytes) -> None:
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}", "cli.review.cannot_write", path=path,
                       reason=exc.strerror) from None
    print(said("cli.review.wrote", lang, path=path), file=sys.stderr)


def review_json(done: Review, source: ReviewSource) -> dict[str, Any]:
    return {"hand_id": source.hand_id, "table_id": source.table_id, "hand_no": source.hand_no,
            "players": list(source.players), "names": list(source.names), "seed": source.seed,
            "seed_ref": source.seed_ref, **done.to_json()}


def plain_text(done: Review, source: ReviewSource, lang: str) -> str:
    words = ReviewText(done, source.names, lang, hand_id=source.hand_id)
    out = [words.title(), *words.summary_lines()]
    for k in range(len(done.frames)):
        out.append("")
        out.extend(words.frame_lines(k))
    return plain_code("\n".join(out))  # the catalog's `code` marks are for Discord
