"""The loopback's REST API without sockets, for a bot running in the same process (the unit tests).

discord.py sends every REST call (bot-token routes through `HTTPClient.request`, interaction responses and
followups through the webhook adapter) with one aiohttp session, `HTTPClient._HTTPClient__session`, which
interactions share. That session is the seam: `InProcessSession` takes its place and hands each request to
`RestApi.handle` as the HTTP server would, so everything above it is discord.py's own code: its routes, its
multipart forms, its rate-limit handling and retries, its exceptions (Forbidden, NotFound ...) built from the
status and the JSON Discord answers.

    session = InProcessSession(rest)
    install(client, session)          # before the first request; the URLs are discord.py's own (any /api/vN)
"""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Iterator, Mapping
from types import SimpleNamespace, TracebackType
from typing import Any, cast
from urllib.parse import parse_qsl, urlsplit

import aiohttp
from multidict import CIMultiDict
from yarl import URL

from kwx.devtools.loopback.calls import Answer, Request
from kwx.devtools.loopback.rest import RestApi

_API_PATH = re.compile(r"^/api/v\d+")
_REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 413: "Payload Too Large", 429: "Too Many Requests", 500: "Internal Server Error",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


class Headers(Mapping[str, str]):
    """Response headers, read whatever the case of their names (as aiohttp's are)."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        self._items = {k.lower(): v for k, v in headers.items()}

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class InProcessResponse:
    """What discord.py reads of an aiohttp response: status, reason, headers and the text."""

    def __init__(self, answer: Answer, method: str, url: str) -> None:
        self.status = answer.status
        self.reason = _REASONS.get(answer.status, "")
        self.method, self.url = method, url
        headers = dict(answer.headers)
        self._text = ""
        if answer.body is not None:
            self._text = json.dumps(answer.body, ensure_ascii=False)
            headers["Content-Type"] = "application/json"
        self.headers = Headers(headers)

    async def text(self, encoding: str | None = None) -> str:
        return self._text

    async def read(self) -> bytes:
        return self._text.encode()

    async def json(self, **_: Any) -> Any:
        return json.loads(self._text) if self._text else None

    def release(self) -> None:
        pass


class _Call:
    def __init__(self, session: InProcessSession, method: str, url: str, kwargs: dict[str, Any]) -> None:
        self.session, self.method, self.url, self.kwargs = session, method, url, kwargs

    async def __aenter__(self) -> InProcessResponse:
        await asyncio.sleep(0)  # a real request yields to the loop: keep the same interleavings
        request = _request(self.method, self.url, self.kwargs)
        answer = await self.session.rest.handle(request)
        if answer.drop:
            raise aiohttp.ServerDisconnectedError()
        response = InProcessResponse(answer, self.method, self.url)
        await self.session.traced(response)
        return response

    async def __aexit__(self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]
                        ) -> None:
        return None


class InProcessSession:
    """Stands in for the aiohttp.ClientSession discord.py sends through (only what discord.py uses of it)."""

    def __init__(self, rest: RestApi) -> None:
        self.rest = rest
        self.closed = False
        self.trace: aiohttp.TraceConfig | None = None  # the client's http_trace: told of every answer

    async def traced(self, response: InProcessResponse) -> None:
        """Tell the client's trace of an answer, as an aiohttp session would (on_request_end)."""
        if self.trace is None:
            return
        params = aiohttp.TraceRequestEndParams(response.method, URL(response.url), CIMultiDict(),
                                               cast(aiohttp.ClientResponse, response))
        for callback in self.trace.on_request_end:
            await callback(cast(aiohttp.ClientSession, self), SimpleNamespace(), params)

    def request(self, method: str, url: Any, **kwargs: Any) -> _Call:
        return _Call(self, method, str(url), kwargs)

    async def close(self) -> None:
        self.closed = True

    async def ws_connect(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("the in-process loopback has no gateway: dispatch interactions directly")


def install(client: Any, session: InProcessSession, token: str = "in-process") -> None:
    """Point a discord.Client's HTTP client at the session, as `HTTPClient.static_login` would with a real one."""
    http = client.http
    http._HTTPClient__session = session
    session.trace = http.http_trace
    http._global_over = asyncio.Event()
    http._global_over.set()
    http.token = token


def _request(method: str, url: str, kwargs: dict[str, Any]) -> Request:
    parts = urlsplit(url)
    path = _API_PATH.sub("", parts.path)
    query = dict(parse_qsl(parts.query))
    query |= {k: str(v) for k, v in (kwargs.get("params") or {}).items()}
    headers = dict(kwargs.get("headers") or {})
    body, files = _body(kwargs.get("data"), kwargs.get("json"))
    return Request(method.upper(), path, query, headers, body, files)


def _body(data: Any, as_json: Any) -> tuple[Any, list[tuple[str, bytes]]]:
    if as_json is not None:
        return as_json, []
    if data is None:
        return None, []
    if isinstance(data, str | bytes):
        return (json.loads(data) if data else None), []
    if isinstance(data, aiohttp.FormData):
        return _form(data)
    raise TypeError(f"the in-process loopback cannot read a body of type {type(data).__name__}")


def _form(form: aiohttp.FormData) -> tuple[Any, list[tuple[str, bytes]]]:
    """payload_json and the files of a multipart form, as a server would read them. (FormData keeps its
    parts in `_fields`: (options with name and filename, headers, value); reading them spares encoding the
    form to bytes and parsing it back.)"""
    body: Any = None
    files: list[tuple[str, bytes]] = []
    for options, _headers, value in form._fields:
        name = options.get("name") if isinstance(options, Mapping) else None
        if name == "payload_json":
            body = json.loads(value if isinstance(value, str) else bytes(value).decode())
        elif isinstance(value, io.IOBase):
            start = value.tell()
            files.append((str(options.get("filename") or "file"), value.read()))
            value.seek(start)
        elif isinstance(value, bytes | bytearray):
            files.append((str(options.get("filename") or "file"), bytes(value)))
    return body, files
