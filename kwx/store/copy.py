"""Copy a whole database to another backend: `python -m kwx ledger migrate --from data/kwx.sqlite3 --to URL`.

    report = await copy_store(source, target)     # two open Stores (any backends); the target must be empty

Every row of history is copied with its id (tables and their event logs, players, hands and seats, ledger
entries, settings, message refs) in ONE transaction of the target, read from the source in key order, batch by
batch. The target's summaries are then rebuilt from its ledger, and every server's balances, hand count and
entry count are compared with the source's: `report.matches` says whether they agree (a mismatch names the
first difference in `report.problems`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from kwx.store.connection import params
from kwx.store.db import shown
from kwx.store.errors import StoreError
from kwx.store.schema import TABLES
from kwx.store.store import Store

# (table, columns, key columns) in an order that satisfies the foreign keys; the columns as the schema
# describes them (kwx.store.schema). The summary tables are not copied: they are rebuilt from the ledger.
_KEYS = {"tables": ("id",), "events": ("table_id", "seq"), "players": ("guild", "player_id"), "hands": ("id",),
         "hand_seats": ("hand_id", "seat"), "ledger_entries": ("id",), "guild_settings": ("guild", "key"),
         "message_refs": ("table_id", "ref")}
COPIED: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (table, tuple(column.name for column in TABLES[table].columns), key) for table, key in _KEYS.items())
BATCH = 5000


@dataclass
class CopyReport:
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows copied
    guilds: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "guilds": self.guilds, "balances_match": self.matches,
                "problems": self.problems}


async def _rows(store: Store, table: str, columns: tuple[str, ...],
                key: tuple[str, ...]) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The table's rows in key order, BATCH at a time (keyset pagination: no long read transaction)."""
    select = f"SELECT {', '.join(columns)} FROM {table}"
    order = f" ORDER BY {', '.join(key)} LIMIT {BATCH}"
    after: tuple[Any, ...] | None = None
    while True:
        if after is None:
            batch = await store._all(select + order)
        else:
            batch = await store._all(f"{select} WHERE ({', '.join(key)}) > ({params(len(key))}){order}", *after)
        if not batch:
            return
        yield [tuple(row) for row in batch]
        last = batch[-1]
        after = tuple(last[column] for column in key)
        if len(batch) < BATCH:
            return


async def copy_store(source: Store, target: Store) -> CopyReport:
    """Copy every row of `source` into the empty `target`, rebuild its summaries, and compare balances."""
    empty = await target._one("SELECT NOT EXISTS(SELECT 1 FROM tables) AND NOT EXISTS(SELECT 1 FROM hands)"
                              " AND NOT EXISTS(SELECT 1 FROM ledger_entries) AND NOT EXISTS(SELECT 1 FROM players)"
                              " AND NOT EXISTS(SELECT 1 FROM guild_settings)")
    if not empty or not empty[0]:
        raise StoreError(f"the target {_name(target)} already holds data: copy into an empty database")
    report = CopyReport()
    async with target._write() as db:
        for table, columns, key in COPIED:
            insert = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({params(len(columns))})"
            count = 0
            async for batch in _rows(source, table, columns, key):
                await db.execute_many(insert, batch)
                count += len(batch)
            report.rows[table] = count
    await target.rebuild_summaries()
    guilds = await source.guild_ids()
    report.guilds = len(guilds)
    for guild in guilds:
        before, after = await source.balances(guild), await target.balances(guild)
        old = {row.player: (row.balance, row.hands) for row in before.rows}
        new = {row.player: (row.balance, row.hands) for row in after.rows}
        if old != new or before.hands != after.hands:
            differ = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
            report.problems.append(f"server {guild}: balances differ for {', '.join(differ) or 'the hand count'}")
        counts = [await _count(store, guild) for store in (source, target)]
        if counts[0] != counts[1]:
            report.problems.append(f"server {guild}: {counts[0]} ledger entries here, {counts[1]} there")
    return report


async def _count(store: Store, guild: str) -> int:
    row = await store._one("SELECT COUNT(*) FROM ledger_entries WHERE guild = $1", guild)
    return int(row[0]) if row else 0


def _name(store: Store) -> str:
    return shown(store.path)  # never print a password from a URL
