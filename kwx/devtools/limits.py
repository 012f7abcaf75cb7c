"""Discord's payload limits, checked as Discord checks them, in one place.

The numbers come from Discord's published OpenAPI description (the discord/discord-api-spec repository,
specs/openapi.json: MessageCreateRequest, IncomingWebhookInteractionRequest, RichEmbed, RichEmbedField,
ActionRowComponentForMessageRequest, ButtonComponentForMessageRequest, StringSelectComponentForMessageRequest,
StringSelectOptionForRequest, ApplicationCommandCreateRequest and its option schemas), plus the limits the API
reference states in prose: a bot's message content is at most 2,000 characters (the spec's 4,000 is a Nitro
user's limit), all embeds of a message together at most 6,000 characters, at most 5 action rows in a message
without the components-v2 flag, and the upload limit an interaction reports (10 MiB without boosts).

Both the loopback Discord (kwx.devtools.loopback) and the unit tests' in-process fake (tests/cogs/fakes.py)
call these checks on every message, edit, interaction response and command sync, and refuse a payload over a
limit with HTTP 400 and the JSON body Discord sends (`invalid_form_body`, code 50035), so no test passes with
a payload Discord would refuse.

    errors = message_errors(body)                 # {} when Discord would take it
    if errors: return 400, invalid_form_body(errors)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# -- messages ---------------------------------------------------------------------------------------------
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_URL_MAX = 2048
EMBED_TOTAL_MAX = 6000  # every embed of one message together
ACTION_ROWS_MAX = 5
ROW_COMPONENTS_MAX = 5
COMPONENTS_V2_MAX = 40  # top-level components when the IS_COMPONENTS_V2 flag is set
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
BUTTON_URL_MAX = 512
SELECT_PLACEHOLDER_MAX = 150
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100  # label, value, description
ATTACHMENTS_MAX = 10
ATTACHMENT_FILENAME_MAX = 1024
UPLOAD_LIMIT = 10 * 1024 * 1024  # bytes per file without boosts (interactions report attachment_size_limit)
IS_COMPONENTS_V2 = 1 << 15

# -- application commands --------------------------------------------------------------------------------
COMMANDS_MAX = 100  # chat-input commands in one bulk overwrite
COMMAND_NAME_MAX = 32
COMMAND_DESCRIPTION_MAX = 100
COMMAND_OPTIONS_MAX = 25
COMMAND_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 6000
STRING_OPTION_LENGTH_MAX = 6000  # min_length / max_length of a string option
LOCALIZATIONS_MAX = 34
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")  # Discord's CHAT_INPUT name pattern (lower case where cased)

INVALID_FORM_BODY = 50035
EMPTY_MESSAGE = 50006
ENTITY_TOO_LARGE = 40005

Errors = dict[str, Any]


def invalid_form_body(errors: Errors) -> dict[str, Any]:
    """The JSON body Discord answers an over-limit payload with (HTTP 400)."""
    return {"code": INVALID_FORM_BODY, "errors": errors, "message": "Invalid Form Body"}


def empty_message() -> dict[str, Any]:
    return {"code": EMPTY_MESSAGE, "message": "Cannot send an empty message"}


def entity_too_large(limit: int) -> dict[str, Any]:
    """HTTP 413 when a file is over the upload limit."""
    return {"code": ENTITY_TOO_LARGE, "message": f"Request entity too large (limit {limit} bytes)"}


def flatten(errors: Errors, prefix: str = "") -> list[str]:
    """'embeds.0.description: Must be 4096 or fewer in length.' lines, for logs and assertion messages."""
    out: list[str] = []
    for key, value in errors.items():
        if key == "_errors":
            out += [f"{prefix or '<body>'}: {e['message']}" for e in value]
        else:
            out += flatten(value, f"{prefix}.{key}" if prefix else str(key))
    return out


class _Collector:
    def __init__(self) -> None:
        self.errors: Errors = {}

    def add(self, path: Iterable[str | int], code: str, message: str) -> None:
        node = self.errors
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def length(self, path: tuple[str | int, ...], value: Any, maximum: int, minimum: int = 0) -> None:
        if value is None:
            return
        if not isinstance(value, str):
            self.add(path, "BASE_TYPE_STRING", "Must be a string.")
        elif len(value) > maximum:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
        elif len(value) < minimum:
            self.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {minimum} or more in length.")

    def items(self, path: tuple[str | int, ...], value: Any, maximum: int, minimum: int = 0) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
            return []
        if len(value) > maximum:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
        elif len(value) < minimum:
            self.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {minimum} or more in length.")
        return value


def _embed_text(embed: Mapping[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "") + len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def _embeds(c: _Collector, embeds: Any) -> None:
    total = 0
    for i, e in enumerate(c.items(("embeds",), embeds, EMBEDS_MAX)):
        if not isinstance(e, dict):
            c.add(("embeds", i), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        at = ("embeds", i)
        c.length((*at, "title"), e.get("title"), EMBED_TITLE_MAX)
        c.length((*at, "description"), e.get("description"), EMBED_DESCRIPTION_MAX)
        c.length((*at, "url"), e.get("url"), EMBED_URL_MAX)
        c.length((*at, "footer", "text"), (e.get("footer") or {}).get("text"), EMBED_FOOTER_MAX)
        c.length((*at, "author", "name"), (e.get("author") or {}).get("name"), EMBED_AUTHOR_MAX)
        for j, f in enumerate(c.items((*at, "fields"), e.get("fields"), EMBED_FIELDS_MAX)):
            c.length((*at, "fields", j, "name"), f.get("name"), EMBED_FIELD_NAME_MAX, 1)
            c.length((*at, "fields", j, "value"), f.get("value"), EMBED_FIELD_VALUE_MAX, 1)
        total += _embed_text(e)
    if total > EMBED_TOTAL_MAX:
        c.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def _component(c: _Collector, at: tuple[str | int, ...], comp: Any) -> None:
    if not isinstance(comp, dict):
        c.add(at, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        return
    ctype = comp.get("type")
    if ctype == 1:  # action row
        for k, child in enumerate(c.items((*at, "components"), comp.get("components"), ROW_COMPONENTS_MAX, 1)):
            _component(c, (*at, "components", k), child)
        return
    if ctype == 2:  # button
        if comp.get("style") == 5:
            c.length((*at, "url"), comp.get("url"), BUTTON_URL_MAX, 1)
        elif comp.get("style") != 6:
            c.length((*at, "custom_id"), comp.get("custom_id") or "", CUSTOM_ID_MAX, 1)
        c.length((*at, "label"), comp.get("label"), BUTTON_LABEL_MAX)
        return
    if ctype in (3, 5, 6, 7, 8):  # selects
        c.length((*at, "custom_id"), comp.get("custom_id") or "", CUSTOM_ID_MAX, 1)
        c.length((*at, "placeholder"), comp.get("placeholder"), SELECT_PLACEHOLDER_MAX)
        for key in ("min_values", "max_values"):
            value = comp.get(key)
            if value is not None and not 0 <= int(value) <= SELECT_OPTIONS_MAX:
                c.add((*at, key), "NUMBER_TYPE_MAX", f"Must be between 0 and {SELECT_OPTIONS_MAX}.")
        if ctype == 3:
            for k, o in enumerate(c.items((*at, "options"), comp.get("options"), SELECT_OPTIONS_MAX, 1)):
                for key in ("label", "value", "description"):
                    c.length((*at, "options", k, key), o.get(key), SELECT_OPTION_TEXT_MAX, 0 if key == "description" else 1)
        return
    for key in ("components", "items"):  # components v2 containers: check what they hold
        for k, child in enumerate(comp.get(key) or []):
            _component(c, (*at, key, k), child)
    if isinstance(comp.get("accessory"), dict):
        _component(c, (*at, "accessory"), comp["accessory"])


def message_errors(body: Mapping[str, Any] | None, *, file_sizes: Iterable[int] = ()) -> Errors:
    """What Discord refuses in a message body (a channel send, an edit, an interaction response's data, a
    followup). {} when it would take it. `file_sizes`: the files uploaded with it (their count; the upload
    limit itself is `upload_errors`)."""
    c = _Collector()
    body = body or {}
    c.length(("content",), body.get("content"), CONTENT_MAX)
    _embeds(c, body.get("embeds"))
    v2 = bool(int(body.get("flags") or 0) & IS_COMPONENTS_V2)
    rows = c.items(("components",), body.get("components"), COMPONENTS_V2_MAX if v2 else ACTION_ROWS_MAX)
    for i, row in enumerate(rows):
        if not v2 and isinstance(row, dict) and row.get("type") != 1:
            c.add(("components", i), "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (1,).")
            continue
        _component(c, ("components", i), row)
    attachments = c.items(("attachments",), body.get("attachments"), ATTACHMENTS_MAX)
    for i, a in enumerate(attachments):
        if isinstance(a, dict):
            c.length(("attachments", i, "filename"), a.get("filename"), ATTACHMENT_FILENAME_MAX, 1)
    if len(list(file_sizes)) > ATTACHMENTS_MAX:
        c.add(("attachments",), "BASE_TYPE_MAX_LENGTH", f"Must be {ATTACHMENTS_MAX} or fewer in length.")
    return c.errors


def is_empty_message(body: Mapping[str, Any] | None, files: int = 0) -> bool:
    """A new message with nothing to show (Discord: 50006 Cannot send an empty message)."""
    body = body or {}
    return not (body.get("content") or body.get("embeds") or body.get("components") or body.get("sticker_ids")
                or body.get("poll") or files)


def upload_errors(file_sizes: Iterable[int], limit: int = UPLOAD_LIMIT) -> bool:
    """True when a file is over the upload limit (Discord answers 413 / 40005)."""
    return any(size > limit for size in file_sizes)


def interaction_response_errors(body: Mapping[str, Any] | None, *, file_sizes: Iterable[int] = ()) -> Errors:
    """An interaction callback: {"type": 4, "data": {...message...}}; the message errors sit under "data"."""
    body = body or {}
    rtype = body.get("type")
    data = body.get("data") or {}
    if rtype in (4, 7):
        inner = message_errors(data, file_sizes=file_sizes)
        return {"data": inner} if inner else {}
    if rtype == 8:  # autocomplete
        c = _Collector()
        for i, ch in enumerate(c.items(("data", "choices"), data.get("choices"), COMMAND_CHOICES_MAX)):
            c.length(("data", "choices", i, "name"), ch.get("name"), CHOICE_NAME_MAX, 1)
        return c.errors
    if rtype == 9:  # modal
        c = _Collector()
        c.length(("data", "custom_id"), data.get("custom_id"), CUSTOM_ID_MAX, 1)
        c.length(("data", "title"), data.get("title"), 45, 1)
        return c.errors
    return {}


def _localized(c: _Collector, at: tuple[str | int, ...], node: Mapping[str, Any], key: str, maximum: int,
               minimum: int, *, named: bool = False) -> None:
    c.length((*at, key), node.get(key), maximum, minimum)
    local = node.get(f"{key}_localizations") or {}
    if len(local) > LOCALIZATIONS_MAX:
        c.add((*at, f"{key}_localizations"), "BASE_TYPE_MAX_LENGTH", f"Must be {LOCALIZATIONS_MAX} or fewer in length.")
    for locale, value in local.items():
        c.length((*at, f"{key}_localizations", locale), value, maximum, 1)
        if named and isinstance(value, str) and not COMMAND_NAME.fullmatch(value):
            c.add((*at, f"{key}_localizations", locale), "APPLICATION_COMMAND_INVALID_NAME",
                  "Command name is invalid")


def _option(c: _Collector, at: tuple[str | int, ...], opt: Mapping[str, Any]) -> None:
    _localized(c, at, opt, "name", COMMAND_NAME_MAX, 1, named=True)
    _localized(c, at, opt, "description", COMMAND_DESCRIPTION_MAX, 1)
    name = opt.get("name")
    if isinstance(name, str) and (not COMMAND_NAME.fullmatch(name) or name != name.lower()):
        c.add((*at, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    for key in ("min_length", "max_length"):
        value = opt.get(key)
        if value is not None and not 0 <= int(value) <= STRING_OPTION_LENGTH_MAX:
            c.add((*at, key), "NUMBER_TYPE_MAX", f"int value should be less than or equal to {STRING_OPTION_LENGTH_MAX}.")
    for i, ch in enumerate(c.items((*at, "choices"), opt.get("choices"), COMMAND_CHOICES_MAX)):
        _localized(c, (*at, "choices", i), ch, "name", CHOICE_NAME_MAX, 1)
        if isinstance(ch.get("value"), str):
            c.length((*at, "choices", i, "value"), ch["value"], CHOICE_VALUE_MAX)
    for i, sub in enumerate(c.items((*at, "options"), opt.get("options"), COMMAND_OPTIONS_MAX)):
        _option(c, (*at, "options", i), sub)


def commands_errors(commands: Any) -> Errors:
    """A bulk overwrite of application commands (PUT .../commands)."""
    c = _Collector()
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(c.items((), commands, COMMANDS_MAX)):
        if not isinstance(cmd, dict):
            c.add((i,), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        ctype = int(cmd.get("type") or 1)
        key = (ctype, str(cmd.get("name")))
        if key in seen:
            c.add((i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", f"Application command names must be unique ({key[1]})")
        seen.add(key)
        if ctype == 1:
            _option(c, (i,), cmd)
        else:
            _localized(c, (i,), cmd, "name", COMMAND_NAME_MAX, 1)
            c.length((i, "description"), cmd.get("description"), COMMAND_DESCRIPTION_MAX)
    return c.errors
