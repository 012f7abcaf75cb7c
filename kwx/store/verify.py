"""Is this store sound? `python -m kwx ledger verify [STORE]`: a live store or a backup, SQLite or PostgreSQL.

    report = await verify_store(Path("data/backups/kwx-20250305T120000Z.sqlite3"))   # or a postgresql:// URL
    report.ok, report.problems       # one line per problem (a Problem: English, with a code for the catalog)

What it checks, all inside one read transaction (a store the bot is writing to is checked as of one commit):
- integrity: SQLite's `PRAGMA integrity_check` and `foreign_key_check` (PostgreSQL checks its own pages: data
  checksums, amcheck); a schema this program knows;
- every hand's payments sum to zero: its seats' nets do, and its ledger entries give each player exactly the
  seat's net (a reversed hand's entries cancel out; an unreversed hand has no reversals);
- each (table, hand) — and each manual hand number of a server — recorded once; each entry reversed at most once;
- the summaries equal what they summarise: balances (balance, winnings, hands) against the ledger entries and
  the hands, the per-day table (winnings, flow, hands), each server's hand and entry counts;
- every trigger the migrations create is there (the append-only guarantees live in them).

Nothing is written: a SQLite file is opened read-only, never migrated, never created.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from kwx.store.db import shown
from kwx.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kwx.store.models import WINNING_REASONS, StoreError

SHOWN = 20  # problems listed per check before "… and N more"
KWX_TABLES = ("tables", "events", "hands", "hand_seats", "ledger_entries", "balances", "daily_net", "guilds")
_WINNING = "reason IN (" + ", ".join(f"'{r}'" for r in sorted(WINNING_REASONS)) + ")"
_TRIGGER = re.compile(r"CREATE\s+TRIGGER\s+(\w+)", re.IGNORECASE)

# Every ledger entry as two signed moves: money arriving at `to_player`, leaving `from_player`.
MOVES = ("SELECT guild, hand_id, to_player AS player, amount AS delta, reason, created_at, period_day, reverses_id"
         " FROM ledger_entries UNION ALL SELECT guild, hand_id, from_player, -amount, reason, created_at,"
         " period_day, reverses_id FROM ledger_entries")
# The seats of the hands whose money stands (not reversed): what hand counts count.
LIVE_SEATS = ("SELECT hs.guild, hs.player_id, hs.hand_id, h.created_at FROM hand_seats hs"
              " JOIN hands h ON h.id = hs.hand_id WHERE h.reversed_at IS NULL")


# What a problem can be (Problem.code); a tool says each from the catalog: `store.verify.<code>`.
PROBLEMS = frozenset({
    "integrity",          # SQLite's integrity_check reports damage (detail: its words)
    "foreign_key",        # a row names a row missing from another table
    "stopped",            # the file is too damaged to check further
    "schema_newer",       # a schema this program does not know
    "trigger_missing",    # an append-only trigger a migration made is gone
    "trigger_unknown",    # a trigger no migration made
    "hand_twice",         # a table's hand recorded twice
    "manual_twice",       # a server's manual hand number recorded twice
    "reversed_twice",     # a ledger entry reversed more than once
    "nets_sum",           # a hand's seats' nets do not sum to 0
    "entries_differ",     # a hand's ledger entries do not pay what its seats record
    "reversal_open",      # a reversed hand whose money does not cancel out
    "reversal_unmarked",  # reversing entries of a hand not marked reversed
    "balances_differ",    # a summary disagrees with the ledger: balances,
    "daily_differs",      # the per-day table,
    "guild_differs",      # a server's counts
    "more",               # … and N more lines like the ones before
})


class Problem(str):
    """One problem found: its English line (what `--json` lists and logs keep), with `code` (see PROBLEMS) and
    `fmt` so a tool says it in the operator's language (catalog `store.verify.<code>`; a `field` value is the
    summary column's word, `store.verify.field.<field>`)."""

    code: str
    fmt: dict[str, object]

    def __new__(cls, text: str, code: str, **fmt: object) -> Problem:
        assert code in PROBLEMS, code
        problem = super().__new__(cls, text)
        problem.code = code
        problem.fmt = fmt
        return problem


@dataclass
class VerifyReport:
    store: str
    backend: str
    schema: int = 0
    hands: int = 0
    entries: int = 0
    servers: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"store": self.store, "backend": self.backend, "schema": self.schema, "servers": self.servers,
                "hands": self.hands, "entries": self.entries, "ok": self.ok,
                "problems": [str(p) for p in self.problems]}


