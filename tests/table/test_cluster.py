"""A cluster of processes on one PostgreSQL database (kwx.cluster): a lease taken over, tables resumed from the
event log exactly once, a forwarded press, a shared REST budget. (A settlement raced by two processes:
tests/store/test_store_race.py.) Each "process" here is its own Store with its own pool of connections."""

from __future__ import annotations

import asyncio
import time

import pytest

from kwx.cluster import ClusterNode, Leases, PressRouter, SharedBucket
from kwx.store import Store
from kwx.table import TableService
from kwx.table.errors import TableError
from tests.support import backends
from tests.support.frontends import RecordingFrontEnd
from tests.support.players import ANN, GUILD
from tests.support.tables import play_own_moves, table_with, wait_prompt

BACKENDS = ("postgresql",)


def proc(name: str) -> str:
    """A process name of this test run's own. A forwarded press and its acknowledgement travel on NOTIFY
    channels named after the process, and channels belong to the database, not to a schema: two test runs (or
    two xdist workers) on one server would otherwise hear each other's presses."""
    return f"{name}-{backends.RUN}"


async def test_a_dead_process_lease_is_taken_over_once_with_a_new_epoch(store, database):
    other = await Store.open(database)
    try:
        a, b = Leases(store, "proc-a", ttl=0.3), Leases(other, "proc-b", ttl=0.3)
        assert await a.acquire("guild:1") == 1
        assert await b.acquire("guild:1") is None and await b.owner_of("guild:1") == "proc-a"
        assert await a.renew() == set()  # alive: renewed, still held
        await asyncio.sleep(0.5)  # proc-a stops renewing (killed)
        assert await b.expired() == ["guild:1"]
        assert await asyncio.gather(b.acquire("guild:1"), b.acquire("guild:1")) == [2, 2]
        assert await a.renew() == {"guild:1"}  # proc-a, back from a pause, learns it lost the server
        assert await a.acquire("guild:1") is None and await b.owner_of("guild:1") == "proc-b"
    finally:
        await other.close()


