"""Tables and their append-only event log, for crash recovery.

The table service writes an event (and commits) before any front end shows its effect; at start-up it lists
`unfinished_tables()` and replays `load_events(table_id)` to rebuild each open table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from kwx.store.clock import from_text
from kwx.store.connection import Connection, Row
from kwx.store.db import StoreBase, dump_json, load_json
from kwx.store.errors import Constraint, DuplicateEvent, IntegrityError, NotFound
from kwx.store.models import EventRow, NewEvent, TableRow

_UNSET: Any = object()


class TablesMixin(StoreBase):
    async def create_table(self, guild: str, *, rules: Any, seed: str, seats: Sequence[Any],
                           channel: str | None = None, options: Mapping[str, Any] | None = None,
                           at: datetime | None = None) -> int:
        """Persist a new open table; return its id. `rules` and `seats` are stored as JSON (`to_json()` honoured).

        Seats given as mappings with `player_id` and `name` also record the player's display name.
        """
        stamp = self._stamp(at)
        async with self._write() as db:
            table_id: int = await db.fetch_value(
                "INSERT INTO tables(guild, channel, rules, seed, seats, status, options, created_at, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8) RETURNING id",
                guild, channel, dump_json(rules), str(seed), dump_json(list(seats)), dump_json(dict(options or {})),
                stamp, stamp)
            await db.execute("INSERT INTO guilds(guild) VALUES ($1) ON CONFLICT DO NOTHING", guild)
            await _remember_seat_names(db, guild, seats, stamp)
            return table_id

    async def get_table(self, table_id: int) -> TableRow:
        row = await self._one("SELECT * FROM tables WHERE id = $1", table_id)
        if row is None:
            raise NotFound(f"no table {table_id}")
        return _table_row(row)

    async def update_table(self, table_id: int, *, seats: Sequence[Any] | None = None, status: str | None = None,
                           options: Mapping[str, Any] | None = None, rules: Any = _UNSET,
                           channel: str | None = _UNSET, at: datetime | None = None) -> None:
        """Replace any of seats / status ('open' | 'closed') / options / rules / channel."""
        changes: dict[str, Any] = {}
        if seats is not None:
            changes["seats"] = dump_json(list(seats))
        if status is not None:
            if status not in ("open", "closed"):
                raise ValueError(f"table status must be 'open' or 'closed', not {status!r}")
            changes["status"] = status
        if options is not None:
            changes["options"] = dump_json(dict(options))
        if rules is not _UNSET:
            changes["rules"] = dump_json(rules)
        if channel is not _UNSET:
            changes["channel"] = channel
        stamp = self._stamp(at)
        changes["updated_at"] = stamp
        assignments = ", ".join(f"{column} = ${number}" for number, column in enumerate(changes, 1))
        async with self._write() as db:
            row = await db.fetch_one(f"UPDATE tables SET {assignments} WHERE id = ${len(changes) + 1} RETURNING guild",
                                     *changes.values(), table_id)
            if row is None:
                raise NotFound(f"no table {table_id}")
            if seats is not None:
                await _remember_seat_names(db, row["guild"], seats, stamp)

    async def close_table(self, table_id: int, *, at: datetime | None = None) -> None:
        await self.update_table(table_id, status="closed", at=at)

    async def unfinished_tables(self, guild: str | None = None) -> list[TableRow]:
        """Open tables (all guilds, or one), oldest first."""
        if guild is None:
            rows = await self._all("SELECT * FROM tables WHERE status = 'open' ORDER BY id")
        else:
            rows = await self._all("SELECT * FROM tables WHERE status = 'open' AND guild = $1 ORDER BY id", guild)
        return [_table_row(row) for row in rows]

    async def append_event(self, table_id: int, hand_no: int, kind: str, payload: Any = None, *,
                           seq: int | None = None, at: datetime | None = None) -> int:
        """Append one event and commit before returning its seq (`seq=None`: the next number, from 1).

        Raises DuplicateEvent when `seq` is taken, NotFound for an unknown table.
        """
        (number,) = await self.append_events(table_id, [NewEvent(hand_no, kind, payload, seq)], at=at)
        return number

    async def append_events(self, table_id: int, events: Sequence[NewEvent], *,
                            at: datetime | None = None) -> list[int]:
        """Append several events in one transaction (all or none); return their seqs."""
        stamp = self._stamp(at)
        rows = [(e.seq, e.hand_no, e.kind, dump_json(e.payload)) for e in events]
        numbers: list[int] = []
        async with self._write() as db:
            await db.lock("events", table_id)
            last = await db.fetch_value("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = $1", table_id)
            for seq, hand_no, kind, payload in rows:
                number = last + 1 if seq is None else seq
                try:
                    await db.execute(
                        "INSERT INTO events(table_id, seq, hand_no, kind, payload, created_at) VALUES ($1,$2,$3,$4,$5,$6)",
                        table_id, number, hand_no, kind, payload, stamp)
                except IntegrityError as exc:
                    if exc.constraint is Constraint.FOREIGN_KEY:
                        raise NotFound(f"no table {table_id}") from None
                    raise DuplicateEvent(f"table {table_id} already has event {number}") from None
                last = max(last, number)
                numbers.append(number)
        return numbers

    async def append_events_batch(self, rows: Sequence[tuple[int, NewEvent]], *,
                                  at: datetime | None = None) -> None:
        """Append events of several tables in ONE transaction (group commit): all or none. Each event names
        its seq; a duplicate seq or an unknown table refuses the whole batch."""
        stamp = self._stamp(at)
        params = [(table_id, e.seq, e.hand_no, e.kind, dump_json(e.payload), stamp) for table_id, e in rows]
        if any(p[1] is None for p in params):
            raise ValueError("a batch names every event's seq")
        async with self._write() as db:
            try:
                await db.execute_many(
                    "INSERT INTO events(table_id, seq, hand_no, kind, payload, created_at) VALUES ($1,$2,$3,$4,$5,$6)",
                    params)
            except IntegrityError as exc:
                if exc.constraint is Constraint.FOREIGN_KEY:
                    raise NotFound("an event names an unknown table") from None
                raise DuplicateEvent(f"a batch repeats an event seq: {exc}") from None

    async def hand_log(self, guild: str, hand_id: int) -> dict[str, Any]:
        """What it takes to replay a table's hand: its table's rules, its deal (`hand_start`: setup, 漂), its
        actions in order ([seat, verb, tile]), its commitment `seed_ref` and each seat's recorded net.
        NotFound for an unknown hand or a hand recorded by hand (no table)."""
        hand = await self._one("SELECT table_id, hand_no, seed_ref, outcome FROM hands WHERE id = $1 AND guild = $2",
                               hand_id, guild)
        if hand is None or hand["table_id"] is None:
            raise NotFound(f"no hand {hand_id} played at a table in {guild}")
        table = await self.get_table(hand["table_id"])
        rows = await self._all("SELECT kind, payload FROM events WHERE table_id = $1 AND hand_no = $2 "
                               "AND kind IN ('hand_start', 'action') ORDER BY seq", hand["table_id"], hand["hand_no"])
        seats = await self._all("SELECT seat, player_id, net FROM hand_seats WHERE hand_id = $1 ORDER BY seat",
                                hand_id)
        deal = next((load_json(r["payload"]) for r in rows if r["kind"] == "hand_start"), None)
        if deal is None:
            raise NotFound(f"hand {hand_id}: its table's event log has no deal")
        actions = [[p["seat"], p["verb"], *([p["tile"]] if p.get("tile") else [])]
                   for p in (load_json(r["payload"]) for r in rows if r["kind"] == "action")]
        setup = deal["setup"]
        return {"hand_id": hand_id, "table_id": hand["table_id"], "hand_no": hand["hand_no"],
                "seed_ref": hand["seed_ref"], "rules": table.rules, "dealer": setup["dealer"],
                "piao": list(deal["piao"]), "base_multiplier": setup.get("base_multiplier", 1),
                "dice": setup.get("dice"), "seating": setup["seating"], "actions": actions,
                "outcome": hand["outcome"], "net": [r["net"] for r in seats],
                "players": [r["player_id"] for r in seats]}

    async def load_events(self, table_id: int, *, after_seq: int = 0) -> list[EventRow]:
        """The table's events with seq > after_seq, in seq order."""
        rows = await self._all(
            "SELECT * FROM events WHERE table_id = $1 AND seq > $2 ORDER BY seq", table_id, after_seq)
        return [EventRow(r["table_id"], r["seq"], r["hand_no"], r["kind"], load_json(r["payload"]),
                         from_text(r["created_at"])) for r in rows]


def _table_row(row: Row) -> TableRow:
    return TableRow(id=row["id"], guild=row["guild"], channel=row["channel"], rules=load_json(row["rules"]),
                    seats=load_json(row["seats"]), status=row["status"], options=load_json(row["options"]),
                    created_at=from_text(row["created_at"]), updated_at=from_text(row["updated_at"]),
                    seed=row["seed"])


async def _remember_seat_names(db: Connection, guild: str, seats: Sequence[Any], stamp: str) -> None:
    names = [(guild, seat["player_id"], seat["name"], stamp) for seat in seats
             if isinstance(seat, Mapping) and seat.get("player_id") and seat.get("name")]
    await upsert_names(db, names)


async def upsert_names(db: Connection, rows: list[tuple[str, str, str, str]]) -> None:
    """Record (guild, player_id, name, stamp) rows as the latest display names."""
    if rows:
        await db.execute_many(
            "INSERT INTO players(guild, player_id, name, updated_at) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT(guild, player_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at",
            rows)