Rows = Callable[[str], Awaitable[list[Any]]]


async def verify_store(target: str | Path) -> VerifyReport:
    """Check the store at a SQLite path or a postgresql:// URL. Raises StoreError when it cannot be read as a
    kwx store at all (no such file, not a database, no kwx tables)."""
    text = str(target)
    if text.startswith(("postgresql://", "postgres://")):
        return await _verify_postgres(text)
    return await _verify_sqlite(Path(target))


async def _verify_sqlite(path: Path) -> VerifyReport:
    if not path.is_file():
        raise StoreError(f"no store at {path}", code="no_store", path=str(path))
    report = VerifyReport(str(path), "sqlite")
    try:
        db = await aiosqlite.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except aiosqlite.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}", code="cannot_open", path=str(path), detail=str(exc)) from exc
    try:
        async def rows(sql: str) -> list[Any]:
            async with db.execute(sql) as cur:
                return list(await cur.fetchall())

        try:
            await db.execute("BEGIN")  # one snapshot for every check
            report.problems += await _sqlite_integrity(rows)
            names = {r[0] for r in await rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except aiosqlite.DatabaseError as exc:
            raise StoreError(f"cannot read {path} as a SQLite database: {exc}", code="not_sqlite", path=str(path),
                             detail=str(exc)) from exc
        _need_tables(path, names)
        try:
            report.schema = int((await rows("PRAGMA user_version"))[0][0])
            present = {r[0] for r in await rows("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
            await _check(report, rows, SQLITE_MIGRATIONS, present)
        except aiosqlite.DatabaseError as exc:  # a damaged file: what was found so far, and where it stopped
            report.problems.append(Problem(f"cannot check further: {exc}", "stopped", detail=str(exc)))
    finally:
        await db.close()
    return report


async def _verify_postgres(url: str) -> VerifyReport:
    import asyncpg

    from kwx.store.postgres.migrations import MIGRATIONS as PG_MIGRATIONS

    report = VerifyReport(shown(url), "postgresql")
    try:
        conn = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError) as exc:
        raise StoreError(f"cannot connect to PostgreSQL: {exc}", code="pg_connect", detail=str(exc)) from exc
    try:
        async def rows(sql: str) -> list[Any]:
            return list(await conn.fetch(sql))

        async with conn.transaction(isolation="repeatable_read", readonly=True):
            names = {r[0] for r in await rows("SELECT table_name FROM information_schema.tables"
                                              " WHERE table_schema = current_schema()")}
            _need_tables(report.store, names)
            version = await rows("SELECT COALESCE(MAX(version), 0) FROM kwx_schema") if "kwx_schema" in names else []
            report.schema = int(version[0][0]) if version else 0
            present = {r[0] for r in await rows(
                "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
                " AND NOT t.tgisinternal")}
            await _check(report, rows, PG_MIGRATIONS, present)
    finally:
        await conn.close()
    return report


def _need_tables(store: object, names: set[str]) -> None:
    missing = [t for t in KWX_TABLES if t not in names]
    if missing:
        raise StoreError(f"{store} is not a kwx store (no table {', '.join(missing)})", code="not_kwx", path=str(store),
                         tables=", ".join(missing))


async def _sqlite_integrity(rows: Rows) -> list[Problem]:
    """What SQLite's own checks find; a check that cannot even run on a damaged file is a problem too (a file
    that is not a SQLite database at all raises)."""
    problems = []
    try:
        problems += [Problem(f"integrity: {r[0]}", "integrity", detail=str(r[0]))
                     for r in await rows(f"PRAGMA integrity_check({SHOWN})") if tuple(r) != ("ok",)]
        problems += [Problem(f"foreign key: a row of {r[0]} (rowid {r[1]}) names a missing {r[2]} row", "foreign_key",
                             table=r[0], rowid=r[1], parent=r[2])
                     for r in (await rows("PRAGMA foreign_key_check"))[:SHOWN]]
    except aiosqlite.DatabaseError as exc:
        if "not a database" in str(exc):
            raise
        problems.append(Problem(f"integrity: {exc}", "integrity", detail=str(exc)))
    return problems


async def _check(report: VerifyReport, rows: Rows, migrations: list[str], triggers: set[str]) -> None:
    """The checks both backends share (the shared SQL dialect), appended to `report`."""
    known = len(migrations)
    if report.schema > known:
        report.problems.append(Problem(f"schema v{report.schema} is newer than this program's (v{known}): upgrade kwx",
                                       "schema_newer", schema=report.schema, known=known))
    expected = [name for script in migrations[:report.schema] for name in _TRIGGER.findall(script)]
    report.problems += [Problem(f"append-only: trigger {name} is missing", "trigger_missing", name=name)
                        for name in expected if name not in triggers]
    # a trigger no migration made can change or delete what the ledger appends: name it
    report.problems += [Problem(f"unknown trigger {name}: no kwx migration creates it", "trigger_unknown", name=name)
                        for name in sorted(triggers) if name not in expected]
    counts = (await rows("SELECT (SELECT COUNT(*) FROM hands), (SELECT COUNT(*) FROM ledger_entries),"
                         " (SELECT COUNT(*) FROM (SELECT guild FROM hands UNION SELECT guild FROM ledger_entries)"
                         " AS g)"))[0]
    report.hands, report.entries, report.servers = (int(n) for n in counts)
    for check in (_recorded_once, _hands_sum_to_zero, _balances, _daily, _guilds):
        report.problems += await check(rows)


def _limit(lines: list[Problem]) -> list[Problem]:
    more = len(lines) - SHOWN
    return lines if more <= 0 else [*lines[:SHOWN], Problem(f"… and {more} more like these", "more", count=more)]


async def _recorded_once(rows: Rows) -> list[Problem]:
    twice = [Problem(f"table {r[0]} hand {r[1]} is recorded {r[2]} times", "hand_twice", table=r[0], hand=r[1],
                     times=r[2]) for r in await rows(
        "SELECT table_id, hand_no, COUNT(*) FROM hands WHERE table_id IS NOT NULL GROUP BY table_id, hand_no"
        " HAVING COUNT(*) > 1 ORDER BY table_id, hand_no")]
    twice += [Problem(f"server {r[0]}: manual hand {r[1]} is recorded {r[2]} times", "manual_twice", server=r[0],
                      hand=r[1], times=r[2]) for r in await rows(
        "SELECT guild, hand_no, COUNT(*) FROM hands WHERE table_id IS NULL GROUP BY guild, hand_no"
        " HAVING COUNT(*) > 1 ORDER BY guild, hand_no")]
    twice += [Problem(f"ledger entry {r[0]} is reversed {r[1]} times", "reversed_twice", entry=r[0], times=r[1])
              for r in await rows(
        "SELECT reverses_id, COUNT(*) FROM ledger_entries WHERE reverses_id IS NOT NULL GROUP BY reverses_id"
        " HAVING COUNT(*) > 1 ORDER BY reverses_id")]
    return _limit(twice)


async def _hands_sum_to_zero(rows: Rows) -> list[Problem]:
    lines = [Problem(f"hand {r[0]}: its seats' nets sum to {int(r[1]):+d}, not 0", "nets_sum", hand=r[0], sum=int(r[1]))
             for r in await rows(
        "SELECT hand_id, SUM(net) FROM hand_seats GROUP BY hand_id HAVING SUM(net) <> 0 ORDER BY hand_id")]
    paid = (f"SELECT hand_id, player, SUM(delta) AS amount FROM ({MOVES}) AS m WHERE hand_id IS NOT NULL"
            " AND reverses_id IS NULL GROUP BY hand_id, player HAVING SUM(delta) <> 0")
    seats = "SELECT hand_id, player_id, net FROM hand_seats WHERE net <> 0"
    lines += [Problem(f"hand {r[0]}: its ledger entries do not pay each player the net its seat records",
                      "entries_differ", hand=r[0])
              for r in await rows(f"SELECT hand_id FROM ({paid} EXCEPT {seats}) AS a UNION"
                                  f" SELECT hand_id FROM ({seats} EXCEPT {paid}) AS b ORDER BY 1")]
    lines += [Problem(f"hand {r[0]} is marked reversed but its money does not cancel out", "reversal_open",
                      hand=r[0]) for r in await rows(
        f"SELECT DISTINCT m.hand_id FROM ({MOVES}) AS m JOIN hands h ON h.id = m.hand_id"
        " WHERE h.reversed_at IS NOT NULL GROUP BY m.hand_id, m.player HAVING SUM(m.delta) <> 0 ORDER BY 1")]
    lines += [Problem(f"hand {r[0]} has reversing entries but is not marked reversed", "reversal_unmarked",
                      hand=r[0]) for r in await rows(
        "SELECT DISTINCT e.hand_id FROM ledger_entries e JOIN hands h ON h.id = e.hand_id"
        " WHERE e.reverses_id IS NOT NULL AND h.reversed_at IS NULL ORDER BY 1")]
    return _limit(lines)


# Each summary table: the code of a difference found in it, and what its key's columns are.
_SUMMARIES = {"balances": ("balances_differ", ("server", "player")),
              "daily_net": ("daily_differs", ("server", "day", "player")),
              "guilds": ("guild_differs", ("server",))}


def _differences(what: str, fields: tuple[str, ...], stored: Iterable[Any],
                 expected: dict[tuple[Any, ...], list[int]]) -> list[Problem]:
    """Lines for every key whose stored values differ from the expected ones (all-zero rows count as absent)."""
    code, parts = _SUMMARIES[what]
    have = {tuple(r)[:len(parts)]: [int(v) for v in tuple(r)[len(parts):]] for r in stored}
    lines = []
    for key in sorted(set(have) | set(expected), key=lambda k: tuple(map(str, k))):
        got, want = have.get(key, [0] * len(fields)), expected.get(key, [0] * len(fields))
        where = ", ".join(str(v) if part == "day" else f"{part} {v}" for part, v in zip(parts, key))
        for name, g, w in zip(fields, got, want):
            if g != w:
                lines.append(Problem(f"{where}: the {what} table says {name} {g}, the ledger gives {w}", code,
                                     **dict(zip(parts, key)), field=name, stored=g, ledger=w))
    return _limit(lines)


def _expect(found: Iterable[Any], key_size: int, width: int, column: int,
            into: dict[tuple[Any, ...], list[int]]) -> None:
    """Add each row's value (after its key) at `column` of its key's expected values."""
    for r in found:
        into.setdefault(tuple(r)[:key_size], [0] * width)[column] = int(r[key_size])


async def _balances(rows: Rows) -> list[Problem]:
    expected: dict[tuple[Any, ...], list[int]] = {}
    for r in await rows(f"SELECT guild, player, SUM(delta), SUM(CASE WHEN {_WINNING} THEN delta ELSE 0 END)"
                        f" FROM ({MOVES}) AS m GROUP BY guild, player"):
        expected.setdefault((r[0], r[1]), [0, 0, 0])[:2] = [int(r[2]), int(r[3])]
    _expect(await rows(f"SELECT guild, player_id, COUNT(*) FROM ({LIVE_SEATS}) AS s GROUP BY guild, player_id"),
            2, 3, 2, expected)
    stored = await rows("SELECT guild, player_id, balance, net, hands FROM balances")
    return _differences("balances", ("balance", "winnings", "hands"), stored, expected)


async def _daily(rows: Rows) -> list[Problem]:
    expected: dict[tuple[Any, ...], list[int]] = {}
    _expect(await rows(f"SELECT guild, period_day, player, SUM(delta) FROM ({MOVES}) AS m WHERE {_WINNING}"
                       " GROUP BY 1, 2, 3"), 3, 3, 0, expected)
    _expect(await rows(f"SELECT guild, substr(created_at, 1, 10), player, SUM(delta) FROM ({MOVES}) AS m"
                       " GROUP BY 1, 2, 3"), 3, 3, 1, expected)
    _expect(await rows(f"SELECT guild, substr(created_at, 1, 10), player_id, COUNT(*) FROM ({LIVE_SEATS}) AS s"
                       " GROUP BY 1, 2, 3"), 3, 3, 2, expected)
    stored = await rows("SELECT guild, day, player_id, net, flow, hands FROM daily_net")
    return _differences("daily_net", ("winnings", "flow", "hands"), stored, expected)


async def _guilds(rows: Rows) -> list[Problem]:
    expected: dict[tuple[Any, ...], list[int]] = {}
    _expect(await rows("SELECT guild, COUNT(*) FROM hands WHERE reversed_at IS NULL GROUP BY guild"), 1, 2, 0,
            expected)
    _expect(await rows("SELECT guild, COUNT(*) FROM ledger_entries GROUP BY guild"), 1, 2, 1, expected)
    stored = await rows("SELECT guild, hands, entries FROM guilds")
    return _differences("guilds", ("hands", "entries"), stored, expected)
