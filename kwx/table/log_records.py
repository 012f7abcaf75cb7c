"""The records of a table's event log, one frozen dataclass per kind, and their JSON forms.

A table's log is the sequence of these records (kwx/table/record.py applies each; kwx/table/recovery.py replays
them). In the store each is a row with its `kind` and its JSON payload, written by `to_json()` and read back by
`parse_record`, which accepts every log written so far (tests/table/logs) and refuses a malformed one with the
field it could not read. None of them holds the seed.

    kind        payload
    start       {by, at, seating, waiting}                  the host started the game
    piao_open   {setup, at}                                  漂 choice phase before a hand (rules.piao only)
    piao        {seat, amount, by, step, at}                 one seat's 漂 pick
    hand_start  {setup, piao, at}                            a hand is dealt (setup: hand_no, dealer, seating, …)
    action      {seat, verb, tile, by, step, at}             one engine action
    autoplay    {player_id, on, at}                          a player switched 托管 on or off themselves
    pause       {reason, at}                                 the table paused (PauseReason)
    resume      {by, at}                                     a paused table plays on (fresh deadlines)
    leave       {player_id, at}                              a seated player leaves at the end of the hand
    seat        {replaces, player: {player_id, name, ai_level}, at}   a left seat is taken (join or AI)
    stop        {by, at, reason}                             the table was stopped or closed (CloseReason)

`at` is the unix time the record was made: deadlines are computed from it, so a replay rebuilds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, TypeAlias, TypeVar

from kwx.engine.actions import Action, Verb
from kwx.engine.json_values import (
    JsonFormError,
    JsonObject,
    as_object,
    get_bool,
    get_float,
    get_int,
    get_ints,
    get_optional_float,
    get_optional_str,
    get_str,
    get_strs,
)
from kwx.engine.tiles import Tile, TileError, parse_tile
from kwx.table.succession import HandSetup
from kwx.table.views import PlayerRef

_E = TypeVar("_E", bound=StrEnum)


class RecordKind(StrEnum):
    START = "start"
    PIAO_OPEN = "piao_open"
    PIAO = "piao"
    HAND_START = "hand_start"
    ACTION = "action"
    AUTOPLAY = "autoplay"
    PAUSE = "pause"
    RESUME = "resume"
    LEAVE = "leave"
    SEAT = "seat"
    STOP = "stop"


class By(StrEnum):
    """Who decided a move."""

    PLAYER = "player"  # the seat's human, pressing
    TIMEOUT = "timeout"  # nobody: the seat's time ran out
    LATE = "late"  # nobody, but the prompt never reached the player in time (the bot's lag): not counted toward 托管
    AI = "ai"  # an AI seat
    AUTO = "auto"  # the AI playing for a human in 托管


class PauseReason(StrEnum):
    """Why a table paused."""

    NOBODY = "nobody"  # a hand in which no human made a move of their own
    SEAT_EMPTY = "seat_empty"  # a seat left empty by `leave`
    CHANNEL_LOST = "channel_lost"  # the front end lost the table's channel (deleted, or no longer allowed to post)
    # A store write failed for good. This pause is in memory only (TableRecord.store_paused): the store could
    # not take a record of it, and a restart plays on from the last record written. Never in a log.
    STORE = "store"
    RELEASED = "released"  # in memory only too: another process of a cluster took the table over


class CloseReason(StrEnum):
    """Why a table closed."""

    STOPPED = "stopped"  # by a person
    IDLE = "idle"  # idle while paused
    CHANNEL_GONE = "channel_gone"  # its channel, thread or server went away
    EMPTY = "empty"  # every human left
    HAND_LIMIT = "hand_limit"  # a table with no human seat reached its hand limit


@dataclass(frozen=True, slots=True)
class StartRecord:
    kind: ClassVar[RecordKind] = RecordKind.START
    by: str  # the host's player id
    at: float
    seating: tuple[str, ...]  # player ids of seats 0, 1, 2
    waiting: str | None = None  # rotation: the fourth player

    def to_json(self) -> JsonObject:
        return {"by": self.by, "at": self.at, "seating": list(self.seating), "waiting": self.waiting}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> StartRecord:
        return cls(get_str(p, "by"), get_float(p, "at"), get_strs(p, "seating"), get_optional_str(p, "waiting"))


@dataclass(frozen=True, slots=True)
class PiaoOpenRecord:
    kind: ClassVar[RecordKind] = RecordKind.PIAO_OPEN
    setup: HandSetup
    at: float

    def to_json(self) -> JsonObject:
        return {"setup": self.setup.to_json(), "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> PiaoOpenRecord:
        return cls(HandSetup.from_json(p.get("setup")), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class PiaoRecord:
    kind: ClassVar[RecordKind] = RecordKind.PIAO
    seat: int
    amount: int
    by: By
    step: int  # the table's step when it was made: a replay checks it
    at: float | None

    def to_json(self) -> JsonObject:
        return {"seat": self.seat, "amount": self.amount, "by": self.by.value, "step": self.step, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> PiaoRecord:
        return cls(get_int(p, "seat"), get_int(p, "amount"), _by(p), get_int(p, "step"), get_optional_float(p, "at"))


@dataclass(frozen=True, slots=True)
class HandStartRecord:
    kind: ClassVar[RecordKind] = RecordKind.HAND_START
    setup: HandSetup
    piao: tuple[int, ...]  # per seat
    at: float

    def to_json(self) -> JsonObject:
        return {"setup": self.setup.to_json(), "piao": list(self.piao), "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> HandStartRecord:
        piao = get_ints(p, "piao")
        if len(piao) != 3:
            raise JsonFormError(f"'piao' must hold one amount per seat, not {piao!r}")
        return cls(HandSetup.from_json(p.get("setup")), piao, get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class ActionRecord:
    kind: ClassVar[RecordKind] = RecordKind.ACTION
    seat: int
    verb: Verb
    tile: Tile | None
    by: By
    step: int  # the table's step when it was made: a replay checks it
    at: float

    @property
    def action(self) -> Action:
        return Action(self.seat, self.verb, self.tile)

    def to_json(self) -> JsonObject:
        return {"seat": self.seat, "verb": self.verb.value, "tile": self.tile.compact if self.tile is not None else None,
                "by": self.by.value, "step": self.step, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> ActionRecord:
        verb = get_str(p, "verb")
        if verb not in _VERBS:
            raise JsonFormError(f"'verb' must be one of {', '.join(Verb)}, not {verb!r}")
        text = get_optional_str(p, "tile")
        try:
            tile = parse_tile(text) if text is not None else None
        except TileError as exc:
            raise JsonFormError(f"'tile': {exc}") from None
        return cls(get_int(p, "seat"), Verb(verb), tile, _by(p), get_int(p, "step"), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class AutoplayRecord:
    kind: ClassVar[RecordKind] = RecordKind.AUTOPLAY
    player_id: str
    on: bool
    at: float

    def to_json(self) -> JsonObject:
        return {"player_id": self.player_id, "on": self.on, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> AutoplayRecord:
        return cls(get_str(p, "player_id"), get_bool(p, "on"), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class PauseRecord:
    kind: ClassVar[RecordKind] = RecordKind.PAUSE
    reason: PauseReason
    at: float

    def to_json(self) -> JsonObject:
        return {"reason": self.reason.value, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> PauseRecord:
        return cls(_enum(PauseReason, p, "reason"), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class ResumeRecord:
    kind: ClassVar[RecordKind] = RecordKind.RESUME
    by: str  # the player id of who resumed it ("" when nobody in particular)
    at: float

    def to_json(self) -> JsonObject:
        return {"by": self.by, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> ResumeRecord:
        return cls(get_str(p, "by", ""), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class LeaveRecord:
    kind: ClassVar[RecordKind] = RecordKind.LEAVE
    player_id: str
    at: float

    def to_json(self) -> JsonObject:
        return {"player_id": self.player_id, "at": self.at}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> LeaveRecord:
        return cls(get_str(p, "player_id"), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class SeatRecord:
    kind: ClassVar[RecordKind] = RecordKind.SEAT
    replaces: str  # the player id of who left the seat
    player: PlayerRef  # who takes it
    at: float

    def to_json(self) -> JsonObject:
        return {"replaces": self.replaces, "at": self.at,
                "player": {"player_id": self.player.player_id, "name": self.player.name,
                           "ai_level": self.player.ai_level}}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> SeatRecord:
        player = as_object(p.get("player"), "'player'")
        return cls(get_str(p, "replaces"), PlayerRef(get_str(player, "player_id"), get_str(player, "name"),
                                                      get_optional_str(player, "ai_level")), get_float(p, "at"))


@dataclass(frozen=True, slots=True)
class StopRecord:
    kind: ClassVar[RecordKind] = RecordKind.STOP
    by: str  # who stopped it (a player id), "" when it closed by itself
    at: float
    reason: CloseReason = CloseReason.STOPPED

    def to_json(self) -> JsonObject:
        return {"by": self.by, "at": self.at, "reason": self.reason.value}

    @classmethod
    def from_json(cls, p: Mapping[str, object]) -> StopRecord:
        reason = _enum(CloseReason, p, "reason") if p.get("reason") is not None else CloseReason.STOPPED
        return cls(get_str(p, "by", ""), get_float(p, "at"), reason)


_VERBS = frozenset(v.value for v in Verb)

LogRecord: TypeAlias = (StartRecord | PiaoOpenRecord | PiaoRecord | HandStartRecord | ActionRecord | AutoplayRecord
                        | PauseRecord | ResumeRecord | LeaveRecord | SeatRecord | StopRecord)

_BY_KIND: dict[str, type[LogRecord]] = {
    cls.kind.value: cls
    for cls in (StartRecord, PiaoOpenRecord, PiaoRecord, HandStartRecord, ActionRecord, AutoplayRecord, PauseRecord,
                ResumeRecord, LeaveRecord, SeatRecord, StopRecord)
}


def parse_record(kind: str, payload: object) -> LogRecord:
    """The record a log row holds. Raises JsonFormError (a ValueError) naming the kind or field that does not
    fit."""
    cls = _BY_KIND.get(kind)
    if cls is None:
        raise JsonFormError(f"unknown event-log record {kind!r}")
    try:
        return cls.from_json(as_object(payload, "its payload"))
    except JsonFormError as exc:
        raise JsonFormError(f"the {kind} record: {exc}") from None


def action_record(action: Action, by: By | str, step: int, at: float) -> ActionRecord:
    return ActionRecord(action.seat, Verb(action.verb), action.tile, By(by), step, at)


def _by(p: Mapping[str, object]) -> By:
    """Who made a move; records written before `by` existed were the player's own."""
    return _enum(By, p, "by") if p.get("by") is not None else By.PLAYER


def _enum(enum: type[_E], p: Mapping[str, object], key: str) -> _E:
    value = get_str(p, key)
    try:
        return enum(value)
    except ValueError:
        raise JsonFormError(f"{key!r} must be one of {', '.join(enum)}, not {value!r}") from None
