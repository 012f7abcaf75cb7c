"""A cluster of bot processes on one PostgreSQL database: server ownership leases, forwarded presses, and a
shared REST budget. Nothing here imports discord; the front end wires it in.

    leases = Leases(store, owner="proc-a", ttl=15)          # store: a PgStore (kwx.store.postgres)
    epoch = await leases.acquire("guild:123")              # None when another live process holds it
    lost = await leases.renew()                            # every ttl/3; the resources this process lost
    await leases.owner_of("guild:123")                     # the live owner, or None

    router = PressRouter(store, node="proc-a")
    await router.start(handler)                            # handler(press: dict) -> awaitable, on the owner
    await router.forward("proc-b", {"table": 7, ...})      # True once the owner acknowledged it

    bucket = SharedBucket(store, "discord-global", rate=40, burst=10, reserve=4)
    await bucket.take(urgent=False)                        # waits until the budget, shared by all, has room

    node = ClusterNode(store, service, owner="proc-a", serves=lambda guild: …)   # leases + takeover loop
    await node.start(on_press=handler)                     # and a PressRouter of its own
    owner = await node.owner_of_table(7)                   # who runs table 7 (its server's lease holder)

Leases use the database's clock (`now()`), so the processes' clocks may disagree. A lease is taken with one
atomic upsert: it goes to the asker when it is free, already the asker's, or expired; a change of owner adds
one to `epoch` (a fencing token). A process that finds a lease lost on renewal stops running those tables
(`TableService.release`): the new owner resumed them from the event log.

Presses travel by LISTEN/NOTIFY on channel `kwx_press_<node>` (no broker of our own); the owner acknowledges
on `kwx_ack_<node>` so the receiver knows the press landed (NOTIFY itself is fire-and-forget).

The bucket is one row: each grant is one UPDATE (tokens refill at `rate` per second up to `burst`, by the
database's clock) that takes a token only when one is there, so all processes together make at most
`burst + rate` calls in any second (cogs.ratelimit.discord_budget picks `burst` so that this is Discord's 50
less a margin).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import asyncpg

from kwx.store.postgres import PgStore

if TYPE_CHECKING:
    from kwx.store import Store
    from kwx.table.service import TableService

logger = logging.getLogger(__name__)
_CHANNEL = re.compile(r"[^a-z0-9_]")


def _pool(store: Store) -> asyncpg.Pool:
    if not isinstance(store, PgStore):
        raise ValueError("a cluster needs the PostgreSQL store (KWX_DATABASE_URL=postgresql://…)")
    return store.pool


def channel(prefix: str, node: str) -> str:
    """A NOTIFY channel name for a node (lower-case, [a-z0-9_], at most 63 characters)."""
    return f"{prefix}_{_CHANNEL.sub('_', node.lower())}"[:63]


# ---------------------------------------------------------------------------------------------- leases


class Leases:
    """The resources (`guild:<id>`) this process owns, renewed while it lives."""

    def __init__(self, store: Store, owner: str, ttl: float = 15.0) -> None:
        self._pool = _pool(store)
        self.owner = owner
        self.ttl = float(ttl)
        self.held: dict[str, int] = {}  # resource -> epoch

    async def acquire(self, resource: str) -> int | None:
        """Take (or keep) `resource`; its epoch, or None while another process holds a live lease on it."""
        epoch = await self._pool.fetchval(
            "INSERT INTO kwx_leases(resource, owner, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))"
            " ON CONFLICT (resource) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,"
            " epoch = kwx_leases.epoch + CASE WHEN kwx_leases.owner = excluded.owner THEN 0 ELSE 1 END,"
            " acquired_at = CASE WHEN kwx_leases.owner = excluded.owner THEN kwx_leases.acquired_at ELSE now() END"
            " WHERE kwx_leases.owner = excluded.owner OR kwx_leases.expires_at < now() RETURNING epoch",
            resource, self.owner, self.ttl)
        if epoch is None:
            self.held.pop(resource, None)
            return None
        self.held[resource] = int(epoch)
        return int(epoch)

    async def renew(self) -> set[str]:
        """Extend every lease this process holds; return the resources it no longer holds (taken over after
        they expired: their tables must no longer be driven here)."""
        rows = await self._pool.fetch(
            "UPDATE kwx_leases SET expires_at = now() + make_interval(secs => $2) WHERE owner = $1"
            " RETURNING resource, epoch", self.owner, self.ttl)
        kept = {r["resource"]: int(r["epoch"]) for r in rows}
        lost = {res for res, epoch in self.held.items() if kept.get(res) != epoch}
        self.held = kept
        return lost

    async def release(self, resource: str | None = None) -> None:
        """Give up one lease, or all of this process's (a clean shutdown: others take over at once)."""
        if resource is None:
            await self._pool.execute("DELETE FROM kwx_leases WHERE owner = $1", self.owner)
            self.held.clear()
        else:
            await self._pool.execute("DELETE FROM kwx_leases WHERE resource = $1 AND owner = $2", resource, self.owner)
            self.held.pop(resource, None)

    async def owner_of(self, resource: str) -> str | None:
        owner: str | None = await self._pool.fetchval(
            "SELECT owner FROM kwx_leases WHERE resource = $1 AND expires_at > now()", resource)
        return owner

    async def expired(self) -> list[str]:
        """Resources whose owner stopped renewing (a dead process), oldest expiry first."""
        rows = await self._pool.fetch("SELECT resource FROM kwx_leases WHERE expires_at < now() ORDER BY expires_at")
        return [r["resource"] for r in rows]


