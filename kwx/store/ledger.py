"""Writing money: finished hands, reversals, settlements, transfers, bulk import.

Every write is one transaction that appends ledger entries and updates the summary tables (balances,
daily_net, guilds; kwx.store.summaries) by the same amounts, so a reader never sees one without the other.
Ledger rows are never updated or deleted (triggers refuse it); a correction appends a reversing entry that
names who and why. A hand is checked before anything is written (kwx.store.hand_check).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from kwx.store.clock import day_of, to_text
from kwx.store.connection import Connection, Row, params
from kwx.store.db import StoreBase, dump_json
from kwx.store.errors import IntegrityError, NotFound, StoreError
from kwx.store.events import upsert_names
from kwx.store.hand_check import check_amount, check_hand, need_text
from kwx.store.models import LEDGER_REASONS, PAY, SETTLEMENT, LedgerEntry, LedgerHand, ReversalRefused
from kwx.store.summaries import SummaryChanges, insert_entries, rebuild_guild


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
            await db.lock("hand", guild if record.table_id is None else record.table_id)  # two processes, one hand
            hand_no = record.hand_no
            if record.table_id is not None:
                # One round trip: the table's guild and whether this hand is already recorded.
                table = await db.fetch_one("SELECT guild, EXISTS(SELECT 1 FROM hands WHERE table_id = t.id"
                                           " AND hand_no = $1) AS recorded FROM tables t WHERE id = $2",
                                           hand_no, record.table_id)
                if table is None:
                    raise NotFound(f"no table {record.table_id}")
                if table["guild"] != guild:
                    raise ValueError(f"table {record.table_id} belongs to another server")
                if table["recorded"]:
                    return None
            elif hand_no <= 0:
                hand_no = await db.fetch_value("SELECT COALESCE(MAX(hand_no), 0) + 1 FROM hands"
                                               " WHERE guild = $1 AND table_id IS NULL", guild)
            winners = [s for s in record.seats if s.won]
            hand_id: int = await db.fetch_value(
                "INSERT INTO hands(guild, table_id, hand_no, dealer, seed_ref, outcome, winners, fan, patterns,"
                " summary, created_at, created_by) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) RETURNING id",
                guild, record.table_id, hand_no, record.dealer, record.seed_ref, checked.outcome,
                dump_json([s.player_id for s in winners]), dump_json({s.player_id: s.fan for s in winners}),
                dump_json({s.player_id: list(s.patterns) for s in winners}), dump_json(record.summary),
                stamp, record.created_by)
            await db.execute_many(
                "INSERT INTO hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in, fan, liangdao)"
                " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
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
        row = await self._one("SELECT id FROM hands WHERE table_id = $1 AND hand_no = $2", table_id, hand_no)
        return None if row is None else row["id"]

    async def hand_commitment(self, guild: str, table_id: int, hand_no: int) -> tuple[int, str] | None:
        """(id, seed_ref) of a table's recorded hand in this guild, or None."""
        row = await self._one("SELECT id, seed_ref FROM hands WHERE guild = $1 AND table_id = $2 AND hand_no = $3",
                              guild, table_id, hand_no)
        return None if row is None or row["seed_ref"] is None else (row["id"], row["seed_ref"])

    async def hand_numbers(self, table_id: int) -> list[int]:
        """The hand numbers a table has recorded, in order."""
        rows = await self._all("SELECT hand_no FROM hands WHERE table_id = $1 ORDER BY hand_no", table_id)
        return [row[0] for row in rows]

    # ------------------------------------------------------------------------------------------ corrections

    async def reverse_hand(self, guild: str, hand_id: int, by: str, why: str, *,
                           at: datetime | None = None) -> list[int]:
        """Return a hand's money (reversing entries naming `by` and `why`) and drop it from stats and counts.

        The reversals count toward the leaderboard period of the hand itself. Returns the new entry ids.
        Raises NotFound (no such hand in this guild) or ReversalRefused (a ValueError: already reversed).
        """
        need_text(by=by, why=why)
        stamp = self._stamp(at)
        async with self._write() as db:
            await db.lock("reverse-hand", hand_id)
            hand = await db.fetch_one("SELECT created_at, reversed_at FROM hands WHERE id = $1 AND guild = $2",
                                      hand_id, guild)
            if hand is None:
                raise NotFound(f"no hand {hand_id} in this server")
            if hand["reversed_at"] is not None:
                raise ReversalRefused("already", f"hand {hand_id} was already reversed", hand_id=hand_id)
            entries = await db.fetch("SELECT * FROM ledger_entries WHERE hand_id = $1 ORDER BY id", hand_id)
            summary = SummaryChanges()
            rows = [_reversal_row(entry, stamp, by, why) for entry in _standing_entries(entries)]
            ids = await insert_entries(db, rows, summary)
            await db.execute("UPDATE hands SET reversed_at = $1 WHERE id = $2", stamp, hand_id)
            players = [row["player_id"] for row in
                       await db.fetch("SELECT player_id FROM hand_seats WHERE hand_id = $1", hand_id)]
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
        need_text(by=by, why=why)
        stamp = self._stamp(at)
        async with self._write() as db:
            await db.lock("reverse-entry", entry_id)
            entry = await db.fetch_one("SELECT * FROM ledger_entries WHERE id = $1 AND guild = $2", entry_id, guild)
            if entry is None:
                raise NotFound(f"no ledger entry {entry_id} in this server")
            if entry["reverses_id"] is not None:
                raise ReversalRefused("reversal", f"ledger entry {entry_id} is a reversal; a reversal is final")
            if entry["hand_id"] is not None:
                raise ReversalRefused("hand", f"ledger entry {entry_id} is part of hand {entry['hand_id']}:"
                                              " undo the whole hand", hand_id=entry["hand_id"])
            if await db.fetch_one("SELECT id FROM ledger_entries WHERE reverses_id = $1", entry_id):
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
        need_text(by=by)
        check_amount(amount)
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
            check_amount(entry.amount)
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
                    original = await db.fetch_one("SELECT period_day FROM ledger_entries WHERE id = $1"
                                                  " AND guild = $2", entry.reverses_id, guild)
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
            except IntegrityError as exc:
                raise StoreError(f"cannot import: {exc} (an id already used, an entry reversed twice or a reversal"
                                 " reversed)") from None
            await summary.write(db, guild)
        return len(batch)

    async def rebuild_summaries(self, guild: str | None = None) -> None:
        """Recompute balances, daily_net and guilds from the ledger and hands (repair tool; scans everything)."""
        async with self._write() as db:
            if guild is None:
                guilds = [row[0] for row in await db.fetch("SELECT guild FROM ledger_entries UNION SELECT guild"
                                                           " FROM hands UNION SELECT guild FROM guilds")]
            else:
                guilds = [guild]
            for g in guilds:
                await rebuild_guild(db, g)


def _standing_entries(entries: Sequence[Row]) -> list[Row]:
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


def _reversal_row(entry: Row, stamp: str, by: str, why: str) -> tuple[Any, ...]:
    return (None, entry["guild"], entry["hand_id"], entry["to_player"], entry["from_player"], entry["amount"],
            entry["reason"], stamp, by, why, entry["id"], entry["period_day"])


async def _existing_ids(db: Connection, table: str, guild: str, ids: set[int]) -> set[int]:
    found: set[int] = set()
    wanted = sorted(ids)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        rows = await db.fetch(f"SELECT id FROM {table} WHERE guild = $1 AND id IN ({params(len(chunk), 2)})",
                              guild, *chunk)
        found.update(row[0] for row in rows)
    return found
