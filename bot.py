"""kwx — Ka Wu Xing (卡五星) referee. `python bot.py [--local] [options]` (installed: `kwx-bot [options]`)

Reads `.env` from the working directory (see .env.example). With `--local`, or when no DISCORD_TOKEN is configured, it runs the terminal
table (you against two AI players; `--autoplay N` lets three AI players play N hands headless). Otherwise it runs
the Discord bot. The local branch lives in kwx/ (kwx.local.run_local); the Discord branch is `KwxBot` below,
with its cogs in cogs/ (`python bot.py --sync [--guild ID]` also sends the slash commands to Discord).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp
import discord
from discord.ext import commands

from kwx.cli.settings import ConfigError, Settings, load_settings
from kwx.store import StoreError

if TYPE_CHECKING:
    from cogs.runtime import Runtime
    from kwx.cluster import ClusterNode
    from kwx.health import HealthServer
    from kwx.store import Store
    from kwx.store.backup import BackupSchedule
    from kwx.table.service import TableService

log = logging.getLogger("kwx.bot")


async def _nothing() -> None:
    return None


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


def build_parser(prog: str = "python bot.py") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Ka Wu Xing (卡五星) referee: Discord bot or terminal table")
    p.set_defaults(prog=prog)  # the command's name in the one-line errors
    p.add_argument("--local", action="store_true", help="play at the terminal even if DISCORD_TOKEN is set")
    p.add_argument("--autoplay", type=int, metavar="N", default=None,
                   help="with --local: three AI players play until N more hands are finished (table channel 'autoplay')")
    p.add_argument("--delay", type=float, metavar="S", default=None,
                   help="seconds an AI player waits before acting (default 0.8 for Discord; 0.4 at the terminal, whose "
                        "board also holds every discard 0.4 s, so an AI turn takes 0.8 s; 0 for --autoplay)")
    p.add_argument("--claim-pause", type=float, metavar="S", default=None,
                   help="Discord: seconds the board holds every discard at a table with a human, whether or not anyone "
                        "may claim it (default 1.5; 0 for tests)")
    p.add_argument("--seed", metavar="S", default=None,
                   help="wall seed for a NEW local table (an open table keeps the seed it was created with)")
    p.add_argument("--plain", action="store_true",
                   help="at the terminal: the line-by-line mode (pipes, screen readers) instead of the game screen")
    p.add_argument("--turn-seconds", type=float, metavar="S", default=None,
                   help="at the terminal: a turn timer for a NEW table (default none: the AI players wait for you)")
    p.add_argument("--new", action="store_true",
                   help="at the terminal: close the open table (its finished hands stay in the ledger; a hand in play "
                        "is abandoned) and start a new one, with --turn-seconds and --seed if given")
    p.add_argument("--db", metavar="PATH", default=None,
                   help="SQLite file or postgresql:// URL (default: $KWX_DATABASE_URL, else $KWX_DB or data/kwx.sqlite3)")
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


class SyncError(RuntimeError):
    """The slash commands could not be synced; the message is the one line to print."""


class SetupError(RuntimeError):
    """The bot cannot start as configured (a metrics port in use); the message is the one line to print."""


def use_api_base(base: str | None) -> None:
    """Send every REST call (bot token, interactions, webhooks) to `base` instead of Discord's API; the gateway
    is then asked of that API (KwxBot.setup_hook). DISCORD_API_BASE: a REST proxy, or the loopback Discord."""
    from discord.http import Route

    Route.BASE = base.rstrip("/") if base else "https://discord.com/api/v10"


# -- the Discord bot -------------------------------------------------------------------------------------------
# One cog a file; each adds its subcommands to /kwx (cogs/group.py).
EXTENSIONS = ("cogs.tables", "cogs.ledger", "cogs.tools", "cogs.config", "cogs.review")
LOCAL_GUILD = "local"  # the terminal and autoplay tables: never run by the Discord bot


def bot_intents() -> discord.Intents:
    """Only the guilds intent: channels and threads in the cache. Slash commands, buttons and DMs the bot sends
    arrive as interactions or are plain API calls, which need no intent (no message content, no members)."""
    intents = discord.Intents.none()
    intents.guilds = True
    return intents


class KwxBot(commands.Bot):
    """The Discord bot. `setup_hook` opens the store, builds the table service with the Discord front end,
    loads the cogs, registers the persistent buttons, uploads missing tile emojis and resumes open tables.

    Keyword options are for tests and benchmarks (a fake Discord, no delays, no coalescing)."""

    def __init__(self, settings: Settings, *, db_path: str | Path | None = None, sync: bool = False,
                 sync_guild: str | None = None, ai_delay: float = 0.8, between_hands: float = 4.0,
                 board_interval: float = 3.0, ai_board_interval: float = 3.0, upload_emojis: bool = True,
                 table_seed: str | None = None, freeze_gc: bool = False,
                 rate_limit: float | None = None, sync_global: bool = False, api_base: str | None = None,
                 handle_signals: bool = False, claim_pause: float | None = None,
                 table_clock: Callable[[], float] | None = None, hosting: bool = False,
                 shard_ids: list[int] | None = None, shard_count: int | None = None) -> None:
        # shard_ids and shard_count: the shards this process serves, of how many (ShardedKwxBot only).
        from cogs.telemetry import http_trace

        super().__init__(command_prefix=commands.when_mentioned, intents=bot_intents(), help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(), http_trace=http_trace(),
                         shard_count=shard_count)
        self.serves_shards = shard_ids  # None: this process is the whole bot
        self.cluster: ClusterNode | None = None  # when this process is one of several (ShardedKwxBot)
        self.settings = settings
        self.db_path = db_path if db_path is not None else settings.database
        self.sync_commands = sync
        self.sync_guild = sync_guild
        self.sync_global = sync_global  # sync globally even with a test guild (whose copy is then removed)
        self.api_base = api_base  # DISCORD_API_BASE: the gateway is asked of that API
        self.handle_signals = handle_signals  # SIGTERM/SIGINT close the bot cleanly (the real process only)
        self.ai_delay = ai_delay
        self.between_hands = between_hands
        self.claim_pause = claim_pause  # None: the service's default (kwx.table.record.CLAIM_PAUSE)
        self.board_interval = board_interval
        self.ai_board_interval = ai_board_interval
        self.upload_emojis = upload_emojis
        self.table_seed = table_seed
        self.freeze_gc = freeze_gc
        self.rate_limit = rate_limit  # REST calls/s for the whole bot (cogs.ratelimit); None = no limiting
        self.table_clock = table_clock  # the table service's unix clock (tests and benchmarks move a fake one)
        # The real process: scheduled backups of a SQLite store, and /healthz + /metrics when KWX_METRICS_PORT
        # is set (settings.backup_*, settings.metrics_*). Off for tests and benchmarks.
        self.hosting = hosting
        self.backups: BackupSchedule | None = None  # while backups are scheduled
        self.monitor: HealthServer | None = None  # while /healthz and /metrics are served
        self.kwx: Runtime | None = None  # built in setup_hook

    async def setup_hook(self) -> None:
        from cogs.buttons import DYNAMIC_ITEMS
        from cogs.emoji import TileFormatter, ensure_tile_emojis
        from cogs.frontend import DiscordFrontEnd
        from cogs.languages import Languages
        from cogs.operations import set_rate_limiter
        from cogs.ratelimit import GlobalRateLimiter
        from cogs.runtime import Runtime
        from cogs.translator import KwxTranslator
        from kwx.store import Store
        from kwx.table.record import CLAIM_PAUSE
        from kwx.table.retry import RetryPolicy
        from kwx.table.service import TableService

        if self.api_base:
            # discord.py connects a single-shard bot to Discord's default gateway without asking; ask this API.
            import yarl
            from discord.gateway import DiscordWebSocket

            _, url, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
            log.info("Discord API at %s, gateway at %s", self.api_base, url)
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self._on_signal, sig)
        # Before anything sends: resumed tables post boards and DMs at once.
        set_rate_limiter(GlobalRateLimiter.for_discord(self.rate_limit) if self.rate_limit else None)
        store = await Store.open(self.db_path, backup_dir=self.settings.backup_dir)
        try:
            languages = Languages(store, self.settings.lang)
            await languages.load()
            tiles = TileFormatter()
            claim_pause = CLAIM_PAUSE if self.claim_pause is None else self.claim_pause

            async def channel_lost(table_id: int) -> None:  # the front end can no longer post there
                await service.pause(table_id, "channel_lost")

            frontend = DiscordFrontEnd(self, store, tiles=tiles, languages=languages,
                                       board_interval=self.board_interval, ai_board_interval=self.ai_board_interval,
                                       board_settle=claim_pause + 0.1 if claim_pause > 0 else 0.0,
                                       channel_lost=channel_lost)
            service = TableService(store, frontend, ai_delay=self.ai_delay, between_hands=self.between_hands,
                                   claim_pause=claim_pause, clock=self.table_clock or time.time,
                                   store_retry=RetryPolicy(give_up_after=self.settings.store_retry_seconds))
            async def pass_claim(table_id: int, player_id: str, step: int) -> None:  # a player's auto-pass
                await service.act(table_id, player_id, "pass", step=step)

            frontend.pass_claim = pass_claim
            self.kwx = Runtime(store, service, frontend, tiles, languages, table_seed=self.table_seed)
            if self.hosting:
                self._start_hosting(store, service)
            await self.tree.set_translator(KwxTranslator())
            for extension in EXTENSIONS:
                await self.load_extension(extension)
            self.add_dynamic_items(*DYNAMIC_ITEMS)
            if self.upload_emojis:
                tiles.emojis.update(await ensure_tile_emojis(self))
            if self.sync_commands and 0 not in (self.serves_shards or [0]):
                # Commands belong to the application, not to a shard: one process syncs them (Discord allows
                # a couple of syncs a minute; every process of a cluster syncing at once waits a minute).
                log.info("--sync: the slash commands are synced by the process of shard 0")
            elif self.sync_commands:
                await self.sync_app_commands()
            if self.serves_shards is not None and store.backend == "postgresql":
                resumed = await self._join_cluster(store, service)
            else:
                resumed = await service.start(include=lambda row: row.guild != LOCAL_GUILD)
        except BaseException:
            await self._stop_hosting()
            await store.close()
            raise
        if self.freeze_gc:
            # Everything loaded so far (discord.py, the engine's tables, Pillow) lives as long as the bot: keep it
            # out of the garbage collector's full passes, which otherwise stall every table for tens of ms.
            gc.collect()
            gc.freeze()
            gc.set_threshold(700, 10, 100)  # full passes ten times rarer (young ones as usual)
        log.info("kwx ready: database %s, %d open table(s) resumed, %d tile emojis", store.path, len(resumed),
                 len(tiles.emojis))

    def _start_hosting(self, store: Store, service: TableService) -> None:
        """What a hosted bot runs beside the tables: scheduled backups of a SQLite store (the first at once
        when none is recent) and, with KWX_METRICS_PORT, /healthz and /metrics."""
        from cogs.operations import rate_limit_tokens
        from cogs.telemetry import start_monitoring
        from kwx.store.backup import BackupSchedule, default_backup_dir

        settings = self.settings
        if settings.metrics_port is not None:
            try:
                self.monitor = start_monitoring(self, store, service, tokens=rate_limit_tokens,
                                                host=settings.metrics_host, port=settings.metrics_port)
            except OSError as exc:
                raise SetupError(f"cannot serve /healthz and /metrics on {settings.metrics_host}:"
                                 f"{settings.metrics_port} (KWX_METRICS_PORT): {exc.strerror or exc}") from None
        if store.backend == "sqlite" and settings.backup_hours > 0:
            path = Path(store.path)
            self.backups = BackupSchedule(path, settings.backup_dir or default_backup_dir(path),
                                          keep=settings.backup_keep, every=settings.backup_hours * 3600)
            self.backups.start()

    async def _stop_hosting(self) -> None:
        backups, self.backups = self.backups, None
        if backups is not None:
            await backups.stop()
        monitor, self.monitor = self.monitor, None
        if monitor is not None:
            monitor.stop()

    async def sync_app_commands(self) -> list[discord.app_commands.AppCommand]:
        """Send the slash commands to Discord: to one guild (instant) or globally (up to an hour).

        Never leaves a command listed twice: a global sync removes the test guild's copy, and a guild sync is
        refused while the commands are registered globally. Failures raise SyncError with one clear line."""
        try:
            if self.sync_guild and not self.sync_global:
                if await self.tree.fetch_commands():
                    raise SyncError(f"the slash commands are registered globally; a copy in guild {self.sync_guild} "
                                    "would list each twice there. Use `python bot.py --sync --global` instead")
                guild = discord.Object(int(self.sync_guild))
                self.tree.copy_global_to(guild=guild)
                synced = await self.tree.sync(guild=guild)
                log.info("synced %d slash command(s) to guild %s", len(synced), self.sync_guild)
                return synced
            synced = await self.tree.sync()
            if self.sync_guild:  # the test guild's copy would show every command twice there
                guild = discord.Object(int(self.sync_guild))
                self.tree.clear_commands(guild=guild)
                await self.tree.sync(guild=guild)
                log.info("removed the slash commands' copy in guild %s", self.sync_guild)
            log.info("synced %d slash command(s) globally (Discord may take up to an hour)", len(synced))
            return synced
        except discord.Forbidden as e:
            where = f"guild {self.sync_guild}" if self.sync_guild else "Discord"
            raise SyncError(f"Discord refused the command sync to {where} ({e.code}: {one_line(e.text)}): is the bot "
                            "in that server, invited with the applications.commands scope?") from None
        except discord.HTTPException as e:
            raise SyncError(f"Discord refused the command sync ({e.status} {e.code}): {one_line(e.text)}") from None

    async def _join_cluster(self, store: Store, service: TableService) -> list[int]:
        """One process of several (PostgreSQL): own the servers of this process's shards by lease, take over
        a dead process's tables, share the REST budget (see kwx/cluster)."""
        import socket

        from cogs.forwarding import run_forwarded_press
        from cogs.operations import set_rate_limiter
        from cogs.ratelimit import discord_budget
        from kwx.cluster import ClusterNode, SharedBucket, SharedRateLimiter, shard_of

        shard_ids, count = set(self.serves_shards or ()), int(self.shard_count or 1)
        owner = f"{socket.gethostname()}:{os.getpid()}:shards-{min(shard_ids)}-{max(shard_ids)}"
        if self.rate_limit:  # the token's one budget, by the same rule as a single process's
            burst, reserve = discord_budget(self.rate_limit)
            bucket = SharedBucket(store, "discord-global", rate=self.rate_limit, burst=burst, reserve=reserve)
            set_rate_limiter(SharedRateLimiter(bucket))
        cluster = self.cluster = ClusterNode(store, service, owner, serves=lambda g: shard_of(g, count) in shard_ids)
        resumed = await cluster.start(on_press=lambda press: run_forwarded_press(self, press))
        log.info("cluster: %s serves shards %s of %d", owner, sorted(shard_ids), count)
        return resumed

    async def shutdown_kwx(self) -> None:
        """Stop the tables (they stay open in the store), the front end's workers, and close the store. Each
        step runs even when one before it fails (the store is closed last, whatever happened)."""
        runtime, self.kwx = self.kwx, None
        if runtime is None:
            return
        cluster, self.cluster = self.cluster, None
        release = cluster.stop if cluster is not None else _nothing  # after the tables stop: others resume them
        steps = (("stop the tables", runtime.service.shutdown), ("release the leases", release),
                 ("finish sending", runtime.frontend.idle), ("stop the backups and metrics", self._stop_hosting),
                 ("stop the front end", runtime.frontend.close), ("close the store", runtime.store.close))
        for what, step in steps:
            try:
                await step()
            except Exception:
                log.exception("shutdown: could not %s", what)

    def _on_signal(self, sig: signal.Signals) -> None:
        log.info("%s: shutting down", sig.name)
        if not self.is_closed():
            asyncio.get_running_loop().create_task(self.close(), name="kwx-shutdown")

    async def close(self) -> None:
        try:
            await self.shutdown_kwx()
        finally:
            await super().close()


