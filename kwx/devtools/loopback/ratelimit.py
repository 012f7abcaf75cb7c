"""Discord's rate limits as the loopback enforces them: per-route buckets with X-RateLimit-* headers, and the
global limit of a bot token (50 requests per second). The numbers are Discord's documented and observed ones;
its OpenAPI description has no rate limits (they are a property of the running service, not of a body)."""

from __future__ import annotations

import time
from dataclasses import dataclass

# Per-route buckets (limit, seconds), by "METHOD template"; major parameters split them (a channel, a guild).
MESSAGE_BUCKET = (5, 5.0)  # Discord: 5 messages per 5 s per channel
ROUTE_BUCKETS: dict[str, tuple[int, float]] = {
    "POST /channels/{channel_id}/messages": MESSAGE_BUCKET,
    "PATCH /channels/{channel_id}/messages/{message_id}": MESSAGE_BUCKET,
    "DELETE /channels/{channel_id}/messages/{message_id}": (5, 1.0),
    "POST /users/@me/channels": (10, 1.0),
    "PUT /applications/{application_id}/commands": (2, 60.0),
    "PUT /applications/{application_id}/guilds/{guild_id}/commands": (2, 60.0),
    "POST /applications/{application_id}/emojis": (50, 60.0),
}
DEFAULT_BUCKET = (50, 1.0)
GLOBAL_LIMIT = 50  # requests per second per bot token


class Bucket:
    __slots__ = ("limit", "per", "remaining", "reset_at")

    def __init__(self, limit: int, per: float) -> None:
        self.limit, self.per = limit, per
        self.remaining, self.reset_at = limit, 0.0

    def take(self, now: float) -> float:
        """0 when a request may go now (and takes it), else the seconds until the bucket resets."""
        if now >= self.reset_at:
            self.remaining, self.reset_at = self.limit, now + self.per
        if self.remaining <= 0:
            return self.reset_at - now
        self.remaining -= 1
        return 0.0


@dataclass
class Limited:
    """A request refused for a rate limit: answer 429 with this body and these headers."""

    scope: str  # "global" | "user" (a route's bucket)
    retry_after: float
    headers: dict[str, str]

    @property
    def body(self) -> dict[str, object]:
        return {"message": "You are being rate limited.", "retry_after": round(self.retry_after, 3),
                "global": self.scope == "global", "code": 0}


def limited_headers(scope: str, retry_after: float, headers: dict[str, str] | None = None) -> dict[str, str]:
    out = dict(headers or {}) | {"Retry-After": str(max(1, round(retry_after))), "X-RateLimit-Scope": scope,
                                 "Via": "1.1 loopback"}
    if scope == "global":
        out["X-RateLimit-Global"] = "true"
    return out


class RateLimits:
    """Takes a token for each bot-token request; says when one must be refused, and the headers to send."""

    def __init__(self) -> None:
        self._buckets: dict[str, Bucket] = {}
        self._global = Bucket(GLOBAL_LIMIT, 1.0)

    def take(self, route: str, params: dict[str, str], headers: dict[str, str]) -> Limited | None:
        """`route` is "METHOD template"; fills `headers` with the bucket's X-RateLimit-* headers."""
        now = time.monotonic()
        wait = self._global.take(now)
        if wait > 0:
            return Limited("global", wait, limited_headers("global", wait))
        limit, per = ROUTE_BUCKETS.get(route, DEFAULT_BUCKET)
        major = params.get("channel_id") or params.get("guild_id") or params.get("webhook_id") or ""
        bucket_hash = f"{abs(hash(route)) % 10**12:x}"
        key = f"{bucket_hash}:{major}"
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(limit, per)
        wait = bucket.take(now)
        headers.update({"X-RateLimit-Limit": str(limit), "X-RateLimit-Bucket": bucket_hash,
                        "X-RateLimit-Remaining": str(max(0, bucket.remaining)),
                        "X-RateLimit-Reset": f"{time.time() + bucket.reset_at - now:.3f}",
                        "X-RateLimit-Reset-After": f"{bucket.reset_at - now:.3f}", "Via": "1.1 loopback"})
        if wait > 0:
            return Limited("user", wait, limited_headers("user", wait, headers))
        return None
