"""Writing money: finished hands, reversals, settlements, transfers, bulk import; summaries kept in step.

Every write is one transaction that appends ledger entries and updates the summary tables (balances,
daily_net, guilds) by the same amounts, so a reader never sees one without the other. Ledger rows are never
updated or deleted (triggers refuse it); a correction appends a reversing entry that names who and why.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import aiosqlite

from kwx.store.clock import day_of, to_text
from kwx.store.db import StoreBase, dump_json, lock
from kwx.store.events import upsert_names
from kwx.store.models import (
    DEAL_IN_REASONS,
    LEDGER_REASONS,
    PAY,
    PLAY_REASONS,
    SETTLEMENT,
    WINNING_REASONS,
    LedgerEntry,
    LedgerHand,
    LedgerPayment,
    NotFound,
    ReversalRefused,
    StoreError,
)

ENTRY_COLUMNS = ("id", "guild", "hand_id", "from_player", "to_player", "amount", "reason", "created_at",
                 "created_by", "note", "reverses_id", "period_day")
_INSERT_ENTRY = (f"INSERT INTO ledger_entries({', '.join(ENTRY_COLUMNS)})"
                 f" VALUES ({', '.join('?' * len(ENTRY_COLUMNS))})")
_WINNING_SQL = ", ".join(f"'{reason}'" for reason in sorted(WINNING_REASONS))


class LedgerMixin(StoreBase):
    # ------------------------------------------------------------------------------------------ hands

    async def finish_hand(self, record: LedgerHand) -> bool:
        """Record a table's finished hand with its payments in one transaction.

        Returns False (and changes nothing) when (table_id, hand_no) is already recorded. Raises ValueError for
        an inconsistent record (see `check_hand`), NotFound for an unknown table.
        """
        if record.table_id is None:
            raise ValueError("finish_hand needs a table_id; use record_manual_hand for a hand played in person")
        return await self._record_hand(record) is not None

    async def record_manual_hand(self, record: LedgerHand) -> int:
        """Record a hand played in person (table_id None, created_by required); return its hand id.

        `hand_no` 0 takes the guild's next manual hand number.
        """
        if record.table_id is not None:
            raise ValueError("a manual hand has no table_id")
        if not record.created_by:
            raise ValueError("a manual hand names who recorded it (created_by)")
        hand_id = await self._record_hand(record)
        assert hand_id is not None
        return hand_id

    async def _record_hand(self, record: LedgerHand) -> int | None:
        checked = check_hand(record)
        stamp = self._stamp(record.at)
        day = day_of(stamp)
        guild = record.guild
        async with self._write() as db:
            await lock(db, "hand", guild if record.table_id is None else record.table_id)  # two processes, one hand
            hand_no = record.hand_no
            if record.table_id is not None:
                # One round trip: the table's guild and whether this hand is already recorded.
                table = await _fetch(db, "SELECT guild, EXISTS(SELECT 1 FROM hands WHERE table_id = t.id"
                                         " AND hand_no = ?) AS recorded FROM tables t WHERE id = ?",
                                     (hand_no, record.table_id))
                if table is None:
                    raise NotFound(f"no table {record.table_id}")
                if table["guild"] != guild:
                    raise ValueError(f"table {record.table_id} belongs to another server")
                if table["recorded"]:
                    return None
            elif hand_no <= 0:
                row = await _fetch(db, "SELECT COALESCE(MAX(hand_no), 0) + 1 AS n FROM hands"
                                       " WHERE guild = ? AND table_id IS NULL", (guild,))
                assert row is not None  # an aggregate always returns its row
                hand_no = row["n"]
            winners = [s for s in record.seats if s.won]
            cur = await db.execute(
                "INSERT INTO hands(guild, table_id, hand_no, dealer, seed_ref, outcome, winners, fan, patterns,"
                " summary, created_at, created_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (guild, record.table_id, hand_no, record.dealer, record.seed_ref, checked.outcome,
                 dump_json([s.player_id for s in winners]), dump_json({s.player_id: s.fan for s in winners}),
                 dump_json({s.player_id: list(s.patterns) for s in winners}), dump_json(record.summary),
                 stamp, record.created_by))
            hand_id = cur.lastrowid
            await db.executemany(
                "INSERT INTO hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in, fan, liangdao)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(hand_id, s.seat, guild, s.player_id, checked.nets[s.player_id], s.won, s.self_draw,
                  checked.dealt_in[s.player_id], s.fan if s.won else 0, s.liangdao) for s in record.seats])
            await upsert_names(db, [(guild, s.player_id, s.name, stamp) for s in record.seats if s.name])
            summary = SummaryChanges()
            summary.hand([s.player_id for s in record.seats], day, +1)
            rows = [(None, guild, hand_id, p.from_player, p.to_player, p.amount, p.reason, stamp,
                     record.created_by, record.note, None, day) for p in checked.payments]
            await insert_entries(db, rows, summary, want_ids=False)  # one executemany: the ids are not needed
            await summary.write(db, guild)
            return hand_id

    async def hand_id(self, table_id: int, hand_no: int) -> int | None:
        """The id of a table's recorded hand, or None."""
        row = await self._one("SELECT id FROM hands WHERE table_id = ? AND hand_no = ?", (table_id, hand_no))
        return None if row is None else row["id"]

    async def hand_commitment(self, guild: str, table_id: int, hand_no: int) -> tuple[int, str] | None:
        """(id, seed_ref) of a table's recorded hand in this guild, or None."""
        row = await self._one("SELECT id, seed_ref FROM hands WHERE guild = ? AND table_id = ? AND hand_no = ?",
                              (guild, table_id, hand_no))
        return None if row is None or row["seed_ref"] is None else (row["id"], row["seed_ref"])

    async def hand_numbers(self, table_id: int) -> list[int]:
        """The hand numbers a table has recorded, in order."""
        rows = await self._all("SELECT hand_no FROM hands WHERE table_id = ? ORDER BY hand_no", (table_id,))
        return [row[0] for row in rows]

    # ------------------------------------------------------------------------------------------ corrections

    async def reverse_hand(self, guild: str, hand_id: int, by: str, why: str, *,
                           at: datetime | None = None) -> list[int]:
        """Return a hand's money (reversing entries naming `by` and `why`) and drop it from stats and counts.

        The reversals count toward the leaderboard period of the hand itself. Returns the new entry ids.
        Raises NotFound (no such hand in this guild) or ReversalRefused (a ValueError: already reversed).
        """
        _need_text(by=by, why=why)
        stamp = self._stamp(at)
        async with self._write() as db:
            await lock(db, "reverse-hand", hand_id)
            hand = await _fetch(db, "SELECT created_at, reversed_at FROM hands WHERE id = ? AND guild = ?",
                                (hand_id, guild))
            if hand is None:
                raise NotFound(f"no hand {hand_id} in this server")
            if hand["reversed_at"] is not None:
                raise ReversalRefused("already", f"hand {hand_id} was already reversed", hand_id=hand_id)
            async with db.execute("SELECT * FROM ledger_entries WHERE hand_id = ? ORDER BY id", (hand_id,)) as cur:
                entries = list(await cur.fetchall())
            summary = SummaryChanges()
            rows = [_reversal_row(entry, stamp, by, why) for entry in _standing_entries(entries)]
            ids = await insert_entries(db, rows, summary)
            await db.execute("UPDATE hands SET reversed_at = ? WHERE id = ?", (stamp, hand_id))
            async with db.execute("SELECT player_id FROM hand_seats WHERE hand_id = ?", (hand_id,)) as cur:
                players = [row["player_id"] for row in await cur.fetchall()]
            summary.hand(players, day_of(hand["created_at"]), -1)
            await summary.write(db, guild)
            return ids

    async def reverse_entry(self, guild: str, entry_id: int, by: str, why: str, *,
                            at: datetime | None = None) -> int:
        """Append the reversal of one entry (same amount back, same reason); return its id.

        Only a standalone entry (a settlement, a transfer) can be reversed on its own: an entry of a hand is
        undone with its hand (`reverse_hand`), so balances and stats never disagree, and a reversal is final.
        Raises NotFound (no such entry in this guild) or ReversalRefused (a ValueError: already reversed, a
        reversal, part of a hand).
        """
        _need_text(by=by, why=why)
        stamp = self._stamp(at)
        async with self._write() as db:
            await lock(db, "reverse-entry", entry_id)
            entry = await _fetch(db, "SELECT * FROM ledger_entries WHERE id = ? AND guild = ?", (entry_id, guild))
            if entry is None:
                raise NotFound(f"no ledger entry {entry_id} in this server")
            if entry["reverses_id"] is not None:
                raise ReversalRefused("reversal", f"ledger entry {entry_id} is a reversal; a reversal is final")
            if entry["hand_id"] is not None:
                raise ReversalRefused("hand", f"ledger entry {entry_id} is part of hand {entry['hand_id']}:"
                                              " undo the whole hand", hand_id=entry["hand_id"])
            if await _fetch(db, "SELECT id FROM ledger_entries WHERE reverses_id = ?", (entry_id,)):
                raise ReversalRefused("already", f"ledger entry {entry_id} was already reversed")
            summary = SummaryChanges()
            (new_id,) = await insert_entries(db, [_reversal_row(entry, stamp, by, why)], summary)
            await summary.write(db, guild)
            return new_id

    # ------------------------------------------------------------------------------------------ other money

    async def record_settlement(self, guild: str, payer: str, payee: str, amount: int, by: str,
                                note: str | None = None, *, at: datetime | None = None) -> int:
        """`payer` handed `payee` `amount` in cash: payer's balance rises, payee's falls. Returns the entry id."""
        return await self._single_entry(guild, payee, payer, amount, SETTLEMENT, by, note, at)

    async def transfer(self, guild: str, from_player: str, to_player: str, amount: int, by: str,
                       note: str | None = None, *, at: datetime | None = None) -> int:
        """Move `amount` of balance from one player to another (reason `pay`). Returns the entry id."""
        return await self._single_entry(guild, from_player, to_player, amount, PAY, by, note, at)

    async def _single_entry(self, guild: str, from_player: str, to_player: str, amount: int, reason: str,
                            by: str, note: str | None, at: datetime | None) -> int:
        _need_text(by=by)
        _check_amount(amount)
        if from_player == to_player:
            raise ValueError("a player cannot pay themselves")
        stamp = self._stamp(at)
        async with self._write() as db:
            summary = SummaryChanges()
            row = (None, guild, None, from_player, to_player, amount, reason, stamp, by, note, None, day_of(stamp))
            (entry_id,) = await insert_entries(db, [row], summary)
            await summary.write(db, guild)
            return entry_id

    async def set_player_name(self, guild: str, player_id: str, name: str, *, at: datetime | None = None) -> None:
        async with self._write() as db:
            await upsert_names(db, [(guild, player_id, name, self._stamp(at))])

    # ------------------------------------------------------------------------------------------ bulk

    async def import_entries(self, guild: str, entries: Iterable[LedgerEntry]) -> int:
        """Append many entries in one transaction (CSV import, benchmarks); return how many.

        Entries keep their ids when they have one (restoring an export into an empty database), else get new
        ones. `reverses_id` must name an entry of the batch or of this guild. A `hand_id` is kept only when that
        hand exists in this guild (hands are not part of an export). Raises StoreError or ValueError.
        """
        batch = list(entries)
        for entry in batch:
            if entry.guild != guild:
                raise ValueError(f"entry {entry.id} belongs to server {entry.guild!r}, not {guild!r}")
            if entry.reason not in LEDGER_REASONS:
                raise ValueError(f"entry {entry.id}: unknown reason {entry.reason!r}")
            _check_amount(entry.amount)
            if entry.from_player == entry.to_player:
                raise ValueError(f"entry {entry.id}: a player cannot pay themselves")
        async with self._write() as db:
            hand_ids = {e.hand_id for e in batch if e.hand_id is not None}
            known_hands = await _existing_ids(db, "hands", guild, hand_ids)
            period_day: dict[int, str] = {}
            rows = []
            for entry in batch:
                stamp = to_text(entry.created_at)
                if entry.reverses_id is None:
                    day = day_of(stamp)
                elif entry.reverses_id in period_day:
                    day = period_day[entry.reverses_id]
                else:
                    original = await _fetch(db, "SELECT period_day FROM ledger_entries WHERE id = ? AND guild = ?",
                                            (entry.reverses_id, guild))
                    if original is None:
                        raise StoreError(f"entry {entry.id} reverses {entry.reverses_id}, which is not in this ledger")
                    day = original["period_day"]
                if entry.id is not None:
                    period_day[entry.id] = day
                rows.append((entry.id, guild, entry.hand_id if entry.hand_id in known_hands else None,
                             entry.from_player, entry.to_player, entry.amount, entry.reason, stamp,
                             entry.created_by, entry.note, entry.reverses_id, day))
            summary = SummaryChanges()
            try:
                await insert_entries(db, rows, summary, want_ids=False)
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"cannot import: {exc} (an id already used, an entry reversed twice or a reversal"
                                 " reversed)") from None
            await summary.write(db, guild)
        return len(batch)

    async def rebuild_summaries(self, guild: str | None = None) -> None:
        """Recompute balances, daily_net and guilds from the ledger and hands (repair tool; scans everything)."""
        async with self._write() as db:
            if guild is None:
                async with db.execute("SELECT guild FROM ledger_entries UNION SELECT guild FROM hands"
                                      " UNION SELECT guild FROM guilds") as cur:
                    guilds = [row[0] for row in await cur.fetchall()]
            else:
                guilds = [guild]
            for g in guilds:
                await _rebuild_guild(db, g)


