"""A Discord for the unit tests: real discord.py objects talking to the loopback Discord in the same process.

dpytest cannot drive slash commands or buttons; this can. It is the loopback Discord of kwx.devtools.loopback
(its model, its REST routes, Discord's OpenAPI description checking every body) reached without sockets: the
aiohttp session discord.py sends every REST call through, interactions included, is replaced by the loopback's
in-process transport (kwx.devtools.loopback.inprocess). So the code under test runs discord.py's real
`Interaction`, `View`, `DynamicItem`, `CommandTree` and HTTP code, including its errors (a second
`response.send_message` raises `InteractionResponded`, a followup before any response is refused like Discord
refuses it, an edit of a deleted message raises `NotFound`, a DM to a player who closed DMs raises `Forbidden`
50007, a body Discord's description refuses raises 400 / 50035). What the bot sent lands in `FakeDiscord.log`
as `Sent` records; the messages as they stand are in `FakeDiscord.messages`.

Interactions reach the bot as the gateway would hand them over: this driver builds the INTERACTION_CREATE
payload from the client's command tree (no sync needed) or from a stored message's buttons, and dispatches it.

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
import copy
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import discord
from discord import app_commands

from kwx.devtools.loopback.calls import Exchange
from kwx.devtools.loopback.inprocess import InProcessSession, install
from kwx.devtools.loopback.model import SEND_MESSAGES, Component, DiscordModel, Message, components_of
from kwx.devtools.loopback.rest import Fault, RestApi

EPHEMERAL_FLAG = 64
DEFAULT_LOCALE = "zh-CN"
MEMBER_PERMISSIONS = discord.Permissions.general().value | discord.Permissions.text().value

__all__ = ["Component", "FakeDiscord", "Outcome", "Recorder", "Sent", "SentFile", "StoredMessage", "World",
           "components_of", "discord_error", "make_world", "off_spec_error"]


# -- errors Discord sends back (to inject) -----------------------------------------------------------------
class _ErrorResponse:
    """The two attributes `discord.HTTPException` reads from an aiohttp response."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


_REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error"}


def discord_error(status: int, code: int, message: str, body: dict[str, Any] | None = None) -> discord.HTTPException:
    """The exception discord.py raises for an error answer (Forbidden for 403, NotFound for 404, ...). Given to
    `FakeDiscord.inject`, the loopback answers the request with this status and JSON."""
    body = body or {"code": code, "message": message}
    cls: type[discord.HTTPException] = discord.HTTPException
    if status == 403:
        cls = discord.Forbidden
    elif status == 404:
        cls = discord.NotFound
    elif status >= 500:
        cls = discord.DiscordServerError
    error = cls(_ErrorResponse(status, _REASONS.get(status, "Error")), body)
    error.__dict__["loopback_body"] = body  # what inject() answers with
    return error


def off_spec_error(errors: dict[str, Any]) -> discord.HTTPException:
    """What Discord answers a body it refuses: 400 / 50035 with the fields that are wrong."""
    return discord_error(400, 50035, "Invalid Form Body",
                         {"code": 50035, "message": "Invalid Form Body", "errors": errors})


# -- what was sent --------------------------------------------------------------------------------------
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
KINDS = frozenset({"send", "dm", "response", "followup", "edit", "delete", "defer", "modal", "autocomplete",
                   "refused"})


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
            if (label is not None and c.label == label) or (custom_id is not None and c.custom_id == custom_id):
                return c
        raise AssertionError(
            f"no button {label or custom_id!r}; buttons: {[(b.label, b.custom_id) for b in self.buttons]}")

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

    def of(self, kind: str | Iterable[str] | None = None, *, channel_id: int | None = None,
           user_id: int | None = None, ephemeral: bool | None = None, message_id: int | None = None) -> list[Sent]:
        kinds = {kind} if isinstance(kind, str) else set(kind) if kind is not None else None
        if kinds and not kinds <= KINDS:
            raise ValueError(f"unknown kinds {kinds - KINDS}")
        return [s for s in self
                if (kinds is None or s.kind in kinds)
                and (channel_id is None or s.channel_id == channel_id)
                and (user_id is None or s.user_id == user_id)
                and (ephemeral is None or s.ephemeral == ephemeral)
                and (message_id is None or s.message_id == message_id)]

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
                f"nothing recorded for kind={kind!r} {filters}; log: {[(s.kind, s.content) for s in self]}")
        return found[-1]

    def mark(self) -> int:
        return len(self)

    def since(self, mark: int) -> list[Sent]:
        return list(self[mark:])

    # -- from the loopback's exchanges ---------------------------------------------------------------------
    def exchange(self, ex: Exchange, model: DiscordModel) -> None:
        """Record what one request to the loopback did (a fault injected by a test is not recorded)."""
        answer, op = ex.answer, ex.operation
        if answer is None or op is None or ex.fault or ex.request.method == "GET":
            return
        if answer.status >= 400:
            self.append(_refusal(ex, model))
            return
        record = _RECORDS.get(op.id)
        if record is not None:
            found = record(ex)
            if found is not None:
                self.append(found)


