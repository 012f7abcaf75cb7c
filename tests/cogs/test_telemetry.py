"""Discord's side of the metrics and the health check (cogs/telemetry.py): REST answers counted by scope from
discord.py's own session, DM refusals, and whether the gateway is connected."""

from __future__ import annotations

from types import SimpleNamespace

import aiohttp
import pytest
from aiohttp import web

from cogs import operations as ops
from cogs.fake_discord import make_world
from cogs.telemetry import gateway_check, http_trace


async def test_rest_answers_are_counted_by_scope_and_429s_by_discords_scope():
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({})

    async def limited(request: web.Request) -> web.Response:
        return web.json_response({"retry_after": 1}, status=429, headers={"X-RateLimit-Scope": "shared"})

    app = web.Application()
    app.router.add_post("/api/v10/channels/1/messages", ok)
    app.router.add_post("/api/v10/interactions/2/token/callback", ok)
    app.router.add_patch("/api/v10/webhooks/3/token/messages/@original", limited)
    app.router.add_get("/gateway", ok)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    counts, other = ops.DiscordCounts(), ops.DiscordCounts()
    try:
        async with aiohttp.ClientSession(trace_configs=[http_trace(counts)]) as http, \
                aiohttp.ClientSession(trace_configs=[http_trace(other)]):  # another bot's session
            for method, path in (("POST", "/api/v10/channels/1/messages"), ("POST", "/api/v10/channels/1/messages"),
                                 ("POST", "/api/v10/interactions/2/token/callback"),
                                 ("PATCH", "/api/v10/webhooks/3/token/messages/@original"), ("GET", "/gateway")):
                async with http.request(method, base + path) as answer:
                    await answer.read()
    finally:
        await runner.cleanup()
    assert counts.requests == {"bot": 2, "interaction": 2}  # the gateway is not a REST call
    assert counts.rate_limited == {"shared": 1}
    assert other == ops.DiscordCounts()  # each bot counts its own


async def test_a_dm_refused_for_closed_dms_is_counted_and_no_other_failure_is():
    world = await make_world(names=("alice", "bob"), closed_dms=("bob",))
    try:
        alice, bob = world.members
        rest, other = ops.Rest(), ops.Rest()
        assert not isinstance(await rest.send_dm(alice, content="手牌"), ops.Failed)
        assert ops.dms_closed(await rest.send_dm(bob, content="手牌"))
        assert rest.counts.dm_refusals == 1 and other.counts.dm_refusals == 0
    finally:
        await world.fake.close()


def _bot(*, closed=False, ready=True, ws_open=True, latency=0.042, shards=None):
    ws = SimpleNamespace(open=ws_open)
    bot = SimpleNamespace(is_closed=lambda: closed, is_ready=lambda: ready, ws=ws, latency=latency)
    if shards is not None:
        bot.shards = {i: SimpleNamespace(is_closed=lambda up=up: not up) for i, up in shards.items()}
    return bot


async def test_the_gateway_check_says_connected_or_what_is_not():
    assert await gateway_check(_bot()) == "connected, heartbeat 42 ms"
    assert await gateway_check(_bot(shards={0: True, 1: True})) == "connected, heartbeat 42 ms"
    for bot, why in ((_bot(ready=False), "not connected yet"), (_bot(ws_open=False), "connection is down"),
                     (_bot(closed=True), "shutting down"), (_bot(shards={0: True, 1: False, 2: False}),
                                                           r"shard\(s\) 1, 2 disconnected")):
        with pytest.raises(RuntimeError, match=why):
            await gateway_check(bot)
