"""The loopback's gateway: a websocket as Discord serves it to a bot.

HELLO, IDENTIFY (with the shard field: a shard gets READY and GUILD_CREATE for its own guilds,
`(guild_id >> 22) % shard_count`), heartbeats and their ACKs, RESUME after a dropped connection (missed
events replayed), `zlib-stream` compression, and the events the model announces (INTERACTION_CREATE,
GUILD_CREATE, GUILD_DELETE, CHANNEL_DELETE, ...)."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from kwx.devtools.loopback.model import DiscordModel

API_VERSION = 10
HEARTBEAT_MS = 41_250


@dataclass
class Session:
    id: str
    shard: tuple[int, int]
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    compress: Any = None
    backlog: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=10_000))
    resumes: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one frame at a time, in order (zlib-stream)


class Gateway:
    def __init__(self, model: DiscordModel, stats: Any, *, url: Callable[[], str], token: str | None = None,
                 shards: int = 1) -> None:
        self.model = model
        self.url = url  # the gateway's ws:// address (known once the server listens)
        self.token = token  # None: any token is taken
        self.shards = shards
        self.stats = stats  # counts identifies and resumes (kwx.devtools.loopback.rest.Stats)
        self.sessions: dict[str, Session] = {}
        self.ready = asyncio.Event()  # a shard has identified
        model.gateway = self.announce

    def shard_of(self, guild_id: int | None) -> int:
        return 0 if guild_id is None else (guild_id >> 22) % self.shards

    def announce(self, guild_id: int | None, event: str, data: dict[str, Any]) -> None:
        """Send an event to the sessions of the shard that owns the guild (DMs: shard 0)."""
        shard = self.shard_of(guild_id)
        for s in self.sessions.values():
            if s.shard[0] == shard:
                s.seq += 1
                msg = {"op": 0, "t": event, "s": s.seq, "d": data}
                s.backlog.append(msg)
                if s.ws is not None and not s.ws.closed:
                    asyncio.get_running_loop().create_task(self._send(s, msg))

    async def drop(self, code: int = 4000) -> None:
        """Close every connection as a network failure would (the bot reconnects and RESUMEs)."""
        for s in self.sessions.values():
            if s.ws is not None and not s.ws.closed:
                await s.ws.close(code=code)

    async def close(self) -> None:
        await self.drop(1001)

    async def _send(self, s: Session, msg: dict[str, Any]) -> None:
        async with s.lock:  # FIFO: frames leave in the order they were made
            ws = s.ws
            if ws is None or ws.closed:
                return
            text = json.dumps(msg, ensure_ascii=False)
            try:
                if s.compress is not None:
                    await ws.send_bytes(s.compress.compress(text.encode()) + s.compress.flush(zlib.Z_SYNC_FLUSH))
                else:
                    await ws.send_str(text)
            except (ConnectionError, RuntimeError):
                pass

    async def serve(self, request: web.Request) -> web.StreamResponse:
        """One websocket connection, from HELLO until it closes."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        mode = request.query.get("compress")
        if mode not in (None, "zlib-stream"):
            await ws.close(code=4000, message=b"only zlib-stream compression is served here")
            return ws
        compress = zlib.compressobj() if mode == "zlib-stream" else None
        conn = Session("", (0, 1), ws=ws, compress=compress)  # until IDENTIFY or RESUME names the session
        await self._send(conn, {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_MS}, "s": None, "t": None})
        session: Session | None = None
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            op, d = data.get("op"), data.get("d")
            if op == 1:  # heartbeat
                await self._send(session or conn, {"op": 11, "d": None, "s": None, "t": None})
            elif op == 2:  # identify
                if self.token is not None and d.get("token") != self.token:
                    await ws.close(code=4004, message=b"Authentication failed.")
                    break
                shard = tuple(d.get("shard") or (0, 1))
                session = Session(f"sess{self.model.snowflake()}", (int(shard[0]), int(shard[1])), ws=ws,
                                  compress=compress)
                self.sessions[session.id] = session
                self.stats.identifies += 1
                await self._identify(session)
            elif op == 6:  # resume
                found = self.sessions.get(d.get("session_id"))
                if found is None:
                    await self._send(conn, {"op": 9, "d": False, "s": None, "t": None})
                    continue
                session = found
                session.ws, session.compress = ws, compress
                session.resumes += 1
                self.stats.resumes += 1
                seq = int(d.get("seq") or 0)
                for event in list(session.backlog):
                    if event["s"] > seq:
                        await self._send(session, event)
                session.seq += 1
                await self._send(session, {"op": 0, "t": "RESUMED", "s": session.seq, "d": {}})
            # op 3, 4, 8 (presence, voice, member chunks): nothing to do
        return ws

    async def _identify(self, s: Session) -> None:
        shard_id, count = s.shard
        model = self.model
        mine = [gid for gid, g in model.guilds.items() if not g["removed"] and (gid >> 22) % count == shard_id]
        s.seq += 1
        ready = {"op": 0, "t": "READY", "s": s.seq, "d": {
            "v": API_VERSION, "user": model.bot_user, "session_id": s.id, "session_type": "normal",
            "resume_gateway_url": self.url(), "shard": [shard_id, count],
            "guilds": [{"id": str(gid), "unavailable": True} for gid in mine],
            "application": {"id": str(model.APP_ID), "flags": 0}, "private_channels": [], "relationships": [],
            "presences": [], "guild_join_requests": [], "geo_ordered_rtc_regions": [],
        }}
        s.backlog.append(ready)
        await self._send(s, ready)
        for gid in mine:
            model.guilds[gid]["live"] = True
            s.seq += 1
            event = {"op": 0, "t": "GUILD_CREATE", "s": s.seq, "d": model.guild_payload(gid)}
            s.backlog.append(event)
            await self._send(s, event)
        self.ready.set()
