"""Discord's own description of its API, as the loopback reads it: which operation a request is, and whether
its JSON body is one Discord would take.

The description is Discord's OpenAPI 3.1 file (spec/openapi.json, vendored from discord/discord-api-spec; see
spec/README.md for the commit). Each operation's request schema is compiled once per process, the first time
a body for it arrives, and shared by every loopback in the process (the unit tests run thousands of bodies).
A body is first tried against the same schema compiled to plain checks (kwx.devtools.loopback.spec_check, about
ten times cheaper); jsonschema only reads one those refuse, for Discord's errors.

    spec = discord_spec()
    found = spec.match("PUT", "/applications/1/commands")      # (Operation, {"application_id": "1"})
    errors = spec.body_errors(found[0].id, body)              # {} when Discord would take it

Three readings follow the description's own conventions (its README): a field typed integer also takes a
string that parses as one (discord.py sends `default_member_permissions` as "8"); a snowflake, described as a
string of digits, also comes as a JSON number (discord.py sends `recipient_id` as one); and a oneOf union, like
an anyOf, takes a value that fits any of its formats (discord.py's nonce, a string of digits, fits two).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kwx.devtools.loopback.spec_check import Check, Compiler

SPEC_FILE = Path(__file__).with_name("spec") / "openapi.json"
_DOC_URI = "urn:discord:openapi"
_METHODS = ("get", "put", "post", "patch", "delete")
_INT = re.compile(r"-?(0|[1-9][0-9]*)")
SNOWFLAKE_MAX = 2**64 - 1

Errors = dict[str, Any]


@dataclass(frozen=True)
class Operation:
    id: str  # the description's operationId: "create_message", "bulk_set_application_commands", ...
    method: str  # "POST"
    template: str  # "/channels/{channel_id}/messages"
    segments: tuple[str, ...]  # the template split at "/"; "{name}" marks a parameter
    literals: int  # how many segments are literal (a literal beats a parameter: @original, @me)
    json_body: bool  # the operation takes a JSON body (or multipart with payload_json)

    def bind(self, parts: list[str]) -> dict[str, str] | None:
        """The path parameters when `parts` (a request path split at "/") is this operation's path."""
        params: dict[str, str] = {}
        for want, got in zip(self.segments, parts, strict=True):
            if want.startswith("{"):
                if not got:
                    return None
                params[want[1:-1]] = got
            elif want != got:
                return None
        return params


