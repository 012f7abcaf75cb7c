"""Discord's limits that its OpenAPI description cannot express, checked as Discord checks them.

Every request body the loopback Discord (kwx.devtools.loopback, which the unit tests' fake also runs on) receives
is first validated against Discord's own description (kwx.devtools.loopback.spec: field types, lengths, counts,
ranges, enumerations). What is left here are the rules the description has no way to say, each with why: a limit
that depends on who sends (a bot, not a Nitro user), a sum over several fields, a rule that depends on another
field (the components-v2 flag), uniqueness, a name pattern the API reference states in prose, and the sizes of
uploaded files (not part of the JSON). Rate limits live in kwx.devtools.loopback.ratelimit.

A body over one of these limits is refused with HTTP 400 and the JSON body Discord sends (`invalid_form_body`,
code 50035), and counted off spec, like a body the description refuses.

    errors = message_errors(body)                 # {} when Discord would take it
    if errors: return 400, invalid_form_body(errors)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# -- messages ---------------------------------------------------------------------------------------------
CONTENT_MAX = 2000  # a bot's message content; the description's 4,000 is a Nitro user's limit
EMBED_TOTAL_MAX = 6000  # all embeds of one message together: a sum over fields, which a schema cannot bound
ACTION_ROWS_MAX = 5  # without the IS_COMPONENTS_V2 flag; the description's 40 is the components-v2 limit
ATTACHMENTS_MAX = 10  # files uploaded in one request: multipart parts, outside the JSON the description checks
UPLOAD_LIMIT = 10 * 1024 * 1024  # bytes per file without boosts (interactions report attachment_size_limit)
EMOJI_IMAGE_MAX = 256 * 1024  # an emoji's image, sent as a data URI the description types as a plain string
IS_COMPONENTS_V2 = 1 << 15

# -- application commands --------------------------------------------------------------------------------
# A CHAT_INPUT name (and each localized name) matches this and is lower case where the script has case: the
# API reference states it in prose; the description bounds only the length.
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")

INVALID_FORM_BODY = 50035
EMPTY_MESSAGE = 50006
ENTITY_TOO_LARGE = 40005

Errors = dict[str, Any]


def invalid_form_body(errors: Errors) -> dict[str, Any]:
    """The JSON body Discord answers a refused form with (HTTP 400)."""
    return {"code": INVALID_FORM_BODY, "errors": errors, "message": "Invalid Form Body"}


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


def _add(errors: Errors, path: Iterable[str | int], code: str, message: str) -> None:
    node = errors
    for part in path:
        node = node.setdefault(str(part), {})
    node.setdefault("_errors", []).append({"code": code, "message": message})


def _embed_text(embed: Mapping[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "") + len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def message_errors(body: Mapping[str, Any] | None, *, file_sizes: Iterable[int] = ()) -> Errors:
    """What Discord refuses in a message body (a channel send, an edit, an interaction response's data, a
    followup) beyond its description. {} when it would take it. `file_sizes`: the files uploaded with it."""
    errors: Errors = {}
    body = body or {}
    content = body.get("content")
    if isinstance(content, str) and len(content) > CONTENT_MAX:
        _add(errors, ("content",), "BASE_TYPE_MAX_LENGTH", f"Must be {CONTENT_MAX} or fewer in length.")
    embeds = [e for e in body.get("embeds") or [] if isinstance(e, Mapping)]
    if sum(_embed_text(e) for e in embeds) > EMBED_TOTAL_MAX:
        _add(errors, ("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")
    if not int(body.get("flags") or 0) & IS_COMPONENTS_V2:
        rows = body.get("components") or []
        if len(rows) > ACTION_ROWS_MAX:
            _add(errors, ("components",), "BASE_TYPE_MAX_LENGTH", f"Must be {ACTION_ROWS_MAX} or fewer in length.")
        for i, row in enumerate(rows):
            if isinstance(row, Mapping) and row.get("type") != 1:
                _add(errors, ("components", i), "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).')
    if len(list(file_sizes)) > ATTACHMENTS_MAX:
        _add(errors, ("attachments",), "BASE_TYPE_MAX_LENGTH", f"Must be {ATTACHMENTS_MAX} or fewer in length.")
    return errors


def is_empty_message(body: Mapping[str, Any] | None, files: int = 0) -> bool:
    """A new message with nothing to show (Discord: 50006 Cannot send an empty message): "at least one of"
    several optional fields, which the description leaves optional each."""
    body = body or {}
    return not (body.get("content") or body.get("embeds") or body.get("components") or body.get("sticker_ids")
                or body.get("poll") or files)


def upload_errors(file_sizes: Iterable[int], limit: int = UPLOAD_LIMIT) -> bool:
    """True when a file is over the upload limit (Discord answers 413 / 40005)."""
    return any(size > limit for size in file_sizes)


def interaction_response_errors(body: Mapping[str, Any] | None, *, file_sizes: Iterable[int] = ()) -> Errors:
    """An interaction callback: {"type": 4, "data": {...message...}}; the message errors sit under "data"."""
    body = body or {}
    if body.get("type") in (4, 7):
        inner = message_errors(body.get("data") or {}, file_sizes=file_sizes)
        return {"data": inner} if inner else {}
    return {}


def _names(errors: Errors, at: tuple[str | int, ...], node: Mapping[str, Any]) -> None:
    name = node.get("name")
    if isinstance(name, str) and (not COMMAND_NAME.fullmatch(name) or name != name.lower()):
        _add(errors, (*at, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    for locale, value in (node.get("name_localizations") or {}).items():
        if isinstance(value, str) and (not COMMAND_NAME.fullmatch(value) or value != value.lower()):
            _add(errors, (*at, "name_localizations", locale), "APPLICATION_COMMAND_INVALID_NAME",
                 "Command name is invalid")
    for i, sub in enumerate(node.get("options") or []):
        if isinstance(sub, Mapping) and sub.get("type") in (1, 2):  # subcommands and groups are named alike
            _names(errors, (*at, "options", i), sub)
        elif isinstance(sub, Mapping):
            _names(errors, (*at, "options", i), {k: v for k, v in sub.items() if k != "options"})


def commands_errors(commands: Any) -> Errors:
    """A bulk overwrite of application commands (PUT .../commands): names unique per command type (a rule
    across the list's items) and chat-input names in Discord's name pattern."""
    errors: Errors = {}
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands or []):
        if not isinstance(cmd, Mapping):
            continue
        ctype = int(cmd.get("type") or 1)
        key = (ctype, str(cmd.get("name")))
        if key in seen:
            _add(errors, (i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME",
                 f"Application command names must be unique ({key[1]})")
        seen.add(key)
        if ctype == 1:
            _names(errors, (i,), cmd)
    return errors
