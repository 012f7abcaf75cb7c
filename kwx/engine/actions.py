"""What players do (Action) and what happens (Event), with the JSON forms the event log, replay and front ends speak.

An Action is a named tuple so that comparing and hashing it run at C speed (legal-action checks happen on
every step of a simulation). Events are small frozen dataclasses, one per kind; `to_json()` is the full record
(the event log, replays) and `for_viewer(seat)` is what one seat — or, with None, the public channel — may
see: another player's drawn tile, dealt hands and the tile of a 暗杠 are hidden; a 亮倒 reveal, the hands shown
by a win and the final reveal are public; a seat's `pass` is seen by that seat only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, NamedTuple, TypeAlias

from kwx.engine.analysis import Meld
from kwx.engine.event_json import (
    DealJson,
    DiscardJson,
    DrawJson,
    EventJson,
    GangJson,
    HuangzhuangJson,
    HuJson,
    LiangdaoJson,
    MaimaJson,
    MeldJson,
    PassJson,
    PengJson,
    RevealJson,
    RobWindowJson,
    SettlementJson,
    StuckJson,
    WinJson,
)
from kwx.engine.payments import Payment
from kwx.engine.tiles import Tile, TileError, format_compact, parse_tile


class Verb(StrEnum):
    """What a seat may do (a StrEnum: a verb compares equal to its JSON text, "discard" …)."""

    DISCARD = "discard"
    LIANGDAO = "liangdao"  # declare 亮倒 with the discard that goes with it
    GANG = "gang"  # a kong: 暗杠 / 补杠 on one's own turn, 直杠 on a discard
    PENG = "peng"
    HU = "hu"
    PASS = "pass"


VERBS = tuple(v.value for v in Verb)
_TILE_VERBS = frozenset({"discard", "liangdao"})  # verbs that always name a tile
_NO_TILE_VERBS = frozenset({"peng", "hu", "pass"})  # verbs that never do


class IllegalAction(ValueError):
    """The action is not allowed now; the message says why in words. The hand is unchanged."""


class ActionFormatError(ValueError):
    """An action's JSON form is malformed (not a question of the rules)."""


ActionJson: TypeAlias = list[int | str]  # an action's JSON form: [seat, verb] or [seat, verb, tile]


class Action(NamedTuple):
    """`discard T`, `liangdao T` (declare 亮倒 and discard T), `gang T` on your own turn (暗杠 / 补杠),
    `gang` without a tile on a discard (直杠), `peng`, `hu`, `pass`."""

    seat: int
    verb: str
    tile: Tile | None = None

    def to_json(self) -> ActionJson:
        return [self.seat, self.verb] if self.tile is None else [self.seat, self.verb, self.tile.compact]

    @classmethod
    def from_json(cls, data: object) -> Action:
        """`[seat, verb]` or `[seat, verb, tile]`; the tile in compact or Chinese notation."""
        if not isinstance(data, (list, tuple)) or not 2 <= len(data) <= 3:
            raise ActionFormatError(f"an action is [seat, verb] or [seat, verb, tile], not {data!r}")
        seat, verb = data[0], data[1]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 2:
            raise ActionFormatError(f"seat must be 0, 1 or 2, not {seat!r}")
        if verb not in VERBS:
            raise ActionFormatError(f"unknown verb {verb!r}: verbs are {', '.join(VERBS)}")
        tile: Tile | None = None
        if len(data) == 3 and data[2] is not None:
            if not isinstance(data[2], str):
                raise ActionFormatError(f"a tile is written like \"5p\", not {data[2]!r}")
            try:
                tile = parse_tile(data[2])
            except TileError as exc:
                raise ActionFormatError(str(exc)) from None
        if verb in _TILE_VERBS and tile is None:
            raise ActionFormatError(f"{verb} needs a tile, e.g. [{seat}, \"{verb}\", \"5p\"]")
        if verb in _NO_TILE_VERBS and tile is not None:
            raise ActionFormatError(f"{verb} takes no tile")
        return cls(seat, verb, tile)

    def __str__(self) -> str:
        return f"seat {self.seat} {self.verb}" + (f" {self.tile.compact}" if self.tile is not None else "")


# -- JSON helpers -------------------------------------------------------------------------------------
def _hand(tiles: Sequence[int]) -> str:
    return format_compact(tiles)


def _tiles(tiles: Sequence[int]) -> list[str]:
    return [Tile(t).compact for t in tiles]


