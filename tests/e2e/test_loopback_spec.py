"""The loopback Discord over HTTP refuses what Discord's own API description refuses, as Discord does: 400 with
code 50035 and the path of the field, counted off spec; in a JSON body and in a multipart form's payload_json."""

from __future__ import annotations

import json

import aiohttp

from kwx.devtools.loopback.server import LoopbackDiscord


async def test_an_off_spec_body_over_http_is_refused_as_discord_refuses_it(off_spec_expected) -> None:
    async with LoopbackDiscord(token="tok") as discord_, aiohttp.ClientSession() as http:
        channel = discord_.model.add_channel(discord_.model.add_guild())
        url = f"{discord_.api_base}/channels/{channel}/messages"
        headers = {"Authorization": "Bot tok"}
        async with http.post(url, json={"content": "ok", "embeds": [{"title": "t" * 256}]}, headers=headers) as r:
            assert r.status == 200
        async with http.post(url, json={"embeds": [{"title": "t" * 257}]}, headers=headers) as r:
            refused = await r.json()
            assert r.status == 400
        assert refused["code"] == 50035 and refused["message"] == "Invalid Form Body"
        assert refused["errors"]["embeds"]["0"]["title"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
        form = aiohttp.FormData()
        form.add_field("payload_json", json.dumps({"components": [{"type": 1, "components": [
            {"type": 2, "style": 1, "custom_id": "c" * 101, "label": "x"}]}]}))
        form.add_field("files[0]", b"png", filename="hand.png")
        async with http.post(url, data=form, headers=headers) as r:
            assert r.status == 400 and (await r.json())["code"] == 50035
        assert discord_.report()["off_spec"] == 2
        assert [m.content for m in discord_.model.channel_messages(channel)] == ["ok"]
