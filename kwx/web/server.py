"""The web root: the table page, its script, styles and tile art, one WebSocket per open page, and the Activity's
OAuth2 code exchange (aiohttp).

    GET  /                  the table page (the same for a browser and the Discord Activity)
    GET  /static/<file>     its script and styles; discord-sdk.js, loaded only inside Discord
    GET  /tiles/<tile>.png  kwx's tile art (kwx/present/tiles)
    GET  /api/config        what the Activity needs before it authorizes: the application's client id
    POST /api/token         {"code"} → {"access_token"}: the code exchange, done here so the secret stays here
    GET  /ws                the page's socket (kwx.web.session)
    GET  /review            a finished hand's 复盘 for the player of a link (kwx.web.review)

`WebServer.start(host, port)` serves it beside whatever else runs on the event loop (the bot, the terminal's
local table); `stop()` closes every socket, and pages reconnect to the next process.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from kwx.present.art import TILE_DIR
from kwx.table.errors import TableError
from kwx.web.hub import Viewer, WebFrontEnd, message
from kwx.web.oauth import DiscordOAuth, OAuthRefused
from kwx.web.review import answer_review
from kwx.web.seats import LinkRefused, SeatLinks
from kwx.web.session import Sessions

logger = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
HELLO_SECONDS = 10.0  # a socket that has not said who it is by then is closed
MESSAGE_BYTES = 4096  # a page's messages are small; anything larger is not from the page
TILE_NAME = re.compile(r"^([1-9][ps]|[5-7]z|back)\.png$")
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}


class WebServer:
    def __init__(self, service: Any, hub: WebFrontEnd, links: SeatLinks, *, oauth: DiscordOAuth | None = None,
                 store: Any = None, default_lang: str = "zh-CN") -> None:
        self.hub = hub
        self.store = store  # the ledger, for a finished hand's review (None: no reviews)
        self.sessions = Sessions(service, hub, links, oauth=oauth, default_lang=default_lang)
        self.oauth = oauth
        self.app = web.Application(client_max_size=64 * 1024)
        self.app.add_routes([
            web.get("/", self._page), web.get("/static/{name}", self._static), web.get("/tiles/{name}", self._tile),
            web.get("/api/config", self._config), web.get("/review", self._review), web.post("/api/token", self._token), web.get("/ws", self._socket),
        ])
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self.port: int | None = None

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Serve on host:port (0: any free port); returns the port."""
        runner = self._runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        server = site._server  # the bound socket: port 0 asks the OS for one
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        return int(self.port or 0)

    async def stop(self) -> None:
        for ws in tuple(self._sockets):
            await ws.close(code=1001, message=b"server going away")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.oauth is not None:
            await self.oauth.close()

    # -- files ------------------------------------------------------------------------------------------
    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC_DIR / "index.html", headers={
            "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache",
            "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"})

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC_DIR / name
        if "/" in name or name.startswith(".") or path.suffix not in STATIC_TYPES or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Content-Type": f"{STATIC_TYPES[path.suffix]}; charset=utf-8",
                                               "Cache-Control": "no-cache"})

    async def _tile(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if not TILE_NAME.match(name) or not (TILE_DIR / name).is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(TILE_DIR / name, headers={"Cache-Control": "public, max-age=86400"})

    async def _review(self, request: web.Request) -> web.Response:
        if self.store is None:
            raise web.HTTPNotFound()
        return await answer_review(request, self.store, self.sessions.links)

    # -- the Activity's sign-in -------------------------------------------------------------------------
    async def _config(self, request: web.Request) -> web.Response:
        return web.json_response({"client_id": self.oauth.client_id if self.oauth is not None else None})

    async def _token(self, request: web.Request) -> web.Response:
        if self.oauth is None:
            raise web.HTTPNotFound()
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise web.HTTPBadRequest() from None
        code = body.get("code") if isinstance(body, dict) else None
        if not isinstance(code, str) or not 0 < len(code) <= 256:
            raise web.HTTPBadRequest()
        try:
            token = await self.oauth.exchange(code)
        except OAuthRefused as exc:
            return web.json_response({"error": exc.code}, status=401)
        return web.json_response({"access_token": token})

    # -- the page's socket ------------------------------------------------------------------------------
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=25.0, max_msg_size=MESSAGE_BYTES)
        await ws.prepare(request)
        self._sockets.add(ws)
        try:
            await self._converse(ws)
        finally:
            self._sockets.discard(ws)
        return ws

    async def _converse(self, ws: web.WebSocketResponse) -> None:
        sessions = self.sessions
        try:
            hello = json.loads(await ws.receive_str(timeout=HELLO_SECONDS))
            if not isinstance(hello, dict) or hello.get("t") != "hello":
                raise ValueError("not a hello")
        except (TimeoutError, ValueError, TypeError, RuntimeError):
            await ws.close(code=4400, message=b"say hello first")
            return
        lang = sessions.language(hello)
        try:
            who = await sessions.identify(hello)
            first = sessions.first_messages(who, lang)
        except Exception as exc:  # a refused link or token, a closed table; anything else is logged too
            if not isinstance(exc, (LinkRefused, OAuthRefused, TableError)):
                logger.exception("a table page's hello failed")
            await ws.send_str(message("refused", text=sessions.refused_text(exc, lang)))
            await ws.close(code=4403, message=b"refused")
            return

        async def close() -> None:
            await ws.close(code=4408, message=b"too far behind")

        viewer = Viewer(who.table_id, who.player_id, lang, ws.send_str, close)
        self.hub.join(viewer, first)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    break
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    continue
                if isinstance(data, dict):
                    answer = await sessions.handle(who, viewer, data)
                    if answer is not None:
                        viewer.put(answer)
        finally:
            await self.hub.leave(viewer)
