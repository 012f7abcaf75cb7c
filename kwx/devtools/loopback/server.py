"""A Discord on loopback: the gateway and the REST routes the bot uses, served over HTTP on 127.0.0.1.

`python bot.py` runs against it unchanged but for `DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10`: the bot's
connector (kwx.devtools.redirect) then opens every connection here, so discord.py's REST calls arrive under
`/api/v10/…` and its gateway connection at `/`, as at Discord (a sharded bot asks `GET /gateway/bot` and is told
`/gateway`, served the same). It is four parts with one job each,
put together here:
- the model (kwx.devtools.loopback.model): guilds, channels, users, messages, interactions, emojis, commands;
- the REST API (kwx.devtools.loopback.rest): each request checked against Discord's OpenAPI description
  (kwx.devtools.loopback.spec) and the limits it cannot express (kwx.devtools.limits), rate limited
  (kwx.devtools.loopback.ratelimit), answered by faults on demand (5xx, dropped connections, slow answers);
- the gateway (kwx.devtools.loopback.gateway): HELLO, IDENTIFY per shard, RESUME, zlib-stream, events;
- this HTTP server, which carries requests to the REST API (the unit tests carry them without sockets:
  kwx.devtools.loopback.inprocess).

Scripted players (kwx.devtools.loopback.players) run commands and press buttons by sending INTERACTION_CREATE
as a Discord client does, and read what the bot sent them from the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aiohttp import BodyPartReader, web

from kwx.devtools.loopback.activities import OAuthError
from kwx.devtools.loopback.calls import Request
from kwx.devtools.loopback.gateway import API_VERSION, Gateway
from kwx.devtools.loopback.model import DiscordModel, Message
from kwx.devtools.loopback.rest import Fault, RestApi, Stats


class LoopbackDiscord:
    """The loopback served over HTTP. The world and what players see are its model's (`discord_.model`)."""

    APP_ID = DiscordModel.APP_ID

    def __init__(self, *, token: str | None = None, bot_name: str = "kwx", rate_limits: bool = True,
                 host: str = "127.0.0.1", port: int = 0, shards: int = 1) -> None:
        self.host, self.port = host, port
        self.model = DiscordModel(bot_name=bot_name)
        self.rest = RestApi(self.model, token=token, rate_limits=rate_limits, gateway_url=lambda: self.gateway_url,
                            shards=shards)
        self.gateway = Gateway(self.model, self.rest.stats, url=lambda: self.gateway_url, token=token, shards=shards)
        self._runner: web.AppRunner | None = None

    # == life cycle ==========================================================================================
    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self) -> LoopbackDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/", self.gateway.serve)  # Discord's own gateway address, redirected here
        app.router.add_route("GET", "/gateway", self.gateway.serve)
        app.router.add_route("POST", "/api/v{version}/oauth2/token", self._oauth_token)
        app.router.add_route("*", "/api/v{version}/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> LoopbackDiscord:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # == what tests and benchmarks ask of it =================================================================
    @property
    def stats(self) -> Stats:
        return self.rest.stats

    @property
    def faults(self) -> list[Fault]:
        return self.rest.faults

    @property
    def ready(self) -> Any:
        return self.gateway.ready

    @property
    def observer(self) -> Callable[[Message, bool], None] | None:
        return self.model.observer

    @observer.setter
    def observer(self, value: Callable[[Message, bool], None] | None) -> None:
        self.model.observer = value

    def inject(self, method: str, template: str, kind: str = "status", **fault: Any) -> Fault:
        """Answer the next requests to a route with a fault (kwx.devtools.loopback.rest.Fault)."""
        return self.rest.inject(method, template, kind, **fault)

    async def drop_gateway(self, code: int = 4000) -> None:
        await self.gateway.drop(code)

    def report(self) -> dict[str, Any]:
        s = self.stats
        return {"bot_requests": s.bot_requests, "interaction_requests": sum(s.interaction_requests.values()),
                "global_429": s.global_429, "route_429": s.route_429, "invalid_requests": s.invalid_requests,
                "off_spec": len(s.off_spec), "identifies": s.identifies, "resumes": s.resumes}

    # == HTTP ================================================================================================
    async def _oauth_token(self, request: web.Request) -> web.Response:
        """POST /oauth2/token: a form, as OAuth2 takes it (kwx.devtools.loopback.activities)."""
        if request.content_type != "application/x-www-form-urlencoded":
            return web.json_response({"error": "invalid_request", "error_description": "a form is expected"},
                                     status=400)
        form = {k: str(v) for k, v in (await request.post()).items()}
        try:
            return web.json_response(self.model.activities.exchange(form))
        except OAuthError as e:
            return web.json_response(e.body, status=e.status)

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        body, files = await _read_body(request)
        answer = await self.rest.handle(Request(request.method, "/" + request.match_info["tail"],
                                                dict(request.query), dict(request.headers), body, files))
        if answer.drop:
            if request.transport is not None:
                request.transport.close()
            raise ConnectionResetError("fault: connection dropped")
        if answer.body is None:
            return web.Response(status=answer.status, headers=answer.headers)
        # discord.py parses a body as JSON only when the content type is exactly this (as Discord sends it)
        return web.Response(status=answer.status, body=json.dumps(answer.body, ensure_ascii=False).encode(),
                            headers={**answer.headers, "Content-Type": "application/json"})


async def _read_body(request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
    if not request.can_read_body:
        return None, []
    if request.content_type.startswith("multipart/"):
        body: Any = None
        files: list[tuple[str, bytes]] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "payload_json":
                body = json.loads(await part.text())
            else:
                files.append((part.filename or "file", bytes(await part.read())))
        return body, files
    text = await request.text()
    return (json.loads(text) if text else None), []
