"""Every Discord side effect of the bot, behind wrappers that never raise for Discord's answers.

A table must keep running when one send fails: a player closed their DMs, a moderator deleted the board, an
interaction token expired, Discord had a bad second. Each wrapper here does one API call, logs a failure with
enough context to find it, and returns None/False instead of raising. Callers decide what a failure means
(e.g. a refused DM -> tell the player to use the "My hand" button).

Modelled on lexicalunit/spellbot's `operations` module. Only discord.py's own error types and transport
errors are caught; a bug in our code (TypeError, ValueError from a bad argument) still raises.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
import discord

from cogs.ratelimit import GlobalRateLimiter, RateLimiter
from cogs.telemetry import COUNTS

logger = logging.getLogger(__name__)

T = TypeVar("T")

# What Discord (or the way to it) may answer with. Forbidden and NotFound are HTTPException subclasses.
DISCORD_ERRORS = (discord.HTTPException, aiohttp.ClientError, TimeoutError)

CANNOT_DM_CODES = frozenset({50007, 50278})  # cannot send messages to this user / no mutual guilds
# The channel is gone or the bot may no longer use it: unknown channel / missing access / missing permissions.
CHANNEL_LOST_CODES = frozenset({10003, 50001, 50013})

# The error of the last wrapper call that failed in this task (None after a success): callers that must tell
# one failure from another (a channel that is gone) read it with `last_failure()` right after a None answer.
_last_failure: contextvars.ContextVar[BaseException | None] = contextvars.ContextVar("kwx_last_failure",
                                                                                   default=None)


def channel_lost(exc: BaseException | None) -> bool:
    """Discord said the channel is gone (10003) or the bot may no longer see or post in it (50001, 50013)."""
    return isinstance(exc, discord.HTTPException) and exc.code in CHANNEL_LOST_CODES


def last_failure() -> BaseException | None:
    """The error of the latest failed call made by a wrapper in this task, or None if it succeeded."""
    return _last_failure.get()


# -- what a failure means, as Discord means it ------------------------------------------------------------
# Waits before each retry of a call that failed for a passing reason (a 5xx, a timeout, a dropped connection).
# discord.py already retries 500/502/504 a few times inside one call; these are on top, across calls.
RETRY_DELAYS: tuple[float, ...] = (1.0, 3.0)


def dms_closed(exc: BaseException | None) -> bool:
    """Only this means a player's DMs are closed: Forbidden 50007 (cannot send messages to this user) or 50278
    (no mutual guild). A 5xx, a timeout or another refusal says nothing about the player's settings."""
    return isinstance(exc, discord.Forbidden) and exc.code in CANNOT_DM_CODES


def message_gone(exc: BaseException | None) -> bool:
    """The message was deleted (10008 Unknown Message): post it again rather than edit it."""
    return isinstance(exc, discord.NotFound) and exc.code == 10008


def transient(exc: BaseException | None) -> bool:
    """A failure that may pass: Discord's 5xx, a timeout, a dropped or refused connection, or a 429 that
    outlasted discord.py's own retries (a storm of them). Worth retrying; never "DMs closed"."""
    if isinstance(exc, discord.HTTPException):
        return exc.status >= 500 or exc.status == 429
    return isinstance(exc, (aiohttp.ClientError, TimeoutError, ConnectionError))


