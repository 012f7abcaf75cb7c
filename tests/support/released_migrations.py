"""The migrations as released before the schema had one source (frozen: never edit).

A database made by an earlier kwx was built by exactly these scripts; tests/store/test_store_released.py checks
that today's migrations build the same schema as they do, step by step, on both backends."""

SQLITE: list[str] = [
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
    """
    UPDATE tables SET rules = CASE json_type(rules)
            WHEN 'object' THEN json_set(rules, '$.edition', 1)
            ELSE json_object('preset', json_extract(rules, '$'), 'options', json_object(), 'edition', 1) END
        WHERE json_type(rules) IN ('object', 'text')
          AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');
    """,
]

POSTGRESQL: list[str] = [
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
    CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION kwx_append_only('the event log is append-only');
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('the event log is append-only');

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
    CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION kwx_append_only('the ledger is append-only: reverse an entry instead');
    CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger_entries
        FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('the ledger is append-only: reverse an entry instead');

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
    CREATE TRIGGER hands_no_delete BEFORE DELETE ON hands
        FOR EACH ROW EXECUTE FUNCTION kwx_append_only('a recorded hand is never deleted: reverse it instead');
    CREATE TRIGGER hands_no_truncate BEFORE TRUNCATE ON hands
        FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('a recorded hand is never deleted: reverse it instead');
    CREATE TRIGGER hand_seats_no_rewrite BEFORE UPDATE OR DELETE ON hand_seats
        FOR EACH ROW EXECUTE FUNCTION kwx_append_only('a recorded hand is never rewritten');
    CREATE TRIGGER hand_seats_no_truncate BEFORE TRUNCATE ON hand_seats
        FOR EACH STATEMENT EXECUTE FUNCTION kwx_append_only('a recorded hand is never rewritten');
    """,
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
    """
    UPDATE tables SET rules = (CASE jsonb_typeof(rules::jsonb)
            WHEN 'object' THEN rules::jsonb || '{"edition": 1}'::jsonb
            ELSE jsonb_build_object('preset', rules::jsonb #>> '{}', 'options', '{}'::jsonb, 'edition', 1) END)::text
        WHERE jsonb_typeof(rules::jsonb) IN ('object', 'string')
          AND EXISTS (SELECT 1 FROM events WHERE events.table_id = tables.id AND events.kind = 'hand_start');
    """,
]
