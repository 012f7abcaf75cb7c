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

from collections.abc import Iterable
from typing import Any

import discord

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
