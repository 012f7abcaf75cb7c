"""Errors Discord sends back, as discord.py raises them: for a test to inject (`FakeDiscord.inject`)."""

from __future__ import annotations

from typing import Any

import discord


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