def _from_message(kind: str, ex: Exchange, **fields: Any) -> Sent:
    """A record of a message the request created or edited, as it stands after it."""
    stored = ex.message
    assert stored is not None
    payload = stored.payload
    fields.setdefault("ephemeral", stored.ephemeral_to is not None)
    fields.setdefault("channel_id", stored.channel_id)
    fields.setdefault("raw", copy.deepcopy(ex.request.body or {}))
    return Sent(kind, message_id=stored.id, content=payload.get("content") or None,
                embeds=[discord.Embed.from_dict(e) for e in payload.get("embeds") or []],
                components=components_of(payload.get("components") or []),
                files=[SentFile(n, d) for n, d in ex.request.files], route=ex.route, **fields)


def _answering(ex: Exchange) -> dict[str, Any]:
    inter = ex.interaction
    assert inter is not None
    return {"user_id": inter.user_id, "channel_id": inter.channel_id, "interaction_id": inter.id}


def _sent(ex: Exchange) -> Sent:
    assert ex.message is not None
    dm_to = ex.message.dm_to
    return _from_message("dm" if dm_to is not None else "send", ex, user_id=dm_to)


def _edited(ex: Exchange) -> Sent:
    assert ex.message is not None
    interaction = {"interaction_id": ex.interaction.id} if ex.interaction is not None else {}
    return _from_message("edit", ex, user_id=ex.message.owner, **interaction)


def _deleted(ex: Exchange) -> Sent:
    assert ex.message is not None
    return Sent("delete", channel_id=ex.message.channel_id, message_id=ex.message.id, route=ex.route)


def _answered(ex: Exchange) -> Sent | None:
    inter, body = ex.interaction, ex.request.body or {}
    assert inter is not None
    data = body.get("data") or {}
    common = _answering(ex)
    rtype = inter.response_type
    if rtype == 4:
        return _from_message("response", ex, ephemeral=inter.ephemeral, raw=copy.deepcopy(data), **common)
    if rtype == 5:
        assert ex.message is not None
        return Sent("defer", ephemeral=inter.ephemeral, thinking=True, message_id=ex.message.id, route=ex.route,
                    **common)
    if rtype == 6:
        return Sent("defer", message_id=inter.message_id, route=ex.route, **common)
    if rtype == 7:
        return _from_message("edit", ex, user_id=ex.message.owner if ex.message else None,
                             interaction_id=inter.id, raw=copy.deepcopy(data))
    if rtype == 8:
        return Sent("autocomplete", raw=data, route=ex.route, **common)
    if rtype == 9:
        return Sent("modal", content=data.get("title"), raw=data, route=ex.route, **common)
    return None


def _refusal(ex: Exchange, model: DiscordModel) -> Sent:
    """A request Discord answered with an error: who it was for, and the error code."""
    answer, body = ex.answer, ex.request.body if isinstance(ex.request.body, dict) else {}
    assert answer is not None
    fields: dict[str, Any] = {"error": (answer.body or {}).get("code"), "route": ex.route}
    if ex.interaction is not None:
        fields["user_id"] = ex.interaction.user_id
    if "channel_id" in ex.params:
        fields["channel_id"] = int(ex.params["channel_id"])
    if "message_id" in ex.params:
        fields["message_id"] = int(ex.params["message_id"])
    if ex.operation is not None and ex.operation.id == "create_message":
        fields["content"] = body.get("content")
        fields.setdefault("user_id", model.dm_channels.get(int(ex.params["channel_id"])))
    return Sent("refused", **fields)


