"""Personal table links: a signed, expiring token for one player at one table.

    links = SeatLinks(secret)
    token = links.issue(table_id=7, player_id="42", ttl=12 * 3600)     # in the DM panel's "open in a browser"
    pass_ = links.check(token)                                         # SeatPass(7, "42", expires) or LinkRefused

A token is `<table>.<player>.<expires>.<signature>` (URL-safe; the player id is base64url so any id fits), the
signature an HMAC-SHA256 of the rest under the server's secret. It names a player, not a seat: the server
sends its holder the private view of the seat that player holds at that table now, and only the public view
when they hold none (a player who left, a spectator's link). Nothing is stored: a restart keeps links valid
as long as the secret stays the same.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass

LINK_TTL = 12 * 3600.0  # a sitting's length: a link from the DM panel outlives the evening's game, not the week


class LinkRefused(Exception):
    """A token that is not ours, was changed, or has expired. `code`: forged | expired | malformed."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class SeatPass:
    table_id: int
    player_id: str
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def secret_from(seed: str) -> bytes:
    """A signing key derived from a configured secret (KWX_WEB_SECRET, else the bot's token): a key made for
    links alone, so a link never reveals anything about the secret it came from."""
    return hashlib.sha256(b"kwx web seat link\0" + seed.encode("utf-8")).digest()


class SeatLinks:
    def __init__(self, secret: bytes, *, clock: Callable[[], float] = time.time) -> None:
        if len(secret) < 16:
            raise ValueError("a link secret needs at least 16 bytes")
        self._secret = secret
        self._clock = clock

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self._secret, body.encode("ascii"), hashlib.sha256).digest()[:20])

    def issue(self, table_id: int, player_id: str, ttl: float = LINK_TTL) -> str:
        expires = int(self._clock() + ttl)
        body = f"{int(table_id)}.{_b64(player_id.encode('utf-8'))}.{expires}"
        return f"{body}.{self._sign(body)}"

    def check(self, token: str) -> SeatPass:
        """The pass a token grants; LinkRefused when it is not one we signed or its time is up."""
        parts = token.split(".") if isinstance(token, str) and len(token) < 512 else []
        if len(parts) != 4:
            raise LinkRefused("malformed")
        table, who, expires, signature = parts
        if not hmac.compare_digest(self._sign(f"{table}.{who}.{expires}"), signature):
            raise LinkRefused("forged")
        try:
            pass_ = SeatPass(int(table), _unb64(who).decode("utf-8"), float(expires))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise LinkRefused("malformed") from None
        if pass_.expires <= self._clock():
            raise LinkRefused("expired")
        return pass_
