"""`python -m kwx ledger balances|leaderboard|history|stats|settleup|export|hand [--server ID] [--db PATH] [--json]`

Read-only views of a server's ledger. `--server` defaults to `local` (the terminal's ledger); `--db` (a file,
or a postgresql:// URL) to `$KWX_DATABASE_URL`, else `$KWX_DB` (from the environment or `.env`, read as the bot
reads them) or data/kwx.sqlite3. Bad input (no database, unknown server or player, a number out of range)
prints one line to stderr and exits 2. `--player` takes an id or the name the tables show; `history` on the
local server without it is your own (the terminal's player). `hand ID` shows a recorded hand, its commitment and,
the hand being over, its seed. Output piped into a reader that stops early (`| head`) ends quietly.
`python -m kwx ledger migrate --from data/kwx.sqlite3 --to postgresql://…` copies every server's history into
an empty database (either way round) and checks that the balances match (exit 1 if they do not).
`python -m kwx ledger backup | restore | verify` keep a store safe (kwx/cli/backups.py).

JSON shapes (--json):
    balances     {"hands": n, "balances": [{"player": id, "name": str, "balance": n}, ...]}
    settleup     {"transfers": [{"from": id, "to": id, "amount": n}, ...]}
    leaderboard  {"period": p, "leaderboard": [{"rank", "player", "name", "net", "hands"}, ...]}
    history      {"player": id, "hands": [{hand_id, created_at, outcome, winners, fan, patterns, net, ...}, ...]}
    stats        {"stats": [{player, name, hands, wins, self_draws, self_draw_rate, deal_ins, ...}, ...]}
    export       {"entries": [{id, created_at, from_player, to_player, amount, reason, ...}, ...]}  (else CSV)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncpg

from kwx.cli import Subcommands, backups, bounded_int, chosen_language, language, said, store_error_text
from kwx.present.i18n import pattern_name, tr
from kwx.present.ledger_text import signed_money
from kwx.store import PERIODS, Store, StoreError, as_dict, default_db_path
from kwx.store.db import database_url

if TYPE_CHECKING:
    from kwx.cli.settings import Settings

LOCAL_SERVER = "local"  # the terminal's ledger
LOCAL_YOU = "local:you"  # the terminal's player: `ledger history` on the local server needs no --player
YOU_WORDS = ("you", "你", "me", "我")  # --player words for that player (the ledger keeps its login name)
COMMANDS = ("balances", "leaderboard", "history", "stats", "settleup", "export", "migrate", "hand", *backups.HELPS)
MAX_ROWS = 10_000  # --limit
MAX_OFFSET = 10**12  # --offset (SQLite takes up to 2^63)


class UsageError(Exception):
    """Bad input from the command line: reported in one line, exit code 2."""


def add_parser(subparsers: Subcommands) -> None:
    """Add the `ledger` command (and its sub-commands) to an argparse sub-parsers object."""
    ledger = subparsers.add_parser("ledger", help="balances, leaderboards, history and stats of a server's ledger",
                                   description=__doc__.split("\n\n")[1], formatter_class=argparse.RawTextHelpFormatter)
    _common_options(ledger, None)
    commands = ledger.add_subparsers(dest="ledger_command", required=True, metavar="COMMAND")
    helps = {
        "balances": "every player's balance",
        "leaderboard": "winnings ranked over a period",
        "history": "a player's hands, newest first",
        "stats": "per-player statistics",
        "settleup": "the fewest cash transfers that square everyone",
        "export": "the ledger as CSV",
        "migrate": "copy every server's history to another database (e.g. SQLite to PostgreSQL)",
        "hand": "one hand played at a table: its commitment, result and (--actions) its action log",
        **backups.HELPS,
    }
    parsers = {name: commands.add_parser(name, help=text, description=text) for name, text in helps.items()}
    for parser in parsers.values():
        _common_options(parser, argparse.SUPPRESS)  # also accepted after the sub-command
    parsers["leaderboard"].add_argument("--period", choices=PERIODS, default="all", help="all (default), month, week")
    parsers["leaderboard"].add_argument("--limit", type=bounded_int(1, MAX_ROWS), default=None,
                                        help="show the top N only")
    parsers["history"].add_argument("--player", default=None,
                                    help="player id or name (default on server local: you, the terminal's player)")
    parsers["history"].add_argument("--limit", type=bounded_int(1, MAX_ROWS), default=20,
                                    help=f"hands per page, 1 to {MAX_ROWS:,} (default 20)")
    parsers["history"].add_argument("--offset", type=bounded_int(0, MAX_OFFSET), default=0,
                                    help="skip this many newest hands")
    parsers["stats"].add_argument("--player", default=None, help="one player id or name (default: everyone)")
    parsers["export"].add_argument("--out", default=None, help="write to this file instead of stdout")
    parsers["migrate"].add_argument("--from", dest="source", required=True, help="database file or URL to copy")
    parsers["migrate"].add_argument("--to", dest="target", required=True,
                                    help="an empty database to fill (postgresql://… or a new file)")
    parsers["hand"].add_argument("hand_id", type=bounded_int(1, 2**62), metavar="ID", help="the hand's id (history)")
    parsers["hand"].add_argument("--actions", action="store_true",
                                 help="print the hand's action log as JSON, for python -m kwx verify --actions")
    backups.add_arguments(parsers)
    ledger.set_defaults(func=run)


def _common_options(parser: argparse.ArgumentParser, default: Any) -> None:
    parser.add_argument("--server", default="local" if default is None else default,
                        help="server (guild) id; default: local")
    parser.add_argument("--db", default=default, help="database file; default: $KWX_DB (environment or .env) or data/kwx.sqlite3")
    parser.add_argument("--json", action="store_true", default=False if default is None else default,
                        help="print JSON")
    parser.add_argument("--lang", type=language, default=default, help="language of the tables: zh-CN or en; default: $KWX_LANG or zh-CN")


def run(args: argparse.Namespace) -> int:
    """Run a parsed `ledger` command; return the exit code."""
    try:
        return asyncio.run(_run(args))
    except BrokenPipeError:  # `ledger export | head`: the reader has all it wanted
        _quiet_stdout()
        return 0
    except backups.Refused as exc:
        return backups.fail(exc, chosen_language(getattr(args, "lang", None)))
    except (UsageError, StoreError, sqlite3.Error, asyncpg.PostgresError, OSError, ValueError) as exc:
        lang = chosen_language(getattr(args, "lang", None))
        print(said("cli.ledger.error", lang, text=store_error_text(exc, lang)), file=sys.stderr)
        return 2


async def _run(args: argparse.Namespace) -> int:
    command = getattr(args, "ledger_command", None)
    if command not in COMMANDS:
        raise UsageError(f"choose a command: {', '.join(COMMANDS)}")
    if command == "migrate":
        return await _migrate(args)
    if command in backups.HELPS:
        return await backups.run(command, args, _read_env())
    path = ledger_target(getattr(args, "db", None))
    server = getattr(args, "server", None) or "local"
    as_json = bool(getattr(args, "json", False))
    args.lang = chosen_language(getattr(args, "lang", None))
    async with await Store.open(path) as store:
        if not await store.has_guild(server):
            raise UsageError(f"unknown server {server!r} in {path}")
        if command == "history" and getattr(args, "player", None) is None:
            if server != LOCAL_SERVER:
                raise UsageError("whose history? name a player with --player ID or --player NAME")
            if not await store.has_player(server, LOCAL_YOU):
                raise UsageError("no hand of yours at the terminal yet: name a player with --player ID or NAME")
            args.player = LOCAL_YOU
        if server == "local" and str(getattr(args, "player", None) or "").strip().lower() in YOU_WORDS:
            args.player = LOCAL_YOU  # the word the terminal calls you by, in either language
        if getattr(args, "player", None) is not None:
            args.player = await find_player(store, server, args.player)
        output = await _COMMANDS[command](store, server, args, as_json)
    if output is not None:
        print(output)
    return 0


async def find_player(store: Store, server: str, text: str) -> str:
    """The player `text` names on the server: a player id, else a name as the tables show it (any case);
    UsageError when it names nobody, or more than one player."""
    if await store.has_player(server, text):
        return text
    wanted = text.strip().casefold()
    ids = sorted({row.player for row in (await store.balances(server)).rows if row.name.casefold() == wanted})
    if len(ids) > 1:
        raise UsageError(f"{len(ids)} players on server {server!r} are called {text!r}: use an id ({', '.join(ids)})")
    if not ids:
        raise UsageError(f"unknown player {text!r} on server {server!r}")
    return ids[0]


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit finds no closed pipe either."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def ledger_target(db: str | None) -> Path | str:
    """The ledger `--db` names, else $KWX_DATABASE_URL, else $KWX_DB (environment or `.env`), else
    data/kwx.sqlite3; UsageError when it is a file that does not exist."""
    if not db:
        _read_env()
    path: Path | str = db or database_url() or default_db_path()
    if not _is_url(path):
        path = Path(path)
        if not path.is_file():
            raise UsageError(f"no ledger database at {path}")
    return path


def _read_env() -> Settings:
    """Read `.env` like the bot does (never overriding what is already set), so KWX_DB there counts."""
    from kwx.cli.settings import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _is_url(target: object) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


async def _migrate(args: argparse.Namespace) -> int:
    from kwx.store.copy import copy_store

    if not _is_url(args.source) and not Path(args.source).is_file():
        raise UsageError(f"no ledger database at {args.source}")
    if str(args.source) == str(args.target):
        raise UsageError("--from and --to name the same database")
    async with await Store.open(args.source) as source, await Store.open(args.target) as target:
        report = await copy_store(source, target)
    if getattr(args, "json", False):
        print(_dumps(report.to_json()))
    else:
        lang = chosen_language(getattr(args, "lang", None))
        copied = tr("common.list_sep", lang).join(f"{n} {table}" for table, n in report.rows.items())
        print(tr("cli.ledger.copied", lang, rows=copied))
        print(tr("cli.ledger.balances_match", lang, servers=report.guilds) if report.matches
              else "\n".join(report.problems))
    return 0 if report.matches else 1


# ---------------------------------------------------------------------------------------------- commands


async def _balances(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    sheet = await store.balances(server)
    if as_json:
        return _dumps({"hands": sheet.hands, "balances": [
            {"player": row.player, "name": row.name, "balance": row.balance} for row in sheet.rows]})
    lang = args.lang
    rows = [[row.name, row.player, _money(row.balance), str(row.hands)] for row in sheet.rows]
    headers = [tr(f"cli.ledger.{h}", lang) for h in ("name", "player", "balance", "hands")]
    return tr("cli.ledger.server", lang, server=server, hands=sheet.hands) + "\n" + _table(headers, rows, "llrr")


async def _leaderboard(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    board = await store.leaderboard(server, args.period, limit=args.limit)
    if as_json:
        return _dumps({"period": args.period, "leaderboard": [as_dict(row) for row in board]})
    lang = args.lang
    title = tr(f"ledger.period.{args.period}", lang)
    if not board:
        return tr("cli.ledger.leaderboard_empty", lang, period=title)
    rows = [[str(r.rank), r.name, _money(r.net), str(r.hands)] for r in board]
    headers = ["#", *(tr(f"cli.ledger.{h}", lang) for h in ("name", "net", "hands"))]
    return tr("cli.ledger.leaderboard", lang, period=title) + "\n" + _table(headers, rows, "rlrr")


async def _history(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    hands = await store.history(server, args.player, limit=args.limit, offset=args.offset)
    if as_json:
        return _dumps({"player": args.player, "hands": [as_dict(hand) for hand in hands]})
    lang = args.lang
    if not hands:
        return tr("cli.ledger.no_hands", lang)
    names: dict[str, str] = {}
    for hand in hands:
        for winner in hand.winners:
            if winner not in names:
                names[winner] = await store.player_name(server, winner) or winner
    rows = []
    for h in hands:
        where = (tr("cli.ledger.at_table", lang, table=h.table_id, hand=h.hand_no) if h.table_id is not None
                 else tr("cli.ledger.manual", lang, hand=h.hand_no))
        winners = ", ".join(tr("cli.ledger.winner_fan", lang, name=names[w], fan=h.fan.get(w, 0))
                            for w in h.winners) or "—"
        patterns = "; ".join(" ".join(pattern_name(_pattern_name(p), lang) for p in h.patterns.get(w, []))
                             for w in h.winners)
        role = next((tr(f"cli.ledger.role.{r}", lang) for r, on in (("self_draw", h.self_draw), ("won", h.won),
                                                                     ("dealt_in", h.dealt_in)) if on), "")
        outcome = tr(f"cli.ledger.outcome.{h.outcome}", lang) if catalog_has(f"cli.ledger.outcome.{h.outcome}") else h.outcome
        if h.reversed:
            outcome += tr("cli.ledger.reversed", lang)
        rows.append([str(h.hand_id), h.created_at.strftime("%Y-%m-%d %H:%M"), where, outcome, winners,
                     patterns, role, _money(h.net)])
    name = await store.player_name(server, args.player) or args.player
    headers = [tr(f"cli.ledger.{h}", lang) for h in ("hand", "when", "table", "outcome", "winners", "patterns", "you",
                                                     "net")]
    return tr("cli.ledger.hands_of", lang, name=name) + "\n" + _table(headers, rows, "rlllllll")


async def _stats(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    stats = [await store.player_stats(server, args.player)] if args.player else await store.stats(server)
    if as_json:
        return _dumps({"stats": [as_dict(s) for s in stats]})
    lang = args.lang
    if not stats:
        return tr("cli.ledger.no_hands", lang)
    rows = [[s.name, str(s.hands), f"{s.wins} ({s.win_rate:.0%})", f"{s.self_draws} ({s.self_draw_rate:.0%})",
             f"{s.deal_ins} ({s.deal_in_rate:.0%})", f"{s.avg_fan:.1f}", str(s.max_fan),
             tr("cli.ledger.liangdao_won", lang, count=s.liangdao, rate=f"{s.liangdao_win_rate:.0%}"), _money(s.net)]
            for s in stats]
    headers = [tr("cli.ledger.name", lang), *(tr(f"ledger.stats.{h}", lang) for h in (
        "hands", "wins", "self_draws", "deal_ins", "avg_fan", "max_fan", "liangdao", "net"))]
    return _table(headers, rows, "lrrrrrrrr")


async def _settleup(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    transfers = await store.settle_up(server)
    if as_json:
        return _dumps({"transfers": [t.to_json() for t in transfers]})
    if not transfers:
        return tr("ledger.settle.square", args.lang)
    names = {row.player: row.name for row in (await store.balances(server)).rows}
    rows = [[names.get(t.from_player, t.from_player), names.get(t.to_player, t.to_player), str(t.amount)]
            for t in transfers]
    return _table([tr(f"cli.ledger.{h}", args.lang) for h in ("pays", "to", "amount")], rows, "llr")


async def _export(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str | None:
    out = open(args.out, "w", newline="", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        if as_json:
            entries = [as_dict(entry) async for entry in store.iter_entries(server)]
            out.write(_dumps({"entries": entries}) + "\n")
            count = len(entries)
        else:
            count = await store.export_csv(server, out)
    finally:
        if out is not sys.stdout:
            out.close()
    if args.out:
        print(tr("cli.ledger.wrote", args.lang, count=count, out=args.out), file=sys.stderr)
    return None


async def _hand(store: Store, server: str, args: argparse.Namespace, as_json: bool) -> str:
    from kwx.table.proof import hand_proof

    log = await store.hand_log(server, args.hand_id)
    if args.actions or as_json:
        return json.dumps(log, ensure_ascii=False)
    lang = args.lang
    names = [await store.player_name(server, p) or p for p in log["players"]]
    outcome_key = f"cli.ledger.outcome.{log['outcome']}"
    outcome = tr(outcome_key, lang) if catalog_has(outcome_key) else log["outcome"]
    net = tr("common.list_sep", lang).join(f"{name} {_money(n)}" for name, n in zip(names, log["net"]))
    lines = [tr("cli.ledger.hand_head", lang, hand=log["hand_id"], table=log["table_id"], hand_no=log["hand_no"],
               outcome=outcome, net=net),
             tr("cli.ledger.hand_commitment", lang, ref=log["seed_ref"], actions=len(log["actions"]))]
    proof = await hand_proof(store, server, log["table_id"], log["hand_no"])
    if proof is not None:  # a finished hand's seed is public: what it takes to check the shuffle
        lines.append(tr("cli.ledger.hand_seed", lang, seed=proof.seed))
        lines.append(tr("cli.ledger.hand_verify", lang, seed=proof.seed, ref=log["seed_ref"], hand=log["hand_id"]))
    return "\n".join(lines)


_COMMANDS = {"balances": _balances, "leaderboard": _leaderboard, "history": _history, "stats": _stats,
             "settleup": _settleup, "export": _export, "hand": _hand}


# ---------------------------------------------------------------------------------------------- formatting


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _money(amount: int) -> str:
    return signed_money(amount)


def catalog_has(key: str) -> bool:
    from kwx.present.i18n import catalog

    return catalog().template(key) is not None


def _pattern_name(pattern: Any) -> str:
    if isinstance(pattern, dict):
        return str(pattern.get("id", pattern))
    return str(pattern)


def _width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    widths = [max(_width(cell) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        padded = []
        for cell, width, how in zip(cells, widths, align):
            gap = " " * (width - _width(cell))
            padded.append(gap + cell if how == "r" else cell + gap)
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])
