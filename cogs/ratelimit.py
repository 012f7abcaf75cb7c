"""The bot token's REST budget, so the bot stays under Discord's global rate limit (50 requests/s per bot), and
spends it on what players wait for first.

discord.py keeps each route inside its own bucket, but for the global limit it only waits after Discord has
answered 429. With a hundred busy tables the bot would ask for about twice the limit, so every call that counts
toward it first takes a token here (cogs.operations does that).

A token bucket (`GlobalRateLimiter`, or a cluster's shared one): tokens refill continuously at `rate` per second
up to `burst`. In front of it, `Budget` hands the tokens out by `Priority`: a prompt (what a player must answer)
before a post the channel must not lose (a result, a notice), before a board edit or a lookup. It also keeps
what the load looks like: the share of the budget in use, the calls waiting, the oldest waiting prompt (for
/metrics and the log), how often each board may be edited so that every busy table's board fits in what the
prompts and posts leave (`board_interval`), and whether one more table would still fit (`room_for_table`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

logger = logging.getLogger(__name__)

# Refill arithmetic in floats: a sleep of exactly the computed time may come back a rounding error short.
_EPSILON = 1e-9


DISCORD_GLOBAL_LIMIT = 50  # requests per second per bot token (interaction callbacks exempt)
# Calls that took their tokens apart may reach Discord closer together than they took them: a loaded event loop
# renders a few boards, then sends them at once. The budget leaves this many requests a second for that.
SEND_MARGIN = 5
# Where the requests leave, at most this many in any second: a fifth of a second's worth bunched on the way
# (a stalled loop at either end) still arrives under the limit.
SEND_LIMIT = 42


def discord_budget(rate: float, limit: int = DISCORD_GLOBAL_LIMIT) -> tuple[int, int]:
    """The (burst, reserve) that keep `rate` calls/s under `limit` in any one second with SEND_MARGIN to spare:
    a full bucket (`limit - SEND_MARGIN - rate` tokens) plus a second's refill (`rate`) is `limit - SEND_MARGIN`;
    non-urgent calls leave two fifths of the burst to urgent ones. A burst as large as the rate would allow
    nearly twice the limit in one second, which is what Discord answers with global 429s. Every budget of the
    bot token uses this rule (one process's GlobalRateLimiter, a cluster's shared bucket)."""
    ceiling = limit - SEND_MARGIN
    if not 0 < rate < ceiling - 1:
        raise ValueError(f"rate must be in (0, {ceiling - 1}), not {rate}")
    burst = int(ceiling - rate)
    return burst, burst * 2 // 5


class RateLimiter(Protocol):
    """What cogs.operations waits on before a REST call: one process's GlobalRateLimiter, or a cluster's
    kwx.cluster.SharedRateLimiter."""

    @property
    def tokens(self) -> float | None:
        """Tokens left in the budget as this process sees it (metrics)."""

    async def acquire(self, urgent: bool) -> None:
        """Wait for one token; `urgent` calls may take the last ones."""


class GlobalRateLimiter:
    """Token bucket shared by every table. `waited` counts acquires that had to wait, `acquired` all of them.

    `sleep` is for tests that drive a fake `clock`; it must let at least that much clock time pass."""

    @classmethod
    def for_discord(cls, rate: float = 40.0, *, limit: int = DISCORD_GLOBAL_LIMIT, **options: Any) -> GlobalRateLimiter:
        """A bucket that never lets `limit` calls be exceeded in any one second (see `discord_budget`)."""
        burst, reserve = discord_budget(rate, limit)
        return cls(rate, burst=burst, reserve=reserve, **options)

    def __init__(self, rate: float = 45.0, burst: int = 45, reserve: int = 10,
                 clock: Callable[[], float] = time.monotonic, *,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if rate <= 0:
            raise ValueError(f"rate must be positive, not {rate}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, not {burst}")
        if not 0 <= reserve < burst:
            raise ValueError(f"reserve must be in [0, burst), not {reserve} with burst {burst}")
        self.rate = float(rate)
        self.burst = burst
        self.reserve = reserve
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._stamp = clock()
        # One waiter per class sleeps at a time, the rest queue FIFO behind it (no thundering herd).
        self._lines = {True: asyncio.Lock(), False: asyncio.Lock()}
        self._waiting = {True: 0, False: 0}
        self.waited = 0
        self.acquired = 0

    def drain(self) -> None:
        """Empty the bucket: what was sent meanwhile used it up (Discord said so with a global 429)."""
        self._tokens = 0.0
        self._stamp = self._clock()

    @property
    def tokens(self) -> float:
        """Tokens available now (for logs and tests)."""
        self._refill()
        return self._tokens

    def _refill(self) -> None:
        now = self._clock()
        if now > self._stamp:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now

    def _needed(self, urgent: bool) -> float:
        # Non-urgent callers need more than `reserve` tokens, i.e. at least reserve + 1 (they take one).
        return 1.0 if urgent else self.reserve + 1.0

    async def acquire(self, urgent: bool) -> None:
        """Take one token; wait (sleeping, never spinning) until the caller's class may take one."""
        needed = self._needed(urgent)
        self._refill()
        if self._waiting[urgent] == 0 and self._tokens >= needed - _EPSILON:
            self._take()
            return
        self.waited += 1
        self._waiting[urgent] += 1
        try:
            async with self._lines[urgent]:
                while True:
                    self._refill()
                    if self._tokens >= needed - _EPSILON:
                        break
                    await self._sleep((needed - self._tokens) / self.rate)
                self._take()
        finally:
            self._waiting[urgent] -= 1

    def _take(self) -> None:
        self._tokens -= 1.0
        self.acquired += 1


