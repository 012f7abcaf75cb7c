"""Headless Chromium for the table page's tests: Debian's `chromium` driven by Playwright for Python.

Where Chromium (or Playwright) is missing the tests are skipped with the reason; with KWX_REQUIRE_BROWSER=1
(.ci/run sets it) they fail instead, so a CI run cannot pass them by skipping. KWX_SCREENS=DIR keeps the
screenshots the tests take there, to look at."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("KWX_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def _missing(reason: str) -> None:
    if os.environ.get("KWX_REQUIRE_BROWSER"):
        pytest.fail(f"KWX_REQUIRE_BROWSER is set but {reason}", pytrace=False)
    pytest.skip(reason)


async def launch() -> AsyncIterator[Any]:
    if not CHROMIUM:
        _missing("no Chromium on this machine (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (make setup installs the dev extra)")
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            await browser.close()


async def screenshot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    await page.screenshot(path=str(path))
    keep = os.environ.get("KWX_SCREENS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    return path


async def state(page: Any, expression: str) -> Any:
    """Something the page last drew from (window.kwxState, kwx/web/static/table.js)."""
    return await page.evaluate(f"(() => {{ const s = window.kwxState; return {expression}; }})()")


async def play_step(page: Any, *, claim: str = "pass") -> bool:
    """Press what a player would at this moment: confirm an open warning, win, answer a claim (`claim`:
    pass or peng), or pick and play the drawn tile (else the first playable one). False when nothing was
    asked of the seat."""
    if await page.locator("dialog#ask[open]").count():
        await page.click("#ask-yes")
        return True
    for verb in ("hu", claim, "pass"):
        button = page.locator(f"#actions button[data-verb={verb}]")
        if await button.count():
            await button.first.click()
            await page.wait_for_timeout(60)
            return True
    tile = page.locator("#hand button.drawn:not([disabled])")
    if not await tile.count():
        tile = page.locator("#hand button:not([disabled])")
    if await tile.count():
        await tile.first.click()
        await tile.first.click()
        await page.wait_for_timeout(60)
        return True
    await asyncio.sleep(0.05)
    return False
