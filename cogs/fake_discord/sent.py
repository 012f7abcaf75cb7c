"""What the bot sent, as the tests read it: one `Sent` record per request, in `FakeDiscord.log` (a `Recorder`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import discord

from kwx.devtools.loopback.calls import Exchange
from kwx.devtools.loopback.model import Component, DiscordModel, components_of, json_copy


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
    fields.setdefault("raw", json_copy(ex.request.body or {}))
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
        return _from_message("response", ex, ephemeral=inter.ephemeral, raw=json_copy(data), **common)
    if rtype == 5:
        assert ex.message is not None
        return Sent("defer", ephemeral=inter.ephemeral, thinking=True, message_id=ex.message.id, route=ex.route,
                    **common)
    if rtype == 6:
        return Sent("defer", message_id=inter.message_id, route=ex.route, **common)
    if rtype == 7:
        return _from_message("edit", ex, user_id=ex.message.owner if ex.message else None,
                             interaction_id=inter.id, raw=json_copy(data))
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


