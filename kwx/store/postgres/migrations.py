"""PostgreSQL schema migrations, numbered like the SQLite ones and kept in `kwx_schema(version)`.

The same tables and columns as kwx/store/migrations.py (timestamps, days and JSON stay TEXT in the same form,
money is BIGINT), so the shared SQL of the store runs on both. `MIGRATIONS[i - 1]` brings the schema from
version i-1 to i in one transaction; only ever append.

Append-only, enforced in the database: triggers refuse UPDATE, DELETE and TRUNCATE on `ledger_entries`,
`events`, `hands` (but noting a hand's reversal, once) and `hand_seats`; an upsert (INSERT … ON CONFLICT DO
UPDATE) on them is refused by the same UPDATE triggers; a second reversal of an entry (unique index) and the
reversal of a reversal (trigger) are refused.
Ids: `kwx_fill_id` fills a NULL id from the table's sequence and moves the sequence past an explicit id (a
restored export, a migrated database), so both forms of insert the store uses work.
"""

from __future__ import annotations


def append_only(table: str, message: str, *, name: str | None = None, rows: str = "UPDATE OR DELETE",
                row_trigger: str = "no_update") -> str:
    """The two triggers that make `table` append-only with `message`: `<name>_<row_trigger>` refuses `rows`
    row by row, `<name>_no_truncate` refuses TRUNCATE (`name` defaults to the table's)."""
    name = name or table
    return (f"CREATE TRIGGER {name}_{row_trigger} BEFORE {rows} ON {table}\n"
            f"        FOR EACH ROW EXECUTE FUNCTION kwx_append_only('{message}');\n"
            f"    CREATE TRIGGER {name}_no_truncate BEFORE TRUNCATE ON {table}\n"
            f"        FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('{message}');")


