"""The real `python bot.py --shards … --shard-count …` process (one process of a cluster, on PostgreSQL)
against the loopback Discord with two shards: it leases its server and plays a hand end to end."""

from __future__ import annotations

import asyncio

import pytest

from kwx.devtools.loopback.players import BotProcess, World, play, text_of
from kwx.devtools.loopback.server import LoopbackDiscord
from tests import backends


@pytest.mark.skip(reason="known issue: the sharded process's event loop stalls for tens of seconds in some runs "
                         "(gateway 'can't keep up'); the cluster's own tests in tests/table/test_cluster.py still run")
async def test_a_sharded_process_on_postgresql_plays_a_hand(tmp_path) -> None:
    import asyncpg

    url = backends.fresh_postgres_url()
    async with LoopbackDiscord(shards=2) as discord_:
        world = World.build(discord_, ("alice",))
        env = {"KWX_DATABASE_URL": url}
        async with BotProcess(discord_, db=tmp_path / "unused.sqlite3", env=env,
                              args=("--delay", "0", "--claim-pause", "0", "--shards", "0-1", "--shard-count", "2")) as bot:
            for _ in range(150):  # discord.py identifies one shard every 5 s (max_concurrency 1)
                if "Shard ID 1 has connected" in bot.output():
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
            assert "cluster: " in bot.output() and "serves shards [0, 1] of 2" in bot.output()
            alice = world.players[0]
            await alice.command(world.channel, "kwx new")
            for _ in range(2):
                await alice.command(world.channel, "kwx addbot")
            await alice.command(world.channel, "kwx start")
            await play(world.players, lambda: bool(world.results()), timeout=60)
            assert "Result of hand 1" in text_of(world.results()[0])
            assert discord_.stats.global_429 == 0
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT COUNT(*) FROM hands") >= 1  # the hand went into PostgreSQL
        assert await conn.fetchval("SELECT COUNT(*) FROM kwx_rate_buckets WHERE name = 'discord-global'") == 1
    finally:
        await conn.close()
