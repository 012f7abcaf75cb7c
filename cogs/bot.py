"""The Discord bot: `KwxBot` opens the store, builds the table service with the Discord front end, loads the
cogs and resumes open tables. bot.py builds one from a `BotSettings` and its collaborators and runs it.

    settings = BotSettings(env=load_settings(), pace=Pace.instant(), table_seed="s")    # a test's bot
    bot = KwxBot(settings, clock=fake_clock)                # collaborators: the table clock, a connector
    async with bot:
        await bot.start(token)
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp
import discord
from discord.ext import commands

from kwx.cli.settings import Settings

if TYPE_CHECKING:
    from cogs.operations import Rest
    from cogs.runtime import Runtime
    from kwx.cluster import ClusterNode
    from kwx.health import HealthServer
    from kwx.store import Store
    from kwx.store.backup import BackupSchedule
    from kwx.table.deal import Deal
    from kwx.table.service import TableService

log = logging.getLogger("kwx.bot")

# One cog a file; each adds its subcommands to /kwx (cogs/group.py).
EXTENSIONS = ("cogs.tables", "cogs.ledger", "cogs.tools", "cogs.config", "cogs.review")
LOCAL_GUILD = "local"  # the terminal and autoplay tables: never run by the Discord bot


@dataclass(frozen=True)
class Pace:
    """How fast the tables go: the real bot's pace by default, `Pace.instant()` for tests (no waits)."""

    ai_delay: float = 0.8  # seconds an AI seat waits before acting
    between_hands: float = 4.0  # seconds between a hand's result and the next deal
    board_interval: float = 3.0  # the shortest time between two edits of a table's board
    ai_board_interval: float = 3.0  # the same at a table of AI seats only
    claim_pause: float | None = None  # the board holds every discard this long; None: the service's default

    @classmethod
    def instant(cls) -> Pace:
        return cls(ai_delay=0.0, between_hands=0.0, board_interval=0.0, ai_board_interval=0.0, claim_pause=0.0)


@dataclass(frozen=True)
class CommandSync:
    """`--sync`: send the slash commands to Discord at start-up, to `guild` only (instant) or globally."""

    guild: str | None = None
    everywhere: bool = False  # `--global`: globally even with a test guild (whose copy is then removed)


@dataclass(frozen=True)
class Shards:
    """`--shards 0-3 --shard-count 8`: this process is one of a cluster, serving these shards of `count`."""

    ids: tuple[int, ...]
    count: int


@dataclass(frozen=True)
class BotSettings:
    """Everything the bot is told: the operator's settings (.env) and what the command line or a test chose."""

    env: Settings = field(default_factory=Settings)
    database: str | Path | None = None  # None: env.database (KWX_DATABASE_URL, else KWX_DB)
    pace: Pace = Pace()
    sync: CommandSync | None = None  # None: the slash commands are not sent at start-up
    shards: Shards | None = None  # None: this process is the whole bot
    rate_limit: float | None = None  # REST calls/s for the whole bot (cogs.ratelimit); None = no limiting
    table_seed: str | None = None  # tests and benchmarks: deterministic walls for /kwx new
    upload_emojis: bool = True  # upload the tile emojis the application lacks
    freeze_gc: bool = False  # the long-lived process: keep what start-up loaded out of the collector's passes
    handle_signals: bool = False  # SIGTERM/SIGINT close the bot cleanly (the real process only)
    # Scheduled backups of a SQLite store, and /healthz + /metrics when KWX_METRICS_PORT is set.
    hosting: bool = False

    @property
    def store(self) -> str | Path:
        return self.database if self.database is not None else self.env.database


def discord_rest(settings: BotSettings) -> Rest:
    """The bot token's REST calls and their budget: `settings.rate_limit` calls/s (None: no limit), board edits
    spaced from the pace's board interval."""
    from cogs.operations import Rest
    from cogs.ratelimit import Budget, GlobalRateLimiter

    limiter = GlobalRateLimiter.for_discord(settings.rate_limit) if settings.rate_limit else None
    return Rest(Budget(limiter, board_base=settings.pace.board_interval))


