"""A fake Discord for tests: real discord.py objects, with Discord's HTTP API replaced by an in-memory server.

dpytest cannot drive slash commands or buttons; this can. The fake sits *below* discord.py, at the two
chokepoints every API call goes through:

- `HTTPClient.request` (bot-token routes: channel sends, edits, deletes, DMs, app emojis, command sync);
- `AsyncWebhookAdapter.request` (interaction responses, the original response, followups).

So the code under test runs discord.py's real `Interaction`, `View`, `DynamicItem` and `CommandTree` code,
including its errors (a second `response.send_message` raises `InteractionResponded`, a followup before any
response is refused like Discord refuses it, an edit of a deleted message raises `NotFound`, a DM to a player
who closed DMs raises `Forbidden` 50007). Every outgoing message, edit, DM, deferral and refusal lands in
`FakeDiscord.log` as a `Sent` record.

Typical use::

    fake = await FakeDiscord.create(bot)           # bot: any discord.Client (commands.Bot has a tree)
    guild = fake.add_guild()
    channel = fake.add_text_channel(guild)
    alice = fake.add_member(guild, name="alice")
    bob = fake.add_member(guild, name="bob", dms_open=False)
    out = await fake.slash(alice, channel, "kwx join")                  # runs the real app command
    out = await fake.press(bob, out.records[0], label="碰")             # presses a button on that message
    assert fake.log.refused(user_id=bob.id)                              # bob's DM was refused
    await fake.close()

`make_world(client, closed_dms=("bob",))` builds that server, channel and members in one call.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import datetime as dt
import itertools
import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from kwx.devtools import limits

EPHEMERAL_FLAG = 64
DEFAULT_LOCALE = "zh-CN"
MEMBER_PERMISSIONS = discord.Permissions.general().value | discord.Permissions.text().value


# -- errors Discord would send back ------------------------------------------------------------------------
class _FakeResponse:
    """The two attributes `discord.HTTPException` reads from an aiohttp response."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


_REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error"}


def discord_error(status: int, code: int, message: str) -> discord.HTTPException:
    """The exception discord.py raises for an error answer: Forbidden for 403, NotFound for 404, ..."""
    cls: type[discord.HTTPException] = discord.HTTPException
    if status == 403:
        cls = discord.Forbidden
    elif status == 404:
        cls = discord.NotFound
    elif status >= 500:
        cls = discord.DiscordServerError
    return cls(_FakeResponse(status, _REASONS.get(status, "Error")), {"code": code, "message": message})


def off_spec_error(errors: dict[str, Any]) -> discord.HTTPException:
    """What Discord answers a payload over one of its limits: 400 / 50035 with the fields that are wrong."""
    return discord.HTTPException(_FakeResponse(400, "Bad Request"), limits.invalid_form_body(errors))


def dms_closed_error() -> discord.Forbidden:
    return discord_error(403, 50007, "Cannot send messages to this user")  # type: ignore[return-value]


def missing_permissions_error() -> discord.Forbidden:
    return discord_error(403, 50013, "Missing Permissions")  # type: ignore[return-value]


def unknown_message_error() -> discord.NotFound:
    return discord_error(404, 10008, "Unknown Message")  # type: ignore[return-value]


def unknown_interaction_error() -> discord.NotFound:
    return discord_error(404, 10062, "Unknown interaction")  # type: ignore[return-value]


def unknown_webhook_error() -> discord.NotFound:
    return discord_error(404, 10015, "Unknown Webhook")  # type: ignore[return-value]


# -- what was sent --------------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class SentFile:
    filename: str
    data: bytes


# Record kinds:
#   send      a bot message in a guild channel          dm        a bot message in a DM (user_id = recipient)
#   response  the first answer to an interaction        followup  a later interaction message
#   edit      a message edited (by http or interaction) delete    a message deleted
#   defer     an interaction deferred (thinking or not) modal     a modal opened
#   autocomplete  choices offered                       refused   Discord answered with an error (see `error`)
KINDS = frozenset(
    {
        "send",
        "dm",
        "response",
        "followup",
        "edit",
        "delete",
        "defer",
        "modal",
        "autocomplete",
        "refused",
    }
)


