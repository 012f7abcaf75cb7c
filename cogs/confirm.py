"""Money that moves only with consent: a pending request, its Confirm / Cancel buttons, and its expiry.

`/kwx pay` and `/kwx record` do not write the ledger. They open a `Pending` request naming the members whose
money it would take (`needed`); it is written when each of them has pressed Confirm, by the cog's `apply`.
Anybody else pressing Confirm gets a private refusal; a needed member or the one who asked may Cancel; after
`ttl` seconds (10 minutes) the request expires. A cancelled or expired request changes nothing.

Requests are kept in the store as guild settings (`pending.<id>` → JSON, and `pending.index` → the open ids of
the server), and the buttons are `DynamicItem`s whose custom id carries only the request id
(`kwx:cfm:<id>:yes|no`). So a restarted bot still knows every open request: presses work, and `restore()`
re-arms the expiry timers (and expires what ran out while it was down). The request is removed from the store
before its ledger write, so a crash between the two loses the write (nothing moves) rather than doubling it.

Limits, so nobody can flood a member or the bot: a member has at most `max_open` (5) open requests per server
(one more is refused privately, naming the cap), and a request pings a member only when no other open request
of the same initiator already waits on them and they were not pinged by that initiator in the last
`ping_gap` seconds (60): such a request still opens and shows the mention, without a ping. (The commands also
carry a per-member rate, cogs/ledger_requests.py.)
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import discord

from cogs.buttons import ForgedPress, answer_not_loaded, forged
from cogs.inputs import id_token, id_word
from cogs.operations import (
    safe_followup,
    safe_original_response,
    safe_respond,
    safe_update_message,
)
from cogs.ratelimit import Priority
from cogs.runtime import runtime
from kwx.store import Store

if TYPE_CHECKING:
    from cogs.bot import KwxBot

logger = logging.getLogger(__name__)

CONFIRM_TTL = 600.0  # seconds a request stays open
MAX_OPEN = 5  # open requests a member may have per server
PING_GAP = 60.0  # seconds before the same initiator may ping the same member again
REQUEST_ID = re.compile(r"[0-9a-f]{4,32}")  # a request's id in its buttons' custom ids (secrets.token_hex)
INDEX_KEY = "pending.index"
KEY_PREFIX = "pending."
OPEN, DONE, CANCELLED, EXPIRED, FAILED = "open", "done", "cancelled", "expired", "failed"


@dataclass
class Pending:
    id: str
    kind: str  # "pay" | "record": which apply/render the cog uses
    guild: str
    initiator: str
    needed: list[str]  # members whose confirmation is required (their money moves)
    expires: float  # epoch seconds
    data: dict[str, Any] = field(default_factory=dict)
    confirmed: list[str] = field(default_factory=list)
    channel_id: int | None = None
    message_id: int | None = None

    @property
    def waiting(self) -> list[str]:
        return [member for member in self.needed if member not in self.confirmed]

    def to_text(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> Pending:
        return cls(**json.loads(text))


class PendingStore:
    """Open requests as guild settings. Callers serialise access (ConfirmFlow holds one lock)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, guild: str, rid: str) -> Pending | None:
        text = await self.store.guild_setting(guild, KEY_PREFIX + rid)
        if text is None:
            return None
        try:
            return Pending.from_text(text)
        except (ValueError, TypeError):
            logger.warning("unreadable pending request %s in guild %s; dropping it", rid, guild)
            await self.drop(guild, rid)
            return None

    async def put(self, pending: Pending) -> None:
        await self.store.set_guild_setting(pending.guild, KEY_PREFIX + pending.id, pending.to_text())
        ids = await self._index(pending.guild)
        if pending.id not in ids:
            await self._set_index(pending.guild, [*ids, pending.id])

    async def drop(self, guild: str, rid: str) -> None:
        await self.store.set_guild_setting(guild, KEY_PREFIX + rid, None)
        ids = await self._index(guild)
        if rid in ids:
            await self._set_index(guild, [i for i in ids if i != rid])

    async def of_guild(self, guild: str) -> list[Pending]:
        """The server's open requests."""
        out = []
        for rid in await self._index(guild):
            found = await self.get(guild, rid)
            if found is not None:
                out.append(found)
        return out

    async def all(self) -> list[Pending]:
        """Every open request of every server."""
        out = []
        for guild, text in (await self.store.guild_settings(INDEX_KEY)).items():
            for rid in _load_ids(text):
                found = await self.get(guild, rid)
                if found is not None:
                    out.append(found)
        return out

    async def _index(self, guild: str) -> list[str]:
        return _load_ids(await self.store.guild_setting(guild, INDEX_KEY))

    async def _set_index(self, guild: str, ids: list[str]) -> None:
        await self.store.set_guild_setting(guild, INDEX_KEY, json.dumps(ids) if ids else None)


def _load_ids(text: str | None) -> list[str]:
    try:
        ids = json.loads(text) if text else []
    except ValueError:
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


