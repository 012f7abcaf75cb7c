"""The table page in a real browser (headless Chromium): whole hands against two AI players, a reconnect in the
middle of a claim, the page's look at a phone's and a laptop's size."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support import browser as chromium
from tests.support.web import ANN, BOB, CAT, against_ai, served, three_humans


@pytest.fixture
async def browser():
    async for b in chromium.launch():
        yield b


async def open_seat(browser, s, player_id: str, viewport=chromium.PHONE, lang: str = "en"):
    page = await browser.new_page(viewport=viewport)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    await page.goto(f"{s.base}?lang={lang}#link={s.link(player_id)}")
    await page.wait_for_function("window.kwxState && window.kwxState.board !== null")
    return page, problems


async def test_a_whole_hand_against_two_ai_players(tmp_path, browser):
    async with served(tmp_path, ai_delay=0.02, between_hands=60) as s:
        await against_ai(s, seed="browser-1")
        page, problems = await open_seat(browser, s, ANN.player_id)
        assert await page.locator("#hand button").count() >= 13  # the hand is drawn as tiles
        assert "url(\"tiles/" in await page.locator("#hand button").first.get_attribute("style")
        await chromium.screenshot(page, tmp_path, "hand-phone")
        deadline = time.monotonic() + 90
        while not await page.locator("#result:not([hidden])").count():
            assert time.monotonic() < deadline, "the hand did not finish"
            await chromium.play_step(page)
        result = await page.inner_text("#result")
        assert "Result of hand 1" in result
        assert ("Exhaustive draw" in result) or (" fan" in result and "→" in result)  # a draw, or a win paid
        # a loss reads with a minus sign (U+2212), as everywhere in kwx, never an ASCII hyphen
        nets = await page.inner_text("#result .nets")
        assert "-" not in nets
        if any(n < 0 for n in await chromium.state(page, "s.result.net")):
            assert "\u2212" in nets
        await chromium.screenshot(page, tmp_path, "result-phone")
        review = page.locator("#result a")  # the hand's 复盘, from Ann's seat
        href = await review.get_attribute("href")
        async with s.http.get(s.base + href) as answer:
            assert answer.status == 200 and "Review of hand #1: Ann" in await answer.text()
        async with s.http.get(s.base + href.replace("link=", "link=x")) as answer:
            assert answer.status == 403
        await page.set_viewport_size(chromium.LAPTOP)
        await chromium.screenshot(page, tmp_path, "result-laptop")
        await page.click("#result button")
        await chromium.screenshot(page, tmp_path, "table-laptop")
        # every hand a seat is sent is its own
        seats = await chromium.state(page, "s.hand && s.hand.seat")
        me = next(x.seat for x in s.service.public_view_as_shown(s.table_id).seats if x.player.player_id == ANN.player_id)
        assert seats == me
        assert problems == []


async def test_the_page_is_in_chinese_when_asked(tmp_path, browser):
    async with served(tmp_path) as s:
        await against_ai(s, seed="browser-zh")
        page, problems = await open_seat(browser, s, ANN.player_id, viewport=chromium.LAPTOP, lang="zh-CN")
        await page.wait_for_selector("#actions button")
        status = await page.inner_text("#status")
        assert status.startswith("第 1 局 · 庄家"), status
        await chromium.screenshot(page, tmp_path, "table-laptop-zh")
        await page.click("#lang")  # switch to English: the page reconnects in that language
        await page.wait_for_function("document.documentElement.lang === 'en'")
        assert "Hand 1" in await page.inner_text("#status")
        assert problems == []


async def test_a_reconnect_in_the_middle_of_a_claim_loses_and_doubles_nothing(tmp_path, browser):
    """Ann plays in the browser, Bob and Cat through their own sockets. When Ann is asked a claim, her page's
    socket drops; the page comes back to the same claim, and her answer is taken once."""
    async with served(tmp_path) as s:
        await three_humans(s, seed="claim-0")
        page, problems = await open_seat(browser, s, ANN.player_id)
        others = {p.player_id: await s.page({"link": s.link(p.player_id)}) for p in (BOB, CAT)}

        async def socket_player(sock) -> None:
            while True:
                view = await sock.hand(lambda v: bool(v["choices"]), timeout=60)
                verbs = {c["verb"]: c for c in view["choices"]}
                if "pass" in verbs:
                    await sock.act(f"{view['step']}", "pass", None, view["step"])
                elif "discard" in verbs:
                    tile = view["drawn"] or next(c["tile"] for c in view["choices"] if c["verb"] == "discard")
                    await sock.act(f"{view['step']}", "discard", tile, view["step"])
                elif "hu" in verbs:
                    await sock.act(f"{view['step']}", "hu", None, view["step"])

        bots = [asyncio.ensure_future(socket_player(sock)) for sock in others.values()]
        try:
            deadline = time.monotonic() + 60
            while not await page.locator("#actions button[data-verb=pass]").count():
                assert time.monotonic() < deadline, "Ann was never asked a claim"
                assert not await page.locator("#result:not([hidden])").count(), "the hand ended without a claim"
                if await page.locator("#hand button:not([disabled])").count():
                    await chromium.play_step(page)
                else:
                    await asyncio.sleep(0.05)
            asked = await chromium.state(page, "s.hand.step")
            board_before = s.service.public_view_as_shown(s.table_id).step
            await page.evaluate("window.kwxState.ws.close()")  # the socket drops, as on a phone going to sleep
            await page.wait_for_function("window.kwxState.ws && window.kwxState.ws.readyState === 1")
            await page.wait_for_selector("#actions button[data-verb=pass]")  # the same claim, asked again
            assert await chromium.state(page, "s.hand.step") == asked
            lines = await page.locator("#log li").all_inner_texts()
            assert len(lines) == len(set(lines)), lines  # the board sent again added no line twice
            await page.click("#actions button[data-verb=pass]")
            await page.wait_for_function("window.kwxState.pending.size === 0")
            moved_by = time.monotonic() + 10  # the other seats answer their own claims, if any, at their pace
            while s.service.public_view_as_shown(s.table_id).step <= board_before:
                assert time.monotonic() < moved_by, "the claim was never resolved"
                await asyncio.sleep(0.05)
            assert await chromium.state(page, "s.hand.choices.some(c => c.verb === 'pass')") is False
            await chromium.screenshot(page, tmp_path, "after-claim-phone")
        finally:
            for bot in bots:
                bot.cancel()
            await asyncio.gather(*bots, return_exceptions=True)
        assert problems == []


async def test_a_forged_link_is_refused_in_the_page(tmp_path, browser):
    async with served(tmp_path) as s:
        await three_humans(s)
        page = await browser.new_page(viewport=chromium.PHONE)
        await page.goto(f"{s.base}?lang=en#link={s.link(BOB.player_id)[:-3]}xyz")
        await page.wait_for_selector("#veil:not([hidden])")
        await page.wait_for_function("document.getElementById('veil-text').textContent.includes('not valid')")
        assert await page.locator("#hand button").count() == 0
