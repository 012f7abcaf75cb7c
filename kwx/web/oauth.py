"""Who opened the Activity: Discord's OAuth2 code exchange and `GET /users/@me`, over plain HTTP (aiohttp).

The Activity page asks Discord's client for a code (`authorize`), the server exchanges it at the token endpoint
with the application's id and secret (which never reach the page), the page `authenticate`s with the token, and
every socket it opens names its user by that token: the server asks Discord whose it is. `api_base` is
Discord's API, or the loopback Discord's in tests and local runs (DISCORD_API_BASE).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import aiohttp

DISCORD_API = "https://discord.com/api/v10"
WHO_CACHE_SECONDS = 300.0  # a reconnecting page asks again after this long, not on every reconnect


class OAuthRefused(Exception):
    """Discord refused the code or the token (or could not be reached). `code`: the catalog's web.auth.<code>."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


@dataclass(frozen=True)
class DiscordUser:
    id: str
    name: str


@dataclass(frozen=True)
class ActivityInstance:
    guild: str
    channel: str
    users: frozenset[str]


class DiscordOAuth:
    def __init__(self, client_id: str, client_secret: str, *, api_base: str | None = None,
                 bot_token: str | None = None, timeout: float = 10.0) -> None:
        self.client_id = client_id
        self._secret = client_secret
        self._bot_token = bot_token  # reads an activity instance: where it runs, who is in it
        self.api_base = (api_base or DISCORD_API).rstrip("/")
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None
        self._who: dict[str, tuple[float, DiscordUser]] = {}

    @property
    def checks_instances(self) -> bool:
        return bool(self._bot_token)

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def exchange(self, code: str) -> str:
        """The access token for an `authorize` code (scope identify)."""
        form = {"client_id": self.client_id, "client_secret": self._secret, "grant_type": "authorization_code",
                "code": code}
        body = await self._call("POST", "/oauth2/token", data=form, refused="code")
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise OAuthRefused("code", "no access_token in the answer")
        return token

    async def user(self, access_token: str) -> DiscordUser:
        """Whose token this is (GET /users/@me), remembered a few minutes."""
        now = time.monotonic()
        known = self._who.get(access_token)
        if known is not None and known[0] > now:
            return known[1]
        body = await self._call("GET", "/users/@me", headers={"Authorization": f"Bearer {access_token}"},
                                refused="token")
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            raise OAuthRefused("token", "no user in the answer")
        user = DiscordUser(body["id"], str(body.get("global_name") or body.get("username") or body["id"]))
        if len(self._who) > 10_000:
            self._who.clear()
        self._who[access_token] = (now + WHO_CACHE_SECONDS, user)
        return user

    async def instance(self, instance_id: str) -> ActivityInstance:
        """Where an Activity instance runs and who is in it (GET /applications/{id}/activity-instances/{id},
        with the bot's token): the table is the one of its channel, whatever the page says."""
        if not self._bot_token or not instance_id.replace("-", "").isalnum() or len(instance_id) > 64:
            raise OAuthRefused("token", "no such activity instance")
        body = await self._call("GET", f"/applications/{self.client_id}/activity-instances/{instance_id}",
                                headers={"Authorization": f"Bot {self._bot_token}"}, refused="token")
        location = body.get("location") if isinstance(body, dict) else None
        if not isinstance(location, dict) or not isinstance(body.get("users"), list):
            raise OAuthRefused("token", "no location in the activity instance")
        return ActivityInstance(str(location.get("guild_id") or ""), str(location.get("channel_id") or ""),
                                frozenset(str(u) for u in body["users"]))

    async def _call(self, method: str, path: str, *, refused: str, **options: Any) -> Any:
        try:
            async with self._http().request(method, self.api_base + path, **options) as response:
                if response.status in (400, 401, 403, 404):
                    raise OAuthRefused(refused, f"HTTP {response.status}")
                if response.status >= 300:
                    raise OAuthRefused("unreachable", f"HTTP {response.status}")
                return await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise OAuthRefused("unreachable", type(exc).__name__) from None
