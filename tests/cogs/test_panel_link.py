"""In any browser: when the bot serves the table pages, each player's DM panel carries a link button to their own
seat (signed, expiring, one seat of one table), and the link opens that seat's page and no other."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import aiohttp

from cogs.fake_discord.kit import bot_kit, seat_table
from kwx.cli.settings import Settings
from kwx.present.i18n import tr

PUBLIC = "https://kwx.example/"


async def first_messages(ws: aiohttp.ClientWebSocketResponse, count: int) -> list[dict[str, Any]]:
    """The first messages a page is sent (a frame carries one, or an array of several)."""
    got: list[dict[str, Any]] = []
    while len(got) < count:
        frame = json.loads((await ws.receive(timeout=10)).data)
        got += frame if isinstance(frame, list) else [frame]
    return got[:count]


async def test_the_dm_panel_links_each_player_to_their_own_seat_on_the_table_page(tmp_path: Path) -> None:
    async with bot_kit(tmp_path, env=dataclasses.replace(Settings(), web_port=0, web_url=PUBLIC)) as kit:
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await kit.slash(kit.alice, "kwx start")
        for member in (kit.alice, kit.bob):
            await kit.until(lambda m=member: bool(kit.dm_messages(m)))
        urls = {}
        for member in (kit.alice, kit.bob):
            panel = kit.dm_messages(member)[-1]
            (link,) = [c for c in panel.components if c.url is not None]
            # a link button (style 5): Discord opens the URL itself; no custom id, no interaction for the bot
            assert (link.style, link.custom_id, link.label) == (5, None, tr("web.open_in_browser", "zh-CN"))
            assert link.url.startswith(f"{PUBLIC}?lang=zh-CN#link=")
            assert len(panel.components) <= 25
            urls[member.id] = link.url
        # every panel of the hand keeps it: alice's prompt, with her discards and actions, has it too
        prompt = await kit.until_asked(kit.alice)
        assert [c.url for c in prompt.components if c.url] and kit.acts(prompt)

        web = kit.rt.web
        seat = web.sessions.links.check(urls[kit.alice.id].split("#link=", 1)[1])
        assert (seat.table_id, seat.player_id) == (table, str(kit.alice.id))
        async with aiohttp.ClientSession() as http:
            for member in (kit.alice, kit.bob):
                token = urls[member.id].split("#link=", 1)[1]
                async with http.ws_connect(f"http://127.0.0.1:{web.port}/ws") as ws:
                    await ws.send_json({"t": "hello", "link": token, "lang": "en"})
                    welcome, board, hand = await first_messages(ws, 3)
                assert (welcome["t"], welcome["table"], welcome["player"]) == ("welcome", table, str(member.id))
                mine = next(s["seat"] for s in board["view"]["seats"] if s["player"]["id"] == str(member.id))
                assert hand["t"] == "hand" and hand["view"]["seat"] == mine  # that seat's hand, nobody else's
            token = urls[kit.alice.id].split("#link=", 1)[1]
            async with http.ws_connect(f"http://127.0.0.1:{web.port}/ws") as ws:  # one character changed
                await ws.send_json({"t": "hello", "link": token[:-1] + ("A" if token[-1] != "A" else "B")})
                assert json.loads((await ws.receive(timeout=10)).data)["t"] == "refused"


async def test_without_the_table_pages_the_panel_has_no_link(tmp_path: Path) -> None:
    async with bot_kit(tmp_path) as kit:
        await seat_table(kit, [kit.alice], ais=2)
        await kit.slash(kit.alice, "kwx start")
        panel = await kit.until_asked(kit.alice)
        assert kit.acts(panel) and not [c for c in panel.components if c.url is not None]
