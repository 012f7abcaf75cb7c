"""The Discord Activity end to end: the real bot process (KWX_WEB_PORT, DISCORD_CLIENT_SECRET) against the loopback
Discord, one player in a Discord client's DMs and one in the Activity, drawn by headless Chromium with the
Embedded App SDK's own mock (DiscordSDKMock) standing in for Discord's client, the loopback answering the OAuth2
code exchange, GET /users/@me with the token, the LAUNCH_ACTIVITY callback and the activity instance."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import aiohttp
import pytest

from kwx.devtools.loopback.activities import CLIENT_SECRET
from kwx.devtools.loopback.players import BotProcess, World, buttons, play
from kwx.devtools.loopback.server import LoopbackDiscord
from tests.support import browser as chromium


@pytest.fixture
async def browser():
    async for b in chromium.launch():
        yield b


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def web_button(world: World, verb: str) -> tuple[object, str] | None:
    for message in reversed(world.board()):
        for b in buttons(message):
            if str(b.get("custom_id", "")).startswith("kwx:web:") and b["custom_id"].endswith(f":{verb}"):
                return message, b["custom_id"]
    return None


async def test_a_discord_player_and_an_activity_player_finish_a_hand(tmp_path, browser):
    port = free_port()
    async with LoopbackDiscord() as discord_:
        world = World.build(discord_, ("alice", "bob"))
        alice, bob = world.players
        env = {"KWX_WEB_PORT": str(port), "DISCORD_CLIENT_SECRET": CLIENT_SECRET, "KWX_WEB_URL": f"http://127.0.0.1:{port}/"}
        async with BotProcess(discord_, db=tmp_path / "kwx.sqlite3", env=env) as bot:
            await alice.command(world.channel, "kwx new")
            await bob.command(world.channel, "kwx join")
            await alice.command(world.channel, "kwx addbot")
            await alice.command(world.channel, "kwx start")
            deadline = time.monotonic() + 20
            while web_button(world, "open") is None:
                assert time.monotonic() < deadline, "the board has no Open the table button"
                await discord_.model.changed(0.5)
            message, custom_id = web_button(world, "open")
            launch = await bob.press(message, custom_id)
            assert launch.response_type == 12 and launch.error is None  # LAUNCH_ACTIVITY, as Discord took it
            (instance,) = discord_.model.activities.instances.values()
            assert instance["location"]["channel_id"] == str(world.channel) and instance["users"] == [str(bob.uid)]

            # The browser link, too: answered to bob alone, and it opens his seat
            message, custom_id = web_button(world, "link")
            linked = await bob.press(message, custom_id)
            assert f"http://127.0.0.1:{port}/?lang=en#link=" in bob.reply(linked) and linked.ephemeral

            code = discord_.model.activities.authorize(bob.uid)  # what Discord's client gives `authorize`
            page = await browser.new_page(viewport=chromium.PHONE)
            problems: list[str] = []
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(f"http://127.0.0.1:{port}/?mock=1&lang=en&guild_id={world.guild}"
                            f"&channel_id={world.channel}&instance_id={instance['instance_id']}&mock_code={code}")
            await page.wait_for_function(f"window.kwxState && window.kwxState.me === '{bob.uid}' && "
                                         "window.kwxState.board !== null", timeout=20_000)
            assert discord_.model.activities.exchanges == 1
            await chromium.screenshot(page, tmp_path, "activity-phone")

            async def bob_plays() -> None:
                while not world.results():
                    await chromium.play_step(page)

            bob_task = asyncio.ensure_future(bob_plays())
            try:
                await play([alice], lambda: bool(world.results()), timeout=120)
            finally:
                bob_task.cancel()
                await asyncio.gather(bob_task, return_exceptions=True)
            await page.wait_for_selector("#result:not([hidden])", timeout=15_000)
            assert "Result of hand 1" in await page.inner_text("#result")
            assert discord_.stats.off_spec == []  # every request, the callback's included, as Discord describes it
            entry = [c for c in discord_.model.commands[None] if c["type"] == 4]  # the app's entry point command
            assert [(c["name"], c["handler"]) for c in entry] == [("launch", 2)]
            assert problems == []
            assert await bot.stop() == 0, bot.output()[-2000:]


async def test_the_activity_is_refused_a_code_or_token_discord_did_not_give(tmp_path):
    port = free_port()
    async with LoopbackDiscord() as discord_:
        world = World.build(discord_, ("alice",))
        env = {"KWX_WEB_PORT": str(port), "DISCORD_CLIENT_SECRET": CLIENT_SECRET}
        async with BotProcess(discord_, db=tmp_path / "kwx.sqlite3", env=env), aiohttp.ClientSession() as http:
            await world.players[0].command(world.channel, "kwx new")
            async with http.post(f"http://127.0.0.1:{port}/api/token", json={"code": "made-up"}) as answer:
                assert answer.status == 401 and (await answer.json()) == {"error": "code"}
            code = discord_.model.activities.authorize(world.players[0].uid)
            async with http.post(f"http://127.0.0.1:{port}/api/token", json={"code": code}) as answer:
                token = (await answer.json())["access_token"]
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
                await ws.send_json({"t": "hello", "access_token": token + "x", "guild": str(world.guild),
                                    "channel": str(world.channel), "lang": "en"})
                refused = json.loads((await ws.receive()).data)
                assert refused["t"] == "refused" and "did not confirm who you are" in refused["text"]
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:  # no activity instance of hers
                await ws.send_json({"t": "hello", "access_token": token, "instance": "i-none",
                                    "guild": str(world.guild), "channel": str(world.channel), "lang": "en"})
                assert json.loads((await ws.receive()).data)["t"] == "refused"
