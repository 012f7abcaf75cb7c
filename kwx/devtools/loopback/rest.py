"""The loopback's REST API: one request in, one answer out, whatever carried it (HTTP, or the in-process
transport the unit tests use).

Each request is, in order: matched to an operation of Discord's OpenAPI description (kwx.devtools.loopback.spec),
authorized (a bot token, except on interaction routes), rate limited (kwx.devtools.loopback.ratelimit), answered
by an injected fault if one waits for it, checked against the operation's request schema and the limits the
description cannot express (kwx.devtools.limits), then handled by the operation's route
(kwx.devtools.loopback.routes), which reads and changes the model. A body Discord would refuse is refused as
Discord refuses it: 400 with `{"code": 50035, "message": "Invalid Form Body", "errors": {...}}`, and counted
`off_spec`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kwx.devtools import limits
from kwx.devtools.loopback.calls import Answer, Exchange, HTTPError, Request, invalid_form
from kwx.devtools.loopback.model import DiscordModel
from kwx.devtools.loopback.ratelimit import RateLimits, limited_headers
from kwx.devtools.loopback.routes import Routes
from kwx.devtools.loopback.spec import Spec, discord_spec

logger = logging.getLogger(__name__)

# Every off-spec request any loopback of this process was sent, "route: field: why" (the test suite fails
# when one appears: tests/conftest.py).
OFF_SPEC_SEEN: list[str] = []


def same_route(a: str, b: str) -> bool:
    """Two route templates name the same route whatever their parameters are called ("/webhooks/{webhook_id}/
    {webhook_token}" is discord.py's "/webhooks/{application_id}/{token}")."""
    return _PARAM.sub("{}", a) == _PARAM.sub("{}", b)


_PARAM = re.compile(r"\{\w+\}")


@dataclass
class Fault:
    """Answer the next `times` requests matching (method, route template) with a fault instead. "*" matches
    any method or route; `channel_id` limits it to one channel's routes."""

    method: str
    template: str
    # "status" (a 5xx or any error), "drop" (connection closed, no answer), "delay" (answer late),
    # "ratelimit" (429 with retry_after = delay, as a shared or sub-limit would answer)
    kind: str
    status: int = 500
    code: int = 0
    message: str = "Internal Server Error"
    delay: float = 0.0
    times: int = 1
    body: dict[str, Any] | None = None  # the error JSON (default: code and message)
    channel_id: int | None = None

    def matches(self, method: str, template: str, params: dict[str, str]) -> bool:
        return (self.method in ("*", method) and (self.template == "*" or same_route(self.template, template))
                and (self.channel_id is None or params.get("channel_id") == str(self.channel_id)))


@dataclass
class Stats:
    requests: Counter[str] = field(default_factory=Counter)  # bot-token requests by route
    interaction_requests: Counter[str] = field(default_factory=Counter)  # callbacks and interaction webhooks
    global_429: int = 0
    route_429: int = 0
    invalid_requests: int = 0  # 401, 403, 429 (not shared-scope 429s), as Discord counts them
    off_spec: list[str] = field(default_factory=list)  # bodies refused as Discord refuses them: what was wrong
    errors: Counter[int] = field(default_factory=Counter)  # error answers by HTTP status
    identifies: int = 0
    resumes: int = 0

    @property
    def bot_requests(self) -> int:
        return sum(self.requests.values())


class RestApi:
    def __init__(self, model: DiscordModel, *, token: str | None = None, rate_limits: bool = True,
                 gateway_url: Callable[[], str] = lambda: "", shards: int = 1, spec: Spec | None = None) -> None:
        self.model = model
        self.token = token  # None: any token is taken
        self.rate_limits = RateLimits() if rate_limits else None
        self.spec = spec or discord_spec()
        self.stats = Stats()
        self.faults: list[Fault] = []
        self.observers: list[Callable[[Exchange], None]] = []
        self.routes = Routes(model, gateway_url=gateway_url, shards=shards)

    def inject(self, method: str, template: str, kind: str = "status", *, status: int = 500, code: int = 0,
               message: str = "Internal Server Error", delay: float = 0.0, times: int = 1,
               body: dict[str, Any] | None = None, channel_id: int | None = None) -> Fault:
        fault = Fault(method, template, kind, status, code, message, delay, times, body, channel_id)
        self.faults.append(fault)
        return fault

    # == one request =========================================================================================
    async def handle(self, request: Request) -> Answer:
        found = self.spec.match(request.method, request.path)
        if found is None or found[0].id not in self.routes.table:
            return Answer(404, {"code": 0, "message": "404: Not Found"})
        operation, params = found
        exchange = Exchange(request, operation, params)
        exchange.answer = await self._answer(exchange)
        for observe in self.observers:
            observe(exchange)
        return exchange.answer

    async def _answer(self, ex: Exchange) -> Answer:
        assert ex.operation is not None
        method, template, params = ex.request.method, ex.operation.template, ex.params
        route = ex.route
        headers: dict[str, str] = {}
        if not template.startswith(("/interactions/", "/webhooks/")):
            auth = ex.request.headers.get("Authorization", "")
            if ex.operation.id in BEARER_OPERATIONS and auth.startswith("Bearer "):
                ex.bearer_user = self.model.activities.bearer(auth)
                if ex.bearer_user is None:
                    self.stats.invalid_requests += 1
                    return Answer(401, {"code": 0, "message": "401: Unauthorized"})
            elif not auth.startswith("Bot ") or (self.token is not None and auth[4:] != self.token):
                self.stats.invalid_requests += 1
                return Answer(401, {"code": 0, "message": "401: Unauthorized"})
            self.stats.requests[route] += 1
            limited = self.rate_limits.take(route, params, headers) if self.rate_limits else None
            if limited is not None:
                self.stats.invalid_requests += 1
                if limited.scope == "global":
                    self.stats.global_429 += 1
                else:
                    self.stats.route_429 += 1
                return Answer(429, limited.body, limited.headers)
        else:
            self.stats.interaction_requests[route] += 1
        fault = next((f for f in self.faults if f.matches(method, template, params)), None)
        if fault is not None:
            answer = await self._fault(fault, headers)
            if answer is not None:
                ex.fault = True
                return answer
        try:
            self._check_body(ex)
            result = self.routes.table[ex.operation.id](ex)
        except HTTPError as e:
            self.stats.errors[e.status] += 1
            if e.status in (401, 403):
                self.stats.invalid_requests += 1
            if e.status == 400 and e.body.get("code") == limits.INVALID_FORM_BODY:
                what = f"{route}: {'; '.join(limits.flatten(e.body.get('errors') or {}))}"
                self.stats.off_spec.append(what)
                OFF_SPEC_SEEN.append(what)
                logger.warning("off spec: %s", what)
            if ex.operation.id == "create_interaction_response" and e.status == 400:
                refused = self.model.interactions.get(params["interaction_token"])
                if refused is not None and refused.response_type is None:  # the player sees the failure
                    refused.error = e.body
                    refused.answered.set()
            return Answer(e.status, e.body, headers)
        return Answer(204 if result is None else 200, result, headers)

    async def _fault(self, fault: Fault, headers: dict[str, str]) -> Answer | None:
        fault.times -= 1
        if fault.times <= 0:
            self.faults.remove(fault)
        if fault.kind == "delay":
            await asyncio.sleep(fault.delay)
            return None
        if fault.kind == "ratelimit":
            self.stats.route_429 += 1
            self.stats.invalid_requests += 1
            body = {"message": "You are being rate limited.", "retry_after": fault.delay, "global": False, "code": 0}
            return Answer(429, body, limited_headers("user", fault.delay, headers))
        if fault.kind == "drop":
            return Answer(0, drop=True)
        self.stats.errors[fault.status] += 1
        return Answer(fault.status, fault.body or {"code": fault.code, "message": fault.message}, headers)

    def _check_body(self, ex: Exchange) -> None:
        """Discord's description of the operation's body, then what it cannot say (kwx.devtools.limits)."""
        assert ex.operation is not None
        body, files = ex.request.body, ex.request.files
        if not ex.operation.json_body:
            return
        errors = self.spec.body_errors(ex.operation.id, body)
        if not errors:
            sizes = [len(d) for _, d in files]
            if ex.operation.id == "create_interaction_response":
                errors = limits.interaction_response_errors(body, file_sizes=sizes)
            elif ex.operation.id in ("bulk_set_application_commands", "bulk_set_guild_application_commands"):
                errors = limits.commands_errors(body)
            elif ex.operation.id in _MESSAGE_BODIES:
                errors = limits.message_errors(body, file_sizes=sizes)
        if errors:
            raise invalid_form(errors)


# Operations a user's OAuth2 token may call (an Activity's server asking whose token it holds).
BEARER_OPERATIONS = frozenset({"get_my_user"})
# Operations whose body is a message (a send, an edit, a followup): checked for what the description cannot say.
_MESSAGE_BODIES = frozenset({"create_message", "update_message", "execute_webhook", "update_original_webhook_message",
                             "update_webhook_message"})