@dataclass
class Sent:
    kind: str
    channel_id: int | None = None
    user_id: int | None = None  # DM recipient, or the user whose interaction this answers
    message_id: int | None = None
    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    files: list[SentFile] = field(default_factory=list)
    ephemeral: bool = False
    thinking: bool = False  # a deferral that shows "… is thinking"
    interaction_id: int | None = None
    error: int | None = None  # Discord error code when kind == "refused"
    route: str = ""  # "POST /channels/{channel_id}/messages", for debugging
    raw: dict[str, Any] = field(default_factory=dict, repr=False)  # the JSON payload discord.py sent

    @property
    def buttons(self) -> list[Component]:
        return [c for c in self.components if c.type == "button"]

    @property
    def custom_ids(self) -> list[str]:
        return [c.custom_id for c in self.components if c.custom_id]

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> Component:
        """The button with this label (or custom id); AssertionError naming the buttons there are."""
        for c in self.buttons:
            if (label is not None and c.label == label) or (
                custom_id is not None and c.custom_id == custom_id
            ):
                return c
        raise AssertionError(
            f"no button {label or custom_id!r}; buttons: {[(b.label, b.custom_id) for b in self.buttons]}"
        )

    @property
    def text(self) -> str:
        """Content plus every embed's visible text, one piece a line: easy to assert on."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            parts += [p for p in (e.author.name, e.title, e.description) if p]
            for f in e.fields:
                parts += [f.name or "", f.value or ""]
            if e.footer.text:
                parts.append(e.footer.text)
        return "\n".join(parts)

    def visible_to(self, user_id: int) -> bool:
        if self.kind == "dm" or self.ephemeral:
            return self.user_id == user_id
        return True


class Recorder(list[Sent]):
    """Every Sent record, in order, with filters for the questions tests ask."""

    def of(
        self,
        kind: str | Iterable[str] | None = None,
        *,
        channel_id: int | None = None,
        user_id: int | None = None,
        ephemeral: bool | None = None,
        message_id: int | None = None,
    ) -> list[Sent]:
        kinds = {kind} if isinstance(kind, str) else set(kind) if kind is not None else None
        if kinds and not kinds <= KINDS:
            raise ValueError(f"unknown kinds {kinds - KINDS}")
        return [
            s
            for s in self
            if (kinds is None or s.kind in kinds)
            and (channel_id is None or s.channel_id == channel_id)
            and (user_id is None or s.user_id == user_id)
            and (ephemeral is None or s.ephemeral == ephemeral)
            and (message_id is None or s.message_id == message_id)
        ]

    def dms(self, user_id: int) -> list[Sent]:
        """DMs that reached this user (refused ones are under `refused`)."""
        return self.of("dm", user_id=user_id)

    def ephemerals(self, user_id: int) -> list[Sent]:
        """Messages only this user sees: ephemeral responses and followups."""
        return self.of(("response", "followup", "edit"), user_id=user_id, ephemeral=True)

    def public(self, channel_id: int) -> list[Sent]:
        """New messages everybody in the channel sees."""
        return self.of(("send", "response", "followup"), channel_id=channel_id, ephemeral=False)

    def refused(self, *, user_id: int | None = None, channel_id: int | None = None) -> list[Sent]:
        return self.of("refused", user_id=user_id, channel_id=channel_id)

    def last(self, kind: str | Iterable[str] | None = None, **filters: Any) -> Sent:
        found = self.of(kind, **filters)
        if not found:
            raise AssertionError(
                f"nothing recorded for kind={kind!r} {filters}; log: {[(s.kind, s.content) for s in self]}"
            )
        return found[-1]

    def mark(self) -> int:
        return len(self)

    def since(self, mark: int) -> list[Sent]:
        return list(self[mark:])


# -- message store ------------------------------------------------------------------------------------------
@dataclass
class StoredMessage:
    payload: dict[str, Any]  # the message as Discord would return it
    channel_id: int
    ephemeral_to: int | None = None  # user id for ephemeral messages
    dm_to: int | None = None  # user id for DM messages
    deleted: bool = False

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
    def embeds(self) -> list[discord.Embed]:
        return [discord.Embed.from_dict(e) for e in self.payload.get("embeds") or []]


def components_of(rows: list[dict[str, Any]]) -> list[Component]:
    """Flatten action rows (and components-v2 containers) into the buttons and selects they hold."""
    out: list[Component] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for c in items:
            ctype = c.get("type")
            if ctype == 2:
                emoji = c.get("emoji")
                emoji_text = None
                if emoji:
                    emoji_text = f"<:{emoji['name']}:{emoji['id']}>" if emoji.get("id") else emoji.get("name")
                out.append(
                    Component(
                        "button",
                        c.get("custom_id"),
                        c.get("label"),
                        bool(c.get("disabled")),
                        c.get("style"),
                        emoji_text,
                        c.get("url"),
                    )
                )
            elif ctype in (3, 5, 6, 7, 8):
                out.append(
                    Component(
                        "select",
                        c.get("custom_id"),
                        c.get("placeholder"),
                        bool(c.get("disabled")),
                        options=tuple(o["value"] for o in c.get("options") or []),
                    )
                )
            for key in ("components", "accessory"):
                child = c.get(key)
                if isinstance(child, list):
                    walk(child)
                elif isinstance(child, dict):
                    walk([child])

    walk(rows)
    return out


@dataclass
class _InteractionRecord:
    id: int
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    message_id: int | None  # the message a pressed component sits on
    response_type: int | None = None
    original_id: int | None = None  # the message @original refers to
    ephemeral: bool = False
    expired: bool = False
    deferred_placeholder: bool = False  # a thinking defer whose message the first followup fills


@dataclass
class Outcome:
    """What one slash command or button press caused."""

    interaction: discord.Interaction
    records: list[Sent]

    @property
    def text(self) -> str:
        return "\n".join(r.text for r in self.records if r.text)

    @property
    def answered(self) -> bool:
        """Whether the interaction got a response or deferral (else the player sees "interaction failed")."""
        return self.interaction.response.is_done()

    def first(self, kind: str | None = None) -> Sent:
        for r in self.records:
            if kind is None or r.kind == kind:
                return r
        raise AssertionError(f"no {kind or 'record'}; got {[(r.kind, r.content) for r in self.records]}")


# -- the fake -----------------------------------------------------------------------------------------------
class _FakeWebhookAdapter(AsyncWebhookAdapter):
    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__()
        self._fake = fake

    async def request(self, route: Route, session: Any = None, **kwargs: Any) -> Any:  # type: ignore
        return await self._fake._serve(
            route, kwargs.get("payload"), kwargs.get("multipart"), kwargs.get("files")
        )


_DISPATCH_TASK_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-dynamic-item",
    "discord.py: on_interaction",
)


class _ErrorCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.errors: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.errors.append(record.exc_info[1])


class FakeDiscord:
    APP_ID = 900_000_000_000_000_001
    BOT_ID = 900_000_000_000_000_001  # Discord bots' user id equals the application id

    def __init__(self, client: discord.Client | None = None, *, bot_name: str = "kwx") -> None:
        self.client = client or discord.Client(intents=discord.Intents.default())
        self.state = self.client._connection
        self.log = Recorder()
        self.messages: dict[int, StoredMessage] = {}
        self.emojis: dict[int, dict[str, Any]] = {}  # application emojis by id
        self.emoji_images: dict[int, bytes] = {}  # the uploaded image of each
        # the command payloads of each tree.sync(), by guild id (None = global)
        self.synced_commands: dict[int | None, list[dict[str, Any]]] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.user_locale: dict[int, str] = {}
        self.closed_dms: set[int] = set()
        self.forbidden_channels: set[int] = set()
        self.bot_permissions: dict[int, int] = {}  # channel -> the bot's permissions there (default: all)
        self.channel_guild: dict[int, int | None] = {}
        self.dm_channels: dict[int, int] = {}  # dm channel id -> user id
        self._interactions: dict[str, _InteractionRecord] = {}
        self._injected: list[tuple[str, str, discord.HTTPException, list[int]]] = []
        # Payloads refused for being over one of Discord's limits (kwx.devtools.limits), as "route: field: why".
        # A slash/press that caused one fails (raise_errors), and so does close() unless allow_off_spec is set.
        self.off_spec: list[str] = []
        self.allow_off_spec = False
        self._ids = itertools.count(1)
        self._bot_user = {
            "id": str(self.BOT_ID),
            "username": bot_name,
            "discriminator": "0",
            "global_name": bot_name,
            "avatar": None,
            "bot": True,
        }
        self.adapter = _FakeWebhookAdapter(self)
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = []
        self._install_routes()

    # -- life cycle ------------------------------------------------------------------------------------------
    @classmethod
    async def create(
        cls, client: discord.Client | None = None, *, run_setup_hook: bool = False
    ) -> FakeDiscord:
        fake = cls(client)
        await fake.start(run_setup_hook=run_setup_hook)
        return fake

    async def start(self, *, run_setup_hook: bool = False) -> None:
        """Do what `client.login` does, minus the network: loop, bot user, application id, then setup_hook."""
        if getattr(self.client, "loop", None) is not asyncio.get_running_loop():
            await self.client._async_setup_hook()
        self.client.http.request = self._http_request  # type: ignore[method-assign]
        self.state.user = discord.ClientUser(state=self.state, data=self._bot_user)  # type: ignore[arg-type]
        self.state.application_id = self.APP_ID
        self.use()
        if run_setup_hook:
            await self.client.setup_hook()

    def use(self) -> None:
        """Route interaction responses of the current context (and the tasks it starts) to this fake."""
        async_context.set(self.adapter)

    async def close(self) -> None:
        """Stop the views the code under test stored, so their timeout timers don't outlive the test; fail when
        the code sent a payload Discord would have refused (unless `allow_off_spec`)."""
        store = self.state._view_store
        views = {item.view for items in store._views.values() for item in items.values() if item.view}
        for view in views:
            view.stop()
        if self.off_spec and not self.allow_off_spec:
            raise AssertionError(f"payloads over Discord's limits were sent: {self.off_spec}")

    # -- building the world ----------------------------------------------------------------------------------
    def snowflake(self) -> int:
        """A fresh id that reads as 'now' (discord.py derives times and rate-limit buckets from ids)."""
        return discord.utils.time_snowflake(discord.utils.utcnow()) + next(self._ids)

    def add_guild(
        self, guild_id: int | None = None, name: str = "卡五星俱乐部", *, locale: str = DEFAULT_LOCALE
    ) -> discord.Guild:
        gid = guild_id or self.snowflake()
        data = {
            "id": str(gid),
            "name": name,
            "owner_id": str(self.BOT_ID),
            "preferred_locale": locale,
            "roles": [
                {
                    "id": str(gid),
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                }
            ],
            "channels": [],
            "members": [],
            "member_count": 1,
            "features": [],
            "emojis": [],
            "stickers": [],
        }
        guild = self.state._add_guild_from_data(data)  # type: ignore[arg-type]
        guild._add_member(
            discord.Member._from_client_user(user=self.state.user, guild=guild, state=self.state)
        )
        return guild

    def add_text_channel(
        self, guild: discord.Guild, channel_id: int | None = None, name: str = "mahjong"
    ) -> discord.TextChannel:
        cid = channel_id or self.snowflake()
        data = {
            "id": str(cid),
            "type": 0,
            "name": name,
            "position": len(guild.channels),
            "guild_id": str(guild.id),
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
        }
        channel = discord.TextChannel(state=self.state, guild=guild, data=data)  # type: ignore[arg-type]
        guild._add_channel(channel)
        self.channel_guild[cid] = guild.id
        return channel

    def add_user(
        self,
        user_id: int | None = None,
        name: str | None = None,
        *,
        dms_open: bool = True,
        locale: str = DEFAULT_LOCALE,
        bot: bool = False,
    ) -> discord.User:
        uid = user_id or self.snowflake()
        name = name or f"user{uid % 10_000}"
        self.users[uid] = {
            "id": str(uid),
            "username": name,
            "discriminator": "0",
            "global_name": name,
            "avatar": None,
            "bot": bot,
        }
        self.user_locale[uid] = locale
        if not dms_open:
            self.closed_dms.add(uid)
        self.state._users.pop(uid, None)
        return self.state.store_user(self.users[uid])  # type: ignore[arg-type]

    def add_member(
        self,
        guild: discord.Guild,
        user_id: int | None = None,
        name: str | None = None,
        *,
        dms_open: bool = True,
        locale: str = DEFAULT_LOCALE,
        bot: bool = False,
    ) -> discord.Member:
        user = self.add_user(user_id, name, dms_open=dms_open, locale=locale, bot=bot)
        data: Any = self._member_payload(user.id)
        member = discord.Member(data=data, guild=guild, state=self.state)
        guild._add_member(member)
        return member

    def forbid_channel(self, channel_id: int) -> None:
        """The bot lost Send Messages there: sends raise Forbidden 50013."""
        self.forbidden_channels.add(channel_id)

    def delete_message(self, message_id: int) -> None:
        """Someone (a moderator) deleted this message: later edits raise NotFound."""
        self.messages[message_id].deleted = True

    def inject(self, method: str, path: str, error: discord.HTTPException, *, times: int = 1) -> None:
        """Answer the next `times` requests to this route template (e.g. 'PATCH', '/channels/{channel_id}/
        messages/{message_id}') with `error` instead."""
        self._injected.append((method, path, error, [times]))

    def message(self, message_id: int | discord.abc.Snowflake | Sent) -> StoredMessage:
        mid = message_id.message_id if isinstance(message_id, Sent) else getattr(message_id, "id", message_id)
        return self.messages[int(mid)]  # type: ignore[arg-type]

    def channel_messages(self, channel_id: int) -> list[StoredMessage]:
        """The public messages of a channel as they stand now, oldest first (no ephemerals, no deleted)."""
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel_id and m.ephemeral_to is None and not m.deleted
        ]

    def expire(self, interaction: discord.Interaction) -> None:
        """Its token ran out (3 s to respond, 15 min for followups): later answers raise NotFound."""
        self._interactions[interaction.token].expired = True

    # -- interactions ----------------------------------------------------------------------------------------
    def slash_interaction(
        self, user: discord.abc.User, channel: discord.abc.Messageable, command: str, **options: Any
    ) -> discord.Interaction:
        """A real `discord.Interaction` for `/command sub ... option=value`, not yet dispatched."""
        return self._make_interaction(self._slash_payload(user, channel, command, options))

    def button_interaction(
        self,
        user: discord.abc.User,
        message: Any,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        check: bool = True,
    ) -> discord.Interaction:
        """A real `discord.Interaction` for a press of a button on a stored message, not yet dispatched.

        With check=True (default) the button must be on the message as it stands, enabled, and the message
        must be visible to the user, as in a real client. check=False sends a custom id that is not there any
        more (a press racing an edit)."""
        return self._make_interaction(self._button_payload(user, message, custom_id, label, check))

    async def slash(
        self,
        user: discord.abc.User,
        channel: discord.abc.Messageable,
        command: str,
        *,
        raise_errors: bool = True,
        timeout: float = 5.0,
        **options: Any,
    ) -> Outcome:
        """Run `/command` through the client's real CommandTree, wait for it, and return what it sent.

        An exception in the command is re-raised here (raise_errors): the test fails with its traceback."""
        return await self._dispatch(
            self._slash_payload(user, channel, command, options), raise_errors, timeout
        )

    async def press(
        self,
        user: discord.abc.User,
        message: Any,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        check: bool = True,
        raise_errors: bool = True,
        timeout: float = 5.0,
    ) -> Outcome:
        """Press a button through the client's real ViewStore (Views, DynamicItems); return what it sent."""
        return await self._dispatch(
            self._button_payload(user, message, custom_id, label, check), raise_errors, timeout
        )

    def _make_interaction(self, payload: dict[str, Any]) -> discord.Interaction:
        self.use()
        return discord.Interaction(data=payload, state=self.state)  # type: ignore[arg-type]

    async def _dispatch(self, payload: dict[str, Any], raise_errors: bool, timeout: float) -> Outcome:
        mark = self.log.mark()
        off_spec_mark = len(self.off_spec)
        catcher = _ErrorCatcher()
        discord_logger = logging.getLogger("discord")
        discord_logger.addHandler(catcher)
        before = asyncio.all_tasks()
        try:
            interaction = self._make_interaction(payload)
            # What ConnectionState.parse_interaction_create does with a gateway INTERACTION_CREATE.
            if payload["type"] == 2:
                if self.state._command_tree is None:
                    raise AssertionError(
                        "the client has no CommandTree; create app_commands.CommandTree(client)"
                    )
                self.state._command_tree._from_interaction(interaction)
            elif payload["type"] == 3:
                data = payload["data"]
                self.state._view_store.dispatch_view(data["component_type"], data["custom_id"], interaction)
            self.state.dispatch("interaction", interaction)
            tasks = [
                t for t in asyncio.all_tasks() - before if t.get_name().startswith(_DISPATCH_TASK_PREFIXES)
            ]
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=timeout)
                if pending:
                    for t in pending:
                        t.cancel()
                    raise AssertionError(f"interaction handler still running after {timeout}s: {pending}")
        finally:
            discord_logger.removeHandler(catcher)
        if raise_errors and catcher.errors:
            err = catcher.errors[0]
            raise getattr(err, "original", err)
        if raise_errors and len(self.off_spec) > off_spec_mark and not self.allow_off_spec:
            raise AssertionError(f"Discord would refuse what the bot sent: {self.off_spec[off_spec_mark:]}")
        return Outcome(interaction, self.log.since(mark))

    def _base_interaction_payload(self, itype: int, user: discord.abc.User, channel: Any) -> dict[str, Any]:
        uid = user.id
        if uid not in self.users:
            self.add_user(uid, getattr(user, "name", None))
        iid, token = self.snowflake(), f"token-{next(self._ids)}"
        cid = channel.id
        gid = self.channel_guild.get(cid)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.APP_ID),
            "type": itype,
            "token": token,
            "version": 1,
            "channel_id": str(cid),
            "locale": self.user_locale.get(uid, DEFAULT_LOCALE),
            "app_permissions": str(self.bot_permissions.get(cid, discord.Permissions.all().value)),
            "attachment_size_limit": 8 * 1024 * 1024,
            "entitlements": [],
            "context": 0 if gid else 1,
            "authorizing_integration_owners": {"0": str(gid)} if gid else {"1": str(uid)},
        }
        if gid:
            guild = self.state._get_guild(gid)
            payload |= {
                "guild_id": str(gid),
                "member": self._member_payload(uid) | {"permissions": str(MEMBER_PERMISSIONS)},
            }
            payload["channel"] = {
                "id": str(cid),
                "type": 0,
                "name": getattr(channel, "name", "channel"),
                "guild_id": str(gid),
            }
            payload["guild_locale"] = str(guild.preferred_locale) if guild else DEFAULT_LOCALE
        else:
            payload["user"] = self.users[uid]
            payload["channel"] = {"id": str(cid), "type": 1, "recipients": [self.users[uid]]}
        self._interactions[token] = _InteractionRecord(iid, itype, uid, cid, gid, None)
        return payload

    def _slash_payload(
        self, user: discord.abc.User, channel: Any, command: str, options: dict[str, Any]
    ) -> dict[str, Any]:
        payload = self._base_interaction_payload(2, user, channel)
        words = command.lstrip("/").split()
        tree = self.state._command_tree
        gid = self.channel_guild.get(channel.id)
        cmd: Any = None
        data: dict[str, Any] = {"id": str(self.snowflake()), "name": words[0], "type": 1}
        if tree is not None:
            if gid is not None:
                cmd = tree.get_command(words[0], guild=discord.Object(gid))
                if cmd is not None:
                    data["guild_id"] = str(gid)
            cmd = cmd or tree.get_command(words[0])
            if cmd is None:
                raise AssertionError(f"no app command named {words[0]!r} in the tree")
        resolved: dict[str, dict[str, Any]] = {}
        leaf = data
        for word in words[1:]:
            if cmd is not None:
                cmd = cmd.get_command(word)
                if cmd is None:
                    raise AssertionError(f"no subcommand {word!r} in /{command}")
            node = {"name": word, "type": 2 if isinstance(cmd, app_commands.Group) else 1, "options": []}
            leaf.setdefault("options", []).append(node)
            leaf = node
        leaf.setdefault("options", [])
        for py_name, value in options.items():
            leaf["options"].append(self._option(cmd, py_name, value, resolved, gid))
        if resolved:
            data["resolved"] = resolved
        payload["data"] = data
        return payload

    def _option(
        self, cmd: Any, py_name: str, value: Any, resolved: dict[str, dict[str, Any]], gid: int | None
    ) -> dict[str, Any]:
        name, otype = py_name, None
        if cmd is not None and hasattr(cmd, "_params"):
            param = cmd._params.get(py_name)
            if param is None:
                raise AssertionError(f"/{cmd.qualified_name} has no parameter {py_name!r}")
            name, otype = param.display_name, param.type.value
        if otype is None:
            otype = (
                5
                if isinstance(value, bool)
                else 4
                if isinstance(value, int)
                else 10
                if isinstance(value, float)
                else 6
                if isinstance(value, discord.abc.User)
                else 3
            )
        if isinstance(value, discord.abc.User):
            uid = value.id
            if uid not in self.users:
                self.add_user(uid, value.name)
            resolved.setdefault("users", {})[str(uid)] = self.users[uid]
            if gid is not None:
                resolved.setdefault("members", {})[str(uid)] = {
                    k: v for k, v in self._member_payload(uid).items() if k != "user"
                } | {"permissions": "0"}
            value = str(uid)
        return {"name": name, "type": otype, "value": value}

    def _button_payload(
        self, user: discord.abc.User, message: Any, custom_id: str | None, label: str | None, check: bool
    ) -> dict[str, Any]:
        stored = self.message(message)
        if custom_id is None:
            if label is None:
                raise ValueError("give a custom_id or a label")
            found = [c for c in stored.components if c.type == "button" and c.label == label]
            if not found:
                raise AssertionError(
                    f"no button labelled {label!r}; buttons: {[c.label for c in stored.components]}"
                )
            custom_id = found[0].custom_id
        if check:
            if stored.deleted:
                raise AssertionError("that message was deleted")
            if stored.ephemeral_to not in (None, user.id) or stored.dm_to not in (None, user.id):
                raise AssertionError(f"user {user.id} cannot see message {stored.id}")
            match = [c for c in stored.components if c.custom_id == custom_id]
            if not match:
                there = [c.custom_id for c in stored.components]
                raise AssertionError(f"no component {custom_id!r} on the message; there are {there}")
            if match[0].disabled:
                raise AssertionError(f"button {custom_id!r} is disabled")
        payload = self._base_interaction_payload(3, user, self._channel_stub(stored))
        payload["message"] = copy.deepcopy(stored.payload)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        self._interactions[payload["token"]].message_id = stored.id
        return payload

    def _channel_stub(self, stored: StoredMessage) -> Any:
        channel = self.client.get_channel(stored.channel_id)
        return channel or discord.Object(stored.channel_id)

    # -- payload helpers -------------------------------------------------------------------------------------
    def _member_payload(self, uid: int) -> dict[str, Any]:
        return {
            "user": self.users[uid],
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "avatar": None,
        }

    def _message_payload(
        self,
        mid: int,
        channel_id: int,
        body: dict[str, Any],
        files: list[SentFile],
        interaction: _InteractionRecord | None = None,
    ) -> dict[str, Any]:
        now = dt.datetime.now(dt.UTC).isoformat()
        payload: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "author": self._bot_user,
            "content": "",
            "timestamp": now,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
        }
        gid = self.channel_guild.get(channel_id)
        if gid:
            payload["guild_id"] = str(gid)
        if interaction is not None:
            payload["type"] = 20 if interaction.type == 2 else 0
            payload["application_id"] = str(self.APP_ID)
            payload["webhook_id"] = str(self.APP_ID)
        self._apply_body(payload, body, files)
        return payload

    def _apply_body(self, payload: dict[str, Any], body: dict[str, Any], files: list[SentFile]) -> None:
        for key in ("content", "embeds", "components", "flags"):
            if key in body:
                payload[key] = body[key] if body[key] is not None else ([] if key != "content" else "")
        if "attachments" in body or files:
            keep_ids = {str(a.get("id")) for a in body.get("attachments") or []}
            kept = [a for a in payload.get("attachments", []) if a["id"] in keep_ids]
            new = [
                {
                    "id": str(self.snowflake()),
                    "filename": f.filename,
                    "size": len(f.data),
                    "url": f"https://cdn.fake/{f.filename}",
                    "proxy_url": f"https://cdn.fake/{f.filename}",
                }
                for f in files
            ]
            payload["attachments"] = kept + new

    def _record(
        self,
        kind: str,
        *,
        body: dict[str, Any] | None = None,
        stored: StoredMessage | None = None,
        files: list[SentFile] | None = None,
        route: str = "",
        **fields: Any,
    ) -> Sent:
        body = body or {}
        src = stored.payload if stored is not None else body
        if stored is not None:  # a message only its addressee sees
            fields.setdefault("ephemeral", stored.ephemeral_to is not None)
        rec = Sent(
            kind=kind,
            content=src.get("content") or None,
            embeds=[discord.Embed.from_dict(e) for e in src.get("embeds") or []],
            components=components_of(src.get("components") or []),
            files=list(files or []),
            route=route,
            raw=copy.deepcopy(body),
            **fields,
        )
        if stored is not None:
            rec.message_id = stored.id
            rec.channel_id = rec.channel_id or stored.channel_id
        self.log.append(rec)
        return rec

    @staticmethod
    def _read_files(files: Any) -> list[SentFile]:
        out = []
        for f in files or []:
            f.reset(seek=True)
            out.append(SentFile(f.filename, f.fp.read()))
            f.reset(seek=True)
        return out

    @staticmethod
    def _body(payload: dict[str, Any] | None, multipart: list[dict[str, Any]] | None) -> dict[str, Any]:
        if payload is not None:
            return payload
        for part in multipart or []:
            if part.get("name") == "payload_json":
                return json.loads(part["value"])
        return {}

    # -- the server ------------------------------------------------------------------------------------------
    async def _http_request(self, route: Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        body = kwargs.get("json")
        if body is None and form:
            body = self._body(None, list(form))
        return await self._serve(route, body, None, files)

    async def _serve(self, route: Route, payload: Any, multipart: Any, files: Any) -> Any:
        await asyncio.sleep(0)  # a real request yields to the loop; keep the same interleavings
        body = self._body(payload, multipart)
        for i, (method, path, error, left) in enumerate(self._injected):
            if method == route.method and path == route.path:
                left[0] -= 1
                if left[0] <= 0:
                    del self._injected[i]
                raise error
        self._check_limits(route, body, files)
        for method, pattern, handler in self._routes:
            if method == route.method:
                m = pattern.fullmatch(route.url.split("?")[0].removeprefix(Route.BASE))
                if m:
                    params = {k: v for k, v in m.groupdict().items()}
                    return handler(
                        route=f"{route.method} {route.path}",
                        body=body,
                        files=self._read_files(files),
                        **params,
                    )
        raise NotImplementedError(f"FakeDiscord does not answer {route.method} {route.path} yet; add a route")

    def _check_limits(self, route: Route, body: Any, files: Any) -> None:
        """Discord's payload limits, the same checks as the loopback Discord's (kwx.devtools.limits)."""
        sizes = [len(f.data) for f in self._read_files(files)]
        where = f"{route.method} {route.path}"
        if route.path.endswith("/callback"):
            errors = limits.interaction_response_errors(body, file_sizes=sizes)
        elif route.path.endswith("/commands") and route.method == "PUT":
            errors = limits.commands_errors(body)
        elif route.method in ("POST", "PATCH") and (
            route.path.startswith("/channels/{channel_id}/messages") or route.path.startswith("/webhooks/")
        ):
            errors = limits.message_errors(body, file_sizes=sizes)
        else:
            return
        if limits.upload_errors(sizes):
            raise self._refuse(discord_error(413, limits.ENTITY_TOO_LARGE, "Request entity too large"), where)
        if errors:
            self.off_spec.append(f"{where}: {'; '.join(limits.flatten(errors))}")
            raise self._refuse(off_spec_error(errors), where)

    def _install_routes(self) -> None:
        def add(method: str, template: str, handler: Callable[..., Any]) -> None:
            regex = re.sub(
                r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(template).replace(r"\{", "{").replace(r"\}", "}")
            )
            self._routes.append((method, re.compile(regex), handler))

        add("POST", "/users/@me/channels", self._open_dm)
        add("POST", "/channels/{channel_id}/messages", self._send)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        add("POST", "/channels/{channel_id}/typing", lambda **_: None)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/applications/{application_id}/emojis", self._list_emojis)
        add("POST", "/applications/{application_id}/emojis", self._create_emoji)
        add("DELETE", "/applications/{application_id}/emojis/{emoji_id}", self._delete_emoji)
        add("GET", "/applications/{application_id}/commands", lambda **_: self._synced_payload(None))
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands",
            lambda guild_id, **_: self._synced_payload(int(guild_id)))
        add("PUT", "/applications/{application_id}/commands", self._sync_commands)
        add("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._sync_commands)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self._callback)
        add("GET", "/webhooks/{application_id}/{token}/messages/@original", self._get_original)
        add("PATCH", "/webhooks/{application_id}/{token}/messages/@original", self._edit_original)
        add("DELETE", "/webhooks/{application_id}/{token}/messages/@original", self._delete_original)
        add("POST", "/webhooks/{application_id}/{token}", self._followup)
        add("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self._edit_followup)
        add("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self._delete_followup)

    def _refuse(self, error: discord.HTTPException, route: str, **fields: Any) -> discord.HTTPException:
        self.log.append(Sent("refused", error=error.code, route=route, **fields))
        return error

    # bot-token routes
    def _open_dm(self, *, body: dict[str, Any], route: str, **_: Any) -> dict[str, Any]:
        uid = int(body["recipient_id"])
        if uid not in self.users:
            raise discord_error(400, 50033, "Invalid Recipient(s)")
        cid = next((c for c, u in self.dm_channels.items() if u == uid), None) or self.snowflake()
        self.dm_channels[cid] = uid
        self.channel_guild[cid] = None
        return {"id": str(cid), "type": 1, "recipients": [self.users[uid]], "last_message_id": None}

    def _send(
        self, *, channel_id: str, body: dict[str, Any], files: list[SentFile], route: str
    ) -> dict[str, Any]:
        cid = int(channel_id)
        dm_user = self.dm_channels.get(cid)
        if dm_user is not None and dm_user in self.closed_dms:
            raise self._refuse(
                dms_closed_error(), route, channel_id=cid, user_id=dm_user, content=body.get("content")
            )
        if cid in self.forbidden_channels:
            raise self._refuse(
                missing_permissions_error(), route, channel_id=cid, content=body.get("content")
            )
        if cid not in self.channel_guild:
            raise self._refuse(discord_error(404, 10003, "Unknown Channel"), route, channel_id=cid)
        payload = self._message_payload(self.snowflake(), cid, body, files)
        stored = StoredMessage(payload, cid, dm_to=dm_user)
        self.messages[stored.id] = stored
        self._record(
            "dm" if dm_user is not None else "send",
            body=body,
            stored=stored,
            files=files,
            route=route,
            user_id=dm_user,
        )
        return copy.deepcopy(payload)

    def _live(self, message_id: str | int, route: str, channel_id: int | None = None) -> StoredMessage:
        stored = self.messages.get(int(message_id))
        if stored is None or stored.deleted:
            raise self._refuse(
                unknown_message_error(), route, channel_id=channel_id, message_id=int(message_id)
            )
        return stored

    def _edit(
        self, *, channel_id: str, message_id: str, body: dict[str, Any], files: list[SentFile], route: str
    ) -> dict[str, Any]:
        stored = self._live(message_id, route, int(channel_id))
        return self._apply_edit(stored, body, files, route)

    def _apply_edit(
        self, stored: StoredMessage, body: dict[str, Any], files: list[SentFile], route: str, **fields: Any
    ) -> dict[str, Any]:
        self._apply_body(stored.payload, body, files)
        stored.payload["edited_timestamp"] = dt.datetime.now(dt.UTC).isoformat()
        fields.setdefault("user_id", stored.ephemeral_to or stored.dm_to)
        self._record(
            "edit",
            body=body,
            stored=stored,
            files=files,
            route=route,
            **fields,
        )
        return copy.deepcopy(stored.payload)

    def _mark_deleted(self, stored: StoredMessage, route: str) -> None:
        stored.deleted = True
        self.log.append(Sent("delete", channel_id=stored.channel_id, message_id=stored.id, route=route))

    def _delete(self, *, channel_id: str, message_id: str, route: str, **_: Any) -> None:
        stored = self._live(message_id, route, int(channel_id))
        self._mark_deleted(stored, route)

    def _get_message(self, *, channel_id: str, message_id: str, route: str, **_: Any) -> dict[str, Any]:
        return copy.deepcopy(self._live(message_id, route, int(channel_id)).payload)

    def _get_user(self, *, user_id: str, route: str, **_: Any) -> dict[str, Any]:
        if int(user_id) not in self.users:
            raise discord_error(404, 10013, "Unknown User")
        return self.users[int(user_id)]

    def _list_emojis(self, **_: Any) -> dict[str, Any]:
        return {"items": list(self.emojis.values())}

    def _create_emoji(self, *, body: dict[str, Any], route: str, **_: Any) -> dict[str, Any]:
        name = body["name"]
        if not re.fullmatch(r"\w{2,32}", name):
            raise discord_error(400, 50035, f"Invalid Form Body: name {name!r}")
        if any(e["name"] == name for e in self.emojis.values()):
            raise discord_error(400, 50035, "Invalid Form Body: APPLICATION_EMOJI_NAME_ALREADY_TAKEN")
        image = body["image"]
        if not image.startswith("data:image/") or len(image) * 3 // 4 > 256 * 1024 + 200:
            raise discord_error(400, 50045, "File cannot be larger than 256.0 kb")
        eid = self.snowflake()
        self.emoji_images[eid] = base64.b64decode(image.split(",", 1)[1])
        self.emojis[eid] = {
            "id": str(eid),
            "name": name,
            "roles": [],
            "require_colons": True,
            "managed": False,
            "animated": False,
            "available": True,
            "user": self._bot_user,
        }
        return self.emojis[eid]

    def _delete_emoji(self, *, emoji_id: str, **_: Any) -> None:
        if self.emojis.pop(int(emoji_id), None) is None:
            raise discord_error(404, 10014, "Unknown Emoji")

    def _synced_payload(self, guild_id: int | None) -> list[dict[str, Any]]:
        return self._command_objects(self.synced_commands.get(guild_id) or [])

    def _sync_commands(self, *, body: Any, guild_id: str | None = None, **_: Any) -> list[dict[str, Any]]:
        out = self._command_objects(body)
        self.synced_commands[int(guild_id) if guild_id else None] = body
        return out

    def _command_objects(self, body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for cmd in body:
            out.append(
                {
                    "id": str(self.snowflake()),
                    "application_id": str(self.APP_ID),
                    "version": "1",
                    "default_member_permissions": None,
                    "dm_permission": True,
                    "nsfw": False,
                    "description": "",
                    "options": [],
                }
                | cmd
            )
        return out

    # interaction routes
    def _interaction(self, token: str, route: str) -> _InteractionRecord:
        rec = self._interactions.get(token)
        if rec is None or rec.expired:
            webhook = route.startswith(
                ("GET /webhooks", "PATCH /webhooks", "DELETE /webhooks", "POST /webhooks")
            )
            raise self._refuse(
                unknown_webhook_error() if webhook else unknown_interaction_error(),
                route,
                user_id=rec.user_id if rec else None,
            )
        return rec

    def _callback(
        self, *, interaction_id: str, token: str, body: dict[str, Any], files: list[SentFile], route: str
    ) -> dict[str, Any]:
        inter = self._interaction(token, route)
        if inter.response_type is not None:
            raise self._refuse(
                discord_error(400, 40060, "Interaction has already been acknowledged."),
                route,
                user_id=inter.user_id,
            )
        rtype = body["type"]
        data = body.get("data") or {}
        inter.response_type = rtype
        inter.ephemeral = bool((data.get("flags") or 0) & EPHEMERAL_FLAG)
        resource: dict[str, Any] = {"type": rtype}
        common = {"user_id": inter.user_id, "channel_id": inter.channel_id, "interaction_id": inter.id}
        if rtype == 4:  # channel message
            stored = self._new_interaction_message(inter, data, files)
            self._record(
                "response",
                body=data,
                stored=stored,
                files=files,
                route=route,
                ephemeral=inter.ephemeral,
                **common,
            )
            resource["message"] = copy.deepcopy(stored.payload)
        elif rtype == 5:  # deferred channel message: "… is thinking"
            stored = self._new_interaction_message(inter, {"flags": data.get("flags", 0) | 128}, [])
            inter.deferred_placeholder = True
            self.log.append(
                Sent(
                    "defer",
                    ephemeral=inter.ephemeral,
                    thinking=True,
                    message_id=stored.id,
                    route=route,
                    **common,
                )
            )
            resource["message"] = copy.deepcopy(stored.payload)
        elif rtype == 6:  # deferred update of the component's message
            inter.original_id = inter.message_id
            self.log.append(Sent("defer", message_id=inter.message_id, route=route, **common))
        elif rtype == 7:  # update the component's message
            inter.original_id = inter.message_id
            stored = self._live(inter.message_id or 0, route, inter.channel_id)
            self._apply_edit(stored, data, files, route, interaction_id=inter.id)
            resource["message"] = copy.deepcopy(stored.payload)
        elif rtype == 8:
            self.log.append(Sent("autocomplete", raw=data, route=route, **common))
        elif rtype == 9:
            self.log.append(Sent("modal", content=data.get("title"), raw=data, route=route, **common))
        return {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_id": str(inter.original_id) if inter.original_id else None,
                "response_message_loading": rtype == 5,
                "response_message_ephemeral": inter.ephemeral,
            },
            "resource": resource,
        }

    def _new_interaction_message(
        self, inter: _InteractionRecord, data: dict[str, Any], files: list[SentFile], *, original: bool = True
    ) -> StoredMessage:
        """A message sent in answer to an interaction: the response (original) or a followup."""
        payload = self._message_payload(self.snowflake(), inter.channel_id, data, files, inter)
        ephemeral = bool((data.get("flags") or 0) & EPHEMERAL_FLAG)
        stored = StoredMessage(payload, inter.channel_id, ephemeral_to=inter.user_id if ephemeral else None)
        self.messages[stored.id] = stored
        if original:
            inter.original_id = stored.id
        return stored

    def _original(self, token: str, route: str) -> tuple[_InteractionRecord, StoredMessage]:
        inter = self._interaction(token, route)
        if inter.original_id is None:
            raise self._refuse(unknown_message_error(), route, user_id=inter.user_id)
        return inter, self._live(inter.original_id, route, inter.channel_id)

    def _get_original(self, *, token: str, route: str, **_: Any) -> dict[str, Any]:
        return copy.deepcopy(self._original(token, route)[1].payload)

    def _edit_original(
        self, *, token: str, body: dict[str, Any], files: list[SentFile], route: str, **_: Any
    ) -> dict[str, Any]:
        inter, stored = self._original(token, route)
        if inter.deferred_placeholder:  # editing the thinking message turns it into the answer
            inter.deferred_placeholder = False
            stored.payload["flags"] = stored.payload.get("flags", 0) & ~128
        return self._apply_edit(stored, body, files, route, interaction_id=inter.id)

    def _delete_original(self, *, token: str, route: str, **_: Any) -> None:
        _, stored = self._original(token, route)
        self._mark_deleted(stored, route)

    def _followup(
        self, *, token: str, body: dict[str, Any], files: list[SentFile], route: str, **_: Any
    ) -> dict[str, Any]:
        inter = self._interaction(token, route)
        if inter.response_type is None:  # Discord knows no webhook for an unanswered interaction
            raise self._refuse(unknown_webhook_error(), route, user_id=inter.user_id)
        common = {"user_id": inter.user_id, "channel_id": inter.channel_id, "interaction_id": inter.id}
        if inter.deferred_placeholder:  # the first followup after a thinking defer fills that message
            inter.deferred_placeholder = False
            stored = self.messages[inter.original_id or 0]
            flags = stored.payload.get("flags", 0) & ~128
            self._apply_body(stored.payload, body, files)
            stored.payload["flags"] = flags  # ephemeral was decided when deferring
        else:
            stored = self._new_interaction_message(inter, body, files, original=False)
        self._record(
            "followup",
            body=body,
            stored=stored,
            files=files,
            route=route,
            **common,
        )
        return copy.deepcopy(stored.payload)

    def _edit_followup(
        self,
        *,
        token: str,
        message_id: str,
        body: dict[str, Any],
        files: list[SentFile],
        route: str,
        **_: Any,
    ) -> dict[str, Any]:
        inter = self._interaction(token, route)
        return self._apply_edit(
            self._live(message_id, route, inter.channel_id), body, files, route, interaction_id=inter.id
        )

    def _delete_followup(self, *, token: str, message_id: str, route: str, **_: Any) -> None:
        inter = self._interaction(token, route)
        stored = self._live(message_id, route, inter.channel_id)
        self._mark_deleted(stored, route)


@dataclass
class World:
    """A server with one table channel and its members (those named in `closed_dms` refuse DMs)."""

    fake: FakeDiscord
    guild: discord.Guild
    channel: discord.TextChannel
    members: list[discord.Member]


async def make_world(
    client: discord.Client | None = None,
    *,
    names: Iterable[str] = ("alice", "bob", "carol"),
    closed_dms: Iterable[str] = (),
    locale: str = DEFAULT_LOCALE,
    run_setup_hook: bool = False,
) -> World:
    fake = await FakeDiscord.create(client, run_setup_hook=run_setup_hook)
    guild = fake.add_guild(locale=locale)
    channel = fake.add_text_channel(guild)
    closed = set(closed_dms)
    members = [fake.add_member(guild, name=n, dms_open=n not in closed, locale=locale) for n in names]
    return World(fake, guild, channel, members)
