"""Reading for the front ends: balances, leaderboards, history, statistics, settle-up, export, series.

Every query names a guild: a server sees only its own ledger. Balances and leaderboards read the summary
tables only (never the ledger), so they stay fast on millions of entries.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

from kwx.store.clock import from_text, period_days
from kwx.store.connection import Row, params
from kwx.store.csvio import write_csv
from kwx.store.db import StoreBase, load_json
from kwx.store.export import Export, ExportTooBig, export_gzip
from kwx.store.models import (
    BalanceRow,
    BalanceSheet,
    HandHistory,
    LeaderRow,
    LedgerEntry,
    Period,
    PlayerStats,
    Transfer,
)
from kwx.store.settle import settle_up

CHART_POINTS = 400  # points per series on a chart: enough for an 800-pixel-wide image
EXPORT_BATCH = 2000  # entries read and written at a time by export_csv
ChartPoint = tuple[int, datetime, int]  # (hands played by then, when, balance)


class QueriesMixin(StoreBase):
    # ------------------------------------------------------------------------------------------ guilds/players

    async def has_guild(self, guild: str) -> bool:
        """Whether the server has any table, hand, ledger entry or named player here."""
        row = await self._one(
            "SELECT EXISTS(SELECT 1 FROM guilds WHERE guild = $1) OR EXISTS(SELECT 1 FROM players WHERE guild = $1)",
            guild)
        return row is not None and bool(row[0])

    async def guild_ids(self) -> list[str]:
        rows = await self._all("SELECT guild FROM guilds UNION SELECT guild FROM players ORDER BY 1")
        return [row[0] for row in rows]

    async def player_name(self, guild: str, player: str) -> str | None:
        row = await self._one("SELECT name FROM players WHERE guild = $1 AND player_id = $2", guild, player)
        return None if row is None else row["name"]

    async def has_player(self, guild: str, player: str) -> bool:
        row = await self._one(
            "SELECT EXISTS(SELECT 1 FROM balances WHERE guild = $1 AND player_id = $2)"
            " OR EXISTS(SELECT 1 FROM players WHERE guild = $1 AND player_id = $2)",
            guild, player)
        return row is not None and bool(row[0])

    # ------------------------------------------------------------------------------------------ balances

    async def balance(self, guild: str, player: str) -> BalanceRow:
        """One player's balance and hands played (zeros for a player with no history)."""
        row = await self._one(
            "SELECT b.balance, b.hands, p.name FROM (SELECT $1 AS guild, $2 AS player_id) k"
            " LEFT JOIN balances b USING (guild, player_id) LEFT JOIN players p USING (guild, player_id)",
            guild, player)
        assert row is not None
        return BalanceRow(player, row["name"] or player, row["balance"] or 0, row["hands"] or 0)

    async def balances(self, guild: str) -> BalanceSheet:
        """Every player's balance in the guild, highest first, and the guild's number of recorded hands."""
        async with self._read() as db:
            rows = await db.fetch(
                "SELECT b.player_id, COALESCE(p.name, b.player_id) AS name, b.balance, b.hands FROM balances b"
                " LEFT JOIN players p USING (guild, player_id) WHERE b.guild = $1"
                " ORDER BY b.balance DESC, b.player_id", guild)
            hands = await db.fetch_value("SELECT hands FROM guilds WHERE guild = $1", guild)
        return BalanceSheet(hands or 0, [BalanceRow(*row) for row in rows])

    async def leaderboard(self, guild: str, period: Period = "all", *, now: datetime | None = None,
                          limit: int | None = None) -> list[LeaderRow]:
        """Winnings (hand payments, net of reversals) in the ISO week / calendar month (UTC) holding `now`, or
        of all time; highest first. Settlements and transfers do not count. Players without hands or
        winnings in the period are left out."""
        bounds = period_days(period, now or self._clock())
        if bounds is None:
            sql = ("SELECT b.player_id, COALESCE(p.name, b.player_id) AS name, b.net, b.hands FROM balances b"
                   " LEFT JOIN players p USING (guild, player_id) WHERE b.guild = $1 AND (b.net <> 0 OR b.hands > 0)"
                   " ORDER BY b.net DESC, b.player_id")
            args: tuple[Any, ...] = (guild,)
        else:
            sql = ("SELECT d.player_id, COALESCE(p.name, d.player_id) AS name, SUM(d.net) AS net,"
                   " SUM(d.hands) AS hands FROM daily_net d LEFT JOIN players p USING (guild, player_id)"
                   " WHERE d.guild = $1 AND d.day >= $2 AND d.day < $3 GROUP BY d.player_id, p.name"
                   " HAVING SUM(d.net) <> 0 OR SUM(d.hands) > 0 ORDER BY net DESC, d.player_id")
            args = (guild, *bounds)
        if limit is not None:
            sql += f" LIMIT ${len(args) + 1}"
            args += (limit,)
        rows = await self._all(sql, *args)
        board: list[LeaderRow] = []
        for index, (player, name, net, hands) in enumerate(rows):
            rank = board[-1].rank if board and board[-1].net == net else index + 1
            board.append(LeaderRow(rank, player, name, net, hands))
        return board

    async def settle_up(self, guild: str) -> list[Transfer]:
        """Cash transfers (at most n-1) that bring every balance in the guild to zero; record each one with
        `record_settlement(guild, payer=t.from_player, payee=t.to_player, amount=t.amount, ...)`."""
        rows = await self._all("SELECT player_id, balance FROM balances WHERE guild = $1 AND balance <> 0", guild)
        return settle_up({row["player_id"]: row["balance"] for row in rows})

    # ------------------------------------------------------------------------------------------ hands

    async def history(self, guild: str, player: str, *, limit: int = 20, offset: int = 0) -> list[HandHistory]:
        """The player's hands, newest first, `limit` from `offset`."""
        rows = await self._all(
            "SELECT h.*, hs.seat, hs.net, hs.won, hs.self_draw, hs.dealt_in, hs.liangdao FROM hand_seats hs"
            " JOIN hands h ON h.id = hs.hand_id WHERE hs.guild = $1 AND hs.player_id = $2"
            " ORDER BY hs.hand_id DESC LIMIT $3 OFFSET $4", guild, player, limit, offset)
        return [HandHistory(
            hand_id=r["id"], table_id=r["table_id"], hand_no=r["hand_no"], created_at=from_text(r["created_at"]),
            outcome=r["outcome"], dealer=r["dealer"], winners=load_json(r["winners"]), fan=load_json(r["fan"]),
            patterns=load_json(r["patterns"]), summary=load_json(r["summary"]), seat=r["seat"], net=r["net"],
            won=bool(r["won"]), self_draw=bool(r["self_draw"]), dealt_in=bool(r["dealt_in"]),
            liangdao=bool(r["liangdao"]), reversed=r["reversed_at"] is not None) for r in rows]

    async def hand_money(self, guild: str, player: str, hand_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """What each of these hands moved for the player, by payment reason (+ received, − paid), before any
        reversal: {hand id: {"hu": -2, "angang": 4}}. A hand where nothing reached or left the player is absent."""
        if not hand_ids:
            return {}
        rows = await self._all(
            "SELECT hand_id, reason, SUM(CASE WHEN to_player = $1 THEN amount ELSE -amount END) AS net"
            f" FROM ledger_entries WHERE guild = $2 AND hand_id IN ({params(len(hand_ids), 3)})"
            " AND reverses_id IS NULL AND (to_player = $1 OR from_player = $1) GROUP BY hand_id, reason",
            player, guild, *hand_ids)
        money: dict[int, dict[str, int]] = {}
        for row in rows:
            money.setdefault(row["hand_id"], {})[row["reason"]] = row["net"]
        return money

    async def player_stats(self, guild: str, player: str) -> PlayerStats:
        """Statistics over the player's hands that were not reversed (all zero without hands)."""
        rows = await self._stats_rows(guild, player)
        if rows:
            return _stats(rows[0])
        name = await self.player_name(guild, player)
        return PlayerStats(player, name or player, 0, 0, 0, 0, 0, 0, 0, 0.0, 0, 0.0, 0.0, 0.0, 0.0)

    async def stats(self, guild: str) -> list[PlayerStats]:
        """Statistics of every player with hands in the guild, most hands first."""
        rows = await self._stats_rows(guild, None)
        return sorted((_stats(row) for row in rows), key=lambda s: (-s.hands, s.player))

    async def _stats_rows(self, guild: str, player: str | None) -> list[Row]:
        where = "hs.guild = $1 AND h.reversed_at IS NULL" + ("" if player is None else " AND hs.player_id = $2")
        args = (guild,) if player is None else (guild, player)
        return await self._all(
            "SELECT hs.player_id, COALESCE(p.name, hs.player_id) AS name, COUNT(*) AS hands, SUM(hs.won) AS wins,"
            " SUM(hs.self_draw) AS self_draws, SUM(hs.dealt_in) AS deal_ins, SUM(hs.liangdao) AS liangdao,"
            " SUM(CASE WHEN hs.liangdao <> 0 AND hs.won <> 0 THEN 1 ELSE 0 END) AS liangdao_wins, COALESCE(MAX(hs.fan), 0) AS max_fan,"
            " SUM(CASE WHEN hs.won <> 0 THEN hs.fan ELSE 0 END) AS fan_sum, SUM(hs.net) AS net"
            " FROM hand_seats hs JOIN hands h ON h.id = hs.hand_id"
            " LEFT JOIN players p ON p.guild = hs.guild AND p.player_id = hs.player_id"
            f" WHERE {where} GROUP BY hs.player_id, p.name", *args)

    # ------------------------------------------------------------------------------------------ ledger

    async def entries(self, guild: str, *, player: str | None = None, hand_id: int | None = None,
                      limit: int | None = 50, offset: int = 0) -> list[LedgerEntry]:
        """Ledger entries, newest first, optionally of one player or one hand."""
        where: list[str] = ["guild = $1"]
        args: list[str | int] = [guild]
        if player is not None:
            args.append(player)
            where.append(f"(from_player = ${len(args)} OR to_player = ${len(args)})")
        if hand_id is not None:
            args.append(hand_id)
            where.append(f"hand_id = ${len(args)}")
        sql = (f"SELECT * FROM ledger_entries WHERE {' AND '.join(where)} ORDER BY id DESC"
               f" LIMIT ${len(args) + 1} OFFSET ${len(args) + 2}")
        rows = await self._all(sql, *args, _NO_LIMIT if limit is None else limit, offset)
        return [_entry(row) for row in rows]

    async def iter_entries(self, guild: str, *, batch: int = 5000) -> AsyncIterator[LedgerEntry]:
        """All of the guild's entries, oldest first, read in batches (other work runs between them)."""
        async for rows in self._entry_rows(guild, batch):
            for row in rows:
                yield _entry(row)

    async def _entry_rows(self, guild: str, batch: int) -> AsyncIterator[list[Row]]:
        last = 0
        while True:
            rows = await self._all("SELECT * FROM ledger_entries WHERE guild = $1 AND id > $2 ORDER BY id LIMIT $3",
                                   guild, last, batch)
            yield rows
            if len(rows) < batch:
                return
            last = rows[-1]["id"]

    async def export_csv(self, guild: str, out: IO[str], *, batch: int = EXPORT_BATCH) -> int:
        """Write the guild's ledger as CSV (see csvio) to `out`; return the number of entries. Each batch is
        turned into CSV (and compressed, when `out` is a gzip file) in a worker thread: done in the event
        loop, a big ledger's export held up every table playing meanwhile by 100-300 ms a batch."""
        count = write_csv((), out)  # the header
        async for rows in self._entry_rows(guild, batch):
            count += await asyncio.to_thread(write_csv, map(_entry, rows), out, header=False)
        return count

    async def chart_series(self, guild: str, player: str, *,
                           max_points: int = CHART_POINTS) -> list[ChartPoint]:
        """The player's running balance by hands played, for a chart, never more than `max_points` points of
        (hands played, time, balance): after each hand and each payment outside a hand when there are that
        few, else at the end of each day with activity (from the per-day summary), thinned evenly when even the
        days are too many (the first and the last always kept). An undone hand neither counts nor moves it."""
        if max_points < 2:
            raise ValueError("a chart needs at least 2 points")
        probe = ("SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM hand_seats WHERE guild = $1 AND player_id = $2"
                 " LIMIT $3) h) + (SELECT COUNT(*) FROM (SELECT 1 FROM ledger_entries WHERE guild = $1"
                 " AND to_player = $2 AND hand_id IS NULL LIMIT $3) t) + (SELECT COUNT(*) FROM (SELECT 1"
                 " FROM ledger_entries WHERE guild = $1 AND from_player = $2 AND hand_id IS NULL LIMIT $3) f)")
        row = await self._one(probe, guild, player, max_points + 1)
        if row is not None and row[0] <= max_points:
            return await self._hand_series(guild, player)
        return thin(await self._day_series(guild, player), max_points)

    async def _hand_series(self, guild: str, player: str) -> list[ChartPoint]:
        hands = await self._all(
            "SELECT h.created_at, hs.net FROM hand_seats hs JOIN hands h ON h.id = hs.hand_id"
            " WHERE hs.guild = $1 AND hs.player_id = $2 AND h.reversed_at IS NULL ORDER BY h.created_at, h.id",
            guild, player)
        others = await self._all(
            "SELECT id, created_at, amount AS delta FROM ledger_entries WHERE guild = $1 AND to_player = $2"
            " AND hand_id IS NULL UNION ALL SELECT id, created_at, -amount FROM ledger_entries WHERE guild = $1"
            " AND from_player = $2 AND hand_id IS NULL ORDER BY id", guild, player)
        moves = sorted([(from_text(r["created_at"]), 0, 1, r["net"]) for r in hands]
                       + [(from_text(r["created_at"]), 1, 0, r["delta"]) for r in others], key=lambda m: m[:2])
        played = balance = 0
        series = []
        for moment, _, hand, delta in moves:
            played += hand
            balance += delta
            series.append((played, moment, balance))
        return series

    async def _day_series(self, guild: str, player: str) -> list[ChartPoint]:
        rows = await self._all("SELECT day, flow, hands FROM daily_net WHERE guild = $1 AND player_id = $2"
                               " AND (flow <> 0 OR hands <> 0) ORDER BY day", guild, player)
        played = balance = 0
        series = []
        for row in rows:
            played += row["hands"]
            balance += row["flow"]
            series.append((played, datetime.fromisoformat(row["day"]).replace(tzinfo=UTC), balance))
        return series

    async def export_files(self, guild: str, directory: Path, stem: str, *, max_bytes: int) -> Export:
        """The guild's ledger as gzip CSV files in `directory`, each at most `max_bytes` (one file, or one per
        month, see kwx.store.export); read in a worker thread through its own read-only connection. Raises
        ExportTooBig when even one part cannot fit."""
        if self.path == ":memory:" or self.backend != "sqlite":  # one file, written here from pooled reads
            path = directory / f"{stem}.csv.gz"
            with gzip.open(path, "wt", encoding="utf-8", newline="") as out:
                count = await self.export_csv(guild, out)
            if path.stat().st_size > max_bytes:
                raise ExportTooBig(f"{path.name} is bigger than {max_bytes} bytes")
            return Export([path], count)
        return await asyncio.to_thread(export_gzip, self.path, guild, directory, stem, max_bytes=max_bytes)

    async def balance_series(self, guild: str, player: str, *,
                             by: Literal["entry", "day"] = "entry") -> list[tuple[datetime, int]]:
        """The player's running balance: after each ledger entry (its time), or at the end of each day with
        activity (that day's midnight UTC, read from the per-day summary)."""
        if by == "day":
            rows = await self._all("SELECT day, flow FROM daily_net WHERE guild = $1 AND player_id = $2 AND flow <> 0"
                                   " ORDER BY day", guild, player)
            points = [(datetime.fromisoformat(row["day"]).replace(tzinfo=UTC), row["flow"]) for row in rows]
        elif by == "entry":
            rows = await self._all(
                "SELECT id, created_at, amount AS delta FROM ledger_entries WHERE guild = $1 AND to_player = $2"
                " UNION ALL SELECT id, created_at, -amount FROM ledger_entries WHERE guild = $1 AND from_player = $2"
                " ORDER BY id", guild, player)
            points = [(from_text(row["created_at"]), row["delta"]) for row in rows]
        else:
            raise ValueError(f"by must be 'entry' or 'day', not {by!r}")
        running, series = 0, []
        for moment, delta in points:
            running += delta
            series.append((moment, running))
        return series


def thin(points: list[Any], most: int) -> list[Any]:
    """At most `most` of `points`, evenly spread, keeping the first and the last."""
    n = len(points)
    if n <= most:
        return points
    return [points[round(i * (n - 1) / (most - 1))] for i in range(most)]


_NO_LIMIT = 2**63 - 1  # LIMIT for "all": SQLite's -1 is an error on PostgreSQL


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _stats(row: Row) -> PlayerStats:
    hands, wins, liangdao = row["hands"], row["wins"], row["liangdao"]
    return PlayerStats(
        player=row["player_id"], name=row["name"], hands=hands, wins=wins, self_draws=row["self_draws"],
        deal_ins=row["deal_ins"], liangdao=liangdao, liangdao_wins=row["liangdao_wins"], max_fan=row["max_fan"],
        avg_fan=_rate(row["fan_sum"], wins), net=row["net"], win_rate=_rate(wins, hands),
        self_draw_rate=_rate(row["self_draws"], wins), deal_in_rate=_rate(row["deal_ins"], hands),
        liangdao_win_rate=_rate(row["liangdao_wins"], liangdao))


def _entry(row: Row) -> LedgerEntry:
    return LedgerEntry(id=row["id"], guild=row["guild"], from_player=row["from_player"], to_player=row["to_player"],
                       amount=row["amount"], reason=row["reason"], created_at=from_text(row["created_at"]),
                       hand_id=row["hand_id"], created_by=row["created_by"], note=row["note"],
                       reverses_id=row["reverses_id"])
