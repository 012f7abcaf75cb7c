"""The summary tables (balances, daily_net, guilds), kept in step with the ledger in the same transaction.

`SummaryChanges` adds up what one write changes and applies it with atomic `… = … + excluded.…` upserts in a
fixed key order (two writers never deadlock on them); `rebuild_guild` recomputes a server's summaries from its
ledger and hands (the repair tool, and after a copy between backends).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kwx.store.clock import day_of
from kwx.store.connection import Connection, params
from kwx.store.models import WINNING_REASONS

ENTRY_COLUMNS = ("id", "guild", "hand_id", "from_player", "to_player", "amount", "reason", "created_at",
                 "created_by", "note", "reverses_id", "period_day")
_INSERT_ENTRY = f"INSERT INTO ledger_entries({', '.join(ENTRY_COLUMNS)}) VALUES ({params(len(ENTRY_COLUMNS))})"
_INSERT_ENTRY_ID = f"{_INSERT_ENTRY} RETURNING id"
_WINNING_SQL = ", ".join(f"'{reason}'" for reason in sorted(WINNING_REASONS))


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

    async def write(self, db: Connection, guild: str) -> None:
        players = set(self.balance) | set(self.net) | set(self.hands)
        await db.execute_many(
            "INSERT INTO balances(guild, player_id, balance, net, hands) VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT(guild, player_id) DO UPDATE SET balance = balances.balance + excluded.balance,"
            " net = balances.net + excluded.net, hands = balances.hands + excluded.hands",
            [(guild, p, self.balance[p], self.net[p], self.hands[p]) for p in sorted(players)])
        await db.execute_many(
            "INSERT INTO daily_net(guild, day, player_id, net, flow, hands) VALUES ($1, $2, $3, $4, $5, $6)"
            " ON CONFLICT(guild, day, player_id) DO UPDATE SET net = daily_net.net + excluded.net,"
            " flow = daily_net.flow + excluded.flow, hands = daily_net.hands + excluded.hands",
            [(guild, day, player, *values) for (day, player), values in sorted(self.daily.items())])
        await db.execute(
            "INSERT INTO guilds(guild, hands, entries) VALUES ($1, $2, $3) ON CONFLICT(guild) DO UPDATE SET"
            " hands = guilds.hands + excluded.hands, entries = guilds.entries + excluded.entries",
            guild, self.guild_hands, self.guild_entries)


async def insert_entries(db: Connection, rows: list[tuple[Any, ...]], summary: SummaryChanges, *,
                         want_ids: bool = True) -> list[int]:
    """Insert ledger rows (ENTRY_COLUMNS order) and add them to `summary`; return their ids if wanted."""
    for row in rows:
        summary.entry(row[3], row[4], row[5], row[6], row[7], row[11])
    if not want_ids:
        await db.execute_many(_INSERT_ENTRY, rows)
        return []
    ids = []
    for row in rows:
        ids.append(await db.fetch_value(_INSERT_ENTRY_ID, *row))
    return ids


async def rebuild_guild(db: Connection, guild: str) -> None:
    moves = ("SELECT to_player AS player, amount AS delta, reason, created_at, period_day FROM ledger_entries"
             " WHERE guild = $1 UNION ALL"
             " SELECT from_player, -amount, reason, created_at, period_day FROM ledger_entries WHERE guild = $1")
    winning = f"reason IN ({_WINNING_SQL})"
    live_seats = ("SELECT hs.player_id, h.created_at FROM hand_seats hs JOIN hands h ON h.id = hs.hand_id"
                  " WHERE h.guild = $1 AND h.reversed_at IS NULL")
    await db.execute("DELETE FROM balances WHERE guild = $1", guild)
    await db.execute("DELETE FROM daily_net WHERE guild = $1", guild)
    await db.execute(
        f"INSERT INTO balances(guild, player_id, balance, net) SELECT $1, player, SUM(delta),"
        f" SUM(CASE WHEN {winning} THEN delta ELSE 0 END) FROM ({moves}) m WHERE true GROUP BY player", guild)
    await db.execute(
        f"INSERT INTO balances(guild, player_id, hands) SELECT $1, player_id, COUNT(*) FROM ({live_seats})"
        " s WHERE true GROUP BY player_id ON CONFLICT(guild, player_id) DO UPDATE SET hands = excluded.hands", guild)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, flow) SELECT $1, substr(created_at, 1, 10), player,"
        f" SUM(delta) FROM ({moves}) m WHERE true GROUP BY 2, 3", guild)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, net) SELECT $1, period_day, player, SUM(delta)"
        f" FROM ({moves}) m WHERE {winning} GROUP BY 2, 3"
        " ON CONFLICT(guild, day, player_id) DO UPDATE SET net = excluded.net", guild)
    await db.execute(
        f"INSERT INTO daily_net(guild, day, player_id, hands) SELECT $1, substr(created_at, 1, 10), player_id,"
        f" COUNT(*) FROM ({live_seats}) s WHERE true GROUP BY 2, 3"
        " ON CONFLICT(guild, day, player_id) DO UPDATE SET hands = excluded.hands", guild)
    await db.execute(
        "INSERT INTO guilds(guild, hands, entries) VALUES ($1,"
        " (SELECT COUNT(*) FROM hands WHERE guild = $1 AND reversed_at IS NULL),"
        " (SELECT COUNT(*) FROM ledger_entries WHERE guild = $1))"
        " ON CONFLICT(guild) DO UPDATE SET hands = excluded.hands, entries = excluded.entries", guild)
