"""A table's lobby as its row in the store keeps it, both ways: the seats (JSON, in lobby order) and the
options (host, timers, spectators, the seed's salt). The row is written before the lobby changes in memory
(kwx/table/lobby.py) and read back when a table is rebuilt (kwx/table/recovery.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kwx.engine.json_values import (
    JsonFormError,
    JsonObject,
    as_object,
    get_float,
    get_list,
    get_optional_str,
    get_str,
)
from kwx.table.record_state import CLAIM_PAUSE, RecordState
from kwx.table.views import PlayerRef


@dataclass(frozen=True)
class TableOptions:
    host: str  # "" when the row names none (the first seat hosts)
    turn_seconds: float = 30.0
    claim_seconds: float = 12.0
    claim_pause: float = CLAIM_PAUSE
    spectators: tuple[PlayerRef, ...] = ()
    seed_salt: str | None = None


def seats_json(lobby: Iterable[PlayerRef]) -> list[JsonObject]:
    return [{"player_id": p.player_id, "name": p.name, "ai_level": p.ai_level} for p in lobby]


def options_json(t: RecordState) -> JsonObject:
    return {"host": t.host, "turn_seconds": t.turn_seconds, "claim_seconds": t.claim_seconds,
            "claim_pause": t.claim_pause,
            "spectators": [{"player_id": p.player_id, "name": p.name} for p in t.spectators.values()],
            **({"seed_salt": t.secret.salt} if t.secret.salt else {})}


def seats_from_json(seats: object) -> list[PlayerRef]:
    if not isinstance(seats, Sequence) or isinstance(seats, str):
        raise JsonFormError(f"a table's seats must be a list, not {seats!r}")
    return [_player(s, "a seat", ai=True) for s in seats]


def options_from_json(options: object) -> TableOptions:
    """A row's options; a missing one is the default it had when the row was written without it."""
    o = as_object(options or {}, "a table's options")
    timers = {key: get_float(o, key) for key in ("turn_seconds", "claim_seconds", "claim_pause") if key in o}
    spectators = tuple(_player(s, "a spectator", ai=False) for s in get_list(o, "spectators")) \
        if "spectators" in o else ()
    return TableOptions(host=get_optional_str(o, "host") or "", spectators=spectators,
                        seed_salt=get_optional_str(o, "seed_salt"), **timers)


def _player(value: object, what: str, *, ai: bool) -> PlayerRef:
    p = as_object(value, what)
    return PlayerRef(get_str(p, "player_id"), get_str(p, "name"), get_optional_str(p, "ai_level") if ai else None)
