"""What the loopback Discord knows: guilds, channels, users, messages, interactions, emojis, commands.

One model serves both ways of reaching the loopback: the real bot process over HTTP and the gateway
(kwx.devtools.loopback.server) and the unit tests' in-process driver (kwx.devtools.loopback.inprocess). The
REST routes (kwx.devtools.loopback.rest) read and change it; the gateway (kwx.devtools.loopback.gateway) sends
what it announces. Scripted players read what they see from it, and act (`slash`, `press`) as a Discord client
does: the model records the interaction and announces INTERACTION_CREATE.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from kwx.devtools.loopback.activities import Activities

_SCALARS = (str, int, float, bool, type(None))
_J = TypeVar("_J")

EPHEMERAL = 64
LOADING = 128
ALL_PERMISSIONS = (1 << 51) - 1
VIEW_CHANNEL, SEND_MESSAGES, EMBED_LINKS, ATTACH_FILES, SEND_IN_THREADS = 1 << 10, 1 << 11, 1 << 14, 1 << 15, 1 << 38
# view channel, send messages, embed links, attach files, read history, add reactions, external emojis, use
# application commands, send messages in threads
MEMBER_PERMISSIONS = sum(1 << b for b in (10, 11, 14, 15, 16, 6, 18, 31, 38))
MANAGE_GUILD = 1 << 5
DISCORD_EPOCH = 1_420_070_400_000
THREAD_TYPES = (10, 11, 12)
RESPONSE_WINDOW = 3.0  # seconds Discord gives an interaction's first answer
FOLLOWUP_WINDOW = 15 * 60.0  # seconds its token works for followups and edits


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()



def json_copy(value: _J) -> _J:
    """A deep copy of JSON (a stored message, a channel), two to three times faster than copy.deepcopy: the
    loopback copies what it stores at every read, on the event loop of the bot it serves."""
    return cast(_J, _copy(value))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, _SCALARS):
        return value
    return copy.deepcopy(value)

@dataclass(frozen=True)
class Component:
    """A button or select menu as a player sees it."""

    type: str  # "button" | "select"
    custom_id: str | None
    label: str | None = None
    disabled: bool = False
    style: int | None = None
    emoji: str | None = None
    url: str | None = None
    options: tuple[str, ...] = ()  # select option values


def components_of(rows: list[dict[str, Any]]) -> list[Component]:
    """The buttons and selects in a message's components (action rows, components-v2 containers)."""
    out: list[Component] = []
    for c in rows:
        ctype = c.get("type")
        if ctype == 2:
            emoji = c.get("emoji") or None
            shown = None if emoji is None else f"<:{emoji['name']}:{emoji['id']}>" if emoji.get("id") else emoji.get("name")
            out.append(Component("button", c.get("custom_id"), c.get("label"), bool(c.get("disabled")), c.get("style"),
                                 shown, c.get("url")))
        elif ctype in (3, 5, 6, 7, 8):
            out.append(Component("select", c.get("custom_id"), c.get("placeholder"), bool(c.get("disabled")),
                                 options=tuple(o["value"] for o in c.get("options") or [])))
        child = c.get("components")
        out += components_of(child if isinstance(child, list) else [])
        if isinstance(c.get("accessory"), dict):
            out += components_of([c["accessory"]])
    return out


@dataclass
class Message:
    payload: dict[str, Any]  # the message as Discord returns it
    channel_id: int
    ephemeral_to: int | None = None  # the only user who sees it (an ephemeral interaction message)
    dm_to: int | None = None  # the user whose DM it is in
    deleted: bool = False
    created: float = field(default_factory=time.monotonic)
    edited: float = field(default_factory=time.monotonic)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def content(self) -> str:
        return self.payload.get("content") or ""

    @property
    def components(self) -> list[Component]:
        return components_of(self.payload.get("components") or [])

    @property
    def owner(self) -> int | None:
        """The one user who sees it (a DM's recipient, an ephemeral message's user), or None: everybody."""
        return self.dm_to or self.ephemeral_to


@dataclass
class Interaction:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    message_id: int | None  # the message a pressed component sits on
    created: float = field(default_factory=time.monotonic)
    response_type: int | None = None
    original_id: int | None = None  # the message @original names
    ephemeral: bool = False
    loading: bool = False  # a thinking deferral, whose message the first followup or edit fills
    expired: bool = False  # its token ran out (set by a test; also judged from `created`)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    answered_at: float = 0.0  # time.monotonic() of the bot's answer
    error: dict[str, Any] | None = None  # what the bot was refused when it answered