# ---------------------------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class CheckedHand:
    outcome: str
    payments: list[LedgerPayment]  # zero amounts dropped
    nets: dict[str, int]
    dealt_in: dict[str, bool]


def check_hand(record: LedgerHand) -> CheckedHand:
    """Validate a hand record; ValueError says what is wrong.

    A hand's money must sum to zero: each LedgerPayment moves money between two seated players, and seat nets the
    caller gives (the engine's settlement) must sum to zero and agree with the payments.
    """
    if not record.guild:
        raise ValueError("a hand needs a server (guild) id")
    if not record.seats:
        raise ValueError("a hand needs its seated players")
    players = [s.player_id for s in record.seats]
    if len(set(players)) != len(players):
        raise ValueError("a player is seated twice")
    if len({s.seat for s in record.seats}) != len(players):
        raise ValueError("two players share a seat number")
    for s in record.seats:
        if not _is_int(s.fan) or s.fan < 0:
            raise ValueError(f"{s.player_id}: fan must be a non-negative int, not {s.fan!r}")
        if s.self_draw and not s.won:
            raise ValueError(f"{s.player_id}: a self-draw is a win")
    nets = dict.fromkeys(players, 0)
    payments = []
    for p in record.payments:
        if p.reason not in PLAY_REASONS:
            raise ValueError(f"unknown payment reason {p.reason!r}")
        if not _is_int(p.amount) or p.amount < 0:
            raise ValueError(f"payment amounts are non-negative ints, not {p.amount!r}")
        if p.from_player not in nets or p.to_player not in nets:
            raise ValueError(f"payment {p} names a player who is not seated")
        if p.from_player == p.to_player:
            raise ValueError(f"payment {p} pays a player to themselves")
        if p.amount:
            nets[p.from_player] -= p.amount
            nets[p.to_player] += p.amount
            payments.append(p)
    given = {s.player_id: s.net for s in record.seats if s.net is not None}
    if any(not _is_int(net) for net in given.values()):
        raise ValueError("seat nets are ints")
    if len(given) == len(players) and sum(given.values()) != 0:
        raise ValueError(f"hand payments must sum to zero; the seat nets sum to {sum(given.values())}")
    for player, net in given.items():
        if net != nets[player]:
            raise ValueError(f"{player}'s payments come to {nets[player]}, not the {net} given")
    winners = [s for s in record.seats if s.won]
    outcome = record.outcome or ("win" if winners else "draw")
    if outcome not in ("win", "draw") or (outcome == "win") != bool(winners):
        raise ValueError(f"outcome {outcome!r} does not fit {len(winners)} winner(s)")
    discard_winners = {s.player_id for s in winners if not s.self_draw}
    dealt_in = {
        s.player_id: s.dealt_in if s.dealt_in is not None else any(
            p.from_player == s.player_id and p.reason in DEAL_IN_REASONS and p.to_player in discard_winners
            for p in payments)
        for s in record.seats
    }
    return CheckedHand(outcome, payments, nets, dealt_in)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_amount(amount: Any) -> None:
    if not _is_int(amount) or amount <= 0:
        raise ValueError(f"amounts are positive ints, not {amount!r}")


