"""The 复盘 page (kwx.present.review_html): one file that works offline, stepped through in a real browser.

The browser test drives headless Chromium over the DevTools protocol (aiohttp's websocket client): it presses
▶, ◀ and the end button and reads what the page then shows; each step's screenshot is saved next to the test's
files for a person to look at. It is skipped where Chromium is not installed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from kwx.present.review_html import review_page
from tests.support.polling import eventually
from tests.support.reviews import reviewed

NAMES = ["Ann", "Bob <b>", "Cy"]


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="review-data" type="application/json">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def test_the_page_needs_no_network_and_carries_every_step():
    done = reviewed("page")
    page = review_page(done, NAMES, "en", hand_id=7)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page) and "url(http" not in page
    assert "Bob <b>" not in page.split("<script")[0]  # a name is text, never markup
    chinese = review_page(done, NAMES, "zh-CN", hand_id=7).split("<script")[0]
    assert "<code>strong</code>" in chinese and "`" not in chinese  # the catalog's code spans set, not raw
    data = page_data(page)
    assert len(data["frames"]) == len(done.frames)
    assert data["frames"][-1]["end"] and data["frames"][0]["go"]["last"] == len(done.frames) - 1
    tiles = {code for f in data["frames"] for s in f["seats"] for code in s["hand"]}
    assert all(f".t-{code}{{background-image:url(data:image/png;base64," in page for code in tiles)


# -- in a browser --------------------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Page:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.n = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.n += 1
        await self.ws.send_json({"id": self.n, "method": method, "params": params})
        while True:
            msg = await asyncio.wait_for(self.ws.receive_json(), 10)
            if msg.get("id") == self.n:
                assert "error" not in msg, msg
                return msg["result"]

    async def js(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def shot(self, path: Path) -> None:
        data = (await self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True))["data"]
        path.write_bytes(base64.b64decode(data))


@contextlib.asynccontextmanager
async def browser(url: str, profile: Path) -> AsyncIterator[Page]:
    proc = await asyncio.create_subprocess_exec(
        CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
        f"--user-data-dir={profile}", "--window-size=900,1200", url,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        assert proc.stderr is not None
        endpoint = None
        for _ in range(200):
            line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
            if "DevTools listening on" in line:
                endpoint = line.split("on", 1)[1].strip()
                break
        assert endpoint, "Chromium did not start"
        port = endpoint.split(":")[2].split("/")[0]
        async with aiohttp.ClientSession() as http:
            targets = await (await http.get(f"http://127.0.0.1:{port}/json")).json()
            target = next(t for t in targets if t["type"] == "page")
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                page = Page(ws)

                async def drawn() -> bool:
                    return await page.js("document.body && document.body.dataset.frame") is not None

                await eventually(drawn, timeout=5.0, interval=0.05, what="the review page's first frame")
                yield page
    finally:
        proc.kill()
        await proc.wait()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
async def test_stepping_through_the_page_in_a_browser(tmp_path):
    done = reviewed("page")
    path = tmp_path / "review.html"
    path.write_text(review_page(done, NAMES, "en", hand_id=7), encoding="utf-8")
    last = len(done.frames) - 1
    async with browser(path.as_uri(), tmp_path / "profile") as page:
        assert await page.js("document.body.dataset.frame") == "0"
        assert await page.js("document.getElementById('go-prev').disabled") is True
        await page.shot(tmp_path / "step-1.png")

        async def hand_of(seat: int) -> list[str]:
            return await page.js(f"Array.from(document.querySelectorAll('.seat[data-seat=\"{seat}\"] .hand .t'))"
                                 ".map(e => e.title)")

        await page.js("document.getElementById('go-next').click()")
        assert await page.js("document.body.dataset.frame") == "1"
        mover = done.frames[0].action.seat
        shown = await hand_of(mover)
        assert sorted(shown) == sorted(t.compact for t in done.frames[1].seats[mover].concealed)
        assert await page.js("document.getElementById('status').textContent") == f"2 / {last + 1}"
        await page.shot(tmp_path / "step-2.png")

        await page.js("document.getElementById('go-prev').click()")
        assert await page.js("document.body.dataset.frame") == "0"

        await page.js("document.getElementById('go-last').click()")
        assert await page.js("document.body.dataset.frame") == str(last)
        text = await page.js("document.getElementById('lines').textContent")
        assert text.startswith(f"Step {last + 1} of {last + 1}") and "End:" in text
        if done.win_tile is not None:
            assert await page.js("document.querySelector('.t.win').title") == done.win_tile.compact
        assert await page.js("document.getElementById('go-next').disabled") is True
        await page.shot(tmp_path / "end.png")
    assert (tmp_path / "end.png").stat().st_size > 10_000


def test_a_laid_down_seat_says_so_in_the_pages_language():
    """Beside a laid-down seat's name the page says what the text and the picture say ("已亮倒，听 6条 9条"),
    not the notation's codes ("6s 9s")."""
    done = next(r for r in (reviewed(f"page{n}") for n in range(40))
                if any(view.declared for f in r.frames for view in f.seats))
    data = page_data(review_page(done, NAMES, "zh-CN", hand_id=7))
    shown = {str(s["waits"]) for f in data["frames"] for s in f["seats"] if s["waits"]}
    assert shown and all(w.startswith("已亮倒，听 ") for w in shown)
    assert not any(re.search(r"\b[1-9][psz]\b", w) for w in shown)