_RECORDS: dict[str, Callable[[Exchange], Sent | None]] = {
    "create_message": _sent,
    "update_message": _edited,
    "delete_message": _deleted,
    "create_interaction_response": _answered,
    "update_original_webhook_message": _edited,
    "update_webhook_message": _edited,
    "delete_original_webhook_message": _deleted,
    "delete_webhook_message": _deleted,
    "execute_webhook": lambda ex: _from_message("followup", ex, **_answering(ex)),
}


# -- messages as tests read them ----------------------------------------------------------------------------
class StoredMessage(Message):
    """A message as it stands in the loopback, with its embeds as discord.py objects."""

    @property
    def embeds(self) -> list[discord.Embed]:
        return [discord.Embed.from_dict(e) for e in self.payload.get("embeds") or []]


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


_DISPATCH_TASK_PREFIXES = ("CommandTree-invoker", "discord-ui-view-dispatch", "discord-ui-dynamic-item",
                           "discord.py: on_interaction")


class _ErrorCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.errors: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.errors.append(record.exc_info[1])


# -- the driver ---------------------------------------------------------------------------------------------
class FakeDiscord:
    APP_ID = DiscordModel.APP_ID
    BOT_ID = DiscordModel.APP_ID  # Discord bots' user id equals the application id

    def __init__(self, client: discord.Client | None = None, *, bot_name: str = "kwx",
                 model: DiscordModel | None = None) -> None:
        """`model`: the Discord of an earlier FakeDiscord (a restarted bot finds its messages, DMs, emojis)."""
        self.client = client or discord.Client(intents=discord.Intents.default())
        self.state = self.client._connection
        self.log = Recorder()
        # Interactions answer in tests as fast as the machine allows: only `expire()` ends their window.
        self.model = model or DiscordModel(bot_name=bot_name, message_type=StoredMessage, response_window=None)
        self.rest = RestApi(self.model, rate_limits=False)
        self.rest.observers.append(self._observe)
        self.session = InProcessSession(self.rest)
        # Bodies Discord would refuse, as "route: field: why". A slash/press that caused one fails (raise_errors),
        # and so does close() unless allow_off_spec is set.
        self.allow_off_spec = False
        self._exchange_listeners: list[Callable[[Exchange], None]] = []

    # -- life cycle ------------------------------------------------------------------------------------------
    @classmethod
    async def create(cls, client: discord.Client | None = None, *, run_setup_hook: bool = False) -> FakeDiscord:
        fake = cls(client)
        await fake.start(run_setup_hook=run_setup_hook)
        return fake

    async def start(self, *, run_setup_hook: bool = False) -> None:
        """Do what `client.login` does, over the in-process session: loop, bot user, application id, setup_hook."""
        if getattr(self.client, "loop", None) is not asyncio.get_running_loop():
            await self.client._async_setup_hook()
        install(self.client, self.session)
        self.state.user = discord.ClientUser(state=self.state, data=self.model.bot_user)  # type: ignore[arg-type]
        self.state.application_id = self.APP_ID
        if run_setup_hook:
            await self.client.setup_hook()

    async def close(self) -> None:
        """Stop the views the code under test stored, so their timeout timers don't outlive the test; fail when
        the code sent a body Discord would have refused (unless `allow_off_spec`)."""
        store = self.state._view_store
        views = {item.view for items in store._views.values() for item in items.values() if item.view}
        for view in views:
            view.stop()
        if self.off_spec and not self.allow_off_spec:
            raise AssertionError(f"bodies Discord would refuse were sent: {self.off_spec}")

    # -- what the loopback knows -----------------------------------------------------------------------------
    @property
    def messages(self) -> dict[int, StoredMessage]:
        return cast(dict[int, StoredMessage], self.model.messages)  # the model makes StoredMessages

    @property
    def emojis(self) -> dict[int, dict[str, Any]]:
        return self.model.emojis

    @property
    def emoji_images(self) -> dict[int, bytes]:
        return self.model.emoji_images

    @property
    def synced_commands(self) -> dict[int | None, list[dict[str, Any]]]:
        """The commands each tree.sync() registered, by guild id (None = global), as Discord returns them."""
        return self.model.commands

    @property
    def users(self) -> dict[int, dict[str, Any]]:
        return self.model.users

    @property
    def user_locale(self) -> dict[int, str]:
        return self.model.user_locale

    @property
    def closed_dms(self) -> set[int]:
        return self.model.closed_dms

    @property
    def bot_permissions(self) -> dict[int, int]:
        """channel -> the bot's permissions there (default: all); interactions report them, sends obey them."""
        return self.model.bot_permissions

    @property
    def faults(self) -> list[Fault]:
        """Faults injected and not yet used up."""
        return self.rest.faults

    @property
    def off_spec(self) -> list[str]:
        return self.rest.stats.off_spec

    def on_exchange(self, listener: Callable[[Exchange], None]) -> None:
        """Call `listener` with every request from now on, and its answer (kwx.devtools.loopback.rest.Exchange)."""
        self._exchange_listeners.append(listener)

    def _observe(self, ex: Exchange) -> None:
        self.log.exchange(ex, self.model)
        for listener in self._exchange_listeners:
            listener(ex)

    # -- building the world ----------------------------------------------------------------------------------
    def snowflake(self) -> int:
        """A fresh id that reads as 'now' (discord.py derives times and rate-limit buckets from ids)."""
        return self.model.snowflake()

    def add_guild(self, guild_id: int | None = None, name: str = "卡五星俱乐部", *,
                  locale: str = DEFAULT_LOCALE) -> discord.Guild:
        gid = self.model.add_guild(name, locale=locale, guild_id=guild_id)
        data = {"id": str(gid), "name": name, "owner_id": str(self.BOT_ID), "preferred_locale": locale,
                "roles": [{"id": str(gid), "name": "@everyone", "permissions": str(MEMBER_PERMISSIONS), "position": 0,
                           "color": 0, "hoist": False, "managed": False, "mentionable": False}],
                "channels": [], "members": [], "member_count": 1, "features": [], "emojis": [], "stickers": []}
        guild = self.state._add_guild_from_data(data)  # type: ignore[arg-type]
        assert self.state.user is not None  # start() made it
        guild._add_member(discord.Member._from_client_user(user=self.state.user, guild=guild, state=self.state))
        return guild

    def add_text_channel(self, guild: discord.Guild, channel_id: int | None = None,
                         name: str = "mahjong") -> discord.TextChannel:
        cid = channel_id if channel_id in self.model.channels else \
            self.model.add_channel(guild.id, name, channel_id=channel_id)
        data = self.model.channels[cid]
        channel = discord.TextChannel(state=self.state, guild=guild, data=data)  # type: ignore[arg-type]
        guild._add_channel(channel)
        return channel

    def add_user(self, user_id: int | None = None, name: str | None = None, *, dms_open: bool = True,
                 locale: str = DEFAULT_LOCALE, bot: bool = False) -> discord.User:
        uid = user_id or self.snowflake()
        if uid not in self.model.users:
            self.model.add_user(name or f"user{uid % 10_000}", dms_open=dms_open, locale=locale, user_id=uid, bot=bot)
        self.state._users.pop(uid, None)
        return self.state.store_user(self.model.users[uid])  # type: ignore[arg-type]

    def add_member(self, guild: discord.Guild, user_id: int | None = None, name: str | None = None, *,
                   dms_open: bool = True, locale: str = DEFAULT_LOCALE, bot: bool = False) -> discord.Member:
        user = self.add_user(user_id, name, dms_open=dms_open, locale=locale, bot=bot)
        self.model.members.setdefault(guild.id, {})[user.id] = MEMBER_PERMISSIONS
        member = discord.Member(data=self._member_payload(user.id), guild=guild, state=self.state)  # type: ignore[arg-type]
        guild._add_member(member)
        return member

    def forbid_channel(self, channel_id: int) -> None:
        """The bot lost Send Messages there: sends raise Forbidden 50013."""
        self.model.revoke(channel_id, SEND_MESSAGES)

    def delete_message(self, message_id: int) -> None:
        """Someone (a moderator) deleted this message: later edits raise NotFound."""
        self.model.delete_message(message_id)

    def delete_channel(self, channel_id: int) -> None:
        """The channel was deleted: requests to it answer 404 / 10003."""
        if channel_id in self.model.channels:
            self.model.delete_channel(channel_id)

    def inject(self, method: str, path: str, error: discord.HTTPException, *, times: int = 1,
               channel_id: int | None = None) -> None:
        """Answer the next `times` requests to this route template (e.g. 'PATCH', '/channels/{channel_id}/
        messages/{message_id}'; "*" for any) with `error`'s status and JSON. discord.py then does what it does
        with that answer: a 429 is waited out and tried again (five times), a 500/502/504 is tried again after a
        pause, anything else raises."""
        body = getattr(error, "loopback_body", None) or {"code": error.code, "message": error.text}
        kind = "ratelimit" if error.status == 429 else "status"
        self.rest.inject(method, path, kind, status=error.status, code=error.code, message=error.text, body=body,
                         times=times, channel_id=channel_id)

    def message(self, message_id: int | discord.abc.Snowflake | Sent) -> StoredMessage:
        mid = message_id.message_id if isinstance(message_id, Sent) else getattr(message_id, "id", message_id)
        return self.messages[int(mid)]  # type: ignore[arg-type]

    def channel_messages(self, channel_id: int) -> list[StoredMessage]:
        """The public messages of a channel as they stand now, oldest first (no ephemerals, no deleted)."""
        return cast(list[StoredMessage], self.model.channel_messages(channel_id))

    def expire(self, interaction: discord.Interaction) -> None:
        """Its token ran out (3 s to respond, 15 min for followups): later answers raise NotFound."""
        self.model.interactions[interaction.token].expired = True

    # -- interactions ----------------------------------------------------------------------------------------
    def slash_interaction(self, user: discord.abc.User, channel: discord.abc.Messageable, command: str,
                          **options: Any) -> discord.Interaction:
        """A real `discord.Interaction` for `/command sub ... option=value`, not yet dispatched."""
        return self._make_interaction(self._slash_payload(user, channel, command, options))

    def button_interaction(self, user: discord.abc.User, message: Any, custom_id: str | None = None, *,
                           label: str | None = None, check: bool = True) -> discord.Interaction:
        """A real `discord.Interaction` for a press of a button on a stored message, not yet dispatched.

        With check=True (default) the button must be on the message as it stands, enabled, and the message
        must be visible to the user, as in a real client. check=False sends a custom id that is not there any
        more (a press racing an edit)."""
        return self._make_interaction(self._button_payload(user, message, custom_id, label, check))

    async def slash(self, user: discord.abc.User, channel: discord.abc.Messageable, command: str, *,
                    raise_errors: bool = True, timeout: float = 5.0, **options: Any) -> Outcome:
        """Run `/command` through the client's real CommandTree, wait for it, and return what it sent.

        An exception in the command is re-raised here (raise_errors): the test fails with its traceback."""
        return await self._dispatch(self._slash_payload(user, channel, command, options), raise_errors, timeout)

    async def press(self, user: discord.abc.User, message: Any, custom_id: str | None = None, *,
                    label: str | None = None, check: bool = True, raise_errors: bool = True,
                    timeout: float = 5.0) -> Outcome:
        """Press a button through the client's real ViewStore (Views, DynamicItems); return what it sent."""
        return await self._dispatch(self._button_payload(user, message, custom_id, label, check), raise_errors,
                                    timeout)

    def _make_interaction(self, payload: dict[str, Any]) -> discord.Interaction:
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
                    raise AssertionError("the client has no CommandTree; create app_commands.CommandTree(client)")
                self.state._command_tree._from_interaction(interaction)
            elif payload["type"] == 3:
                data = payload["data"]
                self.state._view_store.dispatch_view(data["component_type"], data["custom_id"], interaction)
            self.state.dispatch("interaction", interaction)
            tasks = [t for t in asyncio.all_tasks() - before if t.get_name().startswith(_DISPATCH_TASK_PREFIXES)]
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
        if user.id not in self.users:
            self.add_user(user.id, getattr(user, "name", None))
        payload = self.model.open_interaction(itype, user.id, channel.id, member_permissions=MEMBER_PERMISSIONS)
        payload["attachment_size_limit"] = self.model.upload_limit
        return payload

    def _slash_payload(self, user: discord.abc.User, channel: Any, command: str,
                       options: dict[str, Any]) -> dict[str, Any]:
        payload = self._base_interaction_payload(2, user, channel)
        words = command.lstrip("/").split()
        tree = self.state._command_tree
        gid = self.model.guild_of(channel.id)
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
            node: dict[str, Any] = {"name": word, "type": 2 if isinstance(cmd, app_commands.Group) else 1,
                                    "options": []}
            leaf.setdefault("options", []).append(node)
            leaf = node
        leaf.setdefault("options", [])
        for py_name, value in options.items():
            leaf["options"].append(self._option(cmd, py_name, value, resolved, gid))
        if resolved:
            data["resolved"] = resolved
        payload["data"] = data
        return payload

    def _option(self, cmd: Any, py_name: str, value: Any, resolved: dict[str, dict[str, Any]],
                gid: int | None) -> dict[str, Any]:
        name, otype = py_name, None
        if cmd is not None and hasattr(cmd, "_params"):
            param = cmd._params.get(py_name)
            if param is None:
                raise AssertionError(f"/{cmd.qualified_name} has no parameter {py_name!r}")
            name, otype = param.display_name, param.type.value
        if otype is None:
            otype = (5 if isinstance(value, bool) else 4 if isinstance(value, int) else 10 if isinstance(value, float)
                     else 6 if isinstance(value, discord.abc.User) else 3)
        if isinstance(value, discord.abc.User):
            uid = value.id
            if uid not in self.users:
                self.add_user(uid, value.name)
            resolved.setdefault("users", {})[str(uid)] = self.users[uid]
            if gid is not None:
                resolved.setdefault("members", {})[str(uid)] = {
                    k: v for k, v in self._member_payload(uid).items() if k != "user"} | {"permissions": "0"}
            value = str(uid)
        return {"name": name, "type": otype, "value": value}

    def _button_payload(self, user: discord.abc.User, message: Any, custom_id: str | None, label: str | None,
                        check: bool) -> dict[str, Any]:
        stored = self.message(message)
        if custom_id is None:
            if label is None:
                raise ValueError("give a custom_id or a label")
            found = [c for c in stored.components if c.type == "button" and c.label == label]
            if not found:
                raise AssertionError(f"no button labelled {label!r}; buttons: {[c.label for c in stored.components]}")
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
        payload = self._base_interaction_payload(3, user, discord.Object(stored.channel_id))
        payload["message"] = copy.deepcopy(stored.payload)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        self.model.interactions[payload["token"]].message_id = stored.id
        return payload

    def _member_payload(self, uid: int) -> dict[str, Any]:
        return self.model.member_payload(uid)


@dataclass
class World:
    """A server with one table channel and its members (those named in `closed_dms` refuse DMs)."""

    fake: FakeDiscord
    guild: discord.Guild
    channel: discord.TextChannel
    members: list[discord.Member]


async def make_world(client: discord.Client | None = None, *, names: Iterable[str] = ("alice", "bob", "carol"),
                     closed_dms: Iterable[str] = (), locale: str = DEFAULT_LOCALE,
                     run_setup_hook: bool = False) -> World:
    fake = await FakeDiscord.create(client, run_setup_hook=run_setup_hook)
    guild = fake.add_guild(locale=locale)
    channel = fake.add_text_channel(guild)
    closed = set(closed_dms)
    members = [fake.add_member(guild, name=n, dms_open=n not in closed, locale=locale) for n in names]
    return World(fake, guild, channel, members)
