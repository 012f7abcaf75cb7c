"""Schema migrations, applied at open through `PRAGMA user_version`.

`MIGRATIONS[i - 1]` brings the schema from version i-1 to i inside one transaction, so a crash leaves the
database at a whole version. Only ever append to this list; never edit a released script.

Tables
- tables(id, guild, channel, rules, seed, seats, status, options, created_at, updated_at): one per game table,
  kept for crash recovery. rules/seats/options are JSON; seed is secret.
- events(table_id, seq, hand_no, kind, payload, created_at): the append-only log, PRIMARY KEY(table_id, seq);
  triggers refuse UPDATE, DELETE and an insert over a taken (table_id, seq) (so INSERT OR REPLACE too).
- players(guild, player_id, name): latest display name per guild.
- hands(...): one finished hand; UNIQUE(table_id, hand_no) makes finishing twice a no-op. `reversed_at` is set
  when its money is returned (the hand then leaves stats and counts); triggers allow no other change to a
  hand or its seats and no delete or replace.
- hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in, fan, liangdao): per-seat facts.
- ledger_entries(...): append-only money movements: triggers refuse UPDATE, DELETE, an insert over a used id
  (INSERT OR REPLACE), a second reversal of an entry and the reversal of a reversal. `period_day` is the
  UTC day the entry counts toward in leaderboards: its own day, or for a reversal the reversed entry's day.
- Summaries kept in the same transaction as every write, so queries never scan the ledger:
  balances(guild, player_id, balance, net, hands), daily_net(guild, day, player_id, net, flow, hands),
  guilds(guild, hands, entries). `net` = winnings (hand payments), `flow` = every balance change that day.
- guild_settings(guild, key, value): small per-server settings such as the bot's language (kwx.store.settings).
- message_refs(table_id, ref, channel_id, message_id, data): where a front end put a table's board and each
  player's latest private panel, so a restarted bot edits those messages instead of posting new ones.
"""

from __future__ import annotations

import sqlite3

import aiosqlite

from kwx.store.models import StoreError

