"""/metrics (kwx.metrics, served by kwx.health): what a scrape shows after a game. /healthz and the server
itself: tests/test_health.py."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest

from kwx.health import HealthServer
from kwx.metrics import Metrics
from kwx.store import Store
from kwx.table import PlayerRef, TableService
from tests.support.frontends import RecordingFrontEnd
from tests.support.prometheus import samples


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def fetch(port: int, path: str) -> tuple[int, str]:
    """GET from a thread: the server answers on this test's event loop, which must keep running."""
    return await asyncio.to_thread(_get, port, path)


@pytest.fixture
async def played(tmp_path):
    """A service that has played two hands at one AI table (still open), on a real SQLite store."""
    frontend = RecordingFrontEnd()
    async with await Store.open(tmp_path / "kwx.sqlite3") as store:
        service = TableService(store, frontend, ai_delay=0, between_hands=0, claim_pause=0, demo_hands=None)
        host = PlayerRef("ai-host", "AI host", "simple")
        table = await service.open_table("g1", "c1", host, seed="metrics")
        await service.add_ai(table, "simple")
        await service.add_ai(table, "simple")
        await service.start_game(table, by=host.player_id)
        await frontend.wait_for(lambda: len(frontend.results()) >= 2, timeout=30)
        await service.pause(table, "channel_lost")  # nothing moves while the test reads
        yield service, store
        await service.shutdown()


async def test_a_scrape_shows_the_tables_moves_hands_and_store_writes(played):
    service, store = played
    metrics = Metrics()
    metrics.watch(service=service, store=store)
    service.stats.auto_passes += 2  # (nobody here turned auto-pass on: the counter is read as it stands)
    server = HealthServer(metrics, {})
    await server.start("127.0.0.1", 0)
    try:
        status, text = await fetch(server.port, "/metrics")
    finally:
        await server.stop()
    assert status == 200
    got = samples(text)
    assert got["kwx_tables_open"] == 1
    assert got["kwx_hands_finished_total"] == service.stats.hands >= 2
    assert got["kwx_actions_total"] == service.stats.actions > 0
    assert got["kwx_actions_per_second"] > 0
    assert got["kwx_auto_passes_total"] == 2
    assert got["kwx_store_write_seconds_count"] == store.write_times.count > 0
    assert got['kwx_store_write_seconds_bucket{le="+Inf"}'] == store.write_times.count
    assert 0 <= got["kwx_event_loop_lag_seconds"] < 5


def test_actions_per_second_is_over_the_last_minute():
    now = [1000.0]
    metrics = Metrics(clock=lambda: now[0])
    assert metrics._rate(0) == 0.0
    now[0] += 10
    assert metrics._rate(50) == 5.0  # since start
    now[0] += 60
    assert metrics._rate(110) == pytest.approx(60 / 60)  # the last scrape a minute or more back
    now[0] += 30
    assert metrics._rate(140) == pytest.approx(90 / 90)