async def test_a_dead_process_tables_resume_from_the_log_in_exactly_one_other_process(store, frontend, database,
                                                                                     clock):
    first = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    node = ClusterNode(store, first, "proc-a", serves=lambda guild: guild == GUILD, ttl=0.3, takeover=False)
    assert await node.start() == [] and await node.claim(GUILD)
    table = await table_with(first, ANN, seed="cluster-seed")
    await first.start_game(table, by=ANN.player_id)
    last = await play_own_moves(first, frontend, table, ANN.player_id, 2)
    await wait_prompt(frontend, first, table, ANN.player_id, after=last)
    await first.flush()
    board = first.public_view_as_shown(table)
    await first.shutdown()
    await node.stop(release=False)  # killed: the lease is left to expire

    stores = [await Store.open(database) for _ in range(2)]
    services = [TableService(s, RecordingFrontEnd(), ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
                for s in stores]
    nodes = [ClusterNode(s, svc, f"proc-{n}", serves=lambda guild: False, ttl=5)
             for n, (s, svc) in enumerate(zip(stores, services))]
    try:
        await asyncio.sleep(0.5)
        resumed = await asyncio.gather(*(n.tick() for n in nodes))
        assert sorted(resumed) == [[], [table]]  # exactly one process resumed the table
        owner = services[resumed.index([table])]
        assert owner.public_view_as_shown(table) == board  # the same hand, at the same step
        assert [await n.tick() for n in nodes] == [[], []]  # and nobody resumes it again
    finally:
        for svc, s in zip(services, stores):
            await svc.shutdown()
            await s.close()


async def test_a_press_is_forwarded_to_the_owner_and_acknowledged_quickly(store, database):
    other = await Store.open(database)
    owner_name = proc("proc-1")
    shard0, owner = PressRouter(store, proc("proc-0")), PressRouter(other, owner_name)
    got: list[dict] = []

    async def handle(press: dict) -> None:
        got.append(press)

    try:
        await shard0.start(handle)
        await owner.start(handle)
        for n in range(20):  # how fast a press crosses is benchmarks/cluster.py's (forwarded_press_p99_ms)
            assert await shard0.forward(owner_name, {"table": 7, "custom_id": f"kwx:act:7:1:{n}:hu:-", "token": "t"})
        for _ in range(100):  # acknowledged on arrival; the handler may still be running the last one
            if owner.handled == 20:
                break
            await asyncio.sleep(0.02)
        # each exactly once (concurrent presses may run in any order, as Discord's own do)
        assert sorted(p["custom_id"] for p in got) == sorted(f"kwx:act:7:1:{n}:hu:-" for n in range(20))
        assert owner.handled == 20 and shard0.handled == 0  # only the owner ran them
        assert not await shard0.forward(proc("proc-dead"), {"table": 8}, timeout=0.3)  # nobody there: caller knows
    finally:
        await shard0.close()
        await owner.close()


async def test_a_press_goes_to_the_process_holding_its_table_server(store, frontend, database, clock):
    other = await Store.open(database)
    owner_svc = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    owner_name = proc("proc-b")
    owner = ClusterNode(store, owner_svc, owner_name, serves=lambda guild: guild == GUILD)
    receiver = ClusterNode(other, TableService(other, RecordingFrontEnd(), clock=clock), proc("proc-a"),
                           serves=lambda guild: False)
    got: list[dict] = []

    async def run_here(press: dict) -> None:
        got.append(press)

    try:
        await owner.start(on_press=run_here)
        await receiver.start(on_press=run_here)
        assert await owner.claim(GUILD)  # /kwx new: the server's lease first
        table = await table_with(owner_svc, ANN)
        assert await receiver.owner_of_table(table) == owner_name and await receiver.owner_of_table(table + 1) is None
        assert await receiver.forward(owner_name, {"custom_id": f"kwx:act:{table}:1:3:discard:5p", "token": "t"})
        for _ in range(100):
            if got:
                break
            await asyncio.sleep(0.02)
        assert got == [{"custom_id": f"kwx:act:{table}:1:3:discard:5p", "token": "t"}]
        assert owner.router is not None and owner.router.handled == 1 and receiver.router.handled == 0
    finally:
        await receiver.stop()
        await owner.stop()
        await owner_svc.shutdown()
        await other.close()


async def test_two_processes_share_one_rest_budget(store, database):
    other = await Store.open(database)
    buckets = [SharedBucket(s, "discord-global", rate=50, burst=5) for s in (store, other)]
    granted: list[float] = []

    async def call(bucket: SharedBucket) -> None:
        await bucket.take()
        granted.append(time.monotonic())

    try:
        started = time.monotonic()
        await asyncio.gather(*(call(buckets[i % 2]) for i in range(60)))
    finally:
        await other.close()
    # 60 calls from two processes at once: a burst of 5, then 50/s between them (a slower machine only waits
    # longer; when each call is seen to go out is up to each process's event loop, so no upper bound here)
    assert len(granted) == 60 and granted[-1] - started >= (60 - 5 - 1) / 50


async def test_board_edits_leave_the_reserve_to_prompts_in_every_process(store, database):
    other = await Store.open(database)
    edits, prompts = SharedBucket(store, "discord-global", rate=0.01, burst=5, reserve=2), \
        SharedBucket(other, "discord-global", rate=0.01, burst=5, reserve=2)
    try:
        assert [await edits.try_take(needed=3) for _ in range(3)] == [0.0] * 3  # 5, 4, 3 tokens: taken
        assert await edits.try_take(needed=3) > 0  # 2 left: a board edit waits
        assert [await prompts.try_take() for _ in range(2)] == [0.0] * 2  # a prompt may take them, elsewhere too
        assert await prompts.try_take() > 0
    finally:
        await other.close()


async def test_a_process_that_lost_a_lease_stops_running_those_tables(store, frontend, database, clock):
    paused = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    node = ClusterNode(store, paused, "proc-a", serves=lambda guild: guild == GUILD, ttl=0.3, takeover=False)
    other = await Store.open(database)
    taker = TableService(other, RecordingFrontEnd(), ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    successor = ClusterNode(other, taker, "proc-b", serves=lambda guild: False, ttl=5)
    try:
        await node.start()
        assert await node.claim(GUILD)
        table = await table_with(paused, ANN, seed="cluster-seed")
        await paused.start_game(table, by=ANN.player_id)
        await wait_prompt(frontend, paused, table, ANN.player_id)
        await paused.flush()
        await node.stop(release=False)  # proc-a stalls (no renewals) longer than its lease
        await asyncio.sleep(0.5)
        assert await successor.tick() == [table]  # proc-b takes the server over
        await node.tick()  # proc-a is back: it learns the lease is gone and lets the table go
        assert paused.tables() == [] and taker.tables() == [table]
        with pytest.raises(TableError):
            await paused.act(table, ANN.player_id, "pass")
    finally:
        await successor.stop()
        await node.stop()
        for svc in (paused, taker):
            await svc.shutdown()
        await other.close()


async def test_a_server_taken_over_goes_back_to_its_shard_once_its_tables_are_done_here(store, clock):
    node = ClusterNode(store, TableService(store, RecordingFrontEnd(), clock=clock), "proc-b",
                       serves=lambda guild: guild == "mine", ttl=5)
    assert await node.claim("mine") and await node.claim("taken")  # "taken": another shard's, taken over
    await node.tick()  # no table of either runs here
    assert await node.leases.owner_of("guild:mine") == "proc-b"
    assert await node.leases.owner_of("guild:taken") is None  # its shard's process claims it at the next /kwx new
