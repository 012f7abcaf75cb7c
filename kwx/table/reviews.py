"""A finished hand of the ledger, loaded and checked for 复盘 (kwx.engine.review).

`load_ledger_hand` reads the hand's ledger record, its table (rules, the secret seed) and the table's event log;
it checks that the table's seed gives the commitment the ledger recorded, learns what the table had learned of
its players by the hand's deal (so the review's AI knows what the table's AI knew: kwx.engine.reads) and
gathers the hand's actions with who made each. `load_exported_hand` does the same for an action log exported with
`python -m kwx ledger hand ID --actions`, given the seed the result post revealed. `review_hand` then replays
and values it: a log that does not replay to the recorded result is refused (`mismatch`), never reviewed.

Who may see what: a member reviews the hands they sat in; with Manage Server, any hand of the server
(`sees_all`). Only finished hands are in the ledger, and the review of a hand reads nothing of the table's
later records, so a hand in play never shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwx.engine.actions import Action, Verb
from kwx.engine.hand import HandState
from kwx.engine.reads import FeedReads, FeedRecord
from kwx.engine.review import HandLog, ReplayMismatch, Review, parse_actions, review
from kwx.engine.rules import RulesError, RuleSet
from kwx.engine.seeds import check_reveal, hand_seed
from kwx.engine.wall import dice_from_seed, wall_from_seed
from kwx.store import EventRow, NotFound, Store
from kwx.table.log_records import ActionRecord, HandStartRecord, RecordKind, SeatRecord, parse_record
from kwx.table.table_seed import TableSeed

HISTORY_PAGE = 50


class ReviewRefused(Exception):
    """Why a hand is not reviewed: `code` (catalog `review.refused.<code>`) and its details. str() is English."""

    def __init__(self, code: str, message: str, **fmt: Any) -> None:
        super().__init__(message)
        self.code = code
        self.fmt = fmt


@dataclass(frozen=True)
class ReviewSource:
    """A checked hand, ready to replay: its log, and who sat where."""

    log: HandLog
    players: tuple[str, ...]  # player id per seat
    names: tuple[str, ...]  # display name per seat
    seed: str  # the hand's revealed seed (public once the hand is over)
    seed_ref: str
    hand_id: int | None = None  # the ledger's id (None for an exported log)
    table_id: int | None = None
    hand_no: int | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def seat_of(self, player: str | None) -> int | None:
        return self.players.index(player) if player in self.players else None


async def last_table_hand(store: Store, guild: str, player: str) -> int | None:
    """The newest hand `player` played at a table of this server (recorded hands have nothing to replay)."""
    offset = 0
    while True:
        page = await store.history(guild, player, limit=HISTORY_PAGE, offset=offset)
        for h in page:
            if h.table_id is not None:
                return h.hand_id
        if len(page) < HISTORY_PAGE:
            return None
        offset += HISTORY_PAGE


async def load_ledger_hand(store: Store, guild: str, hand_id: int, *, viewer: str | None = None,
                           sees_all: bool = False) -> ReviewSource:
    """Hand `hand_id` of `guild`'s ledger, checked: `viewer` must have sat in it unless `sees_all`."""
    try:
        record = await store.hand_log(guild, hand_id)
    except NotFound:
        raise ReviewRefused("not_found", f"no hand #{hand_id} played at a table here", hand=hand_id) from None
    players = tuple(str(p) for p in record["players"])
    if not sees_all and viewer not in players:
        raise ReviewRefused("not_seated", f"you did not sit in hand #{hand_id}", hand=hand_id)
    row = await store.get_table(int(record["table_id"]))
    hand_no = int(record["hand_no"])
    events = await store.load_events(row.id)
    start = next((i for i, e in enumerate(events) if e.kind == "hand_start" and e.hand_no == hand_no), None)
    if start is None:
        raise ReviewRefused("not_found", f"hand #{hand_id}: its table's log has no deal", hand=hand_id)
    revealed = TableSeed.of_row(row).revealed(hand_no)
    try:  # the seed kept with the table must give the commitment the ledger recorded
        seed = check_reveal(revealed, record["seed_ref"] or "")
    except ValueError:
        raise ReviewRefused("commitment", f"hand #{hand_id}: the table's seed does not match the ledger's "
                                          f"commitment {record['seed_ref']}", hand=hand_id) from None
    rules = RuleSet.from_json(row.rules)
    feed = table_reads(rules, row.seed, events[:start]).for_seats(players)  # what the table's AI knew at the deal
    mine = [e.payload for e in events[start + 1:] if e.kind == "action" and e.hand_no == hand_no]
    log = HandLog(rules, int(record["dealer"]), wall_from_seed(seed), record["piao"],
                  int(record["base_multiplier"]),
                  _actions([[p["seat"], p["verb"], *([p["tile"]] if p.get("tile") else [])] for p in mine], hand_id),
                  tuple(str(p.get("by") or "") for p in mine), feed, record["net"], record["outcome"])
    lobby = {str(p.get("player_id")): str(p.get("name") or p.get("player_id")) for p in row.seats}
    names = tuple(lobby.get(p, p) for p in players)
    return ReviewSource(log, players, names, revealed, record["seed_ref"], hand_id, row.id, hand_no,
                        {"dice": record.get("dice")})


