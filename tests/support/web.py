"""A table served to pages: the table service with the web front end, the web root on a free port, and
sockets that speak the page's protocol (what table.js sends and reads)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import PlayerRef
from kwx.web.hub import WebFrontEnd
from kwx.web.oauth import DiscordOAuth
from kwx.web.seats import SeatLinks
from kwx.web.server import WebServer

SECRET = b"0123456789abcdef-test-secret"
ANN, BOB, CAT = PlayerRef("101", "Ann"), PlayerRef("102", "Bob"), PlayerRef("103", "Cat")


@dataclass
class Served:
    service: TableService
    hub: WebFrontEnd
    server: WebServer
    links: SeatLinks
    base: str
    http: aiohttp.ClientSession
    table_id: int = 0

    def link(self, player_id: str, table_id: int | None = None, ttl: float = 3600) -> str:
        return self.links.issue(self.table_id if table_id is None else table_id, player_id, ttl)

    async def page(self, hello: dict[str, Any]) -> Page:
        ws = await self.http.ws_connect(self.base + "ws")
        await ws.send_json({"t": "hello", "lang": "en", **hello})
        return Page(ws)


@dataclass
class Page:
    """One page's socket: every message it was sent, kept in order."""

    ws: aiohttp.ClientWebSocketResponse
    got: list[dict[str, Any]] = field(default_factory=list)
    frames: list[int] = field(default_factory=list)  # how many messages each frame carried
    unread: list[dict[str, Any]] = field(default_factory=list)  # the rest of the latest frame

    async def next(self, kind: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                if not self.unread:
                    msg = await self.ws.receive()
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        raise ConnectionError(f"socket closed ({msg.type}, {self.ws.close_code})")
                    frame = json.loads(msg.data)  # one message, or an array of them (kwx.web.hub)
                    self.unread = frame if isinstance(frame, list) else [frame]
                    self.frames.append(len(self.unread))
                data = self.unread.pop(0)
                self.got.append(data)
                if kind is None or data["t"] == kind:
                    return data

    async def drain(self, quiet: float = 0.3) -> None:
        """Read until the socket has been quiet for `quiet` seconds."""
        with contextlib.suppress(TimeoutError):
            while True:
                await self.next(timeout=quiet)

    async def hand(self, where: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        """The next private view (that satisfies `where`)."""
        while True:
            view = (await self.next("hand", timeout))["view"]
            if where is None or where(view):
                return view

    async def act(self, press_id: str, verb: str, tile: str | None, step: int) -> None:
        await self.ws.send_json({"t": "act", "id": press_id, "verb": verb, "tile": tile, "step": step})

    async def close(self) -> None:
        await self.ws.close()


@contextlib.asynccontextmanager
async def served(tmp_path: Any, *, oauth: DiscordOAuth | None = None, ai_delay: float = 0.0,
                 between_hands: float = 0.2) -> AsyncIterator[Served]:
    store = await Store.open(tmp_path / "kwx.sqlite3")
    hub = WebFrontEnd()
    service = TableService(store, hub, ai_delay=ai_delay, between_hands=between_hands, claim_pause=0.0)
    links = SeatLinks(SECRET)
    server = WebServer(service, hub, links, oauth=oauth, store=store, default_lang="en")
    port = await server.start("127.0.0.1", 0)
    http = aiohttp.ClientSession()
    try:
        await service.start()
        yield Served(service, hub, server, links, f"http://127.0.0.1:{port}/", http)
    finally:
        await http.close()
        await server.stop()
        await service.shutdown()
        await store.close()


async def three_humans(s: Served, seed: str = "web-test", claim_seconds: float = 0) -> int:
    """Ann, Bob and Cat at one table, hand 1 dealt; no timers (a test moves at its own pace)."""
    t = await s.service.open_table("g1", "c1", ANN, seed=seed, turn_seconds=0, claim_seconds=claim_seconds)
    await s.service.join(t, BOB)
    await s.service.join(t, CAT)
    await s.service.start_game(t, by=ANN.player_id)
    s.table_id = t
    return t


async def against_ai(s: Served, seed: str = "web-test") -> int:
    t = await s.service.open_table("g1", "c1", ANN, seed=seed, turn_seconds=0, claim_seconds=0)
    await s.service.add_ai(t, by=ANN.player_id)
    await s.service.add_ai(t, by=ANN.player_id)
    await s.service.start_game(t, by=ANN.player_id)
    s.table_id = t
    return t