MIGRATIONS: list[str] = [
    # 1: initial schema (SQLite migration 1)
    """
    CREATE FUNCTION kwx_fill_id() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.id IS NULL THEN
            NEW.id := nextval(TG_ARGV[0]::regclass);
        ELSIF NEW.id > COALESCE(pg_sequence_last_value(TG_ARGV[0]::regclass), 0) THEN
            PERFORM setval(TG_ARGV[0]::regclass, NEW.id);
        END IF;
        RETURN NEW;
    END $$;

    CREATE FUNCTION kwx_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
    END $$;

    CREATE TABLE tables (
        id          BIGSERIAL PRIMARY KEY,
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
    CREATE TRIGGER tables_fill_id BEFORE INSERT ON tables FOR EACH ROW EXECUTE FUNCTION kwx_fill_id('tables_id_seq');

    CREATE TABLE events (
        table_id    BIGINT NOT NULL REFERENCES tables(id),
        seq         INTEGER NOT NULL,
        hand_no     INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        payload     TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    """ + append_only("events", "the event log is append-only") + """

    CREATE TABLE players (
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        name        TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (guild, player_id)
    );

    CREATE TABLE hands (
        id          BIGSERIAL PRIMARY KEY,
        guild       TEXT NOT NULL,
        table_id    BIGINT REFERENCES tables(id),
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
    CREATE TRIGGER hands_fill_id BEFORE INSERT ON hands FOR EACH ROW EXECUTE FUNCTION kwx_fill_id('hands_id_seq');

    CREATE TABLE hand_seats (
        hand_id     BIGINT NOT NULL REFERENCES hands(id),
        seat        INTEGER NOT NULL,
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        net         BIGINT NOT NULL,
        won         INTEGER NOT NULL,
        self_draw   INTEGER NOT NULL,
        dealt_in    INTEGER NOT NULL,
        fan         INTEGER NOT NULL,
        liangdao    INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat)
    );
    CREATE INDEX hand_seats_player ON hand_seats(guild, player_id, hand_id);

    CREATE TABLE ledger_entries (
        id          BIGSERIAL PRIMARY KEY,
        guild       TEXT NOT NULL,
        hand_id     BIGINT REFERENCES hands(id),
        from_player TEXT NOT NULL,
        to_player   TEXT NOT NULL,
        amount      BIGINT NOT NULL CHECK (amount > 0),
        reason      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        created_by  TEXT,
        note        TEXT,
        reverses_id BIGINT REFERENCES ledger_entries(id),
        period_day  TEXT NOT NULL,
        CHECK (from_player <> to_player)
    );
    CREATE INDEX ledger_guild ON ledger_entries(guild, id);
    CREATE INDEX ledger_from ON ledger_entries(guild, from_player, id);
    CREATE INDEX ledger_to ON ledger_entries(guild, to_player, id);
    CREATE INDEX ledger_hand ON ledger_entries(hand_id) WHERE hand_id IS NOT NULL;
    CREATE UNIQUE INDEX ledger_reversal ON ledger_entries(reverses_id) WHERE reverses_id IS NOT NULL;
    CREATE TRIGGER ledger_fill_id BEFORE INSERT ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION kwx_fill_id('ledger_entries_id_seq');
    """ + append_only("ledger_entries", "the ledger is append-only: reverse an entry instead", name="ledger") + """

    CREATE TABLE balances (
        guild       TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        balance     BIGINT NOT NULL DEFAULT 0,
        net         BIGINT NOT NULL DEFAULT 0,
        hands       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild, player_id)
    );

    CREATE TABLE daily_net (
        guild       TEXT NOT NULL,
        day         TEXT NOT NULL,
        player_id   TEXT NOT NULL,
        net         BIGINT NOT NULL DEFAULT 0,
        flow        BIGINT NOT NULL DEFAULT 0,
        hands       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild, day, player_id)
    );
    CREATE INDEX daily_net_player ON daily_net(guild, player_id, day);

    CREATE TABLE guilds (
        guild       TEXT PRIMARY KEY,
        hands       INTEGER NOT NULL DEFAULT 0,
        entries     BIGINT NOT NULL DEFAULT 0
    );
    """,
    # 2: per-server settings and the front end's messages of each table (SQLite migration 2)
    """
    CREATE TABLE guild_settings (
        guild       TEXT NOT NULL,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (guild, key)
    );

    CREATE TABLE message_refs (
        table_id    BIGINT NOT NULL REFERENCES tables(id),
        ref         TEXT NOT NULL,
        channel_id  TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        data        TEXT NOT NULL DEFAULT '{}',
        updated_at  TEXT NOT NULL,
        PRIMARY KEY (table_id, ref)
    );
    """,
    # 3: append-only in fact (SQLite migration 3). An upsert over a kept row is already refused by the UPDATE
    # triggers and a second reversal by the unique index; here: a reversal cannot itself be reversed, and a
    # recorded hand and its seats are never rewritten or deleted (only `hands.reversed_at` may go from NULL
    # to a time, once).
    """
    CREATE FUNCTION kwx_no_reversal_of_reversal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.reverses_id IS NOT NULL
           AND (SELECT reverses_id FROM ledger_entries WHERE id = NEW.reverses_id) IS NOT NULL THEN
            RAISE EXCEPTION 'a reversal cannot itself be reversed' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER ledger_no_reversal_of_reversal BEFORE INSERT ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION kwx_no_reversal_of_reversal();

    CREATE FUNCTION kwx_hand_reversed_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF OLD.reversed_at IS NOT NULL OR NEW.reversed_at IS NULL
           OR (to_jsonb(NEW) - 'reversed_at') IS DISTINCT FROM (to_jsonb(OLD) - 'reversed_at') THEN
            RAISE EXCEPTION 'a recorded hand is never rewritten: only its reversal is noted, once'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER hands_no_rewrite BEFORE UPDATE ON hands FOR EACH ROW EXECUTE FUNCTION kwx_hand_reversed_once();
    """ + append_only("hands", "a recorded hand is never deleted: reverse it instead", rows="DELETE",
                      row_trigger="no_delete") + """
    """ + append_only("hand_seats", "a recorded hand is never rewritten", row_trigger="no_rewrite") + """
    """,
    # 4: a cluster of bot processes (kwx.cluster): who owns which server's tables (a lease renewed while its
    # process lives; `epoch` grows with each new owner, a fencing token), and shared rate-limit buckets.
    """
    CREATE TABLE kwx_leases (
        resource    TEXT PRIMARY KEY,
        owner       TEXT NOT NULL,
        epoch       BIGINT NOT NULL DEFAULT 1,
        expires_at  TIMESTAMPTZ NOT NULL,
        acquired_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX kwx_leases_owner ON kwx_leases(owner);
    CREATE INDEX kwx_leases_expiry ON kwx_leases(expires_at);

    CREATE TABLE kwx_rate_buckets (
        name        TEXT PRIMARY KEY,
        tokens      DOUBLE PRECISION NOT NULL,
        updated_at  TIMESTAMPTZ NOT NULL
    );
    """,
    # 5: every table that has dealt a hand keeps the reckoning it played under, rules edition 1 (SQLite
    # migration 4).
    """
    UPDATE tables SET rules = (CASE jsonb_typeof(rules::jsonb)
            WHEN 'object' THEN rules::jsonb || '{"edition": 1}'::jsonb
            ELSE jsonb_build_object('preset', rules::jsonb #>> '{}', 'options', '{}'::jsonb, 'edition', 1) END)::text
        WHERE jsonb_typeof(rules::jsonb) IN ('object', 'string')
          AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)
