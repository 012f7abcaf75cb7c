"""The bot's command line (`python bot.py`, installed as `kwx-bot`): one parser for both of its front ends.

    args = build_parser("kwx-bot").parse_args(argv)
    add_terminal_options(parser)                       # the terminal's options on another parser (kwx play)
    shard_ids = parse_shards("0-3,6", 8)               # → [0, 1, 2, 3, 6]
"""

from __future__ import annotations

import argparse


def parse_shards(text: str, count: int) -> list[int]:
    """`0-3` or `0,2,5` (or both, `0-3,6`) → shard ids, each in [0, count); ValueError names what is wrong."""
    if count < 1:
        raise ValueError("--shard-count must be at least 1")
    ids: set[int] = set()
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"--shards: {part.strip()!r} is not a shard number or a range like 0-3")
        low, high = int(first), int(last or first)
        if low > high or high >= count:
            raise ValueError(f"--shards: {part.strip()} is not within 0-{count - 1} (--shard-count {count})")
        ids.update(range(low, high + 1))
    return sorted(ids)


def add_terminal_options(p: argparse.ArgumentParser) -> None:
    """The options of the terminal table, also `python -m kwx play`'s (kwx.cli.play)."""
    p.add_argument("--autoplay", type=int, metavar="N", default=None,
                   help="with --local: three AI players play until N more hands are finished (table channel 'autoplay')")
    p.add_argument("--delay", type=float, metavar="S", default=None,
                   help="seconds an AI player waits before acting (default 0.8 for Discord; 0.4 at the terminal, whose "
                        "board also holds every discard 0.4 s, so an AI turn takes 0.8 s; 0 for --autoplay)")
    p.add_argument("--seed", metavar="S", default=None,
                   help="wall seed for a NEW local table (an open table keeps the seed it was created with)")
    p.add_argument("--web", action="store_true",
                   help="with --local: play in your browser (http://127.0.0.1:$KWX_WEB_PORT, default 8765) instead of "
                        "the terminal")
    p.add_argument("--plain", action="store_true",
                   help="at the terminal: the line-by-line mode (pipes, screen readers) instead of the game screen")
    p.add_argument("--turn-seconds", type=float, metavar="S", default=None,
                   help="at the terminal: a turn timer for a NEW table (default none: the AI players wait for you)")
    p.add_argument("--new", action="store_true",
                   help="at the terminal: close the open table (its finished hands stay in the ledger; a hand in play "
                        "is abandoned) and start a new one, with --turn-seconds and --seed if given")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="SQLite file or postgresql:// URL (default: $KWX_DATABASE_URL, else $KWX_DB or data/kwx.sqlite3)")


def build_parser(prog: str = "python bot.py") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Ka Wu Xing (卡五星) referee: Discord bot or terminal table")
    p.set_defaults(prog=prog)  # the command's name in the one-line errors
    p.add_argument("--local", action="store_true", help="play at the terminal even if DISCORD_TOKEN is set")
    add_terminal_options(p)
    p.add_argument("--claim-pause", type=float, metavar="S", default=None,
                   help="Discord: seconds the board holds every discard at a table with a human, whether or not anyone "
                        "may claim it (default 1.5; 0 for tests)")
    p.add_argument("--shards", metavar="RANGE", default=None,
                   help="Discord: run these shards only, e.g. 0-3 or 0,2 (with --shard-count; PostgreSQL)")
    p.add_argument("--shard-count", type=int, metavar="N", default=None, help="Discord: shards of the whole bot")
    p.add_argument("--sync", action="store_true", help="Discord: sync the slash commands at start-up")
    p.add_argument("--guild", metavar="ID", default=None,
                   help="Discord: sync the slash commands to this guild only (default: $KWX_TEST_GUILD)")
    p.add_argument("--global", dest="sync_global", action="store_true",
                   help="Discord, with --sync: sync globally even if KWX_TEST_GUILD is set (and remove that "
                        "guild's copy, so no command is listed twice)")
    return p
