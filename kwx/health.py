"""`/healthz` and `/metrics` over HTTP (KWX_METRICS_PORT), served on the event loop that runs the tables.

    server = HealthServer(metrics, {"store": store.check_writable, "tables": tables_alive})
    await server.start(host="127.0.0.1", port=9108)      # port 0: any free port (server.port says which)
    ...
    await server.stop()

An answer costs no thread and no file but its socket (aiohttp's low-level server), and what a client can hold
is bounded: at most `max_connections` sockets are open at once, and a new one past that closes the oldest that
is not being answered, so a flood of half-sent requests cannot keep a health check out or use up the process's
files; a connection that has not sent its first request within `request_timeout` seconds is closed, and so is
one left idle that long between requests. A check that does not answer within half of `timeout` fails.

The event loop is watched from inside (LoopWatch): a sleeper wakes every half second and notes how late it
woke. A loop stuck longer than `timeout` answers nothing while stuck, as any server on it would; once it runs
again `/healthz` reports the stall as the failed check `loop` for a minute, and `/metrics` has the latest
lateness as `kwx_event_loop_lag_seconds`.

GET /healthz: 200 when every check passes, else 503; the body is `ok` or `unhealthy`, then one line per check:
`loop: ok (woke 0.1 ms late)` first, then e.g. `tables: ok (0.2 ms: 3 open)` or `store: FAILED (why)`. A check
returns a short detail (or None) or raises; the exception's text is the reason.
GET /metrics: Prometheus' text format (kwx.metrics).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from kwx.metrics import CONTENT_TYPE, Metrics

logger = logging.getLogger(__name__)

Check = Callable[[], Awaitable[str | None]]
TIMEOUT_S = 5.0  # a check's answer (half of it) and the longest stall of the loop that is still healthy
MAX_CONNECTIONS = 32  # a monitor and a few people with curl need a handful
REQUEST_TIMEOUT_S = 10.0  # to send a whole request, and the longest idle time between two
WATCH_INTERVAL_S = 0.5
STALL_REMEMBERED_S = 60.0  # how long a stall of the loop keeps /healthz failing after the loop runs again
TEXT = "text/plain; charset=utf-8"


class LoopWatch:
    """How late the event loop wakes a sleeper: its lag now, and its worst stall of the last minute."""

    def __init__(self, interval: float = WATCH_INTERVAL_S) -> None:
        self.interval = interval
        self.lag = 0.0  # seconds the latest wake-up came late
        self.stall = (0.0, 0.0)  # (seconds, monotonic time it ended) of the worst recent lateness
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="kwx-loop-watch")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def recent_stall(self, now: float) -> float:
        """The worst lateness that ended within the last minute (0 when none)."""
        seconds, ended = self.stall
        return seconds if now - ended <= STALL_REMEMBERED_S else 0.0

    async def _watch(self) -> None:
        while True:
            due = time.monotonic() + self.interval
            await asyncio.sleep(self.interval)
            now = time.monotonic()
            self.lag = max(0.0, now - due)
            if self.lag >= self.recent_stall(now):
                self.stall = (self.lag, now)


class HealthServer:
    def __init__(self, metrics: Metrics, checks: Mapping[str, Check], *, timeout: float = TIMEOUT_S,
                 max_connections: int = MAX_CONNECTIONS, request_timeout: float = REQUEST_TIMEOUT_S,
                 watch: LoopWatch | None = None) -> None:
        self.metrics = metrics
        self.checks = dict(checks)
        self.timeout = timeout
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self.watch = watch or LoopWatch()
        self._web: web.Server | None = None
        self._listener: asyncio.Server | None = None
        self._opened: dict[RequestHandler, float] = {}  # each open connection: when it was accepted
        self._answering: set[RequestHandler] = set()  # the connections whose request is being answered now

    @property
    def port(self) -> int:
        assert self._listener is not None, "not started"
        return int(self._listener.sockets[0].getsockname()[1])

    @property
    def open_connections(self) -> int:
        return len(self._web.connections) if self._web is not None else 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen (OSError when the port is taken) and serve on the running loop."""
        loop = asyncio.get_running_loop()
        # aiohttp's keep-alive timer runs from the connection's start until a whole request has come, and again
        # after each answer: it closes both a request never finished (or trickled) and an idle connection.
        self._web = web.Server(self._handle, keepalive_timeout=self.request_timeout, access_log=None)
        self._listener = await loop.create_server(self._accept, host, port, backlog=self.max_connections)
        self.watch.start()
        logger.info("health and metrics on http://%s:%d/healthz and /metrics", host, self.port)

    async def stop(self) -> None:
        listener, self._listener = self._listener, None
        server, self._web = self._web, None
        if listener is not None:
            listener.close()
        if server is not None:
            await server.shutdown(1.0)
        await self.watch.stop()

    # -- connections ----------------------------------------------------------------------------------------
    def _accept(self) -> RequestHandler:
        """A new connection's protocol; past the cap, the oldest connection not being answered is closed."""
        assert self._web is not None
        open_now = self._web.connections
        for gone in self._opened.keys() - set(open_now):
            del self._opened[gone]
        if len(open_now) >= self.max_connections:
            idle = [c for c in open_now if c not in self._answering]
            if idle:
                min(idle, key=lambda c: self._opened.get(c, 0.0)).force_close()
        handler = self._web()
        self._opened[handler] = time.monotonic()
        return handler

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        handler = request.protocol
        self._answering.add(handler)
        try:
            status, kind, body = await self.answer(request.path)
        finally:
            self._answering.discard(handler)
        return web.Response(status=status, body=body, headers={"Content-Type": kind})

    # -- answers --------------------------------------------------------------------------------------------
    async def answer(self, path: str) -> tuple[int, str, bytes]:
        if path == "/metrics":
            self.metrics.loop_lag = self.watch.lag
            return 200, CONTENT_TYPE, self.metrics.render()
        if path == "/healthz":
            return await self._health()
        return 404, TEXT, b"not found: try /healthz or /metrics\n"

    async def _health(self) -> tuple[int, str, bytes]:
        stall = self.watch.recent_stall(time.monotonic())
        if stall > self.timeout:
            results = [("loop", False, f"the event loop was stuck {stall:.1f} s within the last minute")]
        else:
            results = [("loop", True, f"woke {self.watch.lag * 1000:.1f} ms late")]
        for name, check in self.checks.items():
            started = time.perf_counter()
            try:
                detail = await asyncio.wait_for(check(), self.timeout / 2)
            except Exception as exc:  # noqa: BLE001 - any failure of a check is its answer
                results.append((name, False, _reason(exc)))
                continue
            took = f"{(time.perf_counter() - started) * 1000:.1f} ms"
            results.append((name, True, f"{took}: {detail}" if detail else took))
        healthy = all(ok for _, ok, _ in results)
        lines = ["ok" if healthy else "unhealthy"]
        lines += [f"{name}: {'ok' if ok else 'FAILED'} ({detail})" for name, ok, detail in results]
        return (200 if healthy else 503), TEXT, ("\n".join(lines) + "\n").encode()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return " ".join(str(exc).split())[:200] or type(exc).__name__
