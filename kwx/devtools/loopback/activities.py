"""The loopback's Activities: the OAuth2 code exchange an Activity's server makes, `GET /users/@me` with the
bearer token it got, the LAUNCH_ACTIVITY callback and the activity instances it opens.

    code = discord_.model.activities.authorize(user_id)       # what Discord's client gives the page's `authorize`
    instance = discord_.model.activities.launch(user_id, channel_id, guild_id)   # (LAUNCH_ACTIVITY does this)

The token endpoint is not in Discord's OpenAPI description (it takes a form, as OAuth2 does): it is checked
here as Discord's OAuth2 documentation describes it. The other three are routes of the description and are
checked against it like every other request.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

CLIENT_SECRET = "loopback-client-secret"  # the application's OAuth2 secret (DISCORD_CLIENT_SECRET in tests)
TOKEN_SECONDS = 604_800  # Discord's access tokens last a week


class OAuthError(Exception):
    """An OAuth2 refusal: `status` and Discord's `{"error": …}` body."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(error)
        self.status = status
        self.body = {"error": error, "error_description": description}


@dataclass
class Activities:
    app_id: int
    client_secret: str = CLIENT_SECRET
    codes: dict[str, int] = field(default_factory=dict)  # unused authorization code -> user
    tokens: dict[str, int] = field(default_factory=dict)  # access token -> user
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)
    exchanges: int = 0

    def authorize(self, user_id: int) -> str:
        code = secrets.token_urlsafe(18)
        self.codes[code] = int(user_id)
        return code

    def exchange(self, form: dict[str, str]) -> dict[str, Any]:
        """POST /oauth2/token with grant_type=authorization_code (client credentials in the form)."""
        self.exchanges += 1
        if form.get("grant_type") != "authorization_code":
            raise OAuthError(400, "unsupported_grant_type", "only authorization_code is used by Activities")
        if form.get("client_id") != str(self.app_id) or form.get("client_secret") != self.client_secret:
            raise OAuthError(401, "invalid_client", "unknown client or wrong secret")
        user = self.codes.pop(form.get("code", ""), None)
        if user is None:
            raise OAuthError(400, "invalid_grant", "Invalid \"code\" in request.")
        token = secrets.token_urlsafe(24)
        self.tokens[token] = user
        return {"access_token": token, "token_type": "Bearer", "expires_in": TOKEN_SECONDS,
                "refresh_token": secrets.token_urlsafe(24), "scope": "identify"}

    def bearer(self, authorization: str) -> int | None:
        """The user an `Authorization: Bearer …` header names (None: no such token)."""
        if not authorization.startswith("Bearer "):
            return None
        return self.tokens.get(authorization[7:])

    def launch(self, user_id: int, channel_id: int, guild_id: int | None, instance_id: str | None = None
               ) -> dict[str, Any]:
        """The instance a LAUNCH_ACTIVITY opens in a channel (joined, if one runs there already)."""
        for instance in self.instances.values():
            if instance["location"]["channel_id"] == str(channel_id):
                if str(user_id) not in instance["users"]:
                    instance["users"].append(str(user_id))
                return instance
        iid = instance_id or f"i-{secrets.token_hex(8)}"
        instance = {"application_id": str(self.app_id), "instance_id": iid, "launch_id": secrets.token_hex(8),
                    "location": {"id": f"gc-{guild_id}-{channel_id}", "kind": "gc", "channel_id": str(channel_id),
                                 "guild_id": str(guild_id)},
                    "users": [str(user_id)]}
        self.instances[iid] = instance
        return instance