def _need_text(**values: str) -> None:
    for name, value in values.items():
        if not value or not str(value).strip():
            raise ValueError(f"{name} is required")


# ---------------------------------------------------------------------------------------------- summaries


@dataclass
class SummaryChanges:
    """Changes to the summary tables caused by one transaction's entries and hands."""

    balance: Counter[str] = field(default_factory=Counter)
    net: Counter[str] = field(default_factory=Counter)
    hands: Counter[str] = field(default_factory=Counter)
    daily: defaultdict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    guild_hands: int = 0
    guild_entries: int = 0

    def entry(self, from_player: str, to_player: str, amount: int, reason: str, stamp: str, period_day: str) -> None:
        day = day_of(stamp)
        self.balance[from_player] -= amount
        self.balance[to_player] += amount
        self.daily[day, from_player][1] -= amount
        self.daily[day, to_player][1] += amount
        if reason in WINNING_REASONS:
            self.net[from_player] -= amount
            self.net[to_player] += amount
            self.daily[period_day, from_player][0] -= amount
            self.daily[period_day, to_player][0] += amount
        self.guild_entries += 1

    def hand(self, players: Sequence[str], day: str, sign: int) -> None:
        for player in players:
            self.hands[player] += sign
            self.daily[day, player][2] += sign
        self.guild_hands += sign

    async def write(self, db: aiosqlite.Connection, guild: str) -> None:
        players = set(self.balance) | set(self.net) | set(self.hands)
        await db.executemany(
            "INSERT INTO balances(guild, player_id, balance, net, hands) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(guild, player_id) DO UPDATE SET balance = balances.balance + excluded.balance,"
            " net = balances.net + excluded.net, hands = balances.hands + excluded.hands",
            [(guild, p, self.balance[p], self.net[p], self.hands[p]) for p in sorted(players)])
        await db.executemany(
            "INSERT INTO daily_net(guild, day, player_id, net, flow, hands) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(guild, day, player_id) DO UPDATE SET net = daily_net.net + excluded.net,"
            " flow = daily_net.flow + excluded.flow, hands = daily_net.hands + excluded.hands",
            [(guild, day, player, *values) for (day, player), values in sorted(self.daily.items())])
        await db.execute(
            "INSERT INTO guilds(guild, hands, entries) VALUES (?, ?, ?) ON CONFLICT(guild) DO UPDATE SET"
            " hands = guilds.hands + excluded.hands, entries = guilds.entries + excluded.entries",
            (guild, self.guild_hands, self.guild_entries))


