"""The JSON form of a 复盘 (kwx/engine/review.py: `Review.to_json()`, `python -m kwx review --json`).

Tiles are written compact ("5p"), actions as `[seat, verb]` or `[seat, verb, tile]`, strong's values rounded to
three places (None where strong decides by rule, not by value).
"""

from __future__ import annotations

from typing import TypedDict

from kwx.engine.actions import ActionJson
from kwx.engine.event_json import EventJson, MeldJson
from kwx.engine.hand import HandResultJson
from kwx.engine.payments import PaymentJson
from kwx.engine.rules import RuleSetJson


class FaceUpSeatJson(TypedDict):
    hand: list[str]  # sorted, the drawn tile included
    drawn: str | None
    melds: list[MeldJson]
    discards: list[list[str | bool]]  # [tile, claimed] in order
    declared: bool
    waits: list[str]


class FrameJson(TypedDict):
    index: int
    wall: int
    seats: list[FaceUpSeatJson]
    to_act: list[int]
    pending: list[int | str] | None  # [seat, tile] of a discard or 补杠 open to claims
    action: ActionJson | None
    by: str
    events: list[EventJson]


class OptionJson(TypedDict):
    action: ActionJson
    value: float | None


class DecisionJson(TypedDict):
    frame: int
    seat: int
    taken: ActionJson
    by: str
    taken_value: float | None
    agrees: bool
    loss: float | None
    big: bool
    louhu: bool
    fed: bool
    deal_in_unready: bool
    counted: bool
    options: list[OptionJson]  # [0] is strong's choice


class ReviewSummaryJson(TypedDict):
    seat: int
    decisions: int
    agreed: int
    agreement: float | None
    costliest: list[int]  # indexes into the review's decisions
    louhu: list[int]
    fed: list[int]
    deal_ins_unready: list[int]
    payments: list[PaymentJson]
    net: list[int]
    ai: str
    ai_sees: str
    spread: str


class ReviewJson(TypedDict):
    seat: int
    dealer: int
    rules: RuleSetJson
    result: HandResultJson
    win_tile: str | None
    summary: ReviewSummaryJson
    decisions: list[DecisionJson]
    frames: list[FrameJson]