class ShardedKwxBot(KwxBot, commands.AutoShardedBot):
    """KwxBot over a range of shards (`--shards 0-3 --shard-count 8`): one process of a cluster."""

    async def launch_shards(self) -> None:
        self.shard_ids = self.serves_shards  # discord.py launches these shards only, not all of shard_count
        await super().launch_shards()


def run_discord(args: argparse.Namespace, settings: Settings) -> int:
    """Run the bot until interrupted. Exit status 2 with one line when the token is missing, Discord rejects
    it, Discord cannot be reached at start-up, the metrics port is taken, or the store cannot be opened (one
    that cannot be backed up is not migrated)."""
    prog = getattr(args, "prog", "python bot.py")  # or kwx-bot (build_parser)
    if not settings.discord_token:
        print(f"{prog}: DISCORD_TOKEN is not set (see .env.example)", file=sys.stderr)
        return 2
    handler = logging.StreamHandler()
    formatter = logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    # discord.client's one INFO line ("logging in using static token") says nothing a person needs; without it
    # a start-up failure is the one line printed below.
    logging.getLogger("discord.client").setLevel(logging.WARNING)
    use_api_base(settings.api_base)
    cls: type[KwxBot] = KwxBot
    shard_ids: list[int] | None = None
    if args.shards is not None or args.shard_count is not None:
        try:
            if args.shards is None or args.shard_count is None:
                raise ValueError("--shards and --shard-count go together (e.g. --shards 0-3 --shard-count 8)")
            shard_ids = parse_shards(args.shards, args.shard_count)
            if not str(args.db or settings.database).startswith(("postgresql://", "postgres://")):
                raise ValueError("several processes share one PostgreSQL database: set KWX_DATABASE_URL")
        except ValueError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
        cls = ShardedKwxBot
    bot = cls(settings, db_path=args.db, sync=args.sync, sync_guild=args.guild or settings.test_guild,
              ai_delay=args.delay if args.delay is not None else 0.8, freeze_gc=True, rate_limit=40,
              sync_global=args.sync_global, api_base=settings.api_base, handle_signals=True,
              claim_pause=args.claim_pause, hosting=True, shard_ids=shard_ids, shard_count=args.shard_count)
    try:
        bot.run(settings.discord_token, log_handler=handler, log_formatter=formatter, log_level=logging.INFO,
                root_logger=True)
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


