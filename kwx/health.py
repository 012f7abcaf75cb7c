"""`/healthz` and `/metrics` over HTTP (KWX_METRICS_PORT), listening on 127.0.0.1 unless told otherwise.

    server = HealthServer(metrics, {"store": store.check_writable, "tables": tables_alive}, loop)
    server.start(host="127.0.0.1", port=9108)          # port 0: any free port (server.port says which)
    ...
    server.stop()

The server runs in a thread of its own, so it answers even while the event loop that runs the tables is
stuck. Each request runs its work on that loop (a check is a coroutine; rendering the metrics reads the
tables' counters where they are written) and waits at most `timeout` seconds: a loop that does not answer in
time is itself the failed check `loop`.

GET /healthz: 200 when every check passes, else 503; the body is `ok` or `unhealthy`, then one line per check:
`loop: ok (answered in 0.1 ms)` first, then e.g. `tables: ok (0.2 ms: 3 open)` or `store: FAILED (why)`. A check
returns a short detail (or None) or raises; the exception's text is the reason.
GET /metrics: Prometheus' text format (kwx.metrics), 503 when the loop does not answer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from kwx.metrics import CONTENT_TYPE, Metrics

logger = logging.getLogger(__name__)

Check = Callable[[], Awaitable[str | None]]
_T = TypeVar("_T")
TIMEOUT_S = 5.0


class HealthServer:
    def __init__(self, metrics: Metrics, checks: Mapping[str, Check], loop: asyncio.AbstractEventLoop, *,
                 timeout: float = TIMEOUT_S) -> None:
        self.metrics = metrics
        self.checks = dict(checks)
        self.loop = loop
        self.timeout = timeout
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen (OSError when the port is taken) and serve in a daemon thread."""
        health = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                status, kind, body = health.answer(self.path.split("?")[0])
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
                logger.debug("%s " + format, self.address_string(), *args)

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="kwx-health", daemon=True)
        self._thread.start()
        logger.info("health and metrics on http://%s:%d/healthz and /metrics", host, self.port)

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    # -- answers (in the server's threads) -------------------------------------------------------------------
    def answer(self, path: str) -> tuple[int, str, bytes]:
        if path == "/metrics":
            return self._metrics()
        if path == "/healthz":
            return self._health()
        return 404, "text/plain; charset=utf-8", b"not found: try /healthz or /metrics\n"

    def _on_loop(self, work: Callable[[float], Coroutine[Any, Any, _T]]) -> _T:
        """Run `work(asked_at)` on the loop and wait for it; TimeoutError when the loop does not answer."""
        asked = time.monotonic()
        try:
            future: concurrent.futures.Future[_T] = asyncio.run_coroutine_threadsafe(work(asked), self.loop)
        except RuntimeError:  # the loop is closed: the process is stopping
            raise TimeoutError from None
        try:
            return future.result(self.timeout)
        except TimeoutError:
            future.cancel()
            raise

    def _metrics(self) -> tuple[int, str, bytes]:
        async def render(asked: float) -> bytes:
            self.metrics.loop_lag = time.monotonic() - asked
            return self.metrics.render()

        try:
            return 200, CONTENT_TYPE, self._on_loop(render)
        except TimeoutError:
            return 503, "text/plain; charset=utf-8", f"the event loop did not answer in {self.timeout:g} s\n".encode()

    def _health(self) -> tuple[int, str, bytes]:
        async def run(asked: float) -> list[tuple[str, bool, str]]:
            results = [("loop", True, f"answered in {(time.monotonic() - asked) * 1000:.1f} ms")]
            for name, check in self.checks.items():
                started = time.perf_counter()
                try:
                    detail = await asyncio.wait_for(check(), self.timeout / 2)
                except Exception as exc:  # noqa: BLE001 - any failure of a check is its answer
                    results.append((name, False, _reason(exc)))
                    continue
                took = f"{(time.perf_counter() - started) * 1000:.1f} ms"
                results.append((name, True, f"{took}: {detail}" if detail else took))
            return results

        try:
            results = self._on_loop(run)
        except TimeoutError:
            results = [("loop", False, f"the event loop did not answer in {self.timeout:g} s")]
        healthy = all(ok for _, ok, _ in results)
        lines = ["ok" if healthy else "unhealthy"]
        lines += [f"{name}: {'ok' if ok else 'FAILED'} ({detail})" for name, ok, detail in results]
        return (200 if healthy else 503), "text/plain; charset=utf-8", ("\n".join(lines) + "\n").encode()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return " ".join(str(exc).split())[:200] or type(exc).__name__