def _melds(melds: Sequence[Meld], hide_ankong: bool = False) -> list[MeldJson]:
    return [{"kind": m.kind, "tile": None if hide_ankong and m.kind == "ankong" else m.tile.compact}
            for m in melds]


# -- events -------------------------------------------------------------------------------------------
class Event:
    """Base of every event. Subclasses set `kind`, give their JSON form (kwx/engine/event_json.py, "kind"
    first) and may narrow `for_viewer`."""

    __slots__ = ()
    kind: ClassVar[str] = ""

    def to_json(self) -> EventJson:
        """The full record, hidden tiles included (event log, replay output)."""
        raise NotImplementedError

    def for_viewer(self, seat: int | None) -> EventJson | None:
        """What `seat` may see of this event (None: the public channel); None when it sees nothing."""
        return self.to_json()

    def public_json(self) -> EventJson | None:
        return self.for_viewer(None)


@dataclass(frozen=True, slots=True)
class Deal(Event):
    kind: ClassVar[str] = "deal"
    dealer: int
    hands: tuple[tuple[Tile, ...], ...]  # per seat, sorted
    wall_remaining: int
    piao: tuple[int, ...]
    base: int  # points per fan in this hand (rules.base × 上楼 multiplier)

    def to_json(self) -> DealJson:
        return {"kind": "deal", "dealer": self.dealer, "hands": [_hand(h) for h in self.hands],
                "wall": self.wall_remaining, "piao": list(self.piao), "base": self.base}

    def for_viewer(self, seat: int | None) -> DealJson:
        out = self.to_json()
        out["hands"] = [_hand(h) if s == seat else None for s, h in enumerate(self.hands)]
        out["hand_sizes"] = [len(h) for h in self.hands]
        return out


@dataclass(frozen=True, slots=True)
class Draw(Event):
    kind: ClassVar[str] = "draw"
    seat: int
    tile: Tile
    from_back: bool  # a kong replacement
    wall_remaining: int  # after this draw; 0 means this was the last tile

    def to_json(self) -> DrawJson:
        return {"kind": "draw", "seat": self.seat, "tile": self.tile.compact, "from_back": self.from_back,
                "wall": self.wall_remaining}

    def for_viewer(self, seat: int | None) -> DrawJson:
        out = self.to_json()
        if seat != self.seat:
            out["tile"] = None
        return out


@dataclass(frozen=True, slots=True)
class Discard(Event):
    kind: ClassVar[str] = "discard"
    seat: int
    tile: Tile
    auto: bool = False  # a locked 亮倒 hand discarding its draw
    liangdao: bool = False  # the discard that declares 亮倒

    def to_json(self) -> DiscardJson:
        return {"kind": "discard", "seat": self.seat, "tile": self.tile.compact, "auto": self.auto,
                "liangdao": self.liangdao}


@dataclass(frozen=True, slots=True)
class Liangdao(Event):
    """The 亮倒 reveal: the concealed hand after the declaring discard, the melds and the waits. Public."""

    kind: ClassVar[str] = "liangdao"
    seat: int
    hand: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    waits: tuple[Tile, ...]

    def to_json(self) -> LiangdaoJson:
        return {"kind": "liangdao", "seat": self.seat, "hand": _hand(self.hand), "melds": _melds(self.melds),
                "waits": _tiles(self.waits)}


@dataclass(frozen=True, slots=True)
class Pass(Event):
    """A seat declined its claim (or its win / kong on a locked draw). `louhu`: it declined a win (漏胡)."""

    kind: ClassVar[str] = "pass"
    seat: int
    louhu: bool = False

    def to_json(self) -> PassJson:
        return {"kind": "pass", "seat": self.seat, "louhu": self.louhu}

    def for_viewer(self, seat: int | None) -> PassJson | None:
        return self.to_json() if seat == self.seat else None


@dataclass(frozen=True, slots=True)
class Peng(Event):
    kind: ClassVar[str] = "peng"
    seat: int
    tile: Tile
    from_seat: int

    def to_json(self) -> PengJson:
        return {"kind": "peng", "seat": self.seat, "tile": self.tile.compact, "from": self.from_seat}


