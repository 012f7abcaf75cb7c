"""The driver: `FakeDiscord` builds discord.py objects for the world it adds to the loopback's model and
dispatches interactions to the client under test; `make_world` builds a server, a channel and members at once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import discord
from discord import app_commands

from cogs.fake_discord.sent import Recorder, Sent
from kwx.devtools.loopback.calls import Exchange
from kwx.devtools.loopback.inprocess import InProcessSession, install
from kwx.devtools.loopback.model import SEND_MESSAGES, DiscordModel, Message, json_copy
from kwx.devtools.loopback.model import Interaction as SeenInteraction  # Discord's record of one
from kwx.devtools.loopback.rest import Fault, RestApi

DEFAULT_LOCALE = "zh-CN"
MEMBER_PERMISSIONS = discord.Permissions.general().value | discord.Permissions.text().value


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
    seen: SeenInteraction | None = None  # the interaction as Discord's side knows it


    @property
    def text(self) -> str:
        return "\n".join(r.text for r in self.records if r.text)

    @property
    def answered(self) -> bool:
        """Whether the interaction got a response or deferral (else the player sees "interaction failed"), as
        Discord knows it: the bot may have released its own object of a finished press, which forgets."""
        if self.seen is not None:
            return self.seen.response_type is not None
        return self.interaction.response.is_done()

    def first(self, kind: str | None = None) -> Sent:
        for r in self.records:
            if kind is None or r.kind == kind:
                return r
        raise AssertionError(f"no {kind or 'record'}; got {[(r.kind, r.content) for r in self.records]}")


_DISPATCH_TASK_PREFIXES = ("CommandTree-invoker", "discord-ui-view-dispatch", "discord-ui-dynamic-item",
                           "discord.py: on_interaction")


@contextmanager
def _tasks_created(loop: asyncio.AbstractEventLoop) -> Iterator[list[asyncio.Task[Any]]]:
    """The tasks created while the block runs, which must not await: the handlers a dispatch started. (Diffing
    asyncio.all_tasks() before and after walks every task of the bot twice a press, a few milliseconds at a
    hundred tables, which the load benchmark would count as the bot's.)"""
    created: list[asyncio.Task[Any]] = []
    previous = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        task = previous(loop, coro, **kwargs) if previous is not None else asyncio.Task(coro, loop=loop, **kwargs)
        created.append(task)  # type: ignore[arg-type]
        return task  # type: ignore[return-value]

    loop.set_task_factory(factory)
    try:
        yield created
    finally:
        loop.set_task_factory(previous)


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
        # What members may do (@everyone's role, members added, interactions from now on): a test may take a
        # right away (`members_without`).
        self.member_permissions = MEMBER_PERMISSIONS

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

    def members_without(self, **rights: bool) -> None:
        """Members' interactions from now on carry their permissions less these (`manage_guild=False`)."""
        perms = discord.Permissions(self.member_permissions)
        perms.update(**rights)
        self.member_permissions = perms.value

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
                "roles": [{"id": str(gid), "name": "@everyone", "permissions": str(self.member_permissions), "position": 0,
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
        self.model.members.setdefault(guild.id, {})[user.id] = self.member_permissions
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
        try:
            with _tasks_created(asyncio.get_running_loop()) as created:
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
            tasks = [t for t in created if not t.done() and t.get_name().startswith(_DISPATCH_TASK_PREFIXES)]
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
        return Outcome(interaction, self.log.since(mark), self.model.interactions.get(interaction.token))

    def _base_interaction_payload(self, itype: int, user: discord.abc.User, channel: Any) -> dict[str, Any]:
        if user.id not in self.users:
            self.add_user(user.id, getattr(user, "name", None))
        payload = self.model.open_interaction(itype, user.id, channel.id, member_permissions=self.member_permissions)
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
        payload["message"] = json_copy(stored.payload)
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