# No network, no DNS, a refused or timed-out connection, Discord down (5xx) or no gateway: the bot cannot start.
UNREACHABLE = (aiohttp.ClientConnectionError, asyncio.TimeoutError, OSError, discord.GatewayNotFound,
               discord.DiscordServerError)


def unreachable_reason(exc: BaseException) -> str:
    """What went wrong, on one short line."""
    return one_line(str(exc)) or type(exc).__name__


def one_line(text: str, limit: int = 160) -> str:
    """`text` on one line of at most `limit` characters (Discord's form errors span several)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def main(argv: list[str] | None = None, prog: str = "python bot.py") -> int:
    args = build_parser(prog).parse_args(argv)
    if args.autoplay is not None and args.autoplay < 0:
        print(f"{prog}: --autoplay needs a number of hands ≥ 0", file=sys.stderr)
        return 2
    if args.turn_seconds is not None and not 5 <= args.turn_seconds <= 3600:
        print(f"{prog}: --turn-seconds needs a number of seconds from 5 to 3600", file=sys.stderr)
        return 2
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if args.local or args.autoplay is not None or not settings.has_discord:
        from kwx.local import run_local

        return run_local(args, settings)
    return run_discord(args, settings)


def console_main() -> int:
    """`kwx-bot`: the installed command (pipx / uv tool install), the same as `python bot.py` in a checkout."""
    return main(prog="kwx-bot")


if __name__ == "__main__":
    sys.exit(main())