class Handler(Protocol):
    """What a cog gives the flow for one kind of request."""

    def render(self, pending: Pending, state: str, lang: str, detail: str | None = None) -> discord.Embed: ...

    async def apply(self, pending: Pending) -> None: ...  # the ledger write; ValueError = refused, nothing moved


@dataclass
class Texts:
    """Button labels and private answers, in the server's language (the cog supplies them)."""

    confirm: str
    cancel: str
    not_yours: str
    already: str
    gone: str
    expired: str
    too_many: str = "You already have {count} open requests (at most {max})."  # {count}, {max}


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:cfm:(?P<fields>.*)"):
    def __init__(self, rid: str, verb: str, *, label: str | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"kwx:cfm:{rid}:{verb}"))
        self.rid = rid
        self.verb = verb

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> ConfirmButton | ForgedPress:
        rid, _, verb = match["fields"].partition(":")  # <request id>:yes|no
        rid_, verb_ = id_token(rid, REQUEST_ID), id_word(verb, ("yes", "no"))
        if rid_ is None or verb_ is None:
            return forged(item)
        return cls(rid_, verb_, label=item.label, style=item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        flow = find_flow(interaction.client)
        if flow is None:  # the ledger cog is not loaded (starting up or reloading): nothing changes
            await answer_not_loaded(interaction)
            return
        await flow.press(interaction, self.rid, self.verb)


def find_flow(client: Any) -> ConfirmFlow | None:
    for cog in getattr(client, "cogs", {}).values():
        flow = getattr(cog, "confirm_flow", None)
        if isinstance(flow, ConfirmFlow):
            return flow
    return None


class ConfirmFlow:
    def __init__(self, bot: KwxBot, store: Store, handlers: dict[str, Handler],
                 lang_of: Callable[[str], str], texts_of: Callable[[str], Texts], *, ttl: float = CONFIRM_TTL,
                 clock: Callable[[], float] = time.time, max_open: int = MAX_OPEN,
                 ping_gap: float = PING_GAP) -> None:
        self.bot = bot
        self.pending = PendingStore(store)
        self.handlers = handlers
        self.lang_of = lang_of
        self.texts_of = texts_of
        self.ttl = ttl
        self.clock = clock
        self._lock = asyncio.Lock()
        self._timers: dict[str, asyncio.Task[None]] = {}
        self.max_open = max_open
        self.ping_gap = ping_gap
        self._pinged: dict[tuple[str, str, str], float] = {}  # (guild, initiator, member) -> when pinged

    # -- life cycle ----------------------------------------------------------------------------------------
    async def restore(self) -> None:
        """After a restart: re-arm the timers of open requests; expire those whose time ran out."""
        for pending in await self.pending.all():
            self._arm(pending)

    def close(self) -> None:
        for task in self._timers.values():
            task.cancel()
        self._timers.clear()

    # -- opening ---------------------------------------------------------------------------------------------
    async def open(self, interaction: discord.Interaction, kind: str, needed: list[str], data: dict[str, Any],
                   *, ping: bool = True) -> Pending | None:
        """Ask `needed` to confirm (a public message with the buttons). With nobody to ask, apply at once.
        Returns the open request, or None when it was applied (or refused) at once."""
        guild = str(interaction.guild_id)
        lang = self.lang_of(guild)
        pending = Pending(id=secrets.token_hex(6), kind=kind, guild=guild, initiator=str(interaction.user.id),
                          needed=list(dict.fromkeys(needed)), expires=self.clock() + self.ttl, data=data)
        handler = self.handlers[kind]
        if not pending.needed:
            state, detail = await self._apply(pending)
            await safe_respond(interaction, embed=handler.render(pending, state, lang, detail),
                               allowed_mentions=discord.AllowedMentions.none())
            return None
        async with self._lock:  # the count and the put together: a burst of requests cannot pass the cap
            mine = [p for p in await self.pending.of_guild(guild) if p.initiator == pending.initiator]
            count = len(mine)
            if count >= self.max_open:
                await safe_respond(interaction, content=self.texts_of(lang).too_many.format(count=count,
                                                                                             max=self.max_open),
                                   ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
                return None
            await self.pending.put(pending)
            pinged = self._to_ping(pending, mine) if ping else []
        mentions = discord.AllowedMentions(users=[discord.Object(int(m)) for m in pinged], everyone=False,
                                           roles=False) if pinged else discord.AllowedMentions.none()
        content = " ".join(f"<@{m}>" for m in pending.needed) if ping else None
        sent = await safe_respond(interaction, content=content, embed=handler.render(pending, OPEN, lang),
                                  view=self.buttons(pending, lang), allowed_mentions=mentions)
        if not sent:
            async with self._lock:
                await self.pending.drop(guild, pending.id)
            return None
        message = await safe_original_response(interaction)
        if message is not None:
            async with self._lock:
                current = await self.pending.get(guild, pending.id)
                if current is not None:
                    current.channel_id, current.message_id = message.channel.id, message.id
                    await self.pending.put(current)
                    pending = current
        self._arm(pending)
        return pending

    def _to_ping(self, pending: Pending, others: list[Pending]) -> list[str]:
        """The needed members to ping: not those another open request of the initiator waits on, nor those
        the initiator pinged less than `ping_gap` seconds ago."""
        now = self.clock()
        for key, when in list(self._pinged.items()):
            if now - when >= self.ping_gap:
                del self._pinged[key]
        waited_on = {member for other in others for member in other.waiting}
        out = []
        for member in pending.needed:
            key = (pending.guild, pending.initiator, member)
            if member.isdigit() and member not in waited_on and key not in self._pinged:
                self._pinged[key] = now
                out.append(member)
        return out

    def buttons(self, pending: Pending, lang: str) -> discord.ui.View:
        texts = self.texts_of(lang)
        view = discord.ui.View(timeout=None)
        view.add_item(ConfirmButton(pending.id, "yes", label=texts.confirm, style=discord.ButtonStyle.success))
        view.add_item(ConfirmButton(pending.id, "no", label=texts.cancel, style=discord.ButtonStyle.secondary))
        view.stop()  # dynamic items answer presses; no view timer needed
        return view

    # -- presses -----------------------------------------------------------------------------------------------
    async def press(self, interaction: discord.Interaction, rid: str, verb: str) -> None:
        guild = str(interaction.guild_id)
        lang = self.lang_of(guild)
        texts = self.texts_of(lang)
        user = str(interaction.user.id)
        none = discord.AllowedMentions.none()
        async with self._lock:
            pending = await self.pending.get(guild, rid)
            if pending is None:
                await safe_respond(interaction, content=texts.gone, ephemeral=True)
                return
            handler = self.handlers[pending.kind]
            if self.clock() >= pending.expires:
                await self.pending.drop(guild, rid)
                self._disarm(rid)
                await safe_update_message(interaction, content=None, embed=handler.render(pending, EXPIRED, lang),
                                          view=None, allowed_mentions=none)
                await safe_followup(interaction, content=texts.expired, ephemeral=True)
                return
            if verb == "no":
                if user not in pending.needed and user != pending.initiator:
                    await safe_respond(interaction, content=texts.not_yours, ephemeral=True)
                    return
                await self.pending.drop(guild, rid)
                self._disarm(rid)
                await safe_update_message(interaction, content=None, view=None, allowed_mentions=none,
                                          embed=handler.render(pending, CANCELLED, lang, detail=user))
                return
            if user not in pending.needed:
                await safe_respond(interaction, content=texts.not_yours, ephemeral=True)
                return
            if user in pending.confirmed:
                await safe_respond(interaction, content=texts.already, ephemeral=True)
                return
            pending.confirmed.append(user)
            if pending.waiting:
                await self.pending.put(pending)
                await safe_update_message(interaction, embed=handler.render(pending, OPEN, lang),
                                          view=self.buttons(pending, lang), allowed_mentions=none)
                return
            await self.pending.drop(guild, rid)  # before the write: a crash in between moves nothing
            self._disarm(rid)
            state, detail = await self._apply(pending)
            await safe_update_message(interaction, content=None, embed=handler.render(pending, state, lang, detail),
                                      view=None, allowed_mentions=none)

    async def _apply(self, pending: Pending) -> tuple[str, str | None]:
        try:
            await self.handlers[pending.kind].apply(pending)
        except ValueError as exc:  # the store refused it (bad amount, unknown hand …): nothing was written
            logger.info("request %s refused by the store: %s", pending.id, exc)
            return FAILED, str(exc)
        return DONE, None

    # -- expiry ------------------------------------------------------------------------------------------------
    def _arm(self, pending: Pending) -> None:
        self._disarm(pending.id)
        delay = max(0.0, pending.expires - self.clock())
        self._timers[pending.id] = asyncio.create_task(self._expire_after(pending.guild, pending.id, delay),
                                                       name=f"kwx-confirm-expiry-{pending.id}")

    def _disarm(self, rid: str) -> None:
        task = self._timers.pop(rid, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _expire_after(self, guild: str, rid: str, delay: float) -> None:
        await asyncio.sleep(delay)
        await self.expire(guild, rid)

    async def expire(self, guild: str, rid: str) -> bool:
        """Close a request whose time ran out (nothing is written) and show it on its message."""
        async with self._lock:
            pending = await self.pending.get(guild, rid)
            self._timers.pop(rid, None)
            if pending is None:
                return False
            if self.clock() < pending.expires:  # re-armed meanwhile (a clock change): wait again
                self._arm(pending)
                return False
            await self.pending.drop(guild, rid)
        await self._show(pending, EXPIRED)
        return True

    async def _show(self, pending: Pending, state: str) -> None:
        if pending.channel_id is None or pending.message_id is None:
            return
        rest = runtime(self.bot).rest
        channel = await rest.fetch_channel(self.bot, pending.channel_id)
        if channel is None or not hasattr(channel, "get_partial_message"):
            return
        embed = self.handlers[pending.kind].render(pending, state, self.lang_of(pending.guild))
        await rest.edit(channel.get_partial_message(pending.message_id), priority=Priority.POST, content=None,
                        embed=embed, view=None, allowed_mentions=discord.AllowedMentions.none())

