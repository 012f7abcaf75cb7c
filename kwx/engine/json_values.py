"""The JSON forms kwx writes and reads back (the event log, replays, reports), typed.

`JsonObject` is what a `to_json()` builds: mypy checks that everything in it is JSON (a str, a number, a bool,
None, or a list / object of those). Sequences and mappings are accepted on the way in, so a tuple or a
`dict[str, int]` fits without a copy. Reading JSON back (`json.loads` gives `Any`), the readers below take one
field of an object and check its type, so a record that does not fit says which field is wrong instead of
failing later somewhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | None | Sequence[JsonValue] | Mapping[str, JsonValue]"
JsonObject: TypeAlias = dict[str, JsonValue]


class JsonFormError(ValueError):
    """A JSON value is not of the form expected; the message names the field."""


def as_object(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise JsonFormError(f"{what} must be a JSON object, not {value!r}")
    return value


def get_int(obj: Mapping[str, object], key: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise JsonFormError(f"{key!r} must be an integer, not {value!r}")
    return value


def get_float(obj: Mapping[str, object], key: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise JsonFormError(f"{key!r} must be a number, not {value!r}")
    return float(value)


def get_str(obj: Mapping[str, object], key: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise JsonFormError(f"{key!r} must be a string, not {value!r}")
    return value


def get_bool(obj: Mapping[str, object], key: str) -> bool:
    value = obj.get(key)
    if not isinstance(value, bool):
        raise JsonFormError(f"{key!r} must be true or false, not {value!r}")
    return value


def get_optional_str(obj: Mapping[str, object], key: str) -> str | None:
    """A string, or None when the field is null or absent (an empty string counts as absent too)."""
    value = obj.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise JsonFormError(f"{key!r} must be a string or null, not {value!r}")
    return value


def get_optional_float(obj: Mapping[str, object], key: str) -> float | None:
    return None if obj.get(key) is None else get_float(obj, key)


def get_list(obj: Mapping[str, object], key: str) -> Sequence[object]:
    value = obj.get(key)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise JsonFormError(f"{key!r} must be a list, not {value!r}")
    return value


def get_ints(obj: Mapping[str, object], key: str) -> tuple[int, ...]:
    items = get_list(obj, key)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        raise JsonFormError(f"{key!r} must be a list of integers, not {items!r}")
    return tuple(x for x in items if isinstance(x, int))


def get_strs(obj: Mapping[str, object], key: str) -> tuple[str, ...]:
    items = get_list(obj, key)
    if not all(isinstance(x, str) for x in items):
        raise JsonFormError(f"{key!r} must be a list of strings, not {items!r}")
    return tuple(x for x in items if isinstance(x, str))
