"""Two real `python bot.py --shards … --shard-count 2` processes (a cluster on PostgreSQL) against the loopback
Discord: the server is on shard 1, so its process runs the table, while Discord delivers every DM press to
shard 0's process, which must forward each one to the owner. A hand played by DM presses ends only if they do."""

from __future__ import annotations

from kwx.devtools.loopback.players import BotProcess, Player, World, play, text_of
from kwx.devtools.loopback.server import LoopbackDiscord
from kwx.present.i18n import tr
from tests.support import backends


def shard_one_guild(discord_: LoopbackDiscord) -> int:
    """A server id that Discord's rule ((id >> 22) % 2) puts on shard 1."""
    gid = discord_.model.snowflake()
    return gid if (gid >> 22) % 2 == 1 else gid + (1 << 22)


async def test_dm_presses_on_shard_0_are_answered_by_the_process_that_runs_the_table(tmp_path) -> None:
    import asyncpg

    url = backends.fresh_postgres_url()
    args = ("--delay", "0", "--claim-pause", "0", "--shard-count", "2")
    async with LoopbackDiscord(shards=2) as discord_:
        guild = discord_.model.add_guild(locale="en", guild_id=shard_one_guild(discord_))
        channel = discord_.model.add_channel(guild)
        alice = Player(discord_, discord_.model.add_user("alice", guild_id=guild, locale="en", manager=True), "alice")
        world = World(discord_, guild, channel, [alice])
        env = {"KWX_DATABASE_URL": url}
        async with BotProcess(discord_, db=tmp_path / "shard1.sqlite3", env=env, args=(*args, "--shards", "1")) as owner, \
                BotProcess(discord_, db=tmp_path / "shard0.sqlite3", env=env, args=(*args, "--shards", "0")) as receiver:
            await alice.command(channel, "kwx new")
            for _ in range(2):
                await alice.command(channel, "kwx addbot")
            await alice.command(channel, "kwx start")
            # a hand takes ~10 s; the rest is room for a machine that stalls (no move here waits on a timer)
            await play(world.players, lambda: bool(world.results()), timeout=120)
            assert "Result of hand 1" in text_of(world.results()[0])
            dm_presses = [i for i in discord_.model.interactions.values() if i.type == 3 and i.guild_id is None]
            assert dm_presses  # each pressed in a DM, each delivered on shard 0 (a hand may end after two)
            assert all(i.response_type is not None and i.error is None for i in dm_presses)  # answered in 3 s
            refusals = [m for m in discord_.model.messages.values() if m.ephemeral_to == alice.uid]
            assert not [m for m in refusals if tr("error.closed", "en") in text_of(m)]  # none answered by shard 0
            assert discord_.stats.global_429 == 0
            assert "serves shards [1] of 2" in owner.output() and "serves shards [0] of 2" in receiver.output()
            assert "no acknowledgement" not in receiver.output()
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT COUNT(*) FROM hands") >= 1  # the hand went into PostgreSQL
        assert await conn.fetchval("SELECT owner FROM kwx_leases WHERE resource = $1", f"guild:{guild}") is None
    finally:
        await conn.close()