class SendGate:
    """The bot token's last guard, where a request leaves (the HTTP session's trace: cogs.telemetry): at most
    `limit` requests in any `per` seconds, by the time they are sent.

    The budget grants tokens at its rate, but a granted call may leave later: after a stall of the event loop
    (a collection, a busy machine) the calls of the second before go out together with the next second's, and a
    call that waited in one of discord.py's route buckets, or that discord.py tries again after a route's 429,
    leaves when that bucket resets, beside whatever else is leaving. Counted where they leave, none of them can
    make a second hold more than Discord's limit: Discord would answer the surplus with global 429s, and every
    call of the token would wait (`Budget.hold`). SEND_LIMIT leaves room for the way there: calls that leave
    evenly may arrive bunched (a busy loop on either side), and Discord counts them as they arrive."""

    def __init__(self, limit: int = SEND_LIMIT, per: float = 1.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.limit = limit
        self.per = per
        self._clock = clock
        self._sleep = sleep
        self._sent: deque[float] = deque()  # when the requests of the last `per` seconds left
        self._line = asyncio.Lock()  # waiters leave in the order they came
        self.waited = 0  # requests held back here (a burst the budget's grants did not prevent)

    def _room(self) -> bool:
        now = self._clock()
        while self._sent and self._sent[0] <= now - self.per:
            self._sent.popleft()
        if len(self._sent) < self.limit:
            self._sent.append(now)
            return True
        return False

    async def wait(self) -> None:
        """Return when one more request may leave now (and count it)."""
        if not self._line.locked() and self._room():
            return
        self.waited += 1
        async with self._line:
            while not self._room():
                await self._sleep(self._sent[0] + self.per - self._clock() + _EPSILON)


class Priority(enum.IntEnum):
    """Who gets the next token: the lowest value waiting."""

    PROMPT = 0  # a player must answer it (their panel, a DM that asks): never waits behind the board
    POST = 1  # what the channel must not lose: a result, a notice, a hand's first board or DM
    BOARD = 2  # board edits and lookups: whatever budget the others leave


# The load is judged over this many seconds of grants (long enough to smooth a burst of deals, short enough to
# follow tables as they open and close).
WINDOW_S = 20.0
# A board waits at most this long between edits before the budget counts as full: new tables are refused
# rather than stretch every board further (a board edited every 8 s is still followed; 20 s is not).
MAX_BOARD_INTERVAL = 10.0
# What a playing table costs the budget besides its board edits, in requests a second: a hand's result post and
# the next hand's board message, a hand taking a few minutes at human pace (its DMs go through the players'
# interaction tokens). Admission projects from this, not from the moment's load: the deals of many tables at
# once cost far more for a minute, and must not shut the door on tables that would fit.
STEADY_POSTS_PER_TABLE = 0.02
ADMISSION_LOOKBACK_S = 1800.0  # how far back table closes tell how soon room frees up
DEFAULT_WAIT_S = 600.0  # the wait said when no table has closed lately
MAX_BACKLOG_HOLD_S = 2.0  # after a global 429, the most the budget waits for the calls already in flight
# The budget is crowded (a new player's first hand is shown in the channel rather than wait for a DM) when a
# prompt or post has waited this long, or the window granted this share of the rate.
CROWDED_WAIT_S = 1.0
CROWDED_SHARE = 0.5
SATURATED_LOG_EVERY = 60.0  # seconds between the INFO lines that say the budget is full
SATURATED_CHECK_EVERY = 5.0  # seconds between looks at whether it is


@dataclass(frozen=True)
class Headroom:
    """The budget as it stands (for /metrics and the log)."""

    rate: float  # tokens a second
    in_use: float  # share of the rate granted over the last window (0..1)
    waiting: dict[Priority, int]  # calls waiting for a token, by priority
    oldest_prompt_s: float  # how long the oldest waiting prompt has waited (0: none waits)
    board_interval_s: float  # seconds between a busy board's edits now
    busy_boards: int  # tables whose board changed lately (what shares the board budget)
    saturated: bool  # boards are as slow as they may get: new tables are refused


class Budget:
    """The bot token's one budget in this process: every budgeted call waits in `take` in priority order, then
    on the limiter (None: no limit, as in tests that do not measure the budget; the accounting still runs).

    One waiter at a time asks the limiter for a token (the head of the most urgent line), so a prompt that
    arrives while boards wait is the next to be served, never behind them."""

    def __init__(self, limiter: RateLimiter | None, *, rate: float | None = None,
                 clock: Callable[[], float] = time.monotonic, board_base: float = 3.0,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.limiter = limiter
        self._sleep = sleep
        self.rate = float(rate if rate is not None else getattr(limiter, "rate", DISCORD_GLOBAL_LIMIT - SEND_MARGIN))
        self.board_base = board_base
        self._clock = clock
        self._lines: dict[Priority, deque[tuple[float, int, asyncio.Future[None]]]] = {p: deque() for p in Priority}
        self._seq = itertools.count()
        self._pump: asyncio.Task[None] | None = None
        self._urgent = asyncio.Event()  # a prompt or a post joined the lines (a board's wait gives way)
        self._held_until = float("-inf")  # after a global 429: no grant before then
        self.holds = 0  # global 429s that held the budget
        self.in_flight = 0  # calls granted a token and not answered yet (`sending`)
        self._grants: deque[tuple[float, Priority]] = deque()  # (when, for whom) over the last window
        self._boards: dict[int, float] = {}  # table -> when its board last changed
        self._closes: deque[float] = deque(maxlen=256)  # when tables closed lately (how fast room frees up)
        self._logged_at = self._checked_at = float("-inf")
        self._started = clock()
        self.granted: dict[Priority, int] = {p: 0 for p in Priority}
        # Where the token's requests leave (None without a limit): never more in a second than Discord takes.
        self.gate = SendGate(clock=clock, sleep=sleep) if limiter is not None else None

    @property
    def tokens(self) -> float | None:
        """Tokens left in the limiter as this process sees it (None without one)."""
        return self.limiter.tokens if self.limiter is not None else None

    # == waiting for a token ===================================================================================
    async def take(self, priority: Priority) -> None:
        """Wait for one token: after every more urgent call waiting, and after the earlier calls of this
        priority."""
        if self.limiter is None:
            self._granted(priority)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines[priority].append((self._clock(), next(self._seq), future))
        if priority < Priority.BOARD:
            self._urgent.set()
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._serve(), name="kwx-budget")
        await future  # cancelled: the pump skips it (a token already granted is spent)

    def hold(self, seconds: float) -> None:
        """Discord answered a global 429: grant nothing for `seconds` (discord.py holds every call of the token
        that long), then start again from an empty bucket, after the calls already granted and held inside
        discord.py have gone (they go together when the hold ends)."""
        now = self._clock()
        # The calls in flight leave discord.py together when its hold ends; at most a few seconds' worth are
        # waited out here (others may be waiting on a route's own bucket, not on the global hold).
        backlog = min(self.in_flight / max(self.rate, 1.0), MAX_BACKLOG_HOLD_S)
        self._held_until = max(self._held_until, now + seconds + backlog)
        self.holds += 1

    async def _serve(self) -> None:
        assert self.limiter is not None
        while True:
            wait = self._held_until - self._clock()
            if wait > 0:
                await self._sleep(wait)
                drain = getattr(self.limiter, "drain", None)
                if drain is not None:
                    drain()
                continue
            line = next((self._lines[p] for p in Priority if self._lines[p]), None)
            if line is None:
                return
            priority = next(p for p in Priority if self._lines[p] is line)
            _, _, future = line[0]
            if future.done():  # its caller was cancelled
                line.popleft()
                continue
            # Boards leave the limiter's reserve to prompts (and a cluster's other processes' prompts).
            if priority < Priority.BOARD:
                await self.limiter.acquire(True)
            elif not await self._board_token():
                continue  # a prompt or a post came while the board waited: it goes first
            line.popleft()
            if future.done():
                continue  # its caller was cancelled while the token came: that token is spent
            future.set_result(None)
            self._granted(priority)

    async def _board_token(self) -> bool:
        """Wait for a board's token unless something more urgent arrives first (False: it did, and no token
        was taken)."""
        assert self.limiter is not None
        self._urgent.clear()
        token = asyncio.ensure_future(self.limiter.acquire(False))
        urgent = asyncio.ensure_future(self._urgent.wait())
        try:
            await asyncio.wait((token, urgent), return_when=asyncio.FIRST_COMPLETED)
        finally:
            urgent.cancel()
            if not token.done():
                token.cancel()
            await asyncio.gather(token, urgent, return_exceptions=True)
        return not token.cancelled() and token.exception() is None

    @contextlib.contextmanager
    def sending(self) -> Iterator[None]:
        """Around a budgeted call, from its grant to its answer: counts the calls in flight."""
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    def _granted(self, priority: Priority) -> None:
        now = self._clock()
        self._grants.append((now, priority))
        self.granted[priority] += 1
        while self._grants and self._grants[0][0] < now - WINDOW_S:
            self._grants.popleft()
        if now - self._checked_at >= SATURATED_CHECK_EVERY:
            self._checked_at = now
            self.log_if_saturated()

    # == the load ==============================================================================================
    def crowded(self) -> bool:
        """Whether a prompt or a post asking for a token now would wait long: one has waited CROWDED_WAIT_S
        already, or the last whole window granted most of the rate (a young bot's first burst is not a busy
        evening). No limit: never."""
        if self.limiter is None:
            return False
        now = self._clock()
        waiting = [at for p in (Priority.PROMPT, Priority.POST) for at, _, f in self._lines[p] if not f.done()]
        if waiting and now - min(waiting) >= CROWDED_WAIT_S:
            return True
        return self._rate_of(now, tuple(Priority), span=WINDOW_S) >= CROWDED_SHARE * self.rate

    def board_changed(self, table_id: int) -> None:
        """A table's board has news to show: it shares the board budget for the next while."""
        self._boards[table_id] = self._clock()

    def board_gone(self, table_id: int) -> None:
        """The table closed: its share of the budget is free."""
        self._boards.pop(table_id, None)
        self._closes.append(self._clock())

    def _busy_boards(self, now: float) -> int:
        stale = [t for t, at in self._boards.items() if at < now - WINDOW_S]
        for t in stale:
            del self._boards[t]
        return len(self._boards)

    def _rate_of(self, now: float, priorities: tuple[Priority, ...], span: float | None = None) -> float:
        """Grants a second to these priorities over the last window, divided by `span` (default: the window, or
        since the start of a budget younger than it)."""
        if not self._grants:
            return 0.0
        if span is None:
            span = max(1.0, min(WINDOW_S, now - self._started))
        return sum(1 for at, p in self._grants if at >= now - WINDOW_S and p in priorities) / span

    def board_rate(self, now: float | None = None) -> float:
        """Board edits a second the budget can take now: what prompts and posts leave of the rate."""
        now = self._clock() if now is None else now
        # The whole rate less what prompts and posts took: they go first anyway (and few are prompts, a player's
        # going through their presses' tokens); keeping a share back would stretch every board further when many
        # hands end at once (their results and next boards are posts).
        return max(1.0, self.rate - self._rate_of(now, (Priority.PROMPT, Priority.POST)))

    def board_interval(self, base: float | None = None) -> float:
        """Seconds between a board's edits: `base` while the budget has room; with more busy boards than it
        can edit that often, as long as it takes to edit each of them once (boards slow down together, and
        before anything else does)."""
        now = self._clock()
        base = self.board_base if base is None else base
        return max(base, self._busy_boards(now) / self.board_rate(now))

    def capacity(self) -> int:
        """How many busy tables the budget can carry with each board edited every MAX_BOARD_INTERVAL seconds
        (projected: each table's board edits and its steady posts)."""
        return int(self.rate / (1 / MAX_BOARD_INTERVAL + STEADY_POSTS_PER_TABLE))

    def _with(self, table_id: int | None, now: float) -> int:
        """The busy boards with the table asking (a table about to start already counts: its lobby's board)."""
        busy = self._busy_boards(now)
        return busy if table_id is not None and table_id in self._boards else busy + 1

    def room_for_table(self, table_id: int | None = None) -> bool:
        """Whether the budget projected for the tables playing and the one asking (a new table, or `table_id`
        about to start) still fits."""
        return self._with(table_id, self._clock()) <= self.capacity()

    def wait_for_room_s(self, table_id: int | None = None) -> float:
        """Roughly how long until one more table fits: the tables over the budget, at the pace tables have
        been closing over the last half hour (ten minutes when none has); between one minute and an hour."""
        now = self._clock()
        over = self._with(table_id, now) - self.capacity()
        if over <= 0:
            return 0.0
        closes = [at for at in self._closes if at >= now - ADMISSION_LOOKBACK_S]
        if not closes:
            return DEFAULT_WAIT_S
        per_second = len(closes) / max(60.0, now - closes[0])
        return min(3600.0, max(60.0, math.ceil(over) / per_second))

    def headroom(self) -> Headroom:
        now = self._clock()
        waiting = {p: sum(1 for _, _, f in self._lines[p] if not f.done()) for p in Priority}
        prompts = [at for at, _, f in self._lines[Priority.PROMPT] if not f.done()]
        in_use = self._rate_of(now, tuple(Priority)) / self.rate if self.rate else 0.0
        interval = self.board_interval()
        return Headroom(rate=self.rate, in_use=round(min(1.0, in_use), 3), waiting=waiting,
                        oldest_prompt_s=round(now - min(prompts), 3) if prompts else 0.0,
                        board_interval_s=round(interval, 2), busy_boards=self._busy_boards(now),
                        saturated=not self.room_for_table())

    def log_if_saturated(self) -> None:
        """Once a minute while the budget is full, one INFO line with its headroom."""
        now = self._clock()
        if now - self._logged_at < SATURATED_LOG_EVERY:
            return
        h = self.headroom()
        if not h.saturated:
            return
        self._logged_at = now
        logger.info("REST budget full: %.0f%% of %.0f requests/s in use, %d busy boards edited every %.1f s, "
                    "%d calls waiting (oldest prompt %.2f s); new tables are refused", h.in_use * 100, h.rate,
                    h.busy_boards, h.board_interval_s, sum(h.waiting.values()), h.oldest_prompt_s)
