"""What only one dialect writes in the migration history (kwx.store.schema): the append-only rules as each
database enforces them, PostgreSQL's id sequences and the cluster's tables, and a data change each dialect
writes in its own JSON functions. Released text: never edit, append.

The append-only rules, the same on both: the event log, the ledger and a recorded hand's seats refuse UPDATE
and DELETE (and PostgreSQL's TRUNCATE); a recorded hand refuses DELETE and every UPDATE but noting its
reversal, once; an entry is reversed at most once (the unique index `ledger_reversal`) and a reversal never.
SQLite also refuses an insert that would collide with a kept row, since `INSERT OR REPLACE` deletes the row it
collides with without firing delete triggers; on PostgreSQL an upsert over a kept row is refused by the
UPDATE triggers. PostgreSQL's `kwx_fill_id` fills a NULL id from the table's sequence and moves the sequence
past an explicit id (a restored export, a copied database), so both forms of insert the store uses work.
"""

from __future__ import annotations


def refuse(name: str, event: str, table: str, message: str, when: str = "") -> str:
    """A SQLite trigger that refuses `event` on `table` (when `when` holds) with `message`."""
    condition = f"\n    WHEN {when}" if when else ""
    return (f"CREATE TRIGGER {name} BEFORE {event} ON {table}{condition}\n"
            f"    BEGIN SELECT RAISE(ABORT, '{message}'); END;")


def append_only(table: str, message: str, *, name: str | None = None, rows: str = "UPDATE OR DELETE",
                row_trigger: str = "no_update") -> str:
    """The two PostgreSQL triggers that make `table` append-only with `message`: `<name>_<row_trigger>`
    refuses `rows` row by row, `<name>_no_truncate` refuses TRUNCATE (`name` defaults to the table's)."""
    name = name or table
    return (f"CREATE TRIGGER {name}_{row_trigger} BEFORE {rows} ON {table}\n"
            f"    FOR EACH ROW EXECUTE FUNCTION kwx_append_only('{message}');\n"
            f"CREATE TRIGGER {name}_no_truncate BEFORE TRUNCATE ON {table}\n"
            f"    FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('{message}');")


_EVENTS = "the event log is append-only"
_LEDGER = "the ledger is append-only: reverse an entry instead"
_HAND_REWRITTEN = "a recorded hand is never rewritten"
_HAND_ONCE = "a recorded hand is never rewritten: only its reversal is noted, once"
_HAND_DELETED = "a recorded hand is never deleted: reverse it instead"

# ------------------------------------------------------------------------------------------ version 1

SQLITE_1 = "\n".join([
    refuse("events_no_update", "UPDATE", "events", _EVENTS),
    refuse("ledger_no_update", "UPDATE", "ledger_entries", _LEDGER),
    refuse("ledger_no_delete", "DELETE", "ledger_entries", _LEDGER),
])

POSTGRESQL_FUNCTIONS = """CREATE FUNCTION kwx_fill_id() RETURNS trigger LANGUAGE plpgsql AS $$
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
    END $$;"""

POSTGRESQL_1 = "\n".join([append_only("events", _EVENTS), append_only("ledger_entries", _LEDGER, name="ledger")])

# ------------------------------------------------------------------------------------------ version 3


def sqlite_3(hand_columns: list[str]) -> str:
    """SQLite's version 3; a hand's columns (but `reversed_at`) are the ones its reversal may not change."""
    unchanged = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in hand_columns if c != "reversed_at")
    return "\n".join([
        refuse("ledger_no_replace", "INSERT", "ledger_entries",
               "the ledger is append-only: entry ids are never reused",
               "EXISTS (SELECT 1 FROM ledger_entries WHERE id = NEW.id)"),
        refuse("ledger_reversed_once", "INSERT", "ledger_entries",
               "the ledger is append-only: that entry was already reversed",
               "NEW.reverses_id IS NOT NULL AND EXISTS (SELECT 1 FROM ledger_entries WHERE reverses_id = NEW.reverses_id)"),
        refuse("ledger_no_reversal_of_reversal", "INSERT", "ledger_entries", "a reversal cannot itself be reversed",
               "NEW.reverses_id IS NOT NULL"
               " AND (SELECT reverses_id FROM ledger_entries WHERE id = NEW.reverses_id) IS NOT NULL"),
        refuse("events_no_delete", "DELETE", "events", _EVENTS),
        refuse("events_no_replace", "INSERT", "events", "the event log is append-only: that event number is taken",
               "EXISTS (SELECT 1 FROM events WHERE table_id = NEW.table_id AND seq = NEW.seq)"),
        refuse("hands_no_rewrite", "UPDATE", "hands", _HAND_ONCE,
               f"OLD.reversed_at IS NOT NULL OR NEW.reversed_at IS NULL OR {unchanged}"),
        refuse("hands_no_delete", "DELETE", "hands", _HAND_DELETED),
        refuse("hands_no_replace", "INSERT", "hands", "a recorded hand is never replaced",
               "EXISTS (SELECT 1 FROM hands WHERE id = NEW.id) OR (NEW.table_id IS NOT NULL"
               " AND EXISTS (SELECT 1 FROM hands WHERE table_id = NEW.table_id AND hand_no = NEW.hand_no))"),
        refuse("hand_seats_no_update", "UPDATE", "hand_seats", _HAND_REWRITTEN),
        refuse("hand_seats_no_delete", "DELETE", "hand_seats", _HAND_REWRITTEN),
        refuse("hand_seats_no_replace", "INSERT", "hand_seats", _HAND_REWRITTEN,
               "EXISTS (SELECT 1 FROM hand_seats WHERE hand_id = NEW.hand_id AND seat = NEW.seat)"),
    ])


POSTGRESQL_3 = """CREATE FUNCTION kwx_no_reversal_of_reversal() RETURNS trigger LANGUAGE plpgsql AS $$
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
""" + "\n".join([
    append_only("hands", _HAND_DELETED, rows="DELETE", row_trigger="no_delete"),
    append_only("hand_seats", _HAND_REWRITTEN, row_trigger="no_rewrite"),
])

# ------------------------------------------------------------------------------------------ version 4 (PostgreSQL)

# Who owns which server's tables (a lease renewed while its process lives; `epoch` grows with each new owner, a
# fencing token), and shared rate-limit buckets (kwx.cluster).
POSTGRESQL_CLUSTER = """CREATE TABLE kwx_leases (
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
);"""

# ------------------------------------------------------------------------------------------ rules edition 1

# Every table that has dealt a hand keeps the reckoning it played under, rules edition 1
# (kwx.engine.rules.RULES_EDITION): its log replays as it was played, and its sitting goes on as it began.
# A table still in its lobby plays the current edition.
SQLITE_EDITION_1 = """UPDATE tables SET rules = CASE json_type(rules)
        WHEN 'object' THEN json_set(rules, '$.edition', 1)
        ELSE json_object('preset', json_extract(rules, '$'), 'options', json_object(), 'edition', 1) END
    WHERE json_type(rules) IN ('object', 'text')
      AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');"""

POSTGRESQL_EDITION_1 = """UPDATE tables SET rules = (CASE jsonb_typeof(rules::jsonb)
        WHEN 'object' THEN rules::jsonb || '{"edition": 1}'::jsonb
        ELSE jsonb_build_object('preset', rules::jsonb #>> '{}', 'options', '{}'::jsonb, 'edition', 1) END)::text
    WHERE jsonb_typeof(rules::jsonb) IN ('object', 'string')
      AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');"""
