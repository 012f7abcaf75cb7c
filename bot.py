"""kwx — Ka Wu Xing (卡五星) referee. `python bot.py [--local] [options]` (installed: `kwx-bot [options]`)

The composition root: it reads the settings (`.env` from the working directory, see .env.example, and the
command line of kwx.cli.bot_args), builds what the front end asked for, and runs it. With `--local`, or when
no DISCORD_TOKEN is configured, that is the terminal table (kwx.local.launch: you against two AI players;
`--autoplay N` lets three AI players play N hands headless). Otherwise it is the Discord bot (cogs.bot.KwxBot,
with its cogs in cogs/; `python bot.py --sync [--guild ID]` also sends the slash commands to Discord).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import aiohttp
import discord

from cogs.bot import (
    BotSettings,
    CommandSync,
    KwxBot,
    Pace,
    SetupError,
    ShardedKwxBot,
    Shards,
    SyncError,
    discord_rest,
    one_line,
)
from kwx.cli.bot_args import build_parser, parse_shards
from kwx.cli.settings import ConfigError, Settings, load_settings
from kwx.devtools.redirect import RedirectConnector, api_address
from kwx.store import StoreError

# No network, no DNS, a refused or timed-out connection, Discord down (5xx) or no gateway: the bot cannot start.
UNREACHABLE = (aiohttp.ClientConnectionError, asyncio.TimeoutError, OSError, discord.GatewayNotFound,
               discord.DiscordServerError)
REST_CALLS_PER_SECOND = 40.0  # the whole bot's REST budget, under Discord's 50/s global limit


def bot_settings(args: argparse.Namespace, env: Settings) -> BotSettings:
    """The real process's settings from its command line (ValueError with one line when they do not fit)."""
    if env.api_base:
        api_address(env.api_base)  # checked before start-up: the connector is built on the bot's loop
    shards = None
    if args.shards is not None or args.shard_count is not None:
        if args.shards is None or args.shard_count is None:
            raise ValueError("--shards and --shard-count go together (e.g. --shards 0-3 --shard-count 8)")
        shards = Shards(tuple(parse_shards(args.shards, args.shard_count)), args.shard_count)
        if not str(args.db or env.database).startswith(("postgresql://", "postgres://")):
            raise ValueError("several processes share one PostgreSQL database: set KWX_DATABASE_URL")
    sync = CommandSync(guild=args.guild or env.test_guild, everywhere=args.sync_global) if args.sync else None
    pace = Pace(ai_delay=args.delay if args.delay is not None else Pace.ai_delay, claim_pause=args.claim_pause)
    return BotSettings(env=env, database=args.db, pace=pace, sync=sync, shards=shards,
                       rate_limit=REST_CALLS_PER_SECOND, freeze_gc=True, handle_signals=True, hosting=True)


async def serve(settings: BotSettings, token: str) -> None:
    """Build the bot with its collaborators on this loop and run it until it closes."""
    connector = None
    if settings.env.api_base:  # another Discord API: the loopback Discord, or a REST proxy
        connector = RedirectConnector.to(settings.env.api_base)
    bot = (ShardedKwxBot if settings.shards else KwxBot)(settings, connector=connector, rest=discord_rest(settings))
    async with bot:
        await bot.start(token)


def run_discord(args: argparse.Namespace, env: Settings) -> int:
    """Run the bot until interrupted. Exit status 2 with one line when the token is missing, Discord rejects
    it, Discord cannot be reached at start-up, the metrics port is taken, or the store cannot be opened (one
    that cannot be backed up is not migrated)."""
    prog = getattr(args, "prog", "python bot.py")  # or kwx-bot (build_parser)
    if not env.discord_token:
        print(f"{prog}: DISCORD_TOKEN is not set (see .env.example)", file=sys.stderr)
        return 2
    try:
        settings = bot_settings(args, env)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    start_logging()
    try:
        asyncio.run(serve(settings, env.discord_token))
    except KeyboardInterrupt:  # before the bot's own signal handlers are in place
        return 0
    except discord.LoginFailure:
        print(f"{prog}: Discord rejected the token (DISCORD_TOKEN): check it in the developer portal, "
              "Bot → Reset Token", file=sys.stderr)
        return 2
    except UNREACHABLE as exc:
        print(f"{prog}: cannot reach Discord ({unreachable_reason(exc)}): check the network, or play at "
              f"the terminal with `{prog} --local`", file=sys.stderr)
        return 2
    except SyncError as e:
        print(f"{prog}: could not sync the slash commands: {e}", file=sys.stderr)
        return 2
    except (SetupError, StoreError) as e:  # a port in use; a store that cannot be opened or migrated
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    return 0


def start_logging() -> None:
    """INFO and up on stderr, each line with its time (the bot runs for months)."""
    handler = logging.StreamHandler()
    formatter = logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    discord.utils.setup_logging(handler=handler, formatter=formatter, level=logging.INFO, root=True)
    # discord.client's one INFO line ("logging in using static token") says nothing a person needs; without it
    # a start-up failure is the one line run_discord prints.
    logging.getLogger("discord.client").setLevel(logging.WARNING)


def unreachable_reason(exc: BaseException) -> str:
    """What went wrong, on one short line."""
    return one_line(str(exc)) or type(exc).__name__


def main(argv: list[str] | None = None, prog: str = "python bot.py") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    from kwx.local.launch import run_local, wants_local

    if wants_local(args, settings):
        return run_local(args, settings, prog)
    return run_discord(args, settings)


def console_main() -> int:
    """`kwx-bot`: the installed command (pipx / uv tool install), the same as `python bot.py` in a checkout."""
    return main(prog="kwx-bot")


if __name__ == "__main__":
    sys.exit(main())
