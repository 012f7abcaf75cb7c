"""Discord's side of the metrics and of the health check (kwx/metrics.py and kwx/health.py have the rest).

    KwxBot(…, http_trace=http_trace(rest.counts, …))   # discord.py's session reports every REST answer there
    server = await start_monitoring(bot, store, service, rest=rest, host=…, port=…)   # KWX_METRICS_PORT

The counts are the bot's own (`Rest.counts`, cogs.operations: its `send_dm` counts the refused DMs), so two
bots in one process (the tests, a restart in place) count apart.

Counted from the answers themselves (an aiohttp trace on discord.py's session), so discord.py's own retries
after a 429 count too:
- `kwx_discord_requests_total{scope}`: REST calls; scope `bot` counts toward the bot token's global limit (50/s),
  `interaction` (responses, followups, edits of an original response) does not;
- `kwx_discord_rate_limited_total{scope}`: 429 answers by Discord's `X-RateLimit-Scope`: `user` (one route's
  bucket of this bot), `global` (the bot's 50/s: should stay 0), `shared` (a resource's own limit);
- `kwx_discord_rate_limit_tokens`: tokens left in the bot's REST budget (cogs.ratelimit; the cluster's shared
  bucket as last seen); `kwx_discord_dm_refusals_total`: DMs refused because a player's DMs are closed;
  `kwx_discord_gateway_latency_seconds`: the gateway's heartbeat latency;
- the budget's headroom (cogs.ratelimit.Budget): `kwx_discord_budget_in_use_ratio` (share of the budget granted
  over the last 20 s), `kwx_discord_budget_waiting{priority}` (calls waiting for a token: prompt, post, board),
  `kwx_discord_budget_granted_total{priority}` (tokens granted),
  `kwx_discord_oldest_prompt_wait_seconds`, `kwx_discord_board_interval_seconds` (how often a busy board is
  edited now), `kwx_discord_busy_boards`, `kwx_discord_budget_saturated` (1: new tables are refused).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import discord
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cogs.operations import DiscordCounts, Rest
from cogs.ratelimit import Budget, SendGate
from kwx.health import HealthServer
from kwx.metrics import Metrics

_EXEMPT = re.compile(r"/(?:interactions|webhooks)/")  # answered through an interaction's token
RATE_LIMIT_SCOPES = ("user", "global", "shared")


def http_trace(counts: DiscordCounts, *, global_limited: Callable[[float], None] | None = None,
               server_error: Callable[[str], None] | None = None, gate: SendGate | None = None) -> aiohttp.TraceConfig:
    """The trace config for discord.py's HTTP session (Client(http_trace=…)): holds each request of the bot's
    token at `gate` until it may leave (cogs.ratelimit.SendGate; interaction calls are not the token's); counts
    every REST answer in `counts`; tells
    `global_limited` how long Discord asked the whole bot token to wait after a global 429, and `server_error`
    the path of every 5xx answer (discord.py tries those again for half a minute)."""

    async def on_request_end(session: aiohttp.ClientSession, context: Any,
                             params: aiohttp.TraceRequestEndParams) -> None:
        path = params.url.path
        if "/api/" not in path:  # the gateway's websocket shares the session
            return
        counts.requests["interaction" if _EXEMPT.search(path) else "bot"] += 1
        if params.response.status >= 500 and server_error is not None:
            server_error(path)
        if params.response.status != 429:
            return
        scope = params.response.headers.get("X-RateLimit-Scope", "unknown").lower()
        counts.rate_limited[scope] += 1
        if scope == "global" and global_limited is not None:
            try:
                retry_after = float(params.response.headers.get("Retry-After", "1"))
            except ValueError:
                retry_after = 1.0
            global_limited(retry_after)

    async def on_request_start(session: aiohttp.ClientSession, context: Any,
                               params: aiohttp.TraceRequestStartParams) -> None:
        path = params.url.path
        if gate is not None and "/api/" in path and not _EXEMPT.search(path):
            await gate.wait()

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_request_start)
    trace.on_request_end.append(on_request_end)
    return trace


class DiscordCollector(Collector):
    def __init__(self, bot: discord.Client, rest: Rest) -> None:
        self.bot = bot
        self.budget = rest.budget
        self.counts = rest.counts

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily("kwx_discord_requests", "REST calls to Discord; scope bot counts toward "
                                       "the bot's global limit (50/s), interaction does not", labels=["scope"])
        counts = self.counts
        for scope in sorted({"bot", "interaction", *counts.requests}):
            requests.add_metric([scope], counts.requests[scope])
        yield requests
        limited = CounterMetricFamily("kwx_discord_rate_limited", "429 answers from Discord by X-RateLimit-Scope "
                                      "(user: a route's bucket, global: the bot's 50/s, shared: a resource's "
                                      "own limit)", labels=["scope"])
        for scope in sorted({*RATE_LIMIT_SCOPES, *counts.rate_limited}):
            limited.add_metric([scope], counts.rate_limited[scope])
        yield limited
        tokens = self.budget.tokens
        if tokens is not None:
            yield GaugeMetricFamily("kwx_discord_rate_limit_tokens", "Tokens left in the bot's REST budget "
                                    "(board edits leave the last few to players' prompts)", value=tokens)
        yield from _headroom(self.budget)
        yield CounterMetricFamily("kwx_discord_dm_refusals", "DMs Discord refused because the player's DMs are "
                                  "closed", value=counts.dm_refusals)
        latency = self.bot.latency
        if math.isfinite(latency):
            yield GaugeMetricFamily("kwx_discord_gateway_latency_seconds", "The gateway's heartbeat latency",
                                    value=latency)


def _headroom(budget: Budget) -> Iterator[Metric]:
    h = budget.headroom()
    yield GaugeMetricFamily("kwx_discord_budget_in_use_ratio", "Share of the bot's REST budget granted over the "
                            "last 20 s", value=h.in_use)
    waiting = GaugeMetricFamily("kwx_discord_budget_waiting", "Calls waiting for a token of the REST budget, by "
                                "priority (prompt before post before board)", labels=["priority"])
    for priority, n in h.waiting.items():
        waiting.add_metric([priority.name.lower()], n)
    yield waiting
    granted = CounterMetricFamily("kwx_discord_budget_granted", "Tokens of the REST budget granted, by priority",
                                  labels=["priority"])
    for priority, n in budget.granted.items():
        granted.add_metric([priority.name.lower()], n)
    yield granted
    yield GaugeMetricFamily("kwx_discord_oldest_prompt_wait_seconds", "How long the oldest prompt waiting for a "
                            "token has waited", value=h.oldest_prompt_s)
    yield GaugeMetricFamily("kwx_discord_board_interval_seconds", "Seconds between a busy board's edits now (grows "
                            "with the load)", value=h.board_interval_s)
    yield GaugeMetricFamily("kwx_discord_busy_boards", "Tables whose board changed in the last 20 s",
                            value=h.busy_boards)
    yield GaugeMetricFamily("kwx_discord_budget_saturated", "1 while the budget is full and new tables are refused",
                            value=int(h.saturated))


async def gateway_check(bot: discord.Client) -> str:
    """Connected to the gateway (every shard of this process), else an exception saying what is not."""
    if bot.is_closed():
        raise RuntimeError("the bot is shutting down")
    if not bot.is_ready():
        raise RuntimeError("not connected yet (no READY from the gateway)")
    shards = getattr(bot, "shards", None)  # an AutoShardedClient
    if shards:
        down = sorted(i for i, shard in shards.items() if shard.is_closed())
        if down:
            raise RuntimeError(f"shard(s) {', '.join(map(str, down))} disconnected")
    elif bot.ws is None or not bot.ws.open:
        raise RuntimeError("the gateway connection is down (reconnecting)")
    latency = bot.latency
    return f"connected, heartbeat {latency * 1000:.0f} ms" if math.isfinite(latency) else "connected"


async def start_monitoring(bot: Any, store: Any, service: Any, *, rest: Rest, host: str,
                           port: int) -> HealthServer:
    """Serve /healthz (gateway, store, tables; the loop itself) and /metrics on this event loop; OSError if
    the port is taken."""
    metrics = Metrics()
    metrics.watch(service=service, store=store, cluster=lambda: bot.cluster, backups=lambda: bot.backups)
    metrics.add(DiscordCollector(bot, rest))

    async def tables() -> str:
        if not service.running:
            raise RuntimeError("the table service has stopped")
        return f"{len(service.tables())} open"

    checks = {"gateway": lambda: gateway_check(bot), "store": store.check_writable, "tables": tables}
    server = HealthServer(metrics, checks)
    await server.start(host, port)
    return server