MIGRATIONS: list[str] = [
    # 1: initial schema
    """
    CREATE TABLE tables (
        id          INTEGER PRIMARY KEY,
        guild       TEXT NOT NULL,
        channel     TEXT,
        rules       TEXT NOT NULL,
        seed        TEXT NOT NULL,
        seats       TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        options     TEXT NOT NULL DEFAULT '{}',
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    );
    CREATE INDEX tables_open ON tables(status) WHERE status = 'open';
    CREATE INDEX tables_guild ON tables(guild);

    CREATE TABLE events (
        table_id    INTEGER NOT NULL REFERENCES tables(id),
        seq         INTEGER NOT NULL,
        hand_no     INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        payload     TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;

    CREATE TABLE players (
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        name        TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (guild, player_id)
    ) WITHOUT ROWID;

    CREATE TABLE hands (
        id          INTEGER PRIMARY KEY,
        guild       TEXT NOT NULL,
        table_id    INTEGER REFERENCES tables(id),
        hand_no     INTEGER NOT NULL,
        dealer      TEXT,
        seed_ref    TEXT,
        outcome     TEXT NOT NULL CHECK (outcome IN ('win', 'draw')),
        winners     TEXT NOT NULL,
        fan         TEXT NOT NULL,
        patterns    TEXT NOT NULL,
        summary     TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        created_by  TEXT,
        reversed_at TEXT,
        UNIQUE (table_id, hand_no)
    );
    CREATE INDEX hands_guild ON hands(guild, id);

    CREATE TABLE hand_seats (
        hand_id     INTEGER NOT NULL REFERENCES hands(id),
        seat        INTEGER NOT NULL,
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        net         INTEGER NOT NULL,
        won         INTEGER NOT NULL,
        self_draw   INTEGER NOT NULL,
        dealt_in    INTEGER NOT NULL,
        fan         INTEGER NOT NULL,
        liangdao    INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat)
    ) WITHOUT ROWID;
    CREATE INDEX hand_seats_player ON hand_seats(guild, player_id, hand_id);

    CREATE TABLE ledger_entries (
        id          INTEGER PRIMARY KEY,
        guild       TEXT NOT NULL,
        hand_id     INTEGER REFERENCES hands(id),
        from_player TEXT NOT NULL,
        to_player   TEXT NOT NULL,
        amount      INTEGER NOT NULL CHECK (amount > 0),
        reason      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        created_by  TEXT,
        note        TEXT,
        reverses_id INTEGER REFERENCES ledger_entries(id),
        period_day  TEXT NOT NULL,
        CHECK (from_player <> to_player)
    );
    CREATE INDEX ledger_guild ON ledger_entries(guild, id);
    CREATE INDEX ledger_from ON ledger_entries(guild, from_player, id);
    CREATE INDEX ledger_to ON ledger_entries(guild, to_player, id);
    CREATE INDEX ledger_hand ON ledger_entries(hand_id) WHERE hand_id IS NOT NULL;
    CREATE UNIQUE INDEX ledger_reversal ON ledger_entries(reverses_id) WHERE reverses_id IS NOT NULL;
    CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: reverse an entry instead'); END;
    CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: reverse an entry instead'); END;

    CREATE TABLE balances (
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        balance     INTEGER NOT NULL DEFAULT 0,
        net         INTEGER NOT NULL DEFAULT 0,
        hands       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild, player_id)
    ) WITHOUT ROWID;

    CREATE TABLE daily_net (
        guild       TEXT NOT NULL,
        day         TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        net         INTEGER NOT NULL DEFAULT 0,
        flow        INTEGER NOT NULL DEFAULT 0,
        hands       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild, day, player_id)
    ) WITHOUT ROWID;
    CREATE INDEX daily_net_player ON daily_net(guild, player_id, day);

    CREATE TABLE guilds (
        guild       TEXT PRIMARY KEY,
        hands       INTEGER NOT NULL DEFAULT 0,
        entries     INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    """,
    # 2: per-server settings (the bot's language, …) and the front end's messages of each table
    """
    CREATE TABLE guild_settings (
        guild       TEXT NOT NULL,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (guild, key)
    ) WITHOUT ROWID;

    CREATE TABLE message_refs (
        table_id    INTEGER NOT NULL REFERENCES tables(id),
        ref         TEXT NOT NULL,
        channel_id  TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        data        TEXT NOT NULL DEFAULT '{}',
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (table_id, ref)
    ) WITHOUT ROWID;
    """,
    # 3: append-only in fact. `INSERT OR REPLACE` deletes the row it collides with without firing delete
    # triggers (unless recursive_triggers is on), so every insert that would collide with a kept row is refused
    # before it runs; a reversal cannot itself be reversed; the event log refuses DELETE; a recorded hand and its
    # seats are never rewritten (only `hands.reversed_at` may go from NULL to a time, once).
    """
    CREATE TRIGGER ledger_no_replace BEFORE INSERT ON ledger_entries
        WHEN EXISTS (SELECT 1 FROM ledger_entries WHERE id = NEW.id)
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: entry ids are never reused'); END;
    CREATE TRIGGER ledger_reversed_once BEFORE INSERT ON ledger_entries
        WHEN NEW.reverses_id IS NOT NULL
             AND EXISTS (SELECT 1 FROM ledger_entries WHERE reverses_id = NEW.reverses_id)
        BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: that entry was already reversed'); END;
    CREATE TRIGGER ledger_no_reversal_of_reversal BEFORE INSERT ON ledger_entries
        WHEN NEW.reverses_id IS NOT NULL
             AND (SELECT reverses_id FROM ledger_entries WHERE id = NEW.reverses_id) IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'a reversal cannot itself be reversed'); END;

    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
    CREATE TRIGGER events_no_replace BEFORE INSERT ON events
        WHEN EXISTS (SELECT 1 FROM events WHERE table_id = NEW.table_id AND seq = NEW.seq)
        BEGIN SELECT RAISE(ABORT, 'the event log is append-only: that event number is taken'); END;

    CREATE TRIGGER hands_no_rewrite BEFORE UPDATE ON hands
        WHEN OLD.reversed_at IS NOT NULL OR NEW.reversed_at IS NULL
             OR NEW.id IS NOT OLD.id OR NEW.guild IS NOT OLD.guild OR NEW.table_id IS NOT OLD.table_id
             OR NEW.hand_no IS NOT OLD.hand_no OR NEW.dealer IS NOT OLD.dealer OR NEW.seed_ref IS NOT OLD.seed_ref
             OR NEW.outcome IS NOT OLD.outcome OR NEW.winners IS NOT OLD.winners OR NEW.fan IS NOT OLD.fan
             OR NEW.patterns IS NOT OLD.patterns OR NEW.summary IS NOT OLD.summary
             OR NEW.created_at IS NOT OLD.created_at OR NEW.created_by IS NOT OLD.created_by
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never rewritten: only its reversal is noted, once'); END;
    CREATE TRIGGER hands_no_delete BEFORE DELETE ON hands
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never deleted: reverse it instead'); END;
    CREATE TRIGGER hands_no_replace BEFORE INSERT ON hands
        WHEN EXISTS (SELECT 1 FROM hands WHERE id = NEW.id)
             OR (NEW.table_id IS NOT NULL
                 AND EXISTS (SELECT 1 FROM hands WHERE table_id = NEW.table_id AND hand_no = NEW.hand_no))
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never replaced'); END;
    CREATE TRIGGER hand_seats_no_update BEFORE UPDATE ON hand_seats
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never rewritten'); END;
    CREATE TRIGGER hand_seats_no_delete BEFORE DELETE ON hand_seats
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never rewritten'); END;
    CREATE TRIGGER hand_seats_no_replace BEFORE INSERT ON hand_seats
        WHEN EXISTS (SELECT 1 FROM hand_seats WHERE hand_id = NEW.hand_id AND seat = NEW.seat)
        BEGIN SELECT RAISE(ABORT, 'a recorded hand is never rewritten'); END;
    """,
    # 4: every table that has dealt a hand keeps the reckoning it played under, rules edition 1
    # (kwx.engine.rules.RULES_EDITION): its log replays as it was played, and its sitting goes on as it began.
    # A table still in its lobby plays the current edition.
    """
    UPDATE tables SET rules = CASE json_type(rules)
            WHEN 'object' THEN json_set(rules, '$.edition', 1)
            ELSE json_object('preset', json_extract(rules, '$'), 'options', json_object(), 'edition', 1) END
        WHERE json_type(rules) IN ('object', 'text')
          AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    assert row is not None  # a PRAGMA read always returns its row
    return int(row[0])


async def migrate(conn: aiosqlite.Connection, migrations: list[str] | None = None) -> int:
    """Apply the missing migrations, each in its own transaction; return the resulting version.

    `conn` must be in autocommit mode (isolation_level=None) so the explicit BEGIN/COMMIT here are the only ones.
    """
    scripts = MIGRATIONS if migrations is None else migrations
    version = await schema_version(conn)
    if version > len(scripts):
        raise StoreError(f"database schema version {version} is newer than this program ({len(scripts)})")
    for number in range(version + 1, len(scripts) + 1):
        script = f"BEGIN IMMEDIATE;\n{scripts[number - 1]}\nPRAGMA user_version = {number};\nCOMMIT;"
        try:
            await conn.executescript(script)
        except sqlite3.Error:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
    return len(scripts)