async def insert_entries(db: aiosqlite.Connection, rows: list[tuple[Any, ...]], summary: SummaryChanges, *,
                         want_ids: bool = True) -> list[int]:
    """Insert ledger rows (ENTRY_COLUMNS order) and add them to `summary`; return their ids if wanted."""
    for row in rows:
        summary.entry(row[3], row[4], row[5], row[6], row[7], row[11])
    if not want_ids:
        await db.executemany(_INSERT_ENTRY, rows)
        return []
    ids = []
    for row in rows:
        cur = await db.execute(_INSERT_ENTRY, row)
        assert cur.lastrowid is not None  # set by every INSERT
        ids.append(cur.lastrowid)
        await cur.close()
    return ids


def _standing_entries(entries: Sequence[sqlite3.Row]) -> list[sqlite3.Row]:
    """The entries whose money currently stands: for each original, the end of its chain of reversals when
    that chain has an even number of reversals (an odd number has already returned the money)."""
    reversal_of = {e["reverses_id"]: e for e in entries if e["reverses_id"] is not None}
    standing = []
    for entry in entries:
        if entry["reverses_id"] is not None:
            continue
        tail, depth = entry, 0
        while tail["id"] in reversal_of:
            tail, depth = reversal_of[tail["id"]], depth + 1
        if depth % 2 == 0:
            standing.append(tail)
    return standing