@dataclass(frozen=True, slots=True)
class Gang(Event):
    """A completed kong with the kong money it paid. `chain`: its position in a 杠上杠 chain (1 = first)."""

    kind: ClassVar[str] = "gang"
    seat: int
    gang: str  # angang | bugang | zhigang
    tile: Tile
    from_seat: int | None  # the discarder for a 直杠
    chain: int
    payments: tuple[Payment, ...]

    def to_json(self) -> GangJson:
        return {"kind": "gang", "seat": self.seat, "gang": self.gang, "tile": self.tile.compact,
                "from": self.from_seat, "chain": self.chain, "payments": [p.to_json() for p in self.payments]}

    def for_viewer(self, seat: int | None) -> GangJson:
        out = self.to_json()
        if self.gang == "angang" and seat != self.seat:
            out["tile"] = None
        return out


@dataclass(frozen=True, slots=True)
class RobWindow(Event):
    """`seat` declared 补杠 of `tile`; players who win on it may rob it (抢杠胡) before it completes."""

    kind: ClassVar[str] = "rob_window"
    seat: int
    tile: Tile

    def to_json(self) -> RobWindowJson:
        return {"kind": "rob_window", "seat": self.seat, "tile": self.tile.compact}


@dataclass(frozen=True, slots=True)
class Win:
    """One winner of a Hu event. `hand`: the concealed tiles before the winning tile."""

    seat: int
    fan: int
    raw_fan: int
    patterns: tuple[str, ...]
    multipliers: tuple[int, ...]
    hand: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    baohu: bool = False

    def to_json(self) -> WinJson:
        return {"seat": self.seat, "fan": self.fan, "raw_fan": self.raw_fan, "patterns": list(self.patterns),
                "multipliers": list(self.multipliers), "hand": _hand(self.hand), "melds": _melds(self.melds),
                "baohu": self.baohu}


@dataclass(frozen=True, slots=True)
class Hu(Event):
    """A win: one winner, or two on one discard (一炮双响). `from_seat` is the discarder or the robbed kong's
    declarer; None on 自摸."""

    kind: ClassVar[str] = "hu"
    tile: Tile
    self_draw: bool
    from_seat: int | None
    rob_kong: bool
    winners: tuple[Win, ...]

    def to_json(self) -> HuJson:
        return {"kind": "hu", "tile": self.tile.compact, "self_draw": self.self_draw, "from": self.from_seat,
                "rob_kong": self.rob_kong, "winners": [w.to_json() for w in self.winners]}


@dataclass(frozen=True, slots=True)
class Huangzhuang(Event):
    """荒庄: the wall ran out and the last discard was not won."""

    kind: ClassVar[str] = "huangzhuang"

    def to_json(self) -> HuangzhuangJson:
        return {"kind": "huangzhuang"}


@dataclass(frozen=True, slots=True)
class Stuck(Event):
    """forbid_feeding: `seat` holds only tiles that would feed a 亮倒 player, so the hand ends."""

    kind: ClassVar[str] = "forbid_feeding"
    seat: int
    hand: tuple[Tile, ...]

    def to_json(self) -> StuckJson:
        return {"kind": "forbid_feeding", "seat": self.seat, "hand": _hand(self.hand)}


@dataclass(frozen=True, slots=True)
class Maima(Event):
    """买码: the tile shown from the back of the wall after a 自摸, and the points it adds per payment."""

    kind: ClassVar[str] = "maima"
    tile: Tile
    value: int

    def to_json(self) -> MaimaJson:
        return {"kind": "maima", "tile": self.tile.compact, "value": self.value}


@dataclass(frozen=True, slots=True)
class Reveal(Event):
    """Every hand shown at the end of the hand. Public."""

    kind: ClassVar[str] = "reveal"
    hands: tuple[tuple[Tile, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]

    def to_json(self) -> RevealJson:
        return {"kind": "reveal", "hands": [_hand(h) for h in self.hands], "melds": [_melds(m) for m in self.melds]}


@dataclass(frozen=True, slots=True)
class Settlement(Event):
    """The end of the hand: the payments decided now (kong money was paid with each Gang) and the hand's net
    per seat, kong money included."""

    kind: ClassVar[str] = "settlement"
    outcome: str  # win | draw
    payments: tuple[Payment, ...]
    net: tuple[int, ...]
    next_dealer: int

    def to_json(self) -> SettlementJson:
        return {"kind": "settlement", "outcome": self.outcome, "payments": [p.to_json() for p in self.payments],
                "net": list(self.net), "next_dealer": self.next_dealer}


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Deal, Draw, Discard, Liangdao, Pass, Peng, Gang, RobWindow, Hu, Huangzhuang, Stuck, Maima, Reveal,
                Settlement)
}