class Spec:
    """The operations of Discord's description, and a validator per operation's request body."""

    def __init__(self, path: Path = SPEC_FILE) -> None:
        self.document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.commit = self.document.get("info", {}).get("version")
        self.operations: dict[str, Operation] = {}
        self._by_shape: dict[tuple[str, int], list[Operation]] = {}
        for template, item in self.document["paths"].items():
            for method in _METHODS:
                op = item.get(method)
                if op is None:
                    continue
                segments = tuple(template.split("/"))
                content = (op.get("requestBody") or {}).get("content") or {}
                found = Operation(op["operationId"], method.upper(), template, segments,
                                  sum(not s.startswith("{") for s in segments), "application/json" in content)
                self.operations[found.id] = found
                self._by_shape.setdefault((found.method, len(segments)), []).append(found)
        for ops in self._by_shape.values():
            ops.sort(key=lambda o: -o.literals)
        self._validators: dict[str, Any] = {}
        self._schemas = self._prepare(self.document)
        self._class: Any = None
        self._fits: dict[str, Check | None] = {}
        self._compiler: Compiler | None = None

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation a request is (the most literal template that fits) and its path parameters."""
        parts = path.split("?", 1)[0].rstrip("/").split("/")
        for op in self._by_shape.get((method.upper(), len(parts)), ()):
            params = op.bind(parts)
            if params is not None:
                return op, params
        return None

    def body_errors(self, operation_id: str, body: Any) -> Errors:
        """What Discord's description refuses in this body, in Discord's error shape ({} when it fits):
        {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "..."}]}}."""
        validator = self._validator(operation_id)
        if validator is None:
            return {}
        fits = self._fits.get(operation_id)
        if fits is not None and fits(body):  # nearly every body: jsonschema is asked only about a refused one
            return {}
        errors: Errors = {}
        for error in validator.iter_errors(body):
            for leaf in _leaves(error):
                _add(errors, leaf.absolute_path, *_describe(leaf))
        return errors

    # -- building the validators --------------------------------------------------------------------------
    @staticmethod
    def _prepare(document: dict[str, Any]) -> dict[str, Any]:
        schemas: dict[str, Any] = document["components"]["schemas"]
        # A snowflake is described as a string of digits; Discord takes the same id as a JSON number too.
        schemas["SnowflakeType"] = {"type": "integer", "minimum": 0, "maximum": SNOWFLAKE_MAX}
        return schemas

    def _validator(self, operation_id: str) -> Any:
        if operation_id in self._validators:
            return self._validators[operation_id]
        op = self.operations[operation_id]
        validator = None
        if op.json_body:
            pointer = "/".join(("paths", _escape(op.template), op.method.lower(), "requestBody", "content",
                                _escape("application/json"), "schema"))
            if self._class is None:
                self._class = _validator_class(self._schemas)
            validator = self._class({"$ref": f"{_DOC_URI}#/{pointer}"}, registry=_registry(self.document))
            if self._compiler is None:
                self._compiler = _compiler(self.document)
            self._fits[operation_id] = self._compiler.check({"$ref": f"#/{pointer}"})
        self._validators[operation_id] = validator
        return validator


@functools.cache
def discord_spec() -> Spec:
    """The one Spec of this process (the file is read once; validators are compiled as operations are used)."""
    return Spec()


# -- jsonschema, read as Discord reads its description -----------------------------------------------------
def _jsonschema() -> Any:
    try:
        import jsonschema
        import referencing
    except ImportError as exc:  # a dev dependency: the bot itself never validates what it sends
        raise ImportError("the loopback Discord checks every request body against Discord's OpenAPI description "
                          "with jsonschema, a development dependency: pip install -e '.[dev]'") from exc
    return jsonschema, referencing


def _is_integer(checker: Any, instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, str) and _INT.fullmatch(instance) is not None)


def _as_number(instance: Any) -> Any:
    return int(instance) if isinstance(instance, str) and _INT.fullmatch(instance) else instance


def _numeric(keyword: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """A numeric keyword (minimum, maximum, ...) that also bounds an int-parseable string."""
    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        yield from keyword(validator, value, _as_number(instance), schema)
    return check


def _validator_class(schemas: dict[str, Any]) -> Any:
    jsonschema, _ = _jsonschema()
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    numeric = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
    keywords = {k: _numeric(base.VALIDATORS[k]) for k in numeric}
    # The description's README: its oneOf and anyOf both mean "one of these formats"; a value that fits several
    # (a nonce of digits is an integer and a string) is taken. So both are read as anyOf.
    keywords |= {k: _union(base.VALIDATORS["anyOf"], schemas) for k in ("oneOf", "anyOf")}
    return jsonschema.validators.extend(base, validators=keywords, type_checker=checker)


def _compiler(document: dict[str, Any]) -> Compiler:
    """The yes/no checks of kwx.devtools.loopback.spec_check, reading types and values as the validator does."""
    from jsonschema._utils import equal, uniq

    return Compiler(document, is_integer=lambda v: _is_integer(None, v), as_number=_as_number, equal=equal,
                    unique=uniq)


# A union's alternatives, each with a quick test of whether it could take an instance at all.
_Plan = list[tuple[int, Any, Callable[[Any], bool]]]
_PLANS: dict[int, tuple[Any, _Plan]] = {}
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: _is_integer(None, v) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: _is_integer(None, v) or isinstance(v, float),
}


def _union(keyword: Callable[..., Iterator[Any]], schemas: dict[str, Any]) -> Callable[..., Iterator[Any]]:
    """oneOf / anyOf as Discord reads its unions: by JSON type and by the `type` discriminator of an object.
    An alternative that cannot take the instance is not tried (the union's result is the same, it is just
    found faster: a message's buttons would otherwise each be tried against every kind of component), and
    when one alternative is left, its own errors are the union's (as Discord names the field that is wrong)."""
    def check(validator: Any, alternatives: Any, instance: Any, schema: Any) -> Iterator[Any]:
        cached = _PLANS.get(id(alternatives))
        if cached is None or cached[0] is not alternatives:
            cached = _PLANS[id(alternatives)] = (alternatives, _plan(alternatives, schemas))
        candidates = [(i, sub) for i, sub, could in cached[1] if could(instance)]
        if len(candidates) == 1:
            index, sub = candidates[0]
            yield from validator.descend(instance, sub, schema_path=index)
        else:
            yield from keyword(validator, alternatives, instance, schema)
    return check


def _plan(alternatives: list[Any], schemas: dict[str, Any]) -> _Plan:
    return [(i, sub, _could_take(_resolve(sub, schemas))) for i, sub in enumerate(alternatives)]


def _resolve(sub: Any, schemas: dict[str, Any]) -> Any:
    prefix = "#/components/schemas/"
    while isinstance(sub, dict) and isinstance(sub.get("$ref"), str) and sub["$ref"].startswith(prefix):
        sub = schemas[sub["$ref"][len(prefix):]]
    return sub


def _could_take(sub: Any) -> Callable[[Any], bool]:
    """False only for an instance the alternative refuses for sure: another constant, another JSON type, or
    an object whose required `type` field is none of the values the alternative allows."""
    if isinstance(sub, dict) and "const" in sub:  # an enumeration written as a union of constants
        value = sub["const"]
        return lambda instance: instance == value and isinstance(instance, bool) == isinstance(value, bool)
    if not isinstance(sub, dict) or "type" not in sub:
        return lambda _: True
    kinds = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
    tests = [_JSON_TYPES[k] for k in kinds if k in _JSON_TYPES]
    discriminator = (sub.get("properties") or {}).get("type")
    allowed: list[Any] | None = None
    if isinstance(discriminator, dict) and "type" in (sub.get("required") or ()):
        allowed = discriminator.get("enum", [discriminator["const"]] if "const" in discriminator else None)

    def could(instance: Any) -> bool:
        if not any(test(instance) for test in tests):
            return False
        return allowed is None or not isinstance(instance, dict) or instance.get("type") in allowed
    return could


_REGISTRIES: dict[int, Any] = {}


def _registry(document: dict[str, Any]) -> Any:
    """A registry that resolves the description's "#/components/schemas/..." references."""
    found = _REGISTRIES.get(id(document))
    if found is None:
        _, referencing = _jsonschema()
        from referencing.jsonschema import DRAFT202012

        resource = referencing.Resource.from_contents(document, default_specification=DRAFT202012)
        found = _REGISTRIES[id(document)] = referencing.Registry().with_resource(_DOC_URI, resource)
    return found


def _escape(key: str) -> str:
    """A JSON-pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


# -- Discord's error shape ---------------------------------------------------------------------------------
def _leaves(error: Any) -> list[Any]:
    """The errors to report for one failed keyword. A union (oneOf/anyOf) of object shapes is Discord's
    discriminated union: report the errors of the alternative whose discriminator fits, else the union."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.schema_path[0], []).append(sub)
    fitting = [subs for subs in by_branch.values() if not any(_wrong_kind(s, error) for s in subs)]
    if len(fitting) != 1:
        return [error]
    return [leaf for sub in fitting[0] for leaf in _leaves(sub)]


def _wrong_kind(sub: Any, parent: Any) -> bool:
    """This alternative is another kind of thing: another JSON type, or another value of a discriminator."""
    relative = list(sub.absolute_path)[len(parent.absolute_path):]
    if sub.validator == "type" and not relative:
        return True
    return sub.validator in ("const", "enum") and len(relative) == 1 and relative[0] in ("type", "style")


def _add(errors: Errors, path: Iterable[Any], code: str, message: str) -> None:
    node = errors
    for part in path:
        node = node.setdefault(str(part), {})
    node.setdefault("_errors", []).append({"code": code, "message": message})


def _describe(error: Any) -> tuple[str, str]:
    """Discord's code and sentence for a failed keyword (the ones its form validation answers with)."""
    kind, value = error.validator, error.validator_value
    if kind == "maxLength" or kind == "maxItems" or kind == "maxProperties":
        return "BASE_TYPE_MAX_LENGTH", f"Must be {value} or fewer in length."
    if kind == "minLength" or kind == "minItems" or kind == "minProperties":
        return "BASE_TYPE_MIN_LENGTH", f"Must be {value} or more in length."
    if kind in ("maximum", "exclusiveMaximum"):
        return "NUMBER_TYPE_MAX", f"int value should be less than or equal to {value}."
    if kind in ("minimum", "exclusiveMinimum"):
        return "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {value}."
    if kind == "required":
        return "BASE_TYPE_REQUIRED", f"This field is required ({error.message})."
    if kind == "type":
        return "BASE_TYPE_BAD_TYPE", f"Must be of type {value}."
    if kind in ("enum", "const"):
        return "BASE_TYPE_CHOICES", f"Value must be one of {value if kind == 'enum' else [value]}."
    if kind == "pattern":
        return "STRING_TYPE_REGEX", f"String value did not match validation regex ({value})."
    if kind in ("oneOf", "anyOf"):
        return "UNION_TYPE_CHOICES", "Value does not fit any of the allowed shapes."
    if kind == "uniqueItems":
        return "BASE_TYPE_DUPLICATES", "Items must be unique."
    return "BASE_TYPE_INVALID", error.message
