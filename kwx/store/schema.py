"""The store's schema, described once, and the one migration history both backends are built by.

`TABLES` describes every table both backends keep (columns in order, keys, checks); `HISTORY` is the list of
schema versions, each naming the tables and indexes it adds and the statements only one dialect needs (the
append-only triggers, PostgreSQL's id sequences, a data change). `scripts(dialect)` renders the history for
one backend: the SQLite store applies it through `PRAGMA user_version` (kwx.store.migrations), the PostgreSQL
store through `kwx_schema(version)` (kwx.store.postgres). A version is appended, never edited: databases in
use were built by the released scripts, and tests/store/test_store_released.py checks that these render them
exactly, version by version. The cluster's tables (version 4) exist on PostgreSQL only, so a SQLite database
counts one version fewer from there (its versions are the steps it applies, in order).

Tables
- tables(id, guild, channel, rules, seed, seats, status, options, created_at, updated_at): one per game table,
  kept for crash recovery. rules/seats/options are JSON; seed is secret.
- events(table_id, seq, hand_no, kind, payload, created_at): the append-only log, PRIMARY KEY(table_id, seq).
- players(guild, player_id, name): latest display name per guild.
- hands(...): one finished hand; UNIQUE(table_id, hand_no) makes finishing twice a no-op. `reversed_at` is set
  when its money is returned (the hand then leaves stats and counts); nothing else of a hand ever changes.
- hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in, fan, liangdao): per-seat facts.
- ledger_entries(...): append-only money movements; an entry is reversed at most once and a reversal never.
  `period_day` is the UTC day the entry counts toward in leaderboards: its own day, or for a reversal the
  reversed entry's day.
- Summaries kept in the same transaction as every write, so queries never scan the ledger:
  balances(guild, player_id, balance, net, hands), daily_net(guild, day, player_id, net, flow, hands),
  guilds(guild, hands, entries). `net` = winnings (hand payments), `flow` = every balance change that day.
- guild_settings(guild, key, value): small per-server settings such as the bot's language (kwx.store.settings).
- message_refs(table_id, ref, channel_id, message_id, data): where a front end put a table's board and each
  player's latest private panel, so a restarted bot edits those messages instead of posting new ones.
Money, counts of entries and ids are 64-bit on both (SQLite's INTEGER is; PostgreSQL's BIGINT).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kwx.store.schema_triggers import (
    POSTGRESQL_1,
    POSTGRESQL_3,
    POSTGRESQL_CLUSTER,
    POSTGRESQL_EDITION_1,
    POSTGRESQL_FUNCTIONS,
    SQLITE_1,
    SQLITE_EDITION_1,
    sqlite_3,
)

Dialect = Literal["sqlite", "postgresql"]
# A column's kind -> its type on (SQLite, PostgreSQL).
_TYPES: dict[str, tuple[str, str]] = {
    "id": ("INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY"),  # SQLite: the rowid; PostgreSQL: a sequence
    "ref": ("INTEGER", "BIGINT"),  # names a row by its id
    "big": ("INTEGER", "BIGINT"),  # money, and counts that may pass 2^31
    "int": ("INTEGER", "INTEGER"),
    "text": ("TEXT", "TEXT"),
}


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # a key of _TYPES
    rest: str = ""  # what both dialects write after the type: NOT NULL, DEFAULT …, CHECK …, REFERENCES …


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    constraints: tuple[str, ...] = ()  # table constraints, the same in both dialects
    indexes: tuple[str, ...] = ()  # CREATE [UNIQUE] INDEX statements, the same in both dialects
    without_rowid: bool = False  # SQLite: the primary key is the storage (no hidden rowid)
    short: str = ""  # the prefix of its triggers' names, when not its own name

    def create(self, dialect: Dialect) -> str:
        at = 0 if dialect == "sqlite" else 1
        lines = [f"    {c.name:<11} {_TYPES[c.kind][at]}{' ' + c.rest if c.rest else ''}" for c in self.columns]
        lines += [f"    {constraint}" for constraint in self.constraints]
        tail = " WITHOUT ROWID" if self.without_rowid and dialect == "sqlite" else ""
        return "\n".join([f"CREATE TABLE {self.name} (\n" + ",\n".join(lines) + f"\n){tail};", *self.indexes])

    def fill_id(self) -> str:
        """PostgreSQL: the trigger that gives a new row its id (kwx_fill_id, kwx.store.schema_triggers)."""
        if self.columns[0].kind != "id":
            return ""
        return (f"CREATE TRIGGER {self.short or self.name}_fill_id BEFORE INSERT ON {self.name}"
                f" FOR EACH ROW EXECUTE FUNCTION kwx_fill_id('{self.name}_id_seq');")


def _text(*names: str, rest: str = "NOT NULL") -> tuple[Column, ...]:
    return tuple(Column(name, "text", rest) for name in names)


def _flags(*names: str) -> tuple[Column, ...]:
    return tuple(Column(name, "int", "NOT NULL") for name in names)


TABLES: dict[str, Table] = {t.name: t for t in (
    Table("tables", (
        Column("id", "id"), *_text("guild"), *_text("channel", rest=""), *_text("rules", "seed", "seats"),
        Column("status", "text", "NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed'))"),
        Column("options", "text", "NOT NULL DEFAULT '{}'"), *_text("created_at", "updated_at")),
        indexes=("CREATE INDEX tables_open ON tables(status) WHERE status = 'open';",
                 "CREATE INDEX tables_guild ON tables(guild);")),
    Table("events", (
        Column("table_id", "ref", "NOT NULL REFERENCES tables(id)"), *_flags("seq", "hand_no"),
        *_text("kind", "payload", "created_at")),
        ("PRIMARY KEY (table_id, seq)",), without_rowid=True),
    Table("players", _text("guild", "player_id", "name", "updated_at"), ("PRIMARY KEY (guild, player_id)",),
          without_rowid=True),
    Table("hands", (
        Column("id", "id"), *_text("guild"), Column("table_id", "ref", "REFERENCES tables(id)"), *_flags("hand_no"),
        *_text("dealer", "seed_ref", rest=""), Column("outcome", "text", "NOT NULL CHECK (outcome IN ('win', 'draw'))"),
        *_text("winners", "fan", "patterns", "summary", "created_at"), *_text("created_by", "reversed_at", rest="")),
        ("UNIQUE (table_id, hand_no)",), ("CREATE INDEX hands_guild ON hands(guild, id);",)),
    Table("hand_seats", (
        Column("hand_id", "ref", "NOT NULL REFERENCES hands(id)"), *_flags("seat"), *_text("guild", "player_id"),
        Column("net", "big", "NOT NULL"), *_flags("won", "self_draw", "dealt_in", "fan", "liangdao")),
        ("PRIMARY KEY (hand_id, seat)",), ("CREATE INDEX hand_seats_player ON hand_seats(guild, player_id, hand_id);",),
        without_rowid=True),
    Table("ledger_entries", (
        Column("id", "id"), *_text("guild"), Column("hand_id", "ref", "REFERENCES hands(id)"),
        *_text("from_player", "to_player"), Column("amount", "big", "NOT NULL CHECK (amount > 0)"),
        *_text("reason", "created_at"), *_text("created_by", "note", rest=""),
        Column("reverses_id", "ref", "REFERENCES ledger_entries(id)"), *_text("period_day")),
        ("CHECK (from_player <> to_player)",),
        ("CREATE INDEX ledger_guild ON ledger_entries(guild, id);",
         "CREATE INDEX ledger_from ON ledger_entries(guild, from_player, id);",
         "CREATE INDEX ledger_to ON ledger_entries(guild, to_player, id);",
         "CREATE INDEX ledger_hand ON ledger_entries(hand_id) WHERE hand_id IS NOT NULL;",
         "CREATE UNIQUE INDEX ledger_reversal ON ledger_entries(reverses_id) WHERE reverses_id IS NOT NULL;"),
        short="ledger"),
    Table("balances", (
        *_text("guild", "player_id"), Column("balance", "big", "NOT NULL DEFAULT 0"),
        Column("net", "big", "NOT NULL DEFAULT 0"), Column("hands", "int", "NOT NULL DEFAULT 0")),
        ("PRIMARY KEY (guild, player_id)",), without_rowid=True),
    Table("daily_net", (
        *_text("guild", "day", "player_id"), Column("net", "big", "NOT NULL DEFAULT 0"),
        Column("flow", "big", "NOT NULL DEFAULT 0"), Column("hands", "int", "NOT NULL DEFAULT 0")),
        ("PRIMARY KEY (guild, day, player_id)",),
        ("CREATE INDEX daily_net_player ON daily_net(guild, player_id, day);",), without_rowid=True),
    Table("guilds", (
        Column("guild", "text", "PRIMARY KEY"), Column("hands", "int", "NOT NULL DEFAULT 0"),
        Column("entries", "big", "NOT NULL DEFAULT 0")), without_rowid=True),
    Table("guild_settings", _text("guild", "key", "value", "updated_at"), ("PRIMARY KEY (guild, key)",),
          without_rowid=True),
    Table("message_refs", (
        Column("table_id", "ref", "NOT NULL REFERENCES tables(id)"), *_text("ref", "channel_id", "message_id"),
        Column("data", "text", "NOT NULL DEFAULT '{}'"), *_text("updated_at")),
        ("PRIMARY KEY (table_id, ref)",), without_rowid=True),
)}


@dataclass(frozen=True)
class Version:
    """One step of the history: the tables it creates (with their indexes), then what each dialect adds
    (None: the step is not that dialect's, which skips it without counting it)."""

    about: str
    tables: tuple[str, ...] = ()
    sqlite: str | None = ""
    postgresql: str | None = ""


HISTORY: tuple[Version, ...] = (
    Version("the tables, their event log and ledger",
            ("tables", "events", "players", "hands", "hand_seats", "ledger_entries", "balances", "daily_net",
             "guilds"), SQLITE_1, f"{POSTGRESQL_FUNCTIONS}\n{POSTGRESQL_1}"),
    Version("per-server settings, and where a front end put each table's messages",
            ("guild_settings", "message_refs")),
    Version("append-only in fact", (), sqlite_3([c.name for c in TABLES["hands"].columns]),
            POSTGRESQL_3),
    Version("a cluster of bot processes: leases and shared rate-limit buckets", (), None, POSTGRESQL_CLUSTER),
    Version("tables that dealt a hand keep rules edition 1", (), SQLITE_EDITION_1,
            POSTGRESQL_EDITION_1),
)


def scripts(dialect: Dialect) -> list[str]:
    """The history for one backend: `scripts(d)[i - 1]` brings its schema from version i-1 to i."""
    out = []
    for version in HISTORY:
        own = version.sqlite if dialect == "sqlite" else version.postgresql
        if own is None:
            continue
        tables = [TABLES[name] for name in version.tables]
        fill = [t.fill_id() for t in tables] if dialect == "postgresql" else []
        parts = [*(t.create(dialect) for t in tables), own, *fill]  # own first: it may define kwx_fill_id
        out.append("\n".join(part for part in parts if part))
    return out
