"""A yes/no reading of Discord's description, compiled to plain Python: does a body fit the schema at all?

jsonschema walks a body keyword by keyword, makes a validator per step and resolves every $ref anew: well over a
millisecond for a message with buttons, on the event loop of the bot under test. Nearly every body the bot sends
fits, so kwx.devtools.loopback.spec asks this first and only asks jsonschema (for Discord's error shape) when the
answer is no. The verdict is jsonschema's, read as spec.py reads it: an integer may be a string of digits, a
numeric bound applies to such a string, a oneOf is an anyOf, `format` and annotations are not asserted.

A schema using a keyword this module does not know compiles to None, and its bodies go to jsonschema alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords jsonschema asserts that this module leaves to jsonschema (a schema using one compiles to None).
_UNSUPPORTED = frozenset({"$dynamicRef", "contains", "dependentRequired", "dependentSchemas", "if", "not",
                          "multipleOf", "patternProperties", "prefixItems", "propertyNames", "unevaluatedItems",
                          "unevaluatedProperties", "exclusiveMinimum", "exclusiveMaximum", "$recursiveRef"})


class Unsupported(Exception):
    pass


def _every(checks: list[Check]) -> Check:
    return lambda v: all(c(v) for c in checks)


def _some(checks: list[Check]) -> Check:
    return lambda v: any(c(v) for c in checks)


class Compiler:
    """Compiles the schemas of one document (its "#/..." references resolved within it), each schema once."""

    def __init__(self, document: dict[str, Any], is_integer: Callable[[Any], bool],
                 as_number: Callable[[Any], Any], equal: Callable[[Any, Any], bool],
                 unique: Callable[[Any], bool]) -> None:
        self.document = document
        self.is_integer, self.as_number, self.equal, self.unique = is_integer, as_number, equal, unique
        self._compiled: dict[int, tuple[Any, Check]] = {}
        self._types: dict[str, Check] = {
            "null": lambda v: v is None,
            "boolean": lambda v: isinstance(v, bool),
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
            "string": lambda v: isinstance(v, str),
            "integer": is_integer,
            "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        }

    def check(self, schema: Any) -> Check | None:
        """The yes/no test of `schema`, or None when it (or a schema it refers to) uses an unknown keyword."""
        try:
            return self._compile(schema)
        except Unsupported:
            self._compiled.clear()  # checks compiled meanwhile may lean on the slot of one that failed
            return None

    def _compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda _: True
        if schema is False:
            return lambda _: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        found = self._compiled.get(id(schema))
        if found is not None and found[0] is schema:
            return found[1]
        # A reference may lead back here (a component holds components): the slot is filled before the parts.
        slot: list[Check] = []
        self._compiled[id(schema)] = (schema, lambda v: slot[0](v))
        slot.append(self._build(schema))
        self._compiled[id(schema)] = (schema, slot[0])
        return slot[0]

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#/") and not ref.startswith("urn:discord:openapi#/"):
            raise Unsupported(ref)
        node: Any = self.document
        for token in ref.split("#/", 1)[1].split("/"):
            node = node[token.replace("~1", "/").replace("~0", "~")]
        return node

    def _build(self, schema: dict[str, Any]) -> Check:
        if _UNSUPPORTED & schema.keys():
            raise Unsupported(str(sorted(_UNSUPPORTED & schema.keys())))
        checks: list[Check] = []
        if "$ref" in schema:
            target = self._resolve(schema["$ref"])
            checks.append(self._lazy(target))
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            tests = [self._types[k] for k in kinds]
            checks.append(tests[0] if len(tests) == 1 else _some(tests))
        if "const" in schema:
            const, equal = schema["const"], self.equal
            checks.append(lambda v: equal(v, const))
        if "enum" in schema:
            choices, equal = schema["enum"], self.equal
            checks.append(lambda v: any(equal(v, c) for c in choices))
        checks += self._strings(schema) + self._numbers(schema) + self._arrays(schema) + self._objects(schema)
        for key in ("allOf", "oneOf", "anyOf"):
            if key in schema:
                checks.append((_every if key == "allOf" else _some)([self._lazy(sub) for sub in schema[key]]))
        if not checks:
            return lambda _: True
        return checks[0] if len(checks) == 1 else _every(checks)

    def _lazy(self, schema: Any) -> Check:
        """A part's check (a reference back to a schema being compiled meets its slot: cycles compile)."""
        return self._compile(schema)

    def _strings(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "maxLength" in schema:
            most = schema["maxLength"]
            checks.append(lambda v: not isinstance(v, str) or len(v) <= most)
        if "minLength" in schema:
            least = schema["minLength"]
            checks.append(lambda v: not isinstance(v, str) or len(v) >= least)
        if "pattern" in schema:
            pattern = re.compile(schema["pattern"])
            checks.append(lambda v: not isinstance(v, str) or pattern.search(v) is not None)
        return checks

    def _numbers(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        as_number = self.as_number

        def number(v: Any) -> Any:
            v = as_number(v)
            return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        if "minimum" in schema:
            least = schema["minimum"]
            checks.append(lambda v: (n := number(v)) is None or n >= least)
        if "maximum" in schema:
            most = schema["maximum"]
            checks.append(lambda v: (n := number(v)) is None or n <= most)
        return checks

    def _arrays(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "items" in schema:
            item = self._lazy(schema["items"])
            checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
        if "maxItems" in schema:
            most = schema["maxItems"]
            checks.append(lambda v: not isinstance(v, list) or len(v) <= most)
        if "minItems" in schema:
            least = schema["minItems"]
            checks.append(lambda v: not isinstance(v, list) or len(v) >= least)
        if schema.get("uniqueItems"):
            unique = self.unique
            checks.append(lambda v: not isinstance(v, list) or unique(v))
        return checks

    def _objects(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "properties" in schema:
            props = {name: self._lazy(sub) for name, sub in schema["properties"].items()}
            checks.append(lambda v: not isinstance(v, dict) or all(props[k](x) for k, x in v.items() if k in props))
        if "required" in schema:
            required = list(schema["required"])
            checks.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
        if "additionalProperties" in schema:
            known = set(schema.get("properties") or ())
            extra = self._lazy(schema["additionalProperties"])
            checks.append(lambda v: not isinstance(v, dict) or all(extra(x) for k, x in v.items() if k not in known))
        if "maxProperties" in schema:
            most = schema["maxProperties"]
            checks.append(lambda v: not isinstance(v, dict) or len(v) <= most)
        if "minProperties" in schema:
            least = schema["minProperties"]
            checks.append(lambda v: not isinstance(v, dict) or len(v) >= least)
        return checks
