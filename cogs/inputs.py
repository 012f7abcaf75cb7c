"""What members type, checked on our side and shown back safely.

discord.py does not enforce an option's `Range`, `choices`, `max_length` or a group's `guild_only` on the
interactions it receives (Discord's client does, but anything can send an interaction payload), so every command
checks its options itself and refuses with a private, clear message. The helpers here keep those checks and
the way typed text is echoed the same in every cog:

    text = safe_text(note)           # markdown and mentions escaped: typed text shown as typed, never formatting
    short = excerpt(value)           # a short one-line escaped excerpt of what was typed, for refusals
    bad = out_of_range(base, 1, 100_000)   # None when fine, else the (lo, hi) the value must fit
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import discord
from discord import app_commands

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


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def out_of_range(value: Any, lo: int | None, hi: int | None) -> tuple[int | None, int | None] | None:
    """None when `value` is an int in [lo, hi] (either bound may be None), else the bounds it must fit."""
    if is_int(value) and (lo is None or value >= lo) and (hi is None or value <= hi):
        return None
    return (lo, hi)


def not_a_choice(value: Any, choices: Iterable[Any]) -> bool:
    """Whether `value` is not one of `choices` (app_commands.Choice objects or plain values)."""
    allowed = {getattr(c, "value", c) for c in choices}
    return value not in allowed


def too_long(value: str | None, limit: int) -> bool:
    return value is not None and len(value) > limit


# -- every option of a command, checked against what it declares ---------------------------------------------
DISCORD_INT_LIMIT = 2**53 - 1


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
    skip = getattr(command.callback, "__kwx_checks_itself__", frozenset())
    namespace = interaction.namespace
    for param in command.parameters:
        value = getattr(namespace, param.display_name, None)
        if value is None or param.name in skip:
            continue
        refusal = check_option(param, value, option_name(command, param, lang))
        if refusal is not None:
            return refusal
    return None


def option_name(command: app_commands.Command, param: app_commands.Parameter, lang: str | None) -> str:
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
        if out_of_range(value, lo, hi) is not None:
            return Refusal("input.range", {"option": option, "lo": lo, "hi": hi, "value": excerpt(value)})
    elif kind is discord.AppCommandOptionType.number:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or (param.min_value is not None and value < param.min_value) or (
                param.max_value is not None and value > param.max_value):
            lo = "-∞" if param.min_value is None else param.min_value
            hi = "∞" if param.max_value is None else param.max_value
            return Refusal("input.range", {"option": option, "lo": lo, "hi": hi, "value": excerpt(value)})
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
