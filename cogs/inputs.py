"""What members type and what buttons carry, checked on our side: one function per kind of value, each refusing
what does not fit instead of raising.

discord.py does not enforce an option's `Range`, `choices`, `max_length` or a group's `guild_only` on the
interactions it receives (Discord's client does, but anything can send an interaction payload), so every command
checks its options itself and refuses with a private, clear message. A button's custom id is parsed field by
field the same way; an id that does not parse was not made by us, and its press is ignored (cogs.buttons).

    amount = whole_number(value, 1, 100_000)    # an integer option: None unless an int in range (not 1.9, NaN, True)
    table = id_number(field)                     # a number in a custom id: ASCII digits, bounded, else None
    tile = id_tile(field)                        # a tile as the bot writes it ("5p"), else None
    text = safe_text(note)                       # markdown and mentions escaped: typed text shown as typed
    short = excerpt(value)                       # a short one-line escaped excerpt of what was typed, for refusals
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import discord
from discord import app_commands

from kwx.engine.tiles import ALL_TILES, Tile
from kwx.present.i18n import catalog

T = TypeVar("T")

# Longest text each kind of string option takes (also given to Discord as the option's max_length).
NOTE_MAX = 200  # a pay/record note, an undo reason
TILES_MAX = 60  # a hand or melds in tile notation ("123m456p789s11z" is 15)
TILE_MAX = 8  # one tile ("5m", "东")
NAME_MAX = 32  # a seat or table name
EXCERPT = 24  # characters of typed text a refusal echoes


def safe_text(text: str, limit: int | None = None) -> str:
    """Free text a member typed, shown as typed on one line: markdown (``` included) and mentions escaped,
    cut to `limit` characters with "…"."""
    flat = " ".join(str(text).split())
    if limit is not None and len(flat) > limit:
        flat = flat[:max(1, limit - 1)] + "…"
    return discord.utils.escape_mentions(discord.utils.escape_markdown(flat))


def excerpt(text: Any, limit: int = EXCERPT) -> str:
    """A short escaped excerpt of what was typed, for a reply that says what was wrong with it."""
    return safe_text(str(text), limit)


def member_key(interaction: discord.Interaction) -> tuple[int | None, int]:
    """Per-member limits count per server: `app_commands.checks.cooldown(..., key=member_key)`."""
    return (interaction.guild_id, interaction.user.id)


# -- option values, one function per kind: the value, or None when it is not of that kind or out of range ------
def whole_number(value: Any, lo: int | None = None, hi: int | None = None) -> int | None:
    """An integer option: an int (not a bool, not a float such as 1.9 or NaN) in [lo, hi]."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return None
    return value


def finite_number(value: Any, lo: float | None = None, hi: float | None = None) -> float | None:
    """A number option: an int or float that is finite (not NaN or ∞) and in [lo, hi]."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return None
    return value


def server_member(value: Any) -> discord.Member | None:
    """A user option of a server command: the member (a user who is not in the server, or an id Discord sent
    without member data, is not one)."""
    return value if isinstance(value, discord.Member) else None


def not_a_choice(value: Any, choices: Iterable[Any]) -> bool:
    """Whether `value` is not one of `choices` (app_commands.Choice objects or plain values)."""
    allowed = {getattr(c, "value", c) for c in choices}
    return value not in allowed


def too_long(value: str | None, limit: int) -> bool:
    return value is not None and len(value) > limit


# -- a custom id's fields, one function per kind: the value, or None when the field is not one we write ------
DISCORD_INT_LIMIT = 2**53 - 1
ID_MAX = DISCORD_INT_LIMIT  # our own numbers in a custom id (a table, hand, step): no more than an option carries
SNOWFLAKE_MAX = 2**64 - 1  # a Discord id (the member a pager belongs to)
_COMPACT_TILES = {tile.compact: tile for tile in ALL_TILES}


def id_number(field: str, hi: int = ID_MAX) -> int | None:
    """A number 0..hi in ASCII digits. Anything else is None: a sign, a space, other scripts' digits (which
    int() reads), more digits than `hi` has (never int() of thousands of digits, which Python refuses)."""
    if not field or len(field) > len(str(hi)) or not (field.isascii() and field.isdigit()):
        return None
    value = int(field)
    return value if value <= hi else None


def id_tile(field: str) -> Tile | None:
    """A tile as the bot writes it in a custom id: its compact form ("5p", "7z"), and no other spelling."""
    return _COMPACT_TILES.get(field)


def id_word(field: str, words: Collection[str]) -> str | None:
    """One of the words this field may be (a verb, yes/no)."""
    return field if field in words else None


def id_token(field: str, pattern: re.Pattern[str]) -> str | None:
    """A free field (a request id, a pager's argument) when the whole of it matches `pattern`."""
    return field if pattern.fullmatch(field) else None


# -- every option of a command, checked against what it declares ---------------------------------------------


class InputRefused(app_commands.CheckFailure):
    """A command refused what was typed; the member has already been told privately."""


@dataclass(frozen=True)
class Refusal:
    """Why typed options were refused: a catalog key and its format values."""

    key: str
    fmt: dict[str, Any]


def checks_itself(*options: str) -> Callable[[T], T]:
    """Mark a command callback (put it below `@app_commands.command`) as checking these options itself, with
    its own words; `check_interaction` then leaves them to it."""
    def mark(func: T) -> T:
        func.__kwx_checks_itself__ = frozenset(options)  # type: ignore[attr-defined]
        return func
    return mark


def check_interaction(interaction: discord.Interaction, lang: str | None = None) -> Refusal | None:
    """The first thing wrong with a slash command's interaction, or None: a server-only command used outside
    a server, or an option outside its declared range, length or choices (discord.py enforces none of these
    on what it receives). Refusals name the option as the member's client shows it in `lang`."""
    command = interaction.command
    if interaction.guild_id is None and _guild_only(command):
        return Refusal("input.guild_only", {})
    if not isinstance(command, app_commands.Command):
        return None
    skip: frozenset[str] = getattr(command.callback, "__kwx_checks_itself__", frozenset())
    namespace = interaction.namespace
    for param in command.parameters:
        value = getattr(namespace, param.display_name, None)
        if value is None or param.name in skip:
            continue
        refusal = check_option(param, value, option_name(command, param, lang))
        if refusal is not None:
            return refusal
    return None


def option_name(command: app_commands.Command[Any, ..., Any], param: app_commands.Parameter, lang: str | None) -> str:
    """The option's name as Discord shows it in `lang` (the catalog's `cmdname.<command>.<option>`)."""
    if lang is not None:
        path = ".".join(command.qualified_name.split()[1:]) or command.name
        found = catalog().messages.get(lang, {}).get(f"cmdname.{path}.{param.name}")
        if found:
            return found
    return param.display_name


def check_option(param: app_commands.Parameter, value: Any, option: str | None = None) -> Refusal | None:
    """Whether one option's value fits what the parameter declares (type, range, length, choices)."""
    option = option or param.display_name
    kind = param.type
    if kind is discord.AppCommandOptionType.integer:
        lo = -DISCORD_INT_LIMIT if param.min_value is None else int(param.min_value)
        hi = DISCORD_INT_LIMIT if param.max_value is None else int(param.max_value)
        if whole_number(value, lo, hi) is None:
            return Refusal("input.range", {"option": option, "lo": lo, "hi": hi, "value": excerpt(value)})
    elif kind is discord.AppCommandOptionType.number:
        if finite_number(value, param.min_value, param.max_value) is None:
            low: float | str = "-∞" if param.min_value is None else param.min_value
            high: float | str = "∞" if param.max_value is None else param.max_value
            return Refusal("input.range", {"option": option, "lo": low, "hi": high, "value": excerpt(value)})
    elif kind is discord.AppCommandOptionType.user:
        if server_member(value) is None:
            return Refusal("input.not_member", {"option": option})
    elif kind is discord.AppCommandOptionType.string:
        if not isinstance(value, str):
            return Refusal("input.type", {"option": option, "value": excerpt(value)})
        if param.max_value is not None and len(value) > param.max_value:
            return Refusal("input.too_long", {"option": option, "max": int(param.max_value), "length": len(value)})
        if param.min_value is not None and len(value) < param.min_value:
            return Refusal("input.too_short", {"option": option, "min": int(param.min_value)})
    elif kind is discord.AppCommandOptionType.boolean and not isinstance(value, bool):
        return Refusal("input.type", {"option": option, "value": excerpt(value)})
    if param.choices and not_a_choice(value, param.choices):
        return Refusal("input.choice", {"option": option, "value": excerpt(value),
                                        "choices": ", ".join(str(c.value) for c in param.choices)})
    return None


def _guild_only(command: Any) -> bool:
    """Whether the command (or a group it is in) is server-only."""
    while command is not None:
        if getattr(command, "guild_only", False):
            return True
        command = getattr(command, "parent", None)
    return False