# ---------------------------------------------------------------------------------------------- presses


class PressRouter:
    """Forward a button press to the process that owns its table, over LISTEN/NOTIFY."""

    def __init__(self, store: Store, node: str) -> None:
        self._pool = _pool(store)
        self._url = str(store.path)
        self.node = node
        self._conn: asyncpg.Connection | None = None
        self._handler: Callable[[dict[str, Any]], Awaitable[object]] | None = None
        self._acks: dict[str, asyncio.Future[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.forwarded = 0
        self.handled = 0

    async def start(self, handler: Callable[[dict[str, Any]], Awaitable[object]]) -> None:
        """Listen for presses sent to this node (`handler` runs each one) and for acknowledgements."""
        self._handler = handler
        self._conn = await asyncpg.connect(self._url)
        await self._conn.add_listener(channel("kwx_press", self.node), self._on_press)
        await self._conn.add_listener(channel("kwx_ack", self.node), self._on_ack)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def forward(self, owner: str, press: dict[str, Any], *, timeout: float = 2.0) -> bool:
        """Send `press` (JSON, under 7 kB: an interaction's id, token, custom id, user) to `owner`; True once
        the owner acknowledged it within `timeout`."""
        press_id = uuid.uuid4().hex
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._acks[press_id] = done
        message = json.dumps({"id": press_id, "from": self.node, "press": press}, separators=(",", ":"))
        try:
            await self._pool.execute("SELECT pg_notify($1, $2)", channel("kwx_press", owner), message)
            self.forwarded += 1
            await asyncio.wait_for(done, timeout)
            return True
        except TimeoutError:
            logger.warning("press %s to %s: no acknowledgement in %.1f s", press_id, owner, timeout)
            return False
        finally:
            self._acks.pop(press_id, None)

    # asyncpg's listener callbacks; a NOTIFY payload is text (typed `object` by asyncpg).
    def _on_press(self, conn: object, pid: int, chan: str, payload: object) -> None:
        message = json.loads(str(payload))
        task = asyncio.get_running_loop().create_task(self._run(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, message: dict[str, Any]) -> None:
        # Acknowledge first: the sender only needs to know the owner has it; the answer goes to Discord
        # through the interaction token (the receiver already deferred).
        await self._pool.execute("SELECT pg_notify($1, $2)", channel("kwx_ack", message["from"]), message["id"])
        assert self._handler is not None
        try:
            await self._handler(message["press"])
            self.handled += 1
        except Exception:
            logger.exception("forwarded press %s failed", message["id"])

    def _on_ack(self, conn: object, pid: int, chan: str, payload: object) -> None:
        done = self._acks.get(str(payload))
        if done is not None and not done.done():
            done.set_result(None)


# ---------------------------------------------------------------------------------------------- budget


def _lease_of(guild: str) -> str:
    """The lease a server's tables run under."""
    return f"guild:{guild}"


def _guild_of(resource: str) -> str:
    return resource.removeprefix("guild:")


class SharedBucket:
    """A token bucket every process shares (Discord's global limit belongs to the bot token).

    A token is granted only when the bucket holds one at that moment (by the database's clock), so a call
    goes out right after its grant; a process that stalls takes no grants meanwhile. (A bucket that hands out
    future slots lets a stalled process's calls pile into one second with everybody else's.) Urgent calls may
    take the last token; the others leave `reserve` behind, as in one process (cogs.ratelimit). In each
    process one waiter per class asks the database at a time and the rest queue behind it, so waiting costs
    one query per process per refill, not one per waiting call."""

    def __init__(self, store: Store, name: str, rate: float = 40.0, burst: int = 10, reserve: int = 0,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if rate <= 0 or burst < 1 or not 0 <= reserve < burst:
            raise ValueError("rate must be positive, burst at least 1 and reserve in [0, burst)")
        self._pool = _pool(store)
        self.name, self.rate, self.burst, self.reserve = name, float(rate), int(burst), int(reserve)
        self._sleep = sleep
        self._created = False
        self._lines = {True: asyncio.Lock(), False: asyncio.Lock()}
        self.waited = 0
        self.acquired = 0
        self.tokens_seen: float | None = None  # the bucket's tokens at this process's latest grant or refusal

    async def try_take(self, needed: float = 1.0) -> float:
        """Take one token if at least `needed` are there now: 0.0 when taken, else the seconds until there
        would be (nothing taken)."""
        if not self._created:
            await self._pool.execute(
                "INSERT INTO kwx_rate_buckets(name, tokens, updated_at) VALUES ($1, $2, clock_timestamp())"
                " ON CONFLICT (name) DO NOTHING", self.name, float(self.burst))
            self._created = True
        # The clock is read once per statement and never goes back (a grant that waited for the row lock
        # counts its refill from the previous grant), so two processes can never both spend one refill.
        tokens = await self._pool.fetchval(
            "UPDATE kwx_rate_buckets AS b SET tokens = f.tokens - CASE WHEN f.tokens >= $3 THEN 1 ELSE 0 END,"
            " updated_at = f.now FROM (SELECT k.name, GREATEST(c.now, k.updated_at) AS now,"
            " LEAST($2::float8, k.tokens + GREATEST(0, EXTRACT(EPOCH FROM c.now - k.updated_at))::float8"
            " * $4::float8) AS tokens FROM kwx_rate_buckets k, (SELECT clock_timestamp() AS now) c"
            " WHERE k.name = $1 FOR UPDATE OF k) AS f WHERE b.name = f.name RETURNING f.tokens",
            self.name, float(self.burst), float(needed), self.rate)
        if tokens is None:  # the row went away (a test emptied the table): create it again
            self._created = False
            return await self.try_take(needed)
        tokens = float(tokens)
        self.tokens_seen = tokens - 1 if tokens >= needed else tokens
        return 0.0 if tokens >= needed else (needed - tokens) / self.rate

    async def take(self, urgent: bool = True) -> None:
        """Wait (sleeping, never spinning) until this caller's class may take a token, and take it."""
        needed = 1.0 if urgent else self.reserve + 1.0
        lock = self._lines[urgent]
        self.acquired += 1
        if not lock.locked() and await self.try_take(needed) == 0.0:
            return
        self.waited += 1
        async with lock:
            while (wait := await self.try_take(needed)) > 0:
                await self._sleep(wait)


class SharedRateLimiter:
    """The front end's rate-limiter interface (`acquire(urgent)`) on a SharedBucket: every process of the bot
    draws on the one budget of its token."""

    def __init__(self, bucket: SharedBucket) -> None:
        self.bucket = bucket

    @property
    def waited(self) -> int:
        return self.bucket.waited

    @property
    def acquired(self) -> int:
        return self.bucket.acquired

    @property
    def tokens(self) -> float | None:
        """The shared bucket's tokens as this process last saw them (metrics)."""
        return self.bucket.tokens_seen

    async def acquire(self, urgent: bool) -> None:
        await self.bucket.take(urgent)


def shard_of(guild: str, shard_count: int) -> int | None:
    """The shard Discord delivers a server's events on ((id >> 22) % shard_count); None for a non-Discord id."""
    return (int(guild) >> 22) % shard_count if guild.isdigit() else None


# ---------------------------------------------------------------------------------------------- node


class ClusterNode:
    """One process of the cluster: holds the leases of its servers' tables and takes over a dead process's.

    `serves(guild)` says whether a server is this process's (on one of its shards); `service` is its
    TableService.
    Every `interval` seconds (ttl/3): renew (letting go of the tables of a lease lost meanwhile); hand back
    the servers of other shards whose tables are all done here; take over any expired lease and resume that
    server's tables from the event log (`service.start(include=…)`: a table is rebuilt once, by the one
    process whose upsert won the lease).
    """

    def __init__(self, store: Store, service: TableService, owner: str, serves: Callable[[str], bool], *,
                 ttl: float = 15.0, takeover: bool = True) -> None:
        self.store, self.service = store, service
        self.owner = owner
        self.leases = Leases(store, owner, ttl)
        self.serves = serves
        self.takeover = takeover
        self.taken_over: list[tuple[str, float]] = []  # (resource, monotonic time) of each takeover
        self.router: PressRouter | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, on_press: Callable[[dict[str, Any]], Awaitable[object]] | None = None) -> list[int]:
        """Claim this process's servers (those with open tables and no live owner) and run their tables.
        With `on_press`, presses other processes forward here run through it (see `forward`)."""
        if on_press is not None:
            self.router = PressRouter(self.store, self.owner)
            await self.router.start(on_press)
        tables = [t for t in await self.store.unfinished_tables() if self.serves(t.guild)]
        owned = {g for g in {t.guild for t in tables} if await self.claim(g)}
        rebuilt = await self.service.start(include=lambda row: row.guild in owned)
        self._task = asyncio.get_running_loop().create_task(self._loop())
        return rebuilt

    async def owner_of_table(self, table_id: int) -> str | None:
        """The live process that runs a table (the holder of its server's lease), or None: no such table, or
        its server has no live owner right now (a takeover is due)."""
        try:
            row = await self.store.get_table(table_id)
        except LookupError:
            return None
        return await self.leases.owner_of(_lease_of(row.guild))

    async def forward(self, owner: str, press: dict[str, Any]) -> bool:
        """Send a press to the process `owner` (True once it acknowledged); needs `start(on_press=…)`."""
        if self.router is None:
            raise RuntimeError("this node forwards no presses: start it with on_press")
        return await self.router.forward(owner, press)

    async def claim(self, guild: str) -> bool:
        """Before opening a table in `guild`: own its lease (False: another live process runs that server)."""
        return await self.leases.acquire(_lease_of(guild)) is not None

    async def tick(self) -> list[int]:
        """One round: renew, hand back, then take over expired leases. Returns the ids of tables resumed here."""
        lost = await self.leases.renew()
        if lost:  # taken over while this process stalled: the new owner runs those tables now
            guilds = {_guild_of(resource) for resource in lost}
            released = await self.service.release(self.service.tables_in(guilds))
            logger.error("leases %s lost to another process: %d table(s) no longer run here", sorted(lost),
                         len(released))
        await self._hand_back()
        if not self.takeover:
            return []
        won = set()
        for resource in await self.leases.expired():
            if await self.leases.acquire(resource) is not None:
                won.add(_guild_of(resource))
                self.taken_over.append((resource, time.monotonic()))
                logger.warning("took over %s from a process that stopped renewing its lease", resource)
        if not won:
            return []
        return await self.service.start(include=lambda row: row.guild in won)

    async def _hand_back(self) -> None:
        """Let go of servers of other processes' shards once none of their tables runs here (taken over from a
        dead process and finished since): the next `/kwx new` there is claimed again by its shard's process."""
        for resource in list(self.leases.held):
            guild = _guild_of(resource)
            if not self.serves(guild) and not self.service.tables_in({guild}):
                await self.leases.release(resource)
                logger.info("handed %s back: none of its tables runs here any more", resource)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            try:
                await self.tick()
            except Exception:  # a round that fails must not end the renewals: the leases would lapse
                logger.exception("cluster tick failed; retrying")

    async def stop(self, *, release: bool = True) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.router is not None:
            await self.router.close()
            self.router = None
        if release:
            await self.leases.release()
