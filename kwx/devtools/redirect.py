"""Every request to Discord sent to another address instead: the loopback Discord, or a REST proxy.

    connector = RedirectConnector.to("http://127.0.0.1:8123/api/v10")       # DISCORD_API_BASE
    bot = KwxBot(settings, connector=connector)          # discord.py's own `connector` option

discord.py builds its URLs from Discord's address (https://discord.com/api/v10/…, wss://gateway.discord.gg/…)
and sends every one (REST calls, interaction answers, the gateway's websocket, images) through one aiohttp
session, on the connector its client was given. This connector opens each of those connections to one host
and port, in plain TCP or in TLS as the base's scheme says, whatever host the URL names; the request line keeps
its path (`/api/v10/…` for the API, `/?v=10…` for the gateway), so the other end serves both under the same
paths as Discord. It does what aiohttp's own UnixConnector does for a socket file, over TCP; nothing of
discord.py is changed.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import aiohttp

if TYPE_CHECKING:
    from aiohttp.client_proto import ResponseHandler
    from aiohttp.client_reqrep import ClientRequest
    from aiohttp.tracing import Trace

API_PATH = "/api/v10"  # the path discord.py's routes start with (its API version)


class RedirectConnector(aiohttp.BaseConnector):
    """Opens every connection to `host:port` (TLS when `tls`), whatever the request's URL names."""

    def __init__(self, host: str, port: int, *, tls: bool = False) -> None:
        super().__init__(limit=0)  # no cap on open connections, as discord.py's own connector
        self.host, self.port = host, port
        self.tls = ssl.create_default_context() if tls else None

    @classmethod
    def to(cls, base: str) -> RedirectConnector:
        """The connector for an API base such as `http://127.0.0.1:8123/api/v10` (on the running loop)."""
        host, port, tls = api_address(base)
        return cls(host, port, tls=tls)

    async def _create_connection(self, req: ClientRequest, traces: list[Trace],
                                 timeout: aiohttp.ClientTimeout) -> ResponseHandler:
        async with asyncio.timeout(timeout.sock_connect):
            _, protocol = await self._loop.create_connection(
                self._factory, self.host, self.port, ssl=self.tls, server_hostname=self.host if self.tls else None)
        return protocol


def api_address(base: str) -> tuple[str, int, bool]:
    """(host, port, TLS) of an API base; ValueError, naming DISCORD_API_BASE, when its path is not discord.py's
    own (the request paths are not rewritten) or it is not an http(s) URL with a host."""
    try:
        parts = urlsplit(base.rstrip("/"))
        port = parts.port
    except ValueError:  # a port that is not a number
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.path != API_PATH:
        raise ValueError(f"DISCORD_API_BASE must be http(s)://HOST[:PORT]{API_PATH}, not {base!r}")
    tls = parts.scheme == "https"
    return parts.hostname, port or (443 if tls else 80), tls
