"""Every Discord side effect of the bot, behind wrappers that never raise for Discord's answers.

A table must keep running when one send fails: a player closed their DMs, a moderator deleted the board, an
interaction token expired, Discord had a bad second. Each wrapper here does one API call, logs a failure with
enough context to find it, and returns None/False instead of raising. Callers decide what a failure means
(e.g. a refused DM -> tell the player to use the "My hand" button).

Modelled on lexicalunit/spellbot's `operations` module. Only discord.py's own error types and transport
errors are caught; a bug in our code (TypeError, ValueError from a bad argument) still raises.

Calls made with the bot's token count toward Discord's global limit: they are the methods of `Rest`, which takes
a token of the bot's `Budget` (cogs.ratelimit) first, by the call's priority; the composition root makes the one
`Rest` of the bot and hands it to what sends. What goes through an interaction's token (responses, followups,
edits of an original response) is exempt and never waits: those are the functions below it. A `Rest` call that
fails returns a `Failed` carrying Discord's error, which says what failed (`dms_closed`, `channel_lost`,
`message_gone`, `transient`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiohttp
import discord

from cogs.ratelimit import Budget, GlobalRateLimiter, Priority

logger = logging.getLogger(__name__)

T = TypeVar("T")

# What Discord (or the way to it) may answer with. Forbidden and NotFound are HTTPException subclasses.
DISCORD_ERRORS = (discord.HTTPException, aiohttp.ClientError, TimeoutError)

CANNOT_DM_CODES = frozenset({50007, 50278})  # cannot send messages to this user / no mutual guilds
# The channel is gone or the bot may no longer use it: unknown channel / missing access / missing permissions.
CHANNEL_LOST_CODES = frozenset({10003, 50001, 50013})


@dataclass(frozen=True)
class Failed:
    """What a `Rest` call returns when Discord (or the way to it) did not take it: the error it answered."""

    error: BaseException


def _error(failure: Failed | BaseException | None) -> BaseException | None:
    return failure.error if isinstance(failure, Failed) else failure


def channel_lost(failure: Failed | BaseException | None) -> bool:
    """Discord said the channel is gone (10003) or the bot may no longer see or post in it (50001, 50013)."""
    exc = _error(failure)
    return isinstance(exc, discord.HTTPException) and exc.code in CHANNEL_LOST_CODES


# -- what a failure means, as Discord means it ------------------------------------------------------------
# Waits before each retry of a call that failed for a passing reason (a 5xx, a timeout, a dropped connection).
# discord.py already retries 500/502/504 a few times inside one call; these are on top, across calls.
RETRY_DELAYS: tuple[float, ...] = (1.0, 3.0)


def dms_closed(failure: Failed | BaseException | None) -> bool:
    """Only this means a player's DMs are closed: Forbidden 50007 (cannot send messages to this user) or 50278
    (no mutual guild). A 5xx, a timeout or another refusal says nothing about the player's settings."""
    exc = _error(failure)
    return isinstance(exc, discord.Forbidden) and exc.code in CANNOT_DM_CODES


def message_gone(failure: Failed | BaseException | None) -> bool:
    """The message was deleted (10008 Unknown Message): post it again rather than edit it."""
    exc = _error(failure)
    return isinstance(exc, discord.NotFound) and exc.code == 10008


def transient(failure: Failed | BaseException | None) -> bool:
    """A failure that may pass: Discord's 5xx, a timeout, a dropped or refused connection, or a 429 that
    outlasted discord.py's own retries (a storm of them). Worth retrying; never "DMs closed"."""
    exc = _error(failure)
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


# Opening a DM channel (POST /users/@me/channels) has a bucket of its own at Discord, 10 a second for the whole
# bot: at the first deal of many tables the opens are paced under it, each taking its global token just before it
# goes (a call that waited in discord.py behind that bucket's 429 had taken its token long before, and the calls
# released together drew global 429s).
DM_OPENS_PER_SECOND = 8.0


