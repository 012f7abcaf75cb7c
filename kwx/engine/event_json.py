"""The JSON form of each engine event (kwx/engine/actions.py), one TypedDict per kind.

`Event.to_json()` gives the full record (replays, `python -m kwx replay`); `for_viewer(seat)` the same shape
with what that seat may not see set to None (another seat's draw and dealt hand, the tile of a 暗杠). Tiles are
written compact ("5p"), a hand as one compact string ("1123p456s"). `kind` tells the forms apart, so a reader
that checks it gets the fields of that kind. The keys are written in the order listed here.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from kwx.engine.payments import PaymentJson


class MeldJson(TypedDict):
    kind: str  # pung | kong | ankong
    tile: str | None  # None: another seat's 暗杠, face down


class DealJson(TypedDict):
    kind: Literal["deal"]
    dealer: int
    hands: list[str | None]  # per seat; None: a hand this viewer may not see
    wall: int
    piao: list[int]
    base: int
    hand_sizes: NotRequired[list[int]]  # in a viewer's form only


class DrawJson(TypedDict):
    kind: Literal["draw"]
    seat: int
    tile: str | None  # None: another seat's draw
    from_back: bool
    wall: int


class DiscardJson(TypedDict):
    kind: Literal["discard"]
    seat: int
    tile: str
    auto: bool
    liangdao: bool


class LiangdaoJson(TypedDict):
    kind: Literal["liangdao"]
    seat: int
    hand: str
    melds: list[MeldJson]
    waits: list[str]


class PassJson(TypedDict):
    kind: Literal["pass"]
    seat: int
    louhu: bool


# "from" is a keyword: these are spelled as calls.
PengJson = TypedDict("PengJson", {"kind": Literal["peng"], "seat": int, "tile": str, "from": int})
GangJson = TypedDict("GangJson", {
    "kind": Literal["gang"], "seat": int,
    "gang": str,  # angang | bugang | zhigang
    "tile": str | None,  # None: another seat's 暗杠
    "from": int | None, "chain": int, "payments": list[PaymentJson],
})


class RobWindowJson(TypedDict):
    kind: Literal["rob_window"]
    seat: int
    tile: str


class WinJson(TypedDict):
    seat: int
    fan: int
    raw_fan: int
    patterns: list[str]
    multipliers: list[int]
    hand: str
    melds: list[MeldJson]
    baohu: bool


HuJson = TypedDict("HuJson", {
    "kind": Literal["hu"], "tile": str, "self_draw": bool, "from": int | None, "rob_kong": bool,
    "winners": list[WinJson],
})


class HuangzhuangJson(TypedDict):
    kind: Literal["huangzhuang"]


class StuckJson(TypedDict):
    kind: Literal["forbid_feeding"]
    seat: int
    hand: str


class MaimaJson(TypedDict):
    kind: Literal["maima"]
    tile: str
    value: int


class RevealJson(TypedDict):
    kind: Literal["reveal"]
    hands: list[str]
    melds: list[list[MeldJson]]


class SettlementJson(TypedDict):
    kind: Literal["settlement"]
    outcome: str  # win | draw
    payments: list[PaymentJson]
    net: list[int]
    next_dealer: int


EventJson: TypeAlias = (DealJson | DrawJson | DiscardJson | LiangdaoJson | PassJson | PengJson | GangJson
                        | RobWindowJson | HuJson | HuangzhuangJson | StuckJson | MaimaJson | RevealJson
                        | SettlementJson)