class SyncError(RuntimeError):
    """The slash commands could not be synced; the message is the one line to print."""


class SetupError(RuntimeError):
    """The bot cannot start as configured (a metrics port in use); the message is the one line to print."""


def bot_intents() -> discord.Intents:
    """Only the guilds intent: channels and threads in the cache. Slash commands, buttons and DMs the bot sends
    arrive as interactions or are plain API calls, which need no intent (no message content, no members)."""
    intents = discord.Intents.none()
    intents.guilds = True
    return intents


def one_line(text: str, limit: int = 160) -> str:
    """`text` on one line of at most `limit` characters (Discord's form errors span several)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


async def _nothing() -> None:
    return None


class KwxBot(commands.Bot):
    """The Discord bot. `setup_hook` opens the store, builds the table service with the Discord front end,
    loads the cogs, registers the persistent buttons, uploads missing tile emojis and resumes open tables.

    Collaborators: `clock`, the table service's unix clock (tests and benchmarks move a fake one); `connector`,
    the aiohttp connector every request to Discord goes through (None: discord.py's own, to Discord itself;
    bot.py passes kwx.devtools.redirect's when DISCORD_API_BASE names another Discord API); `rest`, every REST
    call of the bot's token and its budget (None: `discord_rest(settings)`); `deal`, where the tables' walls
    and first dealers come from (None: the table seed; tests script a hand)."""

    def __init__(self, settings: BotSettings, *, clock: Callable[[], float] = time.time,
                 connector: aiohttp.BaseConnector | None = None, rest: Rest | None = None,
                 deal: Deal | None = None) -> None:
        from cogs.telemetry import http_trace

        self.rest = rest if rest is not None else discord_rest(settings)
        trace = http_trace(self.rest.counts, global_limited=self._global_limited, server_error=self._server_error,
                           gate=self.rest.budget.gate)
        super().__init__(command_prefix=commands.when_mentioned, intents=bot_intents(), help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(), http_trace=trace,
                         connector=connector, shard_count=settings.shards.count if settings.shards else None)
        self.settings = settings
        self.clock = clock
        self.deal = deal
        self.cluster: ClusterNode | None = None  # when this process is one of several (ShardedKwxBot)
        self.backups: BackupSchedule | None = None  # while backups are scheduled
        self.monitor: HealthServer | None = None  # while /healthz and /metrics are served
        self.kwx: Runtime | None = None  # built in setup_hook

    def _global_limited(self, retry_after: float) -> None:
        """Discord answered a global 429: the budget grants nothing until the bot token may send again."""
        self.rest.budget.hold(retry_after)

    def _server_error(self, path: str) -> None:
        """Discord answered 5xx: a call through an interaction's token that got it falls back at once."""
        if self.kwx is not None:
            self.kwx.rest.server_error(path)

    async def setup_hook(self) -> None:
        from cogs.buttons import DYNAMIC_ITEMS
        from cogs.emoji import TileFormatter, ensure_tile_emojis
        from cogs.frontend import DiscordFrontEnd
        from cogs.languages import Languages
        from cogs.runtime import Runtime
        from cogs.translator import KwxTranslator
        from cogs.web import WebButton, serve_web
        from kwx.store import Store
        from kwx.table.deal import FROM_SEED
        from kwx.table.record_state import CLAIM_PAUSE
        from kwx.table.retry import RetryPolicy
        from kwx.table.service import TableService
        from kwx.web.fanout import FanOut
        from kwx.web.hub import WebFrontEnd

        settings, env, pace = self.settings, self.settings.env, self.settings.pace
        if env.api_base:
            log.info("Discord API at %s", env.api_base)
        if settings.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self._on_signal, sig)
        rest = self.rest
        store = await Store.open(settings.store, backup_dir=env.backup_dir)
        try:
            languages = Languages(store, env.lang)
            await languages.load()
            tiles = TileFormatter()
            claim_pause = CLAIM_PAUSE if pace.claim_pause is None else pace.claim_pause

            async def channel_lost(table_id: int) -> None:  # the front end can no longer post there
                await service.pause(table_id, "channel_lost")

            frontend = DiscordFrontEnd(self, store, tiles=tiles, languages=languages,
                                       board_interval=pace.board_interval, ai_board_interval=pace.ai_board_interval,
                                       board_settle=claim_pause + 0.1 if claim_pause > 0 else 0.0,
                                       rest=rest, channel_lost=channel_lost)
            # KWX_WEB_PORT: the table pages get every view too (kwx/web), beside Discord.
            pages = WebFrontEnd() if env.web_port is not None else None
            service = TableService(store, FanOut([frontend, pages]) if pages is not None else frontend,
                                   ai_delay=pace.ai_delay, between_hands=pace.between_hands,
                                   claim_pause=claim_pause, clock=self.clock,
                                   store_retry=RetryPolicy(give_up_after=env.store_retry_seconds),
                                   confirms_prompts=True, deal=self.deal or FROM_SEED)
            frontend.prompt_reached = service.prompt_delivered  # a turn's timer runs from its prompt's arrival
            self.kwx = Runtime(store, service, frontend, tiles, languages, table_seed=settings.table_seed,
                               web_url=env.web_url)
            if pages is not None:
                self.kwx.web = await serve_web(self, service, pages, env, store)
            if settings.hosting:
                await self._start_hosting(store, service, rest)
            await self.tree.set_translator(KwxTranslator())
            for extension in EXTENSIONS:
                await self.load_extension(extension)
            self.add_dynamic_items(*DYNAMIC_ITEMS, WebButton)
            if settings.upload_emojis:
                tiles.emojis.update(await ensure_tile_emojis(self, rest))
            if settings.sync is not None and settings.shards is not None and 0 not in settings.shards.ids:
                # Commands belong to the application, not to a shard: one process syncs them (Discord allows
                # a couple of syncs a minute; every process of a cluster syncing at once waits a minute).
                log.info("--sync: the slash commands are synced by the process of shard 0")
            elif settings.sync is not None:
                await self.sync_app_commands(settings.sync)
            if settings.shards is not None and store.backend == "postgresql":
                resumed = await self._join_cluster(store, service, settings.shards, rest)
            else:
                resumed = await service.start(include=lambda row: row.guild != LOCAL_GUILD)
        except BaseException:
            await self._stop_hosting()
            if self.kwx is not None and self.kwx.web is not None:
                await self.kwx.web.stop()
            await store.close()
            raise
        if settings.freeze_gc:
            # Everything loaded so far (discord.py, the engine's tables, Pillow) lives as long as the bot: keep it
            # out of the garbage collector's full passes, which otherwise stall every table for tens of ms.
            gc.collect()
            gc.freeze()
            # Middle passes three times as often, so each walks a third of the young objects (at 100 tables one
            # of ten took 15-30 ms, in every press it met); full passes as rare as before, once per 300 of them.
            gc.set_threshold(700, 3, 300)
        log.info("kwx ready: database %s, %d open table(s) resumed, %d tile emojis", store.path, len(resumed),
                 len(tiles.emojis))

    async def _start_hosting(self, store: Store, service: TableService, rest: Rest) -> None:
        """What a hosted bot runs beside the tables: scheduled backups of a SQLite store (the first at once
        when none is recent) and, with KWX_METRICS_PORT, /healthz and /metrics."""
        from cogs.telemetry import start_monitoring
        from kwx.store.backup import BackupSchedule, default_backup_dir

        env = self.settings.env
        if env.metrics_port is not None:
            try:
                self.monitor = await start_monitoring(self, store, service, rest=rest,
                                                      host=env.metrics_host, port=env.metrics_port)
            except OSError as exc:
                raise SetupError(f"cannot serve /healthz and /metrics on {env.metrics_host}:"
                                 f"{env.metrics_port} (KWX_METRICS_PORT): {exc.strerror or exc}") from None
        if store.backend == "sqlite" and env.backup_hours > 0:
            path = Path(store.path)
            self.backups = BackupSchedule(path, env.backup_dir or default_backup_dir(path),
                                          keep=env.backup_keep, every=env.backup_hours * 3600)
            self.backups.start()

    async def _stop_hosting(self) -> None:
        backups, self.backups = self.backups, None
        if backups is not None:
            await backups.stop()
        monitor, self.monitor = self.monitor, None
        if monitor is not None:
            await monitor.stop()

    async def sync_app_commands(self, sync: CommandSync) -> list[discord.app_commands.AppCommand]:
        """Send the slash commands to Discord: to one guild (instant) or globally (up to an hour).

        Never leaves a command listed twice: a global sync removes the test guild's copy, and a guild sync is
        refused while the commands are registered globally. Failures raise SyncError with one clear line."""
        try:
            if sync.guild and not sync.everywhere:
                if await self.tree.fetch_commands():
                    raise SyncError(f"the slash commands are registered globally; a copy in guild {sync.guild} "
                                    "would list each twice there. Use `python bot.py --sync --global` instead")
                guild = discord.Object(int(sync.guild))
                self.tree.copy_global_to(guild=guild)
                synced = await self.tree.sync(guild=guild)
                log.info("synced %d slash command(s) to guild %s", len(synced), sync.guild)
                return synced
            if self.settings.env.client_secret:  # an Activity: its entry point command goes with the commands
                from cogs.web import sync_with_entry_point

                await sync_with_entry_point(self)
                synced = [c for c in await self.tree.fetch_commands() if c.type.value != 4]
            else:
                synced = await self.tree.sync()
            if sync.guild:  # the test guild's copy would show every command twice there
                guild = discord.Object(int(sync.guild))
                self.tree.clear_commands(guild=guild)
                await self.tree.sync(guild=guild)
                log.info("removed the slash commands' copy in guild %s", sync.guild)
            log.info("synced %d slash command(s) globally (Discord may take up to an hour)", len(synced))
            return synced
        except discord.Forbidden as e:
            where = f"guild {sync.guild}" if sync.guild else "Discord"
            raise SyncError(f"Discord refused the command sync to {where} ({e.code}: {one_line(e.text)}): is the bot "
                            "in that server, invited with the applications.commands scope?") from None
        except discord.HTTPException as e:
            raise SyncError(f"Discord refused the command sync ({e.status} {e.code}): {one_line(e.text)}") from None

    async def _join_cluster(self, store: Store, service: TableService, shards: Shards, rest: Rest) -> list[int]:
        """One process of several (PostgreSQL): own the servers of this process's shards by lease, take over
        a dead process's tables, share the REST budget (see kwx/cluster)."""
        import socket

        from cogs.forwarding import run_forwarded_press
        from cogs.ratelimit import discord_budget
        from kwx.cluster import ClusterNode, SharedBucket, SharedRateLimiter, shard_of

        shard_ids, count = set(shards.ids), shards.count
        owner = f"{socket.gethostname()}:{os.getpid()}:shards-{min(shard_ids)}-{max(shard_ids)}"
        rate = self.settings.rate_limit
        if rate:  # the token's one budget, by the same rule as a single process's
            burst, reserve = discord_budget(rate)
            bucket = SharedBucket(store, "discord-global", rate=rate, burst=burst, reserve=reserve)
            rest.budget.limiter = SharedRateLimiter(bucket)
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
        web = runtime.web.stop if runtime.web is not None else _nothing
        steps = (("close the table pages", web), ("stop the tables", runtime.service.shutdown),
                 ("release the leases", release),
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
        assert self.settings.shards is not None, "a ShardedKwxBot serves the shards its settings name"
        self.shard_ids = list(self.settings.shards.ids)  # discord.py launches these only, not all of shard_count
        await super().launch_shards()
