"""A Discord on loopback: the gateway and the REST routes the bot uses, as Discord documents them.

`python bot.py` runs against it unchanged but for `DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10`: discord.py
sends its REST calls there and asks `GET /gateway/bot` where the gateway is. Everything is kept in memory:
guilds, channels, users, messages (channel messages, DMs, ephemeral interaction messages), application emojis
and commands.

What it does as Discord does:
- the gateway: HELLO, IDENTIFY (with the shard field: a shard gets READY and GUILD_CREATE for its own guilds,
  `(guild_id >> 22) % shard_count`), heartbeats and their ACKs, RESUME after a dropped connection (missed
  events replayed), `zlib-stream` compression, INTERACTION_CREATE, GUILD_DELETE, CHANNEL_DELETE;
- payload limits (kwx.devtools.limits): an over-limit body is refused with 400 / 50035 and counted `off_spec`;
- rate limits: per-route buckets with X-RateLimit-* headers (5 messages per 5 s per channel), the global limit
  of 50 requests per second per bot token (interaction callbacks and interaction webhooks exempt), 429 with
  `retry_after` and the scope, and invalid requests (401, 403, 429) counted as Discord counts them;
- faults on demand: 5xx answers, dropped connections and slow answers for a route (`inject`), a dropped
  gateway (`drop_gateway`), a deleted channel or message, revoked permissions, closed DMs, the bot removed from
  a server.

Scripted players (kwx.devtools.loopback.players) run commands and press buttons by sending INTERACTION_CREATE
as a Discord client does, and read what the bot sent them from `messages`.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import itertools
import json
import logging
import re
import time
import zlib
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from kwx.devtools import limits

logger = logging.getLogger(__name__)

API_VERSION = 10
HEARTBEAT_MS = 41_250
EPHEMERAL = 64
LOADING = 128
ALL_PERMISSIONS = (1 << 51) - 1
# view channel, send messages, embed links, attach files, read history, add reactions, external emojis, use
# application commands, send messages in threads
MEMBER_PERMISSIONS = sum(1 << b for b in (10, 11, 14, 15, 16, 6, 18, 31, 38))
MANAGE_GUILD = 1 << 5
DISCORD_EPOCH = 1_420_070_400_000

# Per-route buckets (limit, seconds), by route template; major parameters split them (a channel, a webhook).
MESSAGE_BUCKET = (5, 5.0)  # Discord: 5 messages per 5 s per channel
ROUTE_BUCKETS: dict[str, tuple[int, float]] = {
    "POST /channels/{channel_id}/messages": MESSAGE_BUCKET,
    "PATCH /channels/{channel_id}/messages/{message_id}": MESSAGE_BUCKET,
    "DELETE /channels/{channel_id}/messages/{message_id}": (5, 1.0),
    "POST /users/@me/channels": (10, 1.0),
    "PUT /applications/{application_id}/commands": (2, 60.0),
    "PUT /applications/{application_id}/guilds/{guild_id}/commands": (2, 60.0),
    "POST /applications/{application_id}/emojis": (50, 60.0),
}
DEFAULT_BUCKET = (50, 1.0)
GLOBAL_LIMIT = 50  # requests per second per bot token


def snowflake_now(counter: itertools.count) -> int:
    return ((int(time.time() * 1000) - DISCORD_EPOCH) << 22) + (next(counter) % (1 << 22))


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


class HTTPError(Exception):
    """Answer the request with this status and Discord's error JSON."""

    def __init__(self, status: int, code: int, message: str, body: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body = body or {"code": code, "message": message}


def unknown(what: str, code: int) -> HTTPError:
    return HTTPError(404, code, f"Unknown {what}")


@dataclass
class Fault:
    """Answer the next `times` requests matching (method, route template) with a fault instead."""

    method: str
    template: str
    # "status" (a 5xx or any error), "drop" (connection closed, no answer), "delay" (answer late),
    # "ratelimit" (429 with retry_after = delay, as a shared or sub-limit would answer)
    kind: str
    status: int = 500
    code: int = 0
    message: str = "Internal Server Error"
    delay: float = 0.0
    times: int = 1


@dataclass
class Message:
    payload: dict[str, Any]
    channel_id: int
    ephemeral_to: int | None = None
    dm_to: int | None = None
    deleted: bool = False
    created: float = field(default_factory=time.monotonic)
    edited: float = field(default_factory=time.monotonic)

    @property
    def id(self) -> int:
        return int(self.payload["id"])


@dataclass
class Interaction:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    message_id: int | None
    created: float = field(default_factory=time.monotonic)
    response_type: int | None = None
    original_id: int | None = None
    ephemeral: bool = False
    loading: bool = False
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    answered_at: float = 0.0  # time.monotonic() of the bot's answer
    error: dict[str, Any] | None = None  # what the bot was refused when it answered


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


@dataclass
class Stats:
    requests: Counter[str] = field(default_factory=Counter)  # bot-token requests by route
    interaction_requests: Counter[str] = field(default_factory=Counter)  # callbacks and interaction webhooks
    global_429: int = 0
    route_429: int = 0
    invalid_requests: int = 0  # 401, 403, 429 (not shared-scope 429s), as Discord counts them
    off_spec: list[str] = field(default_factory=list)  # payloads refused for a limit: what was wrong
    errors: Counter[int] = field(default_factory=Counter)  # error answers by HTTP status
    identifies: int = 0
    resumes: int = 0

    @property
    def bot_requests(self) -> int:
        return sum(self.requests.values())


class _Bucket:
    __slots__ = ("limit", "per", "remaining", "reset_at")

    def __init__(self, limit: int, per: float) -> None:
        self.limit, self.per = limit, per
        self.remaining, self.reset_at = limit, 0.0

    def take(self, now: float) -> float:
        """0 when a request may go now (and takes it), else the seconds until the bucket resets."""
        if now >= self.reset_at:
            self.remaining, self.reset_at = self.limit, now + self.per
        if self.remaining <= 0:
            return self.reset_at - now
        self.remaining -= 1
        return 0.0


def _route_regex(template: str) -> re.Pattern[str]:
    pattern = re.escape(template).replace(r"\{", "{").replace(r"\}", "}")
    return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")


class LoopbackDiscord:
    APP_ID = 900_000_000_000_000_001  # a bot's user id is its application id

    def __init__(self, *, token: str | None = None, bot_name: str = "kwx", rate_limits: bool = True,
                 host: str = "127.0.0.1", port: int = 0, shards: int = 1) -> None:
        self.token = token  # None: any token is taken
        self.host, self.port = host, port
        self.rate_limits = rate_limits
        self.shards = shards
        self._ids = itertools.count(1)
        self.bot_user = {"id": str(self.APP_ID), "username": bot_name, "discriminator": "0", "global_name": bot_name,
                         "avatar": None, "bot": True, "flags": 0, "public_flags": 0}
        self.guilds: dict[int, dict[str, Any]] = {}
        self.channels: dict[int, dict[str, Any]] = {}  # guild channels and threads
        self.users: dict[int, dict[str, Any]] = {}
        self.user_locale: dict[int, str] = {}
        self.members: dict[int, dict[int, int]] = {}  # guild -> user -> permissions
        self.closed_dms: set[int] = set()
        self.dm_channels: dict[int, int] = {}  # DM channel -> user
        self.bot_permissions: dict[int, int] = {}  # channel -> the bot's permissions there (default: all)
        self.messages: dict[int, Message] = {}
        self.interactions: dict[str, Interaction] = {}
        self.emojis: dict[int, dict[str, Any]] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # by guild (None: global)
        self.faults: list[Fault] = []
        self.stats = Stats()
        self.sessions: dict[str, Session] = {}
        self.ready = asyncio.Event()  # a shard has identified
        self.upload_limit = limits.UPLOAD_LIMIT
        self._buckets: dict[str, _Bucket] = {}
        self._global = _Bucket(GLOBAL_LIMIT, 1.0)
        self._message_waiters: list[asyncio.Future[None]] = []
        # Called with each message the bot creates or edits, and whether it is new (benchmarks time them).
        self.observer: Callable[[Message, bool], None] | None = None
        self.inbox: dict[int, list[Message]] = {}  # each user's DMs and ephemeral messages, oldest first
        self._user_events: dict[int, asyncio.Event] = {}
        self._routes: list[tuple[str, str, re.Pattern[str], Callable[..., Any]]] = []
        self._runner: web.AppRunner | None = None
        self._install_routes()

    # == life cycle ==========================================================================================
    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self) -> LoopbackDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("*", "/api/v{version}/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        for s in self.sessions.values():
            if s.ws is not None and not s.ws.closed:
                await s.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> LoopbackDiscord:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # == the world ===========================================================================================
    def snowflake(self) -> int:
        return snowflake_now(self._ids)

    def add_guild(self, name: str = "卡五星俱乐部", *, locale: str = "zh-CN", guild_id: int | None = None) -> int:
        gid = guild_id or self.snowflake()
        self.guilds[gid] = {"id": str(gid), "name": name, "preferred_locale": locale, "removed": False}
        self.members[gid] = {}
        self._dispatch_guild(gid, "GUILD_CREATE", lambda: self._guild_payload(gid))
        return gid

    def add_channel(self, guild_id: int, name: str = "mahjong", *, thread_of: int | None = None) -> int:
        cid = self.snowflake()
        data: dict[str, Any] = {"id": str(cid), "type": 0, "name": name, "position": len(self.channels),
                                "guild_id": str(guild_id), "permission_overwrites": [], "nsfw": False,
                                "parent_id": None, "topic": None, "last_message_id": None, "rate_limit_per_user": 0}
        if thread_of is not None:
            data |= {"type": 11, "parent_id": str(thread_of), "owner_id": str(self.APP_ID),
                     "thread_metadata": {"archived": False, "auto_archive_duration": 1440, "locked": False,
                                         "archive_timestamp": _now_iso()},
                     "message_count": 0, "member_count": 1}
        self.channels[cid] = data
        if self.guilds[guild_id].get("live"):
            self._dispatch_guild(guild_id, "THREAD_CREATE" if thread_of else "CHANNEL_CREATE", lambda: data)
        return cid

    def add_user(self, name: str, *, dms_open: bool = True, locale: str = "zh-CN",
                 guild_id: int | None = None, manager: bool = False) -> int:
        uid = self.snowflake()
        self.users[uid] = {"id": str(uid), "username": name, "discriminator": "0", "global_name": name,
                           "avatar": None, "bot": False, "public_flags": 0}
        self.user_locale[uid] = locale
        if not dms_open:
            self.closed_dms.add(uid)
        if guild_id is not None:
            self.members[guild_id][uid] = MEMBER_PERMISSIONS | (MANAGE_GUILD if manager else 0)
        return uid

    # -- faults ----------------------------------------------------------------------------------------------
    def inject(self, method: str, template: str, kind: str = "status", *, status: int = 500, code: int = 0,
               message: str = "Internal Server Error", delay: float = 0.0, times: int = 1) -> Fault:
        fault = Fault(method, template, kind, status, code, message, delay, times)
        self.faults.append(fault)
        return fault

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection as a network failure would (the bot reconnects and RESUMEs)."""
        for s in self.sessions.values():
            if s.ws is not None and not s.ws.closed:
                await s.ws.close(code=code)

    def delete_message(self, message_id: int) -> None:
        self.messages[message_id].deleted = True

    def delete_channel(self, channel_id: int) -> None:
        data = self.channels.pop(channel_id)
        gid = int(data["guild_id"])
        self._dispatch_guild(gid, "THREAD_DELETE" if data["type"] in (10, 11, 12) else "CHANNEL_DELETE",
                             lambda: data)

    def revoke(self, channel_id: int, permissions: int) -> None:
        """The bot loses these permissions in the channel (sends answer 403 / 50013 or 50001)."""
        self.bot_permissions[channel_id] = self.bot_permissions.get(channel_id, ALL_PERMISSIONS) & ~permissions

    def remove_bot(self, guild_id: int) -> None:
        """The bot is kicked from a server: GUILD_DELETE (without `unavailable`), its channels answer 403."""
        self.guilds[guild_id]["removed"] = True
        self._dispatch_guild(guild_id, "GUILD_DELETE", lambda: {"id": str(guild_id)}, force=True)

    # == what players see ====================================================================================
    def visible(self, user_id: int, channel_id: int | None = None) -> list[Message]:
        out = []
        for m in self.messages.values():
            if m.deleted or (channel_id is not None and m.channel_id != channel_id):
                continue
            if m.ephemeral_to not in (None, user_id) or m.dm_to not in (None, user_id):
                continue
            out.append(m)
        return out

    def dms(self, user_id: int) -> list[Message]:
        return [m for m in self.messages.values() if m.dm_to == user_id and not m.deleted]

    def channel_messages(self, channel_id: int) -> list[Message]:
        return [m for m in self.messages.values()
                if m.channel_id == channel_id and m.ephemeral_to is None and not m.deleted]

    async def changed(self, timeout: float) -> None:
        """Wait until a message is created or edited (or the timeout passes)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._message_waiters.append(fut)
        try:
            await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            pass
        finally:
            if fut in self._message_waiters:
                self._message_waiters.remove(fut)

    def user_event(self, user_id: int) -> asyncio.Event:
        """Set whenever one of this user's DMs or ephemeral messages is created or edited (clear it to wait)."""
        event = self._user_events.get(user_id)
        if event is None:
            event = self._user_events[user_id] = asyncio.Event()
        return event

    def _changed(self, message: Message | None = None, new: bool = False) -> None:
        if message is not None:
            owner = message.dm_to or message.ephemeral_to
            if owner is not None:
                if new:
                    self.inbox.setdefault(owner, []).append(message)
                self.user_event(owner).set()
            if self.observer is not None:
                self.observer(message, new)
        waiters, self._message_waiters = self._message_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    # == interactions (what a Discord client sends) ==========================================================
    def slash(self, user_id: int, channel_id: int, command: str, **options: Any) -> Interaction:
        """`/kwx new base=2`: an INTERACTION_CREATE for a synced command."""
        words = command.lstrip("/").split()
        gid = self._guild_of(channel_id)
        registered = self.commands.get(gid, []) + self.commands.get(None, [])
        cmd = next((c for c in registered if c["name"] == words[0] and int(c.get("type", 1)) == 1), None)
        if cmd is None:
            raise LookupError(f"no synced command /{words[0]}")
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if gid is not None and cmd in self.commands.get(gid, []):
            data["guild_id"] = str(gid)
        node, leaf = cmd, data
        for word in words[1:]:
            node = next((o for o in node.get("options") or [] if o["name"] == word and o["type"] in (1, 2)), None)
            if node is None:
                raise LookupError(f"no subcommand {word!r} in /{command}")
            child = {"name": word, "type": node["type"], "options": []}
            leaf.setdefault("options", []).append(child)
            leaf = child
        leaf.setdefault("options", [])
        for name, value in options.items():
            opt = next((o for o in node.get("options") or [] if o["name"] == name), None)
            if opt is None:
                raise LookupError(f"/{command} has no option {name!r}")
            leaf["options"].append({"name": name, "type": opt["type"], "value": value})
        payload = self._interaction_payload(2, user_id, channel_id)
        payload["data"] = data
        return self._send_interaction(payload, None)

    def press(self, user_id: int, message_id: int, custom_id: str) -> Interaction:
        """A press of a button on a message the user sees (INTERACTION_CREATE, type 3)."""
        m = self.messages[message_id]
        payload = self._interaction_payload(3, user_id, m.channel_id)
        payload["message"] = copy.deepcopy(m.payload)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        return self._send_interaction(payload, message_id)

    def _send_interaction(self, payload: dict[str, Any], message_id: int | None) -> Interaction:
        uid = int((payload.get("member") or {}).get("user", payload.get("user", {})).get("id"))
        gid = int(payload["guild_id"]) if payload.get("guild_id") else None
        rec = Interaction(int(payload["id"]), payload["token"], payload["type"], uid, int(payload["channel_id"]), gid,
                          message_id)
        self.interactions[rec.token] = rec
        self._dispatch(self._shard_of(gid), "INTERACTION_CREATE", payload)
        return rec

    def _interaction_payload(self, itype: int, user_id: int, channel_id: int) -> dict[str, Any]:
        gid = self._guild_of(channel_id)
        iid = self.snowflake()
        payload: dict[str, Any] = {
            "id": str(iid), "application_id": str(self.APP_ID), "type": itype, "token": f"itok.{iid}", "version": 1,
            "channel_id": str(channel_id), "locale": self.user_locale.get(user_id, "zh-CN"),
            "app_permissions": str(self.bot_permissions.get(channel_id, ALL_PERMISSIONS)),
            "attachment_size_limit": self.upload_limit, "entitlements": [],
            "context": 0 if gid else 1,
            "authorizing_integration_owners": {"0": str(gid)} if gid else {"1": str(user_id)},
        }
        if gid is not None:
            perms = self.members.get(gid, {}).get(user_id, MEMBER_PERMISSIONS)
            payload["guild_id"] = str(gid)
            payload["guild_locale"] = self.guilds[gid]["preferred_locale"]
            payload["member"] = self._member(user_id) | {"permissions": str(perms)}
            payload["channel"] = copy.deepcopy(self.channels[channel_id])
            payload["guild"] = {"id": str(gid), "locale": self.guilds[gid]["preferred_locale"], "features": []}
        else:
            payload["user"] = self.users[user_id]
            payload["channel"] = {"id": str(channel_id), "type": 1, "recipients": [self.users[user_id]]}
        return payload

    def _member(self, uid: int) -> dict[str, Any]:
        user = self.bot_user if uid == self.APP_ID else self.users[uid]
        return {"user": user, "roles": [], "joined_at": "2024-01-01T00:00:00+00:00", "deaf": False, "mute": False,
                "flags": 0, "nick": None, "avatar": None}

    def _guild_of(self, channel_id: int) -> int | None:
        ch = self.channels.get(channel_id)
        return int(ch["guild_id"]) if ch is not None else None

    def _shard_of(self, guild_id: int | None) -> int:
        return 0 if guild_id is None else (guild_id >> 22) % self.shards

    # == the gateway =========================================================================================
    def _guild_payload(self, gid: int) -> dict[str, Any]:
        g = self.guilds[gid]
        channels = [c for c in self.channels.values() if int(c["guild_id"]) == gid]
        return {
            "id": str(gid), "name": g["name"], "icon": None, "owner_id": str(self.snowflake()),
            "preferred_locale": g["preferred_locale"], "unavailable": False, "large": False,
            "joined_at": "2024-01-01T00:00:00+00:00", "member_count": len(self.members[gid]) + 1,
            "roles": [{"id": str(gid), "name": "@everyone", "permissions": str(MEMBER_PERMISSIONS), "position": 0,
                       "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
            "channels": [c for c in channels if c["type"] not in (10, 11, 12)],
            "threads": [c for c in channels if c["type"] in (10, 11, 12)],
            "members": [self._member(self.APP_ID)], "voice_states": [], "presences": [], "emojis": [],
            "stickers": [], "features": [], "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
            "system_channel_flags": 0, "stage_instances": [], "guild_scheduled_events": [],
        }

    def _dispatch_guild(self, gid: int, event: str, data: Callable[[], dict[str, Any]], *,
                        force: bool = False) -> None:
        if self.guilds[gid].get("removed") and not force:
            return
        self._dispatch(self._shard_of(gid), event, data())

    def _dispatch(self, shard: int, event: str, data: dict[str, Any]) -> None:
        for s in self.sessions.values():
            if s.shard[0] == shard:
                s.seq += 1
                msg = {"op": 0, "t": event, "s": s.seq, "d": data}
                s.backlog.append(msg)
                if s.ws is not None and not s.ws.closed:
                    asyncio.get_running_loop().create_task(self._ws_send(s, msg))

    async def _ws_send(self, s: Session, msg: dict[str, Any]) -> None:
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

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        if request.query.get("compress") not in (None, "zlib-stream"):
            await ws.close(code=4000, message=b"only zlib-stream compression is served here")
            return ws
        conn = Session("", (0, 1), ws=ws, compress=compress)  # until IDENTIFY or RESUME names the session
        await self._ws_send(conn, {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_MS}, "s": None, "t": None})
        session: Session | None = None
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            op, d = data.get("op"), data.get("d")
            if op == 1:  # heartbeat
                await self._ws_send(session or conn, {"op": 11, "d": None, "s": None, "t": None})
            elif op == 2:  # identify
                if self.token is not None and d.get("token") != self.token:
                    await ws.close(code=4004, message=b"Authentication failed.")
                    break
                shard = tuple(d.get("shard") or (0, 1))
                session = Session(f"sess{self.snowflake()}", (int(shard[0]), int(shard[1])), ws=ws, compress=compress)
                self.sessions[session.id] = session
                self.stats.identifies += 1
                await self._identify(session)
            elif op == 6:  # resume
                found = self.sessions.get(d.get("session_id"))
                if found is None:
                    await self._ws_send(conn, {"op": 9, "d": False, "s": None, "t": None})
                    continue
                session = found
                session.ws, session.compress = ws, compress
                session.resumes += 1
                self.stats.resumes += 1
                seq = int(d.get("seq") or 0)
                for event in list(session.backlog):
                    if event["s"] > seq:
                        await self._ws_send(session, event)
                session.seq += 1
                await self._ws_send(session, {"op": 0, "t": "RESUMED", "s": session.seq, "d": {}})
            elif op in (3, 4, 8):  # presence, voice, member chunks: nothing to do
                continue
        return ws

    async def _identify(self, s: Session) -> None:
        shard_id, count = s.shard
        mine = [gid for gid, g in self.guilds.items() if not g["removed"] and (gid >> 22) % count == shard_id]
        s.seq += 1
        ready = {"op": 0, "t": "READY", "s": s.seq, "d": {
            "v": API_VERSION, "user": self.bot_user, "session_id": s.id, "session_type": "normal",
            "resume_gateway_url": self.gateway_url, "shard": [shard_id, count],
            "guilds": [{"id": str(gid), "unavailable": True} for gid in mine],
            "application": {"id": str(self.APP_ID), "flags": 0}, "private_channels": [], "relationships": [],
            "presences": [], "guild_join_requests": [], "geo_ordered_rtc_regions": [],
        }}
        s.backlog.append(ready)
        await self._ws_send(s, ready)
        for gid in mine:
            self.guilds[gid]["live"] = True
            s.seq += 1
            event = {"op": 0, "t": "GUILD_CREATE", "s": s.seq, "d": self._guild_payload(gid)}
            s.backlog.append(event)
            await self._ws_send(s, event)
        self.ready.set()

    # == REST ================================================================================================
    def _install_routes(self) -> None:
        def add(method: str, template: str, handler: Callable[..., Any]) -> None:
            self._routes.append((method, template, _route_regex(template), handler))

        add("GET", "/users/@me", lambda **_: self.bot_user)
        add("GET", "/oauth2/applications/@me", self._application)
        add("GET", "/applications/@me", self._application)
        add("GET", "/gateway/bot", self._gateway_bot)
        add("GET", "/gateway", lambda **_: {"url": self.gateway_url})
        add("POST", "/users/@me/channels", self._open_dm)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/channels/{channel_id}", self._get_channel)
        add("POST", "/channels/{channel_id}/messages", self._send)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete)
        add("POST", "/channels/{channel_id}/typing", lambda **_: None)
        add("GET", "/applications/{application_id}/emojis", lambda **_: {"items": list(self.emojis.values())})
        add("POST", "/applications/{application_id}/emojis", self._create_emoji)
        add("DELETE", "/applications/{application_id}/emojis/{emoji_id}", self._delete_emoji)
        add("GET", "/applications/{application_id}/commands", lambda **_: self.commands.get(None, []))
        add("PUT", "/applications/{application_id}/commands", self._sync)
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands",
            lambda guild_id, **_: self.commands.get(int(guild_id), []))
        add("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._sync)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self._callback)
        add("GET", "/webhooks/{application_id}/{token}/messages/@original", self._get_original)
        add("PATCH", "/webhooks/{application_id}/{token}/messages/@original", self._edit_original)
        add("DELETE", "/webhooks/{application_id}/{token}/messages/@original", self._delete_original)
        add("POST", "/webhooks/{application_id}/{token}", self._followup)
        add("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self._edit_followup)
        add("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self._delete_followup)

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        matched = next(((t, h, f) for m, t, r, h in self._routes if m == method and (f := r.match(path))), None)
        if matched is None:
            return self._json(404, {"code": 0, "message": "404: Not Found"})
        template, handler, found = matched
        params = found.groupdict()
        route = f"{method} {template}"
        interaction_route = template.startswith(("/interactions/", "/webhooks/"))
        headers: dict[str, str] = {}
        if not interaction_route:
            auth = request.headers.get("Authorization", "")
            if not auth.startswith("Bot ") or (self.token is not None and auth[4:] != self.token):
                self.stats.invalid_requests += 1
                return self._json(401, {"code": 0, "message": "401: Unauthorized"})
            self.stats.requests[route] += 1
            limited = self._rate_limit(route, template, params, headers)
            if limited is not None:
                return limited
        else:
            self.stats.interaction_requests[route] += 1
        for fault in list(self.faults):
            if fault.method == method and fault.template == template:
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                if fault.kind == "delay":
                    await asyncio.sleep(fault.delay)
                    break
                if fault.kind == "ratelimit":
                    self.stats.route_429 += 1
                    self.stats.invalid_requests += 1
                    body = {"message": "You are being rate limited.", "retry_after": fault.delay, "global": False,
                            "code": 0}
                    return self._json(429, body, headers | {"Retry-After": str(max(1, round(fault.delay))),
                                                            "X-RateLimit-Scope": "user", "Via": "1.1 loopback"})
                if fault.kind == "drop":
                    if request.transport is not None:
                        request.transport.close()
                    raise ConnectionResetError("fault: connection dropped")
                self.stats.errors[fault.status] += 1
                return self._json(fault.status, {"code": fault.code, "message": fault.message}, headers)
        try:
            body, files = await self._read_body(request)
            result = handler(body=body, files=files, route=route, query=request.query, **params)
            if asyncio.iscoroutine(result):
                result = await result
        except HTTPError as e:
            self.stats.errors[e.status] += 1
            if e.status in (401, 403):
                self.stats.invalid_requests += 1
            if e.status == 400 and e.body.get("code") == limits.INVALID_FORM_BODY:
                self.stats.off_spec.append(f"{route}: {'; '.join(limits.flatten(e.body.get('errors') or {}))}")
                logger.warning("off spec: %s", self.stats.off_spec[-1])
            return self._json(e.status, e.body, headers)
        if result is None:
            return web.Response(status=204, headers=headers)
        return self._json(200, result, headers)

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
        # discord.py parses a body as JSON only when the content type is exactly this (as Discord sends it)
        return web.Response(status=status, body=json.dumps(body, ensure_ascii=False).encode(),
                            headers={**(headers or {}), "Content-Type": "application/json"})

    def _rate_limit(self, route: str, template: str, params: dict[str, str],
                    headers: dict[str, str]) -> web.Response | None:
        if not self.rate_limits:
            return None
        now = time.monotonic()
        wait = self._global.take(now)
        if wait > 0:
            self.stats.global_429 += 1
            self.stats.invalid_requests += 1
            body = {"message": "You are being rate limited.", "retry_after": round(wait, 3), "global": True,
                    "code": 0}
            return self._json(429, body, {"Retry-After": str(max(1, round(wait))), "X-RateLimit-Global": "true",
                                          "X-RateLimit-Scope": "global", "Via": "1.1 loopback"})
        limit, per = ROUTE_BUCKETS.get(route, DEFAULT_BUCKET)
        major = params.get("channel_id") or params.get("guild_id") or params.get("webhook_id") or ""
        bucket_hash = f"{abs(hash(route)) % 10**12:x}"
        key = f"{bucket_hash}:{major}"
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(limit, per)
        wait = bucket.take(now)
        headers.update({"X-RateLimit-Limit": str(limit), "X-RateLimit-Bucket": bucket_hash,
                        "X-RateLimit-Remaining": str(max(0, bucket.remaining)),
                        "X-RateLimit-Reset": f"{time.time() + bucket.reset_at - now:.3f}",
                        "X-RateLimit-Reset-After": f"{bucket.reset_at - now:.3f}", "Via": "1.1 loopback"})
        if wait > 0:
            self.stats.route_429 += 1
            self.stats.invalid_requests += 1
            body = {"message": "You are being rate limited.", "retry_after": round(wait, 3), "global": False,
                    "code": 0}
            return self._json(429, body, headers | {"Retry-After": str(max(1, round(wait))),
                                                    "X-RateLimit-Scope": "user"})
        return None

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        if not request.can_read_body:
            return None, []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files.append((part.filename or "file", bytes(await part.read())))
            return body, files
        text = await request.text()
        return (json.loads(text) if text else None), []

    # -- routes: the bot, the application, the gateway ------------------------------------------------------
    def _application(self, **_: Any) -> dict[str, Any]:
        return {"id": str(self.APP_ID), "name": self.bot_user["username"], "icon": None, "description": "",
                "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64, "flags": 0,
                "owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None}, "team": None,
                "summary": "", "rpc_origins": [], "bot": self.bot_user, "interactions_endpoint_url": None}

    def _gateway_bot(self, **_: Any) -> dict[str, Any]:
        return {"url": self.gateway_url, "shards": self.shards,
                "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}

    def _get_user(self, *, user_id: str, **_: Any) -> dict[str, Any]:
        user = self.users.get(int(user_id))
        if user is None:
            raise unknown("User", 10013)
        return user

    def _channel(self, channel_id: str | int) -> dict[str, Any] | None:
        cid = int(channel_id)
        if cid in self.dm_channels:
            return {"id": str(cid), "type": 1, "recipients": [self.users[self.dm_channels[cid]]],
                    "last_message_id": None}
        ch = self.channels.get(cid)
        if ch is None:
            raise unknown("Channel", 10003)
        if self.guilds[int(ch["guild_id"])]["removed"]:
            raise HTTPError(403, 50001, "Missing Access")
        return ch

    def _get_channel(self, *, channel_id: str, **_: Any) -> dict[str, Any]:
        return self._channel(channel_id) or {}

    def _open_dm(self, *, body: dict[str, Any], **_: Any) -> dict[str, Any]:
        uid = int(body["recipient_id"])
        if uid not in self.users:
            raise HTTPError(400, 50033, "Invalid Recipient(s)")
        cid = next((c for c, u in self.dm_channels.items() if u == uid), None) or self.snowflake()
        self.dm_channels[cid] = uid
        return {"id": str(cid), "type": 1, "recipients": [self.users[uid]], "last_message_id": None}

    def _check_message(self, body: Any, files: list[tuple[str, bytes]], *, new: bool, limit: int) -> None:
        errors = limits.message_errors(body, file_sizes=[len(d) for _, d in files])
        if errors:
            raise HTTPError(400, limits.INVALID_FORM_BODY, "Invalid Form Body", limits.invalid_form_body(errors))
        if limits.upload_errors((len(d) for _, d in files), limit):
            raise HTTPError(413, limits.ENTITY_TOO_LARGE, "Request entity too large", limits.entity_too_large(limit))
        if new and limits.is_empty_message(body, len(files)):
            raise HTTPError(400, limits.EMPTY_MESSAGE, "Cannot send an empty message")

    def _message_payload(self, cid: int, body: dict[str, Any], files: list[tuple[str, bytes]],
                         inter: Interaction | None = None) -> dict[str, Any]:
        mid = self.snowflake()
        payload: dict[str, Any] = {
            "id": str(mid), "channel_id": str(cid), "author": self.bot_user, "content": "", "timestamp": _now_iso(),
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [], "embeds": [], "pinned": False, "type": 0, "flags": 0, "components": [],
        }
        gid = self._guild_of(cid)
        if gid is not None:
            payload["guild_id"] = str(gid)
        if inter is not None:
            payload |= {"type": 20 if inter.type == 2 else 19 if inter.type == 3 else 0,
                        "application_id": str(self.APP_ID), "webhook_id": str(self.APP_ID)}
        self._apply(payload, body, files)
        return payload

    def _apply(self, payload: dict[str, Any], body: dict[str, Any] | None, files: list[tuple[str, bytes]]) -> None:
        body = body or {}
        for key in ("content", "embeds", "components", "flags"):
            if key in body:
                value = body[key]
                payload[key] = value if value is not None else ("" if key == "content" else 0 if key == "flags" else [])
        if "attachments" in body or files:
            keep = {str(a.get("id")) for a in body.get("attachments") or []}
            kept = [a for a in payload.get("attachments", []) if a["id"] in keep]
            new = [{"id": str(self.snowflake()), "filename": name, "size": len(data),
                    "url": f"http://{self.host}:{self.port}/cdn/{name}", "proxy_url": f"http://{self.host}/cdn/{name}"}
                   for name, data in files]
            payload["attachments"] = kept + new

    def _send(self, *, channel_id: str, body: dict[str, Any], files: list[tuple[str, bytes]], **_: Any) -> dict[str, Any]:
        cid = int(channel_id)
        self._channel(cid)
        dm_user = self.dm_channels.get(cid)
        if dm_user is not None and dm_user in self.closed_dms:
            raise HTTPError(403, 50007, "Cannot send messages to this user")
        if dm_user is None:
            perms = self.bot_permissions.get(cid, ALL_PERMISSIONS)
            if not perms & (1 << 10):  # view channel
                raise HTTPError(403, 50001, "Missing Access")
            thread = self.channels[cid]["type"] in (10, 11, 12)
            if not perms & (1 << (38 if thread else 11)):  # send messages (in threads)
                raise HTTPError(403, 50013, "Missing Permissions")
            if body and body.get("embeds") and not perms & (1 << 14) or files and not perms & (1 << 15):
                raise HTTPError(403, 50013, "Missing Permissions")
        self._check_message(body, files, new=True, limit=limits.UPLOAD_LIMIT)
        payload = self._message_payload(cid, body, files)
        stored = Message(payload, cid, dm_to=dm_user)
        self.messages[stored.id] = stored
        self._changed(stored, True)
        return copy.deepcopy(payload)

    def _live(self, message_id: str | int) -> Message:
        m = self.messages.get(int(message_id))
        if m is None or m.deleted:
            raise unknown("Message", 10008)
        return m

    def _get_message(self, *, channel_id: str, message_id: str, **_: Any) -> dict[str, Any]:
        self._channel(channel_id)
        return copy.deepcopy(self._live(message_id).payload)

    def _edit_stored(self, m: Message, body: dict[str, Any] | None, files: list[tuple[str, bytes]]) -> dict[str, Any]:
        self._check_message(body, files, new=False, limit=self.upload_limit)
        self._apply(m.payload, body, files)
        m.payload["edited_timestamp"] = _now_iso()
        m.edited = time.monotonic()
        self._changed(m, False)
        return copy.deepcopy(m.payload)

    def _edit(self, *, channel_id: str, message_id: str, body: dict[str, Any], files: list[tuple[str, bytes]],
              **_: Any) -> dict[str, Any]:
        self._channel(channel_id)
        m = self._live(message_id)
        if m.dm_to is None and not self.bot_permissions.get(int(channel_id), ALL_PERMISSIONS) & (1 << 10):
            raise HTTPError(403, 50001, "Missing Access")
        return self._edit_stored(m, body, files)

    def _delete(self, *, channel_id: str, message_id: str, **_: Any) -> None:
        self._channel(channel_id)
        self._live(message_id).deleted = True

    def _create_emoji(self, *, body: dict[str, Any], **_: Any) -> dict[str, Any]:
        name = body.get("name") or ""
        if not re.fullmatch(r"\w{2,32}", name):
            raise HTTPError(400, 50035, "Invalid Form Body", limits.invalid_form_body(
                {"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 2 and 32 in length."}]}}))
        if any(e["name"] == name for e in self.emojis.values()):
            raise HTTPError(400, 50035, "Invalid Form Body", limits.invalid_form_body(
                {"name": {"_errors": [{"code": "APPLICATION_EMOJI_NAME_ALREADY_TAKEN",
                                       "message": "Emoji name already taken."}]}}))
        image = body.get("image") or ""
        if not image.startswith("data:image/") or len(image) * 3 // 4 > 256 * 1024 + 200:
            raise HTTPError(400, 50045, "File cannot be larger than 256.0 kb")
        eid = self.snowflake()
        self.emojis[eid] = {"id": str(eid), "name": name, "roles": [], "require_colons": True, "managed": False,
                            "animated": False, "available": True, "user": self.bot_user}
        return self.emojis[eid]

    def _delete_emoji(self, *, emoji_id: str, **_: Any) -> None:
        if self.emojis.pop(int(emoji_id), None) is None:
            raise unknown("Emoji", 10014)

    def _sync(self, *, body: Any, guild_id: str | None = None, **_: Any) -> list[dict[str, Any]]:
        errors = limits.commands_errors(body)
        if errors:
            raise HTTPError(400, limits.INVALID_FORM_BODY, "Invalid Form Body", limits.invalid_form_body(errors))
        gid = int(guild_id) if guild_id else None
        if gid is not None and gid not in self.guilds:
            raise HTTPError(403, 50001, "Missing Access")
        old = {c["name"]: c["id"] for c in self.commands.get(gid, [])}
        out = []
        for cmd in body:
            out.append({"application_id": str(self.APP_ID), "version": str(self.snowflake()),
                        "default_member_permissions": None, "dm_permission": True, "nsfw": False, "description": "",
                        "options": [], "type": 1} | cmd | {"id": old.get(cmd["name"]) or str(self.snowflake())}
                       | ({"guild_id": str(gid)} if gid else {}))
        self.commands[gid] = out
        return out

    # -- routes: interactions ------------------------------------------------------------------------------
    def _interaction(self, token: str, *, webhook: bool) -> Interaction:
        rec = self.interactions.get(token)
        if rec is None:
            raise unknown("Webhook", 10015) if webhook else unknown("interaction", 10062)
        age = time.monotonic() - rec.created
        if (not webhook and age > 3.0) or age > 15 * 60:
            raise unknown("Webhook", 10015) if webhook else unknown("interaction", 10062)
        return rec

    def _callback(self, *, token: str, body: dict[str, Any], files: list[tuple[str, bytes]], query: Any,
                  **_: Any) -> dict[str, Any] | None:
        inter = self._interaction(token, webhook=False)
        if inter.response_type is not None:
            raise HTTPError(400, 40060, "Interaction has already been acknowledged.")
        errors = limits.interaction_response_errors(body, file_sizes=[len(d) for _, d in files])
        if errors:
            inter.error = limits.invalid_form_body(errors)
            inter.answered.set()
            raise HTTPError(400, limits.INVALID_FORM_BODY, "Invalid Form Body", inter.error)
        if limits.upload_errors((len(d) for _, d in files), self.upload_limit):
            raise HTTPError(413, limits.ENTITY_TOO_LARGE, "Request entity too large",
                            limits.entity_too_large(self.upload_limit))
        rtype = int(body["type"])
        data = body.get("data") or {}
        inter.response_type = rtype
        inter.ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        resource: dict[str, Any] = {"type": rtype}
        if rtype == 4:
            if limits.is_empty_message(data, len(files)):
                raise HTTPError(400, limits.EMPTY_MESSAGE, "Cannot send an empty message")
            m = self._new_interaction_message(inter, data, files)
            inter.original_id = m.id
            resource["message"] = copy.deepcopy(m.payload)
        elif rtype == 5:
            m = self._new_interaction_message(inter, {"flags": int(data.get("flags") or 0) | LOADING}, [])
            inter.original_id = m.id
            inter.loading = True
            resource["message"] = copy.deepcopy(m.payload)
        elif rtype == 6:
            inter.original_id = inter.message_id
        elif rtype == 7:
            inter.original_id = inter.message_id
            m = self._live(inter.message_id or 0)
            self._edit_stored(m, data, files)
            resource["message"] = copy.deepcopy(m.payload)
        inter.answered_at = time.monotonic()
        inter.answered.set()
        self._changed(self.messages.get(inter.original_id or 0) if rtype == 4 else None, True)
        if query.get("with_response") not in ("true", "True", "1"):
            return None
        return {"interaction": {"id": str(inter.id), "type": inter.type,
                                "response_message_id": str(inter.original_id) if inter.original_id else None,
                                "response_message_loading": rtype == 5,
                                "response_message_ephemeral": inter.ephemeral},
                "resource": resource}

    def _new_interaction_message(self, inter: Interaction, data: dict[str, Any],
                                 files: list[tuple[str, bytes]]) -> Message:
        payload = self._message_payload(inter.channel_id, data, files, inter)
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        m = Message(payload, inter.channel_id, ephemeral_to=inter.user_id if ephemeral else None)
        if inter.guild_id is None:
            m.dm_to = inter.user_id
        self.messages[m.id] = m
        return m

    def _original(self, token: str) -> tuple[Interaction, Message]:
        inter = self._interaction(token, webhook=True)
        if inter.original_id is None:
            raise unknown("Message", 10008)
        return inter, self._live(inter.original_id)

    def _get_original(self, *, token: str, **_: Any) -> dict[str, Any]:
        return copy.deepcopy(self._original(token)[1].payload)

    def _edit_original(self, *, token: str, body: dict[str, Any], files: list[tuple[str, bytes]],
                       **_: Any) -> dict[str, Any]:
        inter, m = self._original(token)
        if inter.loading:
            inter.loading = False
            m.payload["flags"] = int(m.payload.get("flags") or 0) & ~LOADING
        return self._edit_stored(m, body, files)

    def _delete_original(self, *, token: str, **_: Any) -> None:
        self._original(token)[1].deleted = True

    def _followup(self, *, token: str, body: dict[str, Any], files: list[tuple[str, bytes]], **_: Any) -> dict[str, Any]:
        inter = self._interaction(token, webhook=True)
        if inter.response_type is None:
            raise unknown("Webhook", 10015)
        self._check_message(body, files, new=True, limit=self.upload_limit)
        if inter.loading:
            inter.loading = False
            m = self._live(inter.original_id or 0)
            flags = int(m.payload.get("flags") or 0) & ~LOADING
            self._apply(m.payload, body, files)
            m.payload["flags"] = flags
            self._changed()
        else:
            m = self._new_interaction_message(inter, body, files)
            self._changed(m, True)
        return copy.deepcopy(m.payload)

    def _edit_followup(self, *, token: str, message_id: str, body: dict[str, Any], files: list[tuple[str, bytes]],
                       **_: Any) -> dict[str, Any]:
        self._interaction(token, webhook=True)
        return self._edit_stored(self._live(message_id), body, files)

    def _delete_followup(self, *, token: str, message_id: str, **_: Any) -> None:
        self._interaction(token, webhook=True)
        self._live(message_id).deleted = True

    # == numbers for tests and the benchmark =================================================================
    def report(self) -> dict[str, Any]:
        return {"bot_requests": self.stats.bot_requests,
                "interaction_requests": sum(self.stats.interaction_requests.values()),
                "global_429": self.stats.global_429, "route_429": self.stats.route_429,
                "invalid_requests": self.stats.invalid_requests, "off_spec": len(self.stats.off_spec),
                "identifies": self.stats.identifies, "resumes": self.stats.resumes}
