"""A request to the loopback's REST API and its answer, whatever carried it (HTTP, or the in-process
transport), and the errors its routes answer with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kwx.devtools import limits
from kwx.devtools.loopback.model import Interaction, Message
from kwx.devtools.loopback.spec import Operation

Files = list[tuple[str, bytes]]


@dataclass
class Request:
    method: str
    path: str  # below /api/v10, without the query: "/channels/1/messages"
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # the JSON body (or a multipart request's payload_json)
    files: Files = field(default_factory=list)


@dataclass
class Answer:
    status: int
    body: Any = None  # JSON, or None for 204
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection instead of answering (a fault)


class HTTPError(Exception):
    """Answer the request with this status and Discord's error JSON."""

    def __init__(self, status: int, code: int, message: str, body: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body = body or {"code": code, "message": message}


def unknown(what: str, code: int) -> HTTPError:
    return HTTPError(404, code, f"Unknown {what}")


def invalid_form(errors: limits.Errors) -> HTTPError:
    return HTTPError(400, limits.INVALID_FORM_BODY, "Invalid Form Body", limits.invalid_form_body(errors))


@dataclass
class Exchange:
    """One request and its answer, with what the route touched (for observers: the unit tests' log)."""

    request: Request
    operation: Operation | None
    params: dict[str, str]
    answer: Answer | None = None
    fault: bool = False  # answered by an injected fault
    message: Message | None = None  # the message created, edited or deleted
    interaction: Interaction | None = None  # the interaction answered
    bearer_user: int | None = None  # the user whose OAuth2 token authorized it (GET /users/@me from an Activity)

    @property
    def route(self) -> str:
        return f"{self.request.method} {self.operation.template if self.operation else self.request.path}"
