"""The real `python bot.py` process against the loopback Discord: a player opens a table, adds two AI players,
starts, and plays a hand by pressing the buttons of the DMs the bot sends, as in a Discord client, through a
429 storm, a 5xx and a dropped gateway connection; then its /healthz and /metrics (KWX_METRICS_PORT) are read."""

from __future__ import annotations

import socket

import aiohttp

from kwx.devtools.loopback.players import BotProcess, World, play, text_of
from kwx.devtools.loopback.server import LoopbackDiscord
from tests.support.prometheus import samples


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _scrape(port: int) -> tuple[str, dict[str, float]]:
    """/healthz's text (it must answer 200) and every /metrics sample by name{labels}."""
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}/healthz") as answer:
            health = await answer.text()
            assert answer.status == 200, health
        async with http.get(f"http://127.0.0.1:{port}/metrics") as answer:
            text = await answer.text()
    return health, samples(text)


async def _open_table(world: World) -> None:
    alice = world.players[0]
    opened = await alice.command(world.channel, "kwx new")
    assert "Table" in alice.reply(opened) or "table" in alice.reply(opened), alice.reply(opened)
    for _ in range(2):
        await alice.command(world.channel, "kwx addbot")
    await alice.command(world.channel, "kwx start")


async def test_a_hand_played_end_to_end_through_the_gateway_and_rest(tmp_path) -> None:
    async with LoopbackDiscord() as discord_:
        world = World.build(discord_, ("alice",))
        port = _free_port()
        async with BotProcess(discord_, db=tmp_path / "kwx.sqlite3", env={"KWX_METRICS_PORT": str(port)}) as bot:
            await _open_table(world)
            # Discord's faults on the way: a storm of 429s on message sends (discord.py waits them out), a 503
            # on an edit, and a dropped gateway connection (discord.py RESUMEs); no move may be lost.
            discord_.inject("POST", "/channels/{channel_id}/messages", "ratelimit", delay=0.3, times=6)
            discord_.inject("PATCH", "/channels/{channel_id}/messages/{message_id}", status=503, times=1)
            await play(world.players, lambda: world.players[0].presses >= 2, timeout=30)
            await discord_.drop_gateway()
            await play(world.players, lambda: bool(world.results()), timeout=60)
            assert discord_.stats.resumes == 1 and discord_.stats.identifies == 1  # resumed, not re-identified
            assert discord_.stats.route_429 >= 6 and not discord_.faults
            result = text_of(world.results()[0])
            assert "Result of hand 1" in result
            assert world.players[0].presses >= 1  # alice played her DM prompts
            assert discord_.stats.off_spec == []  # nothing the bot sent was over a Discord limit
            assert discord_.stats.global_429 == 0
            health, metrics = await _scrape(port)
            assert [line.split(" (")[0] for line in health.splitlines()] == [
                "ok", "loop: ok", "gateway: ok", "store: ok", "tables: ok"]
            assert metrics["kwx_tables_open"] == 1 and metrics["kwx_hands_finished_total"] >= 1
            assert metrics['kwx_discord_rate_limited_total{scope="user"}'] >= 6  # the storm, as Discord scoped it
            assert metrics['kwx_discord_rate_limited_total{scope="global"}'] == 0
            assert metrics['kwx_discord_requests_total{scope="bot"}'] >= discord_.stats.route_429
            assert metrics['kwx_discord_requests_total{scope="interaction"}'] >= 1
            assert metrics["kwx_store_write_seconds_count"] > 0
            assert 0 <= metrics["kwx_discord_rate_limit_tokens"] <= 10
            status = await bot.stop()
        assert status == 0, bot.output()[-2000:]
        assert "shutting down" in bot.output()
