"""/healthz and /metrics served on the bot's event loop (kwx.health): a health check that fails names what
failed; a stall of the loop is reported once it runs again; half-sent requests neither keep a health check
out nor pile up open files."""

from __future__ import annotations

import asyncio
import time

import pytest

from kwx.health import HealthServer, LoopWatch
from kwx.metrics import Metrics
from kwx.store import Store


async def get(port: int, path: str, *, timeout: float = 5.0) -> tuple[int, str]:
    """One GET over a fresh connection, on this loop (the server shares it)."""
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: kwx\r\nConnection: close\r\n\r\n".encode())
            raw = await reader.read()
        finally:
            writer.close()
    head, _, body = raw.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


async def fine() -> str:
    return "fine"


@pytest.fixture
async def served():
    servers: list[HealthServer] = []

    async def serve(checks=None, **options) -> HealthServer:
        server = HealthServer(Metrics(), checks or {"store": fine}, **options)
        await server.start("127.0.0.1", 0)
        servers.append(server)
        return server

    yield serve
    for server in servers:
        await server.stop()


async def test_healthz_is_ok_with_every_check_and_names_the_one_that_fails(tmp_path, served) -> None:
    store = await Store.open(tmp_path / "kwx.sqlite3")

    async def tables() -> str:
        return "1 open"

    server = await served({"store": store.check_writable, "tables": tables})
    status, text = await get(server.port, "/healthz")
    lines = text.splitlines()
    assert status == 200 and lines[0] == "ok" and lines[1].startswith("loop: ok (woke ")
    assert lines[2].startswith("store: ok (") and lines[3].startswith("tables: ok (") and lines[3].endswith(" ms: 1 open)")
    assert await store.guild_setting("kwx:health", "probe") is None  # the probe write was rolled back
    await store.close()  # the store can no longer take a write
    status, text = await get(server.port, "/healthz")
    assert status == 503 and text.splitlines()[0] == "unhealthy"
    assert any(line.startswith("store: FAILED (") for line in text.splitlines())
    assert any(line.startswith("tables: ok (") for line in text.splitlines())
    assert (await get(server.port, "/nothing"))[0] == 404


async def test_a_check_that_hangs_fails_in_time_and_the_others_still_answer(served) -> None:
    async def hangs() -> str:
        await asyncio.sleep(3600)
        return "never"

    server = await served({"store": hangs, "tables": fine}, timeout=0.4)
    started = time.monotonic()
    status, text = await get(server.port, "/healthz")
    assert status == 503 and "store: FAILED (no answer in time)" in text and "tables: ok (" in text
    assert time.monotonic() - started < 2


async def test_a_stall_of_the_event_loop_fails_the_health_check_once_it_runs_again(served) -> None:
    server = await served(timeout=0.3, watch=LoopWatch(interval=0.05))
    await asyncio.sleep(0.1)
    time.sleep(0.5)  # the loop stuck in a long computation: nothing on it answers meanwhile
    await asyncio.sleep(0.1)
    status, text = await get(server.port, "/healthz")
    assert status == 503 and "loop: FAILED (the event loop was stuck 0." in text


async def test_many_half_sent_requests_neither_keep_a_health_check_out_nor_pile_up(served) -> None:
    """Half-sent requests (headers never finished) used to hold a thread and a file each, for ever: about a
    thousand used up the bot's files. Past the cap the oldest are closed, so a health check still gets in."""
    server = await served(max_connections=16, request_timeout=30.0)
    half_sent = []
    for _ in range(200):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: kwx\r\n")  # never the blank line that ends it
        half_sent.append((reader, writer))
    await asyncio.sleep(0.2)
    try:
        assert server.open_connections <= 16
        status, text = await get(server.port, "/healthz", timeout=3.0)
        assert status == 200 and text.startswith("ok")
        closed = sum(1 for reader, _ in half_sent if reader.at_eof())
        assert closed >= 200 - 16
    finally:
        for _, writer in half_sent:
            writer.close()


async def test_a_request_never_finished_is_closed_after_the_request_timeout(served) -> None:
    server = await served(request_timeout=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\n")
    try:
        async with asyncio.timeout(3):
            assert await reader.read() == b""  # closed by the server, no answer
    finally:
        writer.close()
    assert server.open_connections == 0