class PlayerFeeds:
    """What a table learned of its players' feeding, by player id (the engine's reads number players)."""

    def __init__(self) -> None:
        self.reads = FeedReads()
        self._numbers: dict[str, int] = {}

    def number(self, player_id: str) -> int:
        return self._numbers.setdefault(player_id, len(self._numbers))

    def forget(self, player_id: str) -> None:
        self.reads.forget(self.number(player_id))

    def for_seats(self, seated: Sequence[str]) -> dict[int, FeedRecord]:
        """seat → the record of the player sitting there, for players with a record."""
        return self.reads.for_seats([self.number(p) for p in seated])


def table_reads(rules: RuleSet, table_seed: str, events: Sequence[EventRow]) -> PlayerFeeds:
    """What a table learned of its players' feeding in the hands its `events` finished, by player id: as the
    live table's reads (kwx.engine.reads), whose only source is hands with a 亮倒, so only those are replayed. A
    seat taken over starts with nothing known of its new player, as at the table."""
    reads = PlayerFeeds()
    hand: tuple[HandStartRecord, list[Action]] | None = None
    for e in [*events, None]:
        if e is None or e.kind in (RecordKind.HAND_START, RecordKind.PIAO_OPEN, RecordKind.SEAT):
            if hand is not None and any(a.verb == Verb.LIANGDAO for a in hand[1]):
                _learn(reads, rules, table_seed, *hand)
            hand = None
        if e is None:
            break
        if e.kind not in _READ_KINDS:
            continue
        record = parse_record(e.kind, e.payload)
        if isinstance(record, HandStartRecord):
            hand = (record, [])
        elif isinstance(record, ActionRecord) and hand is not None:
            hand[1].append(record.action)
        elif isinstance(record, SeatRecord) and record.player.player_id != record.replaces:  # not one back
            reads.forget(record.player.player_id)
    return reads


_READ_KINDS = frozenset({RecordKind.HAND_START, RecordKind.ACTION, RecordKind.SEAT})


def _learn(reads: PlayerFeeds, rules: RuleSet, table_seed: str, deal: HandStartRecord, actions: list[Action]) -> None:
    setup = deal.setup
    hand = HandState(rules, setup.dealer, wall_from_seed(hand_seed(table_seed, setup.hand_no)), deal.piao,
                     setup.base_multiplier)
    for a in actions:
        hand.apply(a)
    if hand.finished:  # the table learns from a hand when it is booked
        reads.reads.learn(hand.events, [reads.number(p) for p in setup.seating])


def load_exported_hand(data: Any, seed: str) -> ReviewSource:
    """An exported action log (`python -m kwx ledger hand ID --actions`) with the seed its result revealed."""
    if not isinstance(data, dict):
        raise ReviewRefused("bad_log", "the action log must hold one JSON object", detail="not an object")
    ref = str(data.get("seed_ref") or "")
    try:
        hand_seed = check_reveal(seed, ref)
    except ValueError as exc:
        raise ReviewRefused("commitment", f"{exc} (the log's commitment: {ref or 'none'})",
                            hand=data.get("hand_id")) from None
    if data.get("dice") is not None and list(data["dice"]) != list(dice_from_seed(hand_seed)):
        raise ReviewRefused("mismatch", "the dice in the log are not the ones this seed gives",
                            hand=data.get("hand_id"), detail="dice")
    try:
        rules = RuleSet.from_json(data.get("rules", "standard"))
        players = tuple(str(p) for p in data.get("players") or ("0", "1", "2"))
        log = HandLog(rules, int(data["dealer"]), wall_from_seed(hand_seed), [int(p) for p in data.get("piao", (0, 0, 0))],
                      int(data.get("base_multiplier", 1)), _actions(data.get("actions"), data.get("hand_id")),
                      net=data.get("net"), outcome=data.get("outcome"))
    except (RulesError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ReviewRefused):
            raise
        raise ReviewRefused("bad_log", f"the action log cannot be dealt: {exc}", detail=str(exc)) from None
    if len(players) != 3:
        raise ReviewRefused("bad_log", "the action log names three players", detail="players")
    hand_id = data.get("hand_id")
    return ReviewSource(log, players, players, seed.strip(), ref, int(hand_id) if isinstance(hand_id, int) else None,
                        data.get("table_id"), data.get("hand_no"), {"dice": data.get("dice")})


def _actions(raw: Any, hand: Any) -> Sequence[Any]:
    if not isinstance(raw, list):
        raise ReviewRefused("bad_log", "the action log has no list of actions", detail="actions")
    try:
        return parse_actions(raw)
    except ReplayMismatch as exc:
        raise ReviewRefused("mismatch", str(exc), hand=hand, detail=str(exc)) from None


def review_hand(source: ReviewSource, seat: int) -> Review:
    """Replay and value the hand from `seat`'s view; `mismatch` when the log does not end as recorded (a log
    that does not finish the hand: `running`)."""
    try:
        return review(source.log, seat)
    except ReplayMismatch as exc:
        code = "running" if exc.code == "unfinished" else "mismatch"
        raise ReviewRefused(code, str(exc), hand=source.hand_id, detail=str(exc)) from None