def _reversal_row(entry: sqlite3.Row, stamp: str, by: str, why: str) -> tuple[Any, ...]:
    return (None, entry["guild"], entry["hand_id"], entry["to_player"], entry["from_player"], entry["amount"],
            entry["reason"], stamp, by, why, entry["id"], entry["period_day"])


async def _fetch(db: aiosqlite.Connection, sql: str, params: tuple[Any, ...]) -> sqlite3.Row | None:
    async with db.execute(sql, params) as cur:
        return await cur.fetchone()


async def _existing_ids(db: aiosqlite.Connection, table: str, guild: str, ids: set[int]) -> set[int]:
    found: set[int] = set()
    wanted = sorted(ids)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        async with db.execute(f"SELECT id FROM {table} WHERE guild = ? AND id IN ({marks})", (guild, *chunk)) as cur:
            found.update(row[0] for row in await cur.fetchall())
    return found


async def _rebuild_guild(db: aiosqlite.Connection, guild: str) -> None:
    moves = ("SELECT to_player AS player, amount AS delta, reason, created_at, period_day FROM ledger_entries"
             " WHERE guild = :g UNION ALL"
             " SELECT from_player, -amount, reason, created_at, period_day FROM ledger_entries WHERE guild = :g")
    winning = f"reason IN ({_WINNING_SQL})"
    live_seats = ("SELECT hs.player_id, h.created_at FROM hand_seats hs JOIN hands h ON h.id = hs.hand_id"
                  " WHERE h.guild = :g AND h.reversed_at IS NULL")
    g = {"g": guild}
    await db.execute("DELETE FROM balances WHERE guild = :g", g)
    await db.execute("DELETE FROM daily_net WHERE guild = :g", g)
    await db.execute(
        f"INSERT INTO balances(guild, player_id, balance, net) SELECT :g, player, SUM(delta),"
        f" SUM(CASE WHEN {winning} THEN delta ELSE 0 END) FROM ({moves}) m WHERE true GROUP BY player", g)
    await db.execute(
        f"INSERT INTO balances(guild, player_id, hands) SELECT :g, player_id, COUNT(*) FROM ({live_seats})"
        " s WHERE true GROUP BY player_id ON CONFLICT(guild, player_id) DO UPDATE SET hands = excluded.hands", g)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, flow) SELECT :g, substr(created_at, 1, 10), player,"
        f" SUM(delta) FROM ({moves}) m WHERE true GROUP BY 2, 3", g)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, net) SELECT :g, period_day, player, SUM(delta)"
        f" FROM ({moves}) m WHERE {winning} GROUP BY 2, 3"
        " ON CONFLICT(guild, day, player_id) DO UPDATE SET net = excluded.net", g)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, hands) SELECT :g, substr(created_at, 1, 10), player_id,"
        f" COUNT(*) FROM ({live_seats}) s WHERE true GROUP BY 2, 3"
        " ON CONFLICT(guild, day, player_id) DO UPDATE SET hands = excluded.hands", g)
    await db.execute(
        "INSERT INTO guilds(guild, hands, entries) VALUES (:g,"
        " (SELECT COUNT(*) FROM hands WHERE guild = :g AND reversed_at IS NULL),"
        " (SELECT COUNT(*) FROM ledger_entries WHERE guild = :g))"
        " ON CONFLICT(guild) DO UPDATE SET hands = excluded.hands, entries = excluded.entries", g)
