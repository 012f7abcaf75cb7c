"""What a table learns of its players from the public record of the hands they played: how readily each
discards a tile that wins for a declared 亮倒 hand, and how many win payments each receives against those it pays.

A strong player remembers who holds back a declared hand's waits and who throws them anyway: against the first,
亮倒 locks the hand for ×2 on its own draws; against the second it also collects 包胡 (the feeder pays double).
It also remembers who comes out ahead in the wins: 漂 raises every win payment a player is part of, so it pays
to raise it against players one wins from (kwx.engine.piao).
The records count only what every seat saw — discards, pungs and kongs, the hands shown by 亮倒, the payments —
never a draw or a concealed tile, so any seat may be told them (`Observation.feed_records`).

For each discard a player made while undeclared and facing a declared hand, `expected` grows by the share of the
tiles nobody has seen that win for a declared hand (what a player who ignored declared hands would feed, on
average) and `feeds` by one when the tile was such a winner. feeds ≈ expected: the player does not defend;
feeds ≈ 0 over a large `expected`: it holds declared waits back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, Self, TypeAlias, TypeVar

from kwx.engine.actions import Discard, Event, Gang, Liangdao, Peng
from kwx.engine.payments import Payment
from kwx.engine.tiles import COPIES, NUM_KINDS, WALL_SIZE


class FeedRecord(NamedTuple):
    """One player's record (also what an `Observation` carries per seat; a JSON pair as it stands)."""

    feeds: int = 0  # discards that were a declared hand's winning tile
    expected: float = 0.0  # what a discarder ignoring declared hands would have fed in those spots

    def plus(self, other: FeedRecord) -> FeedRecord:
        return FeedRecord(self.feeds + other.feeds, self.expected + other.expected)


def hand_feed_records(events: Iterable[Event], seats: int = 3) -> list[FeedRecord]:
    """Per seat, its feeding record in one hand, from the hand's public events only."""
    feeds = [0] * seats
    expected = [0.0] * seats
    seen = [0] * NUM_KINDS  # tiles every seat has seen
    waits: dict[int, Sequence[int]] = {}  # declared seat → its waits
    for e in events:
        if isinstance(e, Discard):
            against = {int(w) for s, ws in waits.items() if s != e.seat for w in ws}
            if against and e.seat not in waits:
                unseen = max(1, WALL_SIZE - sum(seen))
                expected[e.seat] += sum(max(0, COPIES - seen[w]) for w in against) / unseen
                feeds[e.seat] += int(e.tile) in against
            seen[e.tile] += 1
        elif isinstance(e, Liangdao):
            waits[e.seat] = tuple(e.waits)
            for t in e.hand:
                seen[t] += 1
        elif isinstance(e, Peng):
            seen[e.tile] += 2  # the third is the discard, already seen
        elif isinstance(e, Gang) and e.gang != "angang":  # a 暗杠 shows no tile
            seen[e.tile] = COPIES
    return [FeedRecord(f, x) for f, x in zip(feeds, expected)]


class BalanceRecord(NamedTuple):
    """One player's win payments at a table: what 漂 multiplies (kwx.engine.piao)."""

    hands: int = 0  # hands played
    dealt: int = 0  # of them, as the dealer
    balance: int = 0  # win payments received − win payments paid (a 自摸 is two payments, 包胡 one)

    def plus(self, other: BalanceRecord) -> BalanceRecord:
        return BalanceRecord(self.hands + other.hands, self.dealt + other.dealt, self.balance + other.balance)


def hand_balances(payments: Iterable[Payment], seats: int = 3) -> list[int]:
    """Per seat, win payments received − paid in one hand (kong money, 漂 and 买码 records not counted)."""
    out = [0] * seats
    for pay in payments:
        if pay.reason in ("hu", "baohu"):
            out[pay.to_seat] += 1
            out[pay.from_seat] -= 1
    return out


R = TypeVar("R", FeedRecord, BalanceRecord)
ReadsJson: TypeAlias = dict[str, list[float]]  # player (as text) → the fields of their record, in order


class _PlayerReads(Generic[R]):
    """Records per player, summed over the hands of one table."""

    record: type[R]

    def __init__(self, records: Mapping[int, R] | None = None) -> None:
        self.by_player: dict[int, R] = dict(records or {})

    def _add(self, player: int, rec: R) -> None:
        self.by_player[player] = self.by_player.get(player, self.record()).plus(rec)

    def forget(self, player: int) -> None:
        """Someone else now plays as `player` (a seat taken over): what was learned was of the last one."""
        self.by_player.pop(player, None)

    def for_seats(self, seated: Sequence[int]) -> dict[int, R]:
        """seat → the record of the player sitting there, for players with a record."""
        return {seat: self.by_player[p] for seat, p in enumerate(seated) if p in self.by_player}

    def to_json(self) -> ReadsJson:
        return {str(p): list(r) for p, r in sorted(self.by_player.items())}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Self:
        empty = cls.record()  # each field's default gives its type

        def parse(values: Sequence[Any]) -> R:
            fields: list[Any] = [type(d)(x) for d, x in zip(empty, values)]
            return cls.record(*fields)

        return cls({int(p): parse(v) for p, v in (data or {}).items()})


class FeedReads(_PlayerReads[FeedRecord]):
    """Feeding records per player, summed over the hands of one table."""

    record = FeedRecord

    def learn(self, events: Iterable[Event], seated: Sequence[int]) -> None:
        """Add one finished hand; `seated[s]` is the player in seat s."""
        for seat, rec in enumerate(hand_feed_records(events, len(seated))):
            if rec.expected or rec.feeds:
                self._add(seated[seat], rec)


class BalanceReads(_PlayerReads[BalanceRecord]):
    """Win-payment records per player, summed over the hands of one table."""

    record = BalanceRecord

    def learn(self, payments: Iterable[Payment], seated: Sequence[int], dealer_seat: int) -> None:
        """Add one finished hand; `seated[s]` is the player in seat s."""
        for seat, balance in enumerate(hand_balances(payments, len(seated))):
            self._add(seated[seat], BalanceRecord(1, int(seat == dealer_seat), balance))