async def _retrying(action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T:
    """Run `action`; on a transient failure wait and try again (RETRY_DELAYS), then raise the last error."""
    for delay in RETRY_DELAYS:
        try:
            return await action()
        except DISCORD_ERRORS as e:
            if not transient(e):
                raise
            logger.info("discord failed to %s (%r); trying again in %.1fs", what % args, e, delay)
        await asyncio.sleep(delay)
    return await action()


def _retryable(kwargs: dict[str, Any]) -> bool:
    """A call with files cannot be repeated as is (discord.py closes them after sending): the caller retries."""
    return not (kwargs.get("file") or kwargs.get("files"))

# The bot-wide limiter for calls that count toward Discord's global rate limit; None = no limiting (tests and
# benchmarks). Interaction responses, followups and original-response edits do not count and are never limited.
_rate_limiter: RateLimiter | None = None
# Opening a DM channel (POST /users/@me/channels) has a bucket of its own at Discord, 10 a second for the whole
# bot: at the first deal of many tables the opens are paced under it, each taking its global token just before it
# goes (a call that waited in discord.py behind that bucket's 429 had taken its token long before, and the calls
# released together drew global 429s).
DM_OPENS_PER_SECOND = 8.0
_dm_opens: GlobalRateLimiter | None = None


def set_rate_limiter(limiter: RateLimiter | None) -> None:
    """Install (or, with None, remove) the limiter every non-interaction REST call waits on."""
    global _rate_limiter, _dm_opens
    _rate_limiter = limiter
    _dm_opens = None if limiter is None else GlobalRateLimiter(DM_OPENS_PER_SECOND, burst=2, reserve=0)


def rate_limit_tokens() -> float | None:
    """Tokens left in the bot's REST budget now (None without a limiter): for metrics."""
    return _rate_limiter.tokens if _rate_limiter is not None else None


async def wait_for_limit(urgent: bool) -> None:
    """Wait for a token. Urgent: what a player waits for (DM prompts, result posts); others: board edits.
    A caller that takes its token first (then passes `token_taken=True`) can render what it sends after the
    wait, so a board edit that queued behind others shows the newest state rather than the one it queued with."""
    if _rate_limiter is not None:
        await _rate_limiter.acquire(urgent)


async def _call(action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T | None:
    _last_failure.set(None)
    try:
        return await action()
    except discord.Forbidden as e:
        _last_failure.set(e)
        logger.info("discord refused to %s: %s", what % args, e)
    except discord.NotFound as e:
        _last_failure.set(e)
        logger.info("discord could not %s, it is gone: %s", what % args, e)
    except DISCORD_ERRORS as e:
        _last_failure.set(e)
        logger.warning("discord failed to %s: %r", what % args, e)
    return None


# -- channels and DMs -------------------------------------------------------------------------------------
async def safe_send_channel(channel: discord.abc.Messageable, *, urgent: bool = True,
                            **kwargs: Any) -> discord.Message | None:
    """Post in a channel (or thread). None when the bot may not post there or the channel is gone. `urgent`
    False: nobody waits on it (a dealt hand with nothing asked yet), it leaves the reserve to those who do."""
    await wait_for_limit(urgent=urgent)
    cid = getattr(channel, "id", channel)
    if _retryable(kwargs):
        return await _call(lambda: _retrying(lambda: channel.send(**kwargs), "send to channel %s", cid),
                           "send to channel %s", cid)
    return await _call(lambda: channel.send(**kwargs), "send to channel %s", cid)


async def safe_send_dm(user: discord.User | discord.Member, *, urgent: bool = True,
                       **kwargs: Any) -> discord.Message | None:
    """DM a player. None when their DMs are closed (Forbidden 50007/50278: `dms_closed(last_failure())`) or the
    send failed for another reason (a 5xx or a timeout is retried first).

    Closed DMs are normal, not an error: they are logged at INFO."""
    _last_failure.set(None)
    try:
        if getattr(user, "dm_channel", None) is None:  # the first DM opens the DM channel: a request of its own
            if _dm_opens is not None:
                await _dm_opens.acquire(True)
            await wait_for_limit(urgent=urgent)
            create_dm = getattr(user, "create_dm", None)  # a User or a Member (the abc does not name it)
            if create_dm is not None:
                await create_dm()
        await wait_for_limit(urgent=urgent)
        if _retryable(kwargs):
            return await _retrying(lambda: user.send(**kwargs), "DM user %s", user.id)
        return await user.send(**kwargs)
    except discord.Forbidden as e:
        _last_failure.set(e)
        if e.code in CANNOT_DM_CODES:
            COUNTS.dm_refusals += 1
            logger.info("user %s does not accept DMs: %s", user.id, e)
        else:
            logger.warning("discord refused a DM to user %s: %s", user.id, e)
    except DISCORD_ERRORS as e:
        _last_failure.set(e)
        logger.warning("discord failed to DM user %s: %r", user.id, e)
    return None


async def safe_edit(
    message: discord.Message | discord.PartialMessage | discord.InteractionMessage, *, urgent: bool = False,
    token_taken: bool = False, **kwargs: Any
) -> discord.Message | None:
    """Edit a message we sent. None when it was deleted (`message_gone(last_failure())`) or the edit failed (a
    5xx or a timeout is retried first). `urgent`: the edit asks a player something (it waits like a prompt);
    `token_taken`: the caller already waited for the limit (`wait_for_limit`)."""
    if not token_taken:
        await wait_for_limit(urgent=urgent)
    if _retryable(kwargs):
        return await _call(lambda: _retrying(lambda: message.edit(**kwargs), "edit message %s", message.id),
                           "edit message %s", message.id)
    return await _call(lambda: message.edit(**kwargs), "edit message %s", message.id)


async def safe_fetch_message(channel: discord.abc.Messageable, message_id: int) -> discord.Message | None:
    """Find a message again after a restart (e.g. a table's board)."""
    await wait_for_limit(urgent=False)
    return await _call(lambda: channel.fetch_message(message_id), "fetch message %s", message_id)


async def safe_fetch_channel(client: discord.Client, channel_id: int) -> Any | None:
    """A channel from the cache, else from the API."""
    channel = client.get_channel(channel_id)
    if channel is not None:
        return channel
    await wait_for_limit(urgent=False)
    return await _call(lambda: client.fetch_channel(channel_id), "fetch channel %s", channel_id)


async def safe_fetch_user(client: discord.Client, user_id: int) -> discord.User | None:
    """A user from the cache, else from the API."""
    user = client.get_user(user_id)
    if user is not None:
        return user
    await wait_for_limit(urgent=False)
    return await _call(lambda: client.fetch_user(user_id), "fetch user %s", user_id)


# -- interactions ---------------------------------------------------------------------------------------
async def safe_defer(
    interaction: discord.Interaction, *, ephemeral: bool = False, thinking: bool = False
) -> bool:
    """Acknowledge within Discord's 3 seconds. False when it was already answered or the token expired."""
    if interaction.response.is_done():
        return False
    try:
        await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
        return True
    except discord.InteractionResponded:
        return False
    except DISCORD_ERRORS as e:
        logger.info("could not defer interaction %s of user %s: %r", interaction.id, interaction.user.id, e)
        return False


async def safe_respond(interaction: discord.Interaction, **kwargs: Any) -> bool:
    """Answer an interaction: the response if there is none yet, else a followup. Pass ephemeral=True for a
    private reply (errors, hands). False when Discord did not take it."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs)
        else:
            await interaction.response.send_message(**kwargs)
        return True
    except discord.InteractionResponded:  # answered concurrently between the check and the call
        return await safe_followup(interaction, **kwargs) is not None
    except DISCORD_ERRORS as e:
        logger.info("could not answer interaction %s of user %s: %r", interaction.id, interaction.user.id, e)
        return False


async def safe_followup(interaction: discord.Interaction, **kwargs: Any) -> discord.WebhookMessage | None:
    """A followup (after a response or a defer). None when the token expired or nothing was answered."""
    return await _call(
        lambda: interaction.followup.send(wait=True, **kwargs),
        "send followup for interaction %s",
        interaction.id,
    )


async def safe_edit_followup(interaction: discord.Interaction, message_id: int,
                             **kwargs: Any) -> discord.WebhookMessage | None:
    """Edit a followup message of the interaction through its token (exempt from the global limit)."""
    return await _call(
        lambda: interaction.followup.edit_message(message_id, **kwargs),
        "edit followup %s of interaction %s",
        message_id,
        interaction.id,
    )


async def safe_update_message(interaction: discord.Interaction, **kwargs: Any) -> bool:
    """Edit the message whose button was pressed, as the interaction's response (e.g. disable the buttons).
    Falls back to editing the original response when the interaction was already answered."""
    try:
        if interaction.response.is_done():
            await interaction.edit_original_response(**kwargs)
        else:
            await interaction.response.edit_message(**kwargs)
        return True
    except discord.InteractionResponded:
        return await safe_edit_original(interaction, **kwargs) is not None
    except DISCORD_ERRORS as e:
        logger.info("could not update the message of interaction %s: %r", interaction.id, e)
        return False


async def safe_original_response(interaction: discord.Interaction) -> discord.InteractionMessage | None:
    """The message the interaction's response created (or, for a button, the message it sits on)."""
    return await _call(
        interaction.original_response, "fetch original response of interaction %s", interaction.id
    )


async def safe_edit_original(
    interaction: discord.Interaction, **kwargs: Any
) -> discord.InteractionMessage | None:
    """Edit the interaction's original response (e.g. fill in a deferred 'thinking' message)."""
    return await _call(
        lambda: interaction.edit_original_response(**kwargs),
        "edit original response of interaction %s",
        interaction.id,
    )