async def _attempt(action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T | Failed:
    try:
        return await action()
    except discord.Forbidden as e:
        logger.info("discord refused to %s: %s", what % args, e)
        return Failed(e)
    except discord.NotFound as e:
        logger.info("discord could not %s, it is gone: %s", what % args, e)
        return Failed(e)
    except DISCORD_ERRORS as e:
        logger.warning("discord failed to %s: %r", what % args, e)
        return Failed(e)


async def _call(action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T | None:
    done = await _attempt(action, what, *args)
    return None if isinstance(done, Failed) else done


# -- the bot token's calls ----------------------------------------------------------------------------------
@dataclass
class DiscordCounts:
    """What one bot's requests met at Discord, for its /metrics (cogs.telemetry): fed by its session's HTTP trace
    (`http_trace`) and by its `Rest`."""

    requests: Counter[str] = field(default_factory=Counter)  # scope -> REST calls
    rate_limited: Counter[str] = field(default_factory=Counter)  # X-RateLimit-Scope -> 429 answers
    dm_refusals: int = 0


class Rest:
    """Every REST call of the bot's own token, each after a token of its budget (`Priority`: a prompt before a
    post before a board edit or a lookup). One per bot; `Rest()` has a budget without a limit (tests)."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget if budget is not None else Budget(None)
        self._token_calls: dict[str, asyncio.Event] = {}  # interaction token -> set on Discord's first 5xx
        self.counts = DiscordCounts()  # this bot's requests, 429s and refused DMs (its session's trace adds to it)
        self._dm_opens = GlobalRateLimiter(DM_OPENS_PER_SECOND, burst=2, reserve=0)

    async def _sending(self, action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T | Failed:
        with self.budget.sending():
            return await _attempt(action, what, *args)

    async def _fetching(self, action: Callable[[], Awaitable[T]], what: str, *args: Any) -> T | None:
        with self.budget.sending():
            return await _call(action, what, *args)

    def server_error(self, path: str) -> None:
        """Discord answered a request on `path` with a 5xx (from discord.py's session trace)."""
        for token, failed in self._token_calls.items():
            if token in path:
                failed.set()

    async def through_token(self, interaction: discord.Interaction, action: Callable[[], Awaitable[T]],
                            what: str, *args: Any) -> T | None:
        """A call through an interaction's token (exempt from the budget) that gives up on Discord's first 5xx:
        discord.py would try again for about 25 s (five tries), past a claim window, while the caller can fall
        back to the bot's own token at once. None when it failed."""
        failed = self._token_calls[interaction.token] = asyncio.Event()
        call = asyncio.ensure_future(_call(action, what, *args))
        first_error = asyncio.ensure_future(failed.wait())
        try:
            await asyncio.wait((call, first_error), return_when=asyncio.FIRST_COMPLETED)
        finally:
            first_error.cancel()
            if self._token_calls.get(interaction.token) is failed:
                del self._token_calls[interaction.token]
        if call.done():
            return call.result()
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        logger.info("discord failed to %s (5xx): not waiting for its retries", what % args)
        return None

    async def wait(self, priority: Priority) -> None:
        """Wait for a token. A caller that takes its token first (then passes `token_taken=True`) can render
        what it sends after the wait, so a board edit that queued behind others shows the newest state rather
        than the one it queued with."""
        await self.budget.take(priority)

    async def send_channel(self, channel: discord.abc.Messageable, *, priority: Priority = Priority.POST,
                           **kwargs: Any) -> discord.Message | Failed:
        """Post in a channel (or thread); a prompt (a DM channel we know) passes `Priority.PROMPT`."""
        await self.wait(priority)
        cid = getattr(channel, "id", channel)
        if _retryable(kwargs):
            return await self._sending(lambda: _retrying(lambda: channel.send(**kwargs), "send to channel %s", cid),
                                  "send to channel %s", cid)
        return await self._sending(lambda: channel.send(**kwargs), "send to channel %s", cid)

    async def send_dm(self, user: discord.User | discord.Member, *, priority: Priority = Priority.PROMPT,
                      **kwargs: Any) -> discord.Message | Failed:
        """DM a player. Failed with `dms_closed` when their DMs are closed (Forbidden 50007/50278), or with what
        else went wrong (a 5xx or a timeout is retried first). Closed DMs are normal: logged at INFO."""
        try:
            if getattr(user, "dm_channel", None) is None:  # the first DM opens the DM channel: a request of its own
                if self.budget.limiter is not None:
                    await self._dm_opens.acquire(True)
                await self.wait(priority)
                create_dm = getattr(user, "create_dm", None)  # a User or a Member (the abc does not name it)
                if create_dm is not None:
                    await create_dm()
            await self.wait(priority)
            with self.budget.sending():
                if _retryable(kwargs):
                    return await _retrying(lambda: user.send(**kwargs), "DM user %s", user.id)
                return await user.send(**kwargs)
        except discord.Forbidden as e:
            if e.code in CANNOT_DM_CODES:
                self.counts.dm_refusals += 1
                logger.info("user %s does not accept DMs: %s", user.id, e)
            else:
                logger.warning("discord refused a DM to user %s: %s", user.id, e)
            return Failed(e)
        except DISCORD_ERRORS as e:
            logger.warning("discord failed to DM user %s: %r", user.id, e)
            return Failed(e)

    async def edit(self, message: discord.Message | discord.PartialMessage | discord.InteractionMessage, *,
                   priority: Priority = Priority.BOARD, token_taken: bool = False,
                   **kwargs: Any) -> discord.Message | Failed:
        """Edit a message we sent. Failed with `message_gone` when it was deleted (a 5xx or a timeout is retried
        first). `priority`: PROMPT when the edit asks a player something; `token_taken`: the caller already
        waited (`wait`)."""
        if not token_taken:
            await self.wait(priority)
        if _retryable(kwargs):
            return await self._sending(lambda: _retrying(lambda: message.edit(**kwargs), "edit message %s", message.id),
                                  "edit message %s", message.id)
        return await self._sending(lambda: message.edit(**kwargs), "edit message %s", message.id)

    async def fetch_message(self, channel: discord.abc.Messageable, message_id: int) -> discord.Message | None:
        """Find a message again after a restart (e.g. a table's board)."""
        await self.wait(Priority.BOARD)
        return await self._fetching(lambda: channel.fetch_message(message_id), "fetch message %s", message_id)

    async def fetch_channel(self, client: discord.Client, channel_id: int) -> Any | None:
        """A channel from the cache, else from the API."""
        channel = client.get_channel(channel_id)
        if channel is not None:
            return channel
        await self.wait(Priority.BOARD)
        return await self._fetching(lambda: client.fetch_channel(channel_id), "fetch channel %s", channel_id)

    async def fetch_user(self, client: discord.Client, user_id: int, *,
                         priority: Priority = Priority.BOARD) -> discord.User | None:
        """A user from the cache, else from the API (a player about to be prompted: `Priority.PROMPT`)."""
        user = client.get_user(user_id)
        if user is not None:
            return user
        await self.wait(priority)
        return await self._fetching(lambda: client.fetch_user(user_id), "fetch user %s", user_id)


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


def release_interaction(interaction: discord.Interaction) -> None:
    """Done with an interaction for good (answered, and nothing will edit or follow up through its token any
    more): free it at once. discord.py's Interaction and its InteractionResponse point at each other, so a
    dropped press, with the copy of the pressed message, its buttons and users it carries (some fifty
    objects), would wait for the garbage collector's next full pass, which walks everything made since
    start-up: at a hundred tables a stall of half a second. Its response forgets that it was answered."""
    with contextlib.suppress(AttributeError):
        delattr(interaction, "_cs_response")  # discord.utils.cached_slot_property's slot of `response`
    interaction._original_response = None


PRESS_DONE = "kwx_press_done"  # in a press's extras once its handler is done with it


def release_done(presses: list[discord.Interaction], held: Iterable[discord.Interaction | None]
                 ) -> list[discord.Interaction]:
    """The presses still in use: those their handler is done with (PRESS_DONE) and not `held` (edited through
    by a panel) are released."""
    kept = {id(i) for i in held if i is not None}
    in_use = []
    for interaction in presses:
        if id(interaction) in kept or not interaction.extras.get(PRESS_DONE):
            in_use.append(interaction)
        else:
            release_interaction(interaction)
    return in_use


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