# Where the model's gateway announcements go: (guild id or None for a DM, event name, payload).
GatewaySink = Callable[[int | None, str, dict[str, Any]], None]


class DiscordModel:
    APP_ID = 900_000_000_000_000_001  # a bot's user id is its application id

    def __init__(self, *, bot_name: str = "kwx", message_type: type[Message] = Message,
                 response_window: float | None = RESPONSE_WINDOW) -> None:
        self._ids = itertools.count(1)
        self.message_type = message_type
        self.response_window = response_window  # None: only `expire()` ends an interaction's window
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
        self.emoji_images: dict[int, bytes] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # by guild (None: global)
        self.upload_limit = 10 * 1024 * 1024  # what interactions report (no boosts)
        self.gateway: GatewaySink | None = None
        # Called with each message the bot creates or edits, and whether it is new (benchmarks time them).
        self.observer: Callable[[Message, bool], None] | None = None
        self.activities = Activities(self.APP_ID)  # OAuth2 codes and tokens, activity instances
        self.inbox: dict[int, list[Message]] = {}  # each user's DMs and ephemeral messages, oldest first
        self._user_events: dict[int, asyncio.Event] = {}
        self._message_waiters: list[asyncio.Future[None]] = []

    # == the world ===========================================================================================
    def snowflake(self) -> int:
        """A fresh id that reads as 'now' (discord.py derives times and rate-limit buckets from ids)."""
        return ((int(time.time() * 1000) - DISCORD_EPOCH) << 22) + (next(self._ids) % (1 << 22))

    def add_guild(self, name: str = "卡五星俱乐部", *, locale: str = "zh-CN", guild_id: int | None = None) -> int:
        gid = guild_id or self.snowflake()
        self.guilds[gid] = {"id": str(gid), "name": name, "preferred_locale": locale, "removed": False}
        self.members.setdefault(gid, {})
        self._announce(gid, "GUILD_CREATE", lambda: self.guild_payload(gid))
        return gid

    def add_channel(self, guild_id: int, name: str = "mahjong", *, thread_of: int | None = None,
                    channel_id: int | None = None) -> int:
        cid = channel_id or self.snowflake()
        data: dict[str, Any] = {"id": str(cid), "type": 0, "name": name, "position": len(self.channels),
                                "guild_id": str(guild_id), "permission_overwrites": [], "nsfw": False,
                                "parent_id": None, "topic": None, "last_message_id": None, "rate_limit_per_user": 0}
        if thread_of is not None:
            data |= {"type": 11, "parent_id": str(thread_of), "owner_id": str(self.APP_ID),
                     "thread_metadata": {"archived": False, "auto_archive_duration": 1440, "locked": False,
                                         "archive_timestamp": now_iso()},
                     "message_count": 0, "member_count": 1}
        self.channels[cid] = data
        if self.guilds[guild_id].get("live"):
            self._announce(guild_id, "THREAD_CREATE" if thread_of else "CHANNEL_CREATE", lambda: data)
        return cid

    def add_user(self, name: str, *, dms_open: bool = True, locale: str = "zh-CN", guild_id: int | None = None,
                 manager: bool = False, user_id: int | None = None, bot: bool = False) -> int:
        uid = user_id or self.snowflake()
        self.users[uid] = {"id": str(uid), "username": name, "discriminator": "0", "global_name": name,
                           "avatar": None, "bot": bot, "public_flags": 0}
        self.user_locale[uid] = locale
        if not dms_open:
            self.closed_dms.add(uid)
        if guild_id is not None:
            self.members[guild_id][uid] = MEMBER_PERMISSIONS | (MANAGE_GUILD if manager else 0)
        return uid

    def delete_message(self, message_id: int) -> None:
        """Someone (a moderator) deleted this message: later edits answer 404 / 10008."""
        self.messages[message_id].deleted = True

    def delete_channel(self, channel_id: int) -> None:
        data = self.channels.pop(channel_id)
        self._announce(int(data["guild_id"]), "THREAD_DELETE" if data["type"] in THREAD_TYPES else "CHANNEL_DELETE",
                       lambda: data)

    def revoke(self, channel_id: int, permissions: int) -> None:
        """The bot loses these permissions in the channel (sends answer 403 / 50013 or 50001)."""
        self.bot_permissions[channel_id] = self.bot_permissions.get(channel_id, ALL_PERMISSIONS) & ~permissions

    def remove_bot(self, guild_id: int) -> None:
        """The bot is kicked from a server: GUILD_DELETE (without `unavailable`), its channels answer 403."""
        self.guilds[guild_id]["removed"] = True
        self._announce(guild_id, "GUILD_DELETE", lambda: {"id": str(guild_id)}, force=True)

    def guild_of(self, channel_id: int) -> int | None:
        ch = self.channels.get(channel_id)
        return int(ch["guild_id"]) if ch is not None else None

    # == what players see ====================================================================================
    def visible(self, user_id: int, channel_id: int | None = None) -> list[Message]:
        return [m for m in self.messages.values()
                if not m.deleted and (channel_id is None or m.channel_id == channel_id)
                and m.ephemeral_to in (None, user_id) and m.dm_to in (None, user_id)]

    def dms(self, user_id: int) -> list[Message]:
        return [m for m in self.messages.values() if m.dm_to == user_id and not m.deleted]

    def channel_messages(self, channel_id: int) -> list[Message]:
        """The public messages of a channel as they stand now, oldest first (no ephemerals, no deleted)."""
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

    def message_changed(self, message: Message | None = None, new: bool = False) -> None:
        if message is not None:
            owner = message.owner
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

    # == messages (the REST routes make them) ================================================================
    def new_message(self, channel_id: int, body: dict[str, Any] | None, files: list[tuple[str, bytes]], *,
                    interaction: Interaction | None = None) -> Message:
        """Store a message the bot sent: in a channel or DM, or in answer to an interaction."""
        payload: dict[str, Any] = {
            "id": str(self.snowflake()), "channel_id": str(channel_id), "author": self.bot_user, "content": "",
            "timestamp": now_iso(), "edited_timestamp": None, "tts": False, "mention_everyone": False,
            "mentions": [], "mention_roles": [], "attachments": [], "embeds": [], "pinned": False, "type": 0,
            "flags": 0, "components": [],
        }
        gid = self.guild_of(channel_id)
        if gid is not None:
            payload["guild_id"] = str(gid)
        ephemeral_to = dm_to = None
        if interaction is not None:
            payload |= {"type": 20 if interaction.type == 2 else 19 if interaction.type == 3 else 0,
                        "application_id": str(self.APP_ID), "webhook_id": str(self.APP_ID)}
            if int((body or {}).get("flags") or 0) & EPHEMERAL:
                ephemeral_to = interaction.user_id
            if interaction.guild_id is None:
                dm_to = interaction.user_id
        else:
            dm_to = self.dm_channels.get(channel_id)
        self.apply(payload, body, files)
        stored = self.message_type(payload, channel_id, ephemeral_to=ephemeral_to, dm_to=dm_to)
        self.messages[stored.id] = stored
        return stored

    def apply(self, payload: dict[str, Any], body: dict[str, Any] | None, files: list[tuple[str, bytes]]) -> None:
        """A message body's fields onto a stored message (a new one, or an edit)."""
        body = body or {}
        for key in ("content", "embeds", "components", "flags"):
            if key in body:
                value = body[key]
                payload[key] = value if value is not None else ("" if key == "content" else 0 if key == "flags" else [])
        if "attachments" in body or files:
            keep = {str(a.get("id")) for a in body.get("attachments") or []}
            kept = [a for a in payload.get("attachments", []) if a["id"] in keep]
            new = [{"id": str(self.snowflake()), "filename": name, "size": len(data),
                    "url": f"https://cdn.loopback/{name}", "proxy_url": f"https://cdn.loopback/{name}"}
                   for name, data in files]
            payload["attachments"] = kept + new

    def edit(self, message: Message, body: dict[str, Any] | None, files: list[tuple[str, bytes]]) -> None:
        self.apply(message.payload, body, files)
        message.payload["edited_timestamp"] = now_iso()
        message.edited = time.monotonic()
        self.message_changed(message, False)

    # == interactions (what a Discord client sends) ==========================================================
    def open_interaction(self, itype: int, user_id: int, channel_id: int, *, message_id: int | None = None,
                         member_permissions: int | None = None) -> dict[str, Any]:
        """Record a new interaction by this user in this channel; its INTERACTION_CREATE payload (no `data`)."""
        gid = self.guild_of(channel_id)
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
            perms = member_permissions if member_permissions is not None else \
                self.members.get(gid, {}).get(user_id, MEMBER_PERMISSIONS)
            payload["guild_id"] = str(gid)
            payload["guild_locale"] = self.guilds[gid]["preferred_locale"]
            payload["member"] = self.member_payload(user_id) | {"permissions": str(perms)}
            payload["channel"] = json_copy(self.channels[channel_id])
            payload["guild"] = {"id": str(gid), "locale": self.guilds[gid]["preferred_locale"], "features": []}
        else:
            payload["user"] = self.users[user_id]
            payload["channel"] = {"id": str(channel_id), "type": 1, "recipients": [self.users[user_id]]}
        self.interactions[payload["token"]] = Interaction(iid, payload["token"], itype, user_id, channel_id, gid,
                                                          message_id)
        return payload

    def interaction(self, token: str, *, webhook: bool) -> Interaction | None:
        """The interaction whose token this is, while the token works (3 s to answer, 15 min for the rest)."""
        rec = self.interactions.get(token)
        if rec is None or rec.expired:
            return None
        age = time.monotonic() - rec.created
        if webhook and age > FOLLOWUP_WINDOW:
            return None
        if not webhook and self.response_window is not None and age > self.response_window:
            return None
        return rec

    def slash(self, user_id: int, channel_id: int, command: str, **options: Any) -> Interaction:
        """`/kwx new base=2` from a client: an INTERACTION_CREATE for a synced command."""
        words = command.lstrip("/").split()
        gid = self.guild_of(channel_id)
        registered = self.commands.get(gid, []) + self.commands.get(None, [])
        cmd = next((c for c in registered if c["name"] == words[0] and int(c.get("type", 1)) == 1), None)
        if cmd is None:
            raise LookupError(f"no synced command /{words[0]}")
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if gid is not None and cmd in self.commands.get(gid, []):
            data["guild_id"] = str(gid)
        node, leaf = cmd, data
        for word in words[1:]:
            found = next((o for o in node.get("options") or [] if o["name"] == word and o["type"] in (1, 2)), None)
            if found is None:
                raise LookupError(f"no subcommand {word!r} in /{command}")
            node = found
            child: dict[str, Any] = {"name": word, "type": node["type"], "options": []}
            leaf.setdefault("options", []).append(child)
            leaf = child
        leaf.setdefault("options", [])
        for name, value in options.items():
            opt = next((o for o in node.get("options") or [] if o["name"] == name), None)
            if opt is None:
                raise LookupError(f"/{command} has no option {name!r}")
            leaf["options"].append({"name": name, "type": opt["type"], "value": value})
        payload = self.open_interaction(2, user_id, channel_id)
        payload["data"] = data
        self._announce(gid, "INTERACTION_CREATE", lambda: payload, force=True)
        return self.interactions[payload["token"]]

    def press(self, user_id: int, message_id: int, custom_id: str) -> Interaction:
        """A press of a button on a message the user sees (INTERACTION_CREATE, type 3)."""
        m = self.messages[message_id]
        payload = self.open_interaction(3, user_id, m.channel_id, message_id=message_id)
        payload["message"] = json_copy(m.payload)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        self._announce(self.guild_of(m.channel_id), "INTERACTION_CREATE", lambda: payload, force=True)
        return self.interactions[payload["token"]]

    def member_payload(self, uid: int) -> dict[str, Any]:
        user = self.bot_user if uid == self.APP_ID else self.users[uid]
        return {"user": user, "roles": [], "joined_at": "2024-01-01T00:00:00+00:00", "deaf": False, "mute": False,
                "flags": 0, "nick": None, "avatar": None}

    # == what the gateway announces ==========================================================================
    def guild_payload(self, gid: int) -> dict[str, Any]:
        g = self.guilds[gid]
        channels = [c for c in self.channels.values() if int(c["guild_id"]) == gid]
        return {
            "id": str(gid), "name": g["name"], "icon": None, "owner_id": str(self.snowflake()),
            "preferred_locale": g["preferred_locale"], "unavailable": False, "large": False,
            "joined_at": "2024-01-01T00:00:00+00:00", "member_count": len(self.members[gid]) + 1,
            "roles": [{"id": str(gid), "name": "@everyone", "permissions": str(MEMBER_PERMISSIONS), "position": 0,
                       "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
            "channels": [c for c in channels if c["type"] not in THREAD_TYPES],
            "threads": [c for c in channels if c["type"] in THREAD_TYPES],
            "members": [self.member_payload(self.APP_ID)], "voice_states": [], "presences": [], "emojis": [],
            "stickers": [], "features": [], "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
            "system_channel_flags": 0, "stage_instances": [], "guild_scheduled_events": [],
        }

    def _announce(self, gid: int | None, event: str, data: Callable[[], dict[str, Any]], *,
                  force: bool = False) -> None:
        if self.gateway is None or (gid is not None and self.guilds[gid].get("removed") and not force):
            return
        self.gateway(gid, event, data())
