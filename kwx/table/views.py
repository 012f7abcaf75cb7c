"""What the front ends are given to show: plain frozen data built by the service from the engine's state.

The service builds these and is the only place that decides what is hidden: a `PublicView` never holds a
concealed tile (only 亮倒 reveals and, in a `ResultView`, the end-of-hand reveal); a `PrivateView` holds one
seat's own tiles and is only ever handed to that seat's player.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kwx.engine.event_json import EventJson
from kwx.engine.tiles import Tile
from kwx.table.advice import MoveWarning


@dataclass(frozen=True)
class PlayerRef:
    """Who sits in a seat. `player_id` is a Discord user id as text, `local:you`, or `ai:<level>:<n>`."""

    player_id: str
    name: str
    ai_level: str | None = None  # None for a human

    @property
    def is_ai(self) -> bool:
        return self.ai_level is not None


@dataclass(frozen=True)
class MeldView:
    kind: str  # pung | kong | ankong
    tile: Tile | None  # None for another seat's 暗杠 (face down until the end-of-hand reveal)
    from_seat: int | None = None  # whose discard was claimed; None for 暗杠/补杠 from own hand


@dataclass(frozen=True)
class SeatView:
    seat: int
    player: PlayerRef
    score: int  # running net at this table, in points
    concealed_count: int
    melds: tuple[MeldView, ...] = ()
    discards: tuple[Tile, ...] = ()  # in order; tiles claimed by others are left out
    pond: tuple[tuple[Tile, bool], ...] = ()  # every discard in order, each with whether another seat claimed it
    liangdao: bool = False
    revealed: tuple[Tile, ...] = ()  # the concealed hand, only once 亮倒 is declared
    waits: tuple[Tile, ...] = ()  # the 亮倒 waits
    is_dealer: bool = False
    autoplay: bool = False  # 托管: the AI plays for an absent human
    piao: int = 0


@dataclass(frozen=True)
class PublicView:
    """The board: what everybody at the table (and spectators) may see."""

    table_id: int
    hand_no: int  # 1-based; 0 in the lobby
    step: int
    phase: str  # lobby | turn | claim | finished | closed
    seats: tuple[SeatView, ...]
    wall_remaining: int = 0
    turn_seat: int | None = None  # whose move it is (turn phase) or whose discard (补杠) the board holds
    claim_tile: Tile | None = None
    deadline: float | None = None  # unix time (seconds) when the current wait times out; None in phase claim
    base: int = 1  # points per fan this hand (上楼 included)
    rules_name: str = "standard"
    last_events: tuple[EventJson, ...] = ()  # public JSON of the events since the previous view
    waiting_player: PlayerRef | None = None  # rotation: the fourth player sitting out
    paused: str | None = None  # why the table is paused (kwx.table.log_records.PauseReason), None while it plays
    claim_kind: str | None = None  # phase claim: "discard" (X 打出 T) or "bugang" (X 补杠 T)
    seed_ref: str | None = None  # the commitment to this hand's seed (revealed in its ResultView)
    host: PlayerRef | None = None  # who may start, stop and add AI players
    spectators: tuple[PlayerRef, ...] = ()  # who watches (front ends decide who gets the board)
    capacity: int = 3  # seats the game needs: 3, or 4 with rotation
    piao_max: int = 0  # the largest 漂 a seat may pick (rules.piao; 0: no 漂 at this table)


@dataclass(frozen=True)
class ActionChoice:
    """A legal action offered to a seat, with a label-friendly form."""

    verb: str  # discard | liangdao | gang | peng | hu | pass
    tile: Tile | None = None


@dataclass(frozen=True)
class PrivateView:
    """One seat's hand, for that seat's player only."""

    table_id: int
    hand_no: int
    step: int
    seat: int
    player_id: str
    concealed: tuple[Tile, ...]  # sorted, the drawn tile excluded
    drawn: Tile | None
    melds: tuple[MeldView, ...]
    choices: tuple[ActionChoice, ...]  # empty when nothing is asked of this seat
    deadline: float | None = None
    waits: tuple[Tile, ...] = ()  # when the 13 − 3n tiles are ready
    discard_waits: dict[Tile, tuple[Tile, ...]] = field(default_factory=dict)  # on a turn: discard → waits after it
    claim_tile: Tile | None = None
    liangdao: bool = False
    autoplay: bool = False
    # The seat let its last decision time out and has not acted since (not yet in 托管): a front end that
    # notifies players (a DM) updates what it last showed instead of notifying again, until they act.
    timed_out: bool = False
    # 胡口牌: tiles that win for another seat's declared 亮倒 hand (public: its waits are shown to all), each
    # with those seats. Discarding one feeds that seat; while you have not declared yourself it is 包胡 (you
    # alone pay, double).
    danger: dict[Tile, tuple[int, ...]] = field(default_factory=dict)
    # The table as this seat sees it, for the panel's context line and counts (public facts and its own tiles):
    last_discard: tuple[int, Tile] | None = None  # (seat, tile) of the latest discard in the hand
    wall_remaining: int = 0
    unseen: dict[Tile, int] = field(default_factory=dict)  # per wait tile shown: copies this seat has not seen
    # A tile whose discard another seat's 亮倒 hand may 直杠 (its revealed triplet): (that seat, what it costs).
    kong_feed: dict[Tile, tuple[int, int]] = field(default_factory=dict)
    piao_max: int = 0  # a 漂 choice offers 0 … piao_max
    # On a turn: what each costly discard or 亮倒 discard would cost and who would gain (kwx.table.advice), and
    # what a 自摸 would win now (None: no 自摸 offered).
    warnings: tuple[MoveWarning, ...] = ()
    zimo_gain: int | None = None
    auto_pass: bool = False  # the player's auto-pass setting (kwx.table.player_settings), which the service honours

    @property
    def baohu_risk(self) -> bool:
        """Feeding a 亮倒 seat now would be 包胡 (you have not declared 亮倒 yourself)."""
        return not self.liangdao


@dataclass(frozen=True)
class PaymentView:
    from_player: PlayerRef
    to_player: PlayerRef
    amount: int
    reason: str  # engine reason id: hu, baohu, angang, …


@dataclass(frozen=True)
class WinnerView:
    seat: int
    player: PlayerRef
    fan: int
    patterns: tuple[tuple[str, int], ...]  # (pattern id, multiplier)
    win_tile: Tile
    self_draw: bool
    from_seat: int | None  # the discarder (or the robbed kong's declarer)


@dataclass(frozen=True)
class RevealedHand:
    seat: int
    concealed: tuple[Tile, ...]
    melds: tuple[MeldView, ...]


@dataclass(frozen=True)
class ResultView:
    """The end of a hand: every hand revealed, the fan breakdown, the payments and the running balances."""

    table_id: int
    hand_no: int
    outcome: str  # win | draw
    winners: tuple[WinnerView, ...]
    payments: tuple[PaymentView, ...]
    net: tuple[int, ...]  # per seat, this hand
    scores: tuple[int, ...]  # per seat, running at this table
    hands: tuple[RevealedHand, ...]
    next_dealer: int | None = None
    seed: str | None = None  # the hand's seed, revealed: `python -m kwx verify SEED --ref SEED_REF`
    seed_ref: str | None = None  # the commitment to it the ledger kept from before the deal


@dataclass(frozen=True)
class TransferView:
    from_player: PlayerRef
    to_player: PlayerRef
    amount: int


@dataclass(frozen=True)
class TableSummary:
    """A table's sitting so far: shown when it closes (and, as running totals, in a list of open tables).
    `net` has everyone who played there (a player who left keeps their line); `transfers` are the fewest cash
    transfers that settle this table alone (kwx.store.settle_up); `biggest` is the hand with the largest win."""

    table_id: int
    guild: str
    channel: str | None
    host: PlayerRef | None
    hands: int
    net: tuple[tuple[PlayerRef, int], ...]
    biggest: tuple[int, PlayerRef, int] | None  # (hand no, winner, amount won)
    transfers: tuple[TransferView, ...]
    reason: str = "stopped"  # a kwx.table.log_records.CloseReason while closing; "open" in a listing


@dataclass(frozen=True)
class TableInfo:
    """One open table in a listing (`TableService.table_infos`)."""

    table_id: int
    guild: str
    channel: str | None
    host: PlayerRef | None
    players: tuple[PlayerRef, ...]
    status: str  # lobby | playing | between | piao | paused
    paused: str | None
    hands: int
    last_human_at: float | None
    summary: TableSummary
