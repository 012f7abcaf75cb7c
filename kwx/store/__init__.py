"""kwx.store — persistence: tables and their event log, the per-server ledger, and its queries.

    store = await Store.open()            # $KWX_DB or data/kwx.sqlite3; WAL, foreign keys, migrations applied
    store = await Store.open("postgresql://…")   # or $KWX_DATABASE_URL: PostgreSQL (kwx.store.postgres), same API
    # Both backends serve one typed interface (kwx.store.connection); SQLite is kwx.store.sqlite.
    ...
    await store.close()                    # or: async with await Store.open(path) as store: ...

Ids: guild (server) and player ids are `str` ("local" is the terminal's guild; players like "local:you",
"ai:standard:1" or a Discord snowflake as text). Money is `int`. Times are aware UTC datetimes; every write takes
an optional `at=` (default: the store's clock, `Store.open(path, clock=...)`).

Tables and events (crash recovery; kwx.store.events)
    create_table(guild, *, rules, seed, seats, channel=None, options=None, at=None) -> int
    get_table(table_id) -> TableRow                       # .seed is secret and hidden from repr()
    update_table(table_id, *, seats=None, status=None, options=None, rules=…, channel=…, at=None) -> None
    close_table(table_id) -> None
    unfinished_tables(guild=None) -> list[TableRow]        # status 'open'
    append_event(table_id, hand_no, kind, payload=None, *, seq=None, at=None) -> int   # committed on return
    append_events(table_id, [NewEvent(hand_no, kind, payload, seq=None), ...]) -> list[int]
    load_events(table_id, *, after_seq=0) -> list[EventRow]  # in seq order

Money (kwx.store.ledger). Every write is one transaction that also updates the summary tables.
    finish_hand(LedgerHand) -> bool        # False when (table_id, hand_no) was already recorded: nothing changes
    record_manual_hand(LedgerHand) -> int  # a hand played in person (table_id None, created_by set)
    hand_id(table_id, hand_no) -> int | None
    hand_commitment(guild, table_id, hand_no) -> (hand id, seed_ref) | None
    hand_numbers(table_id) -> list[int]   # the table's recorded hand numbers, in order
    reverse_hand(guild, hand_id, by, why, *, at=None) -> list[int]   # returns its money, drops it from stats
    reverse_entry(guild, entry_id, by, why, *, at=None) -> int   # a standalone entry; a reversal is final
    record_settlement(guild, payer, payee, amount, by, note=None, *, at=None) -> int   # cash handed over
    transfer(guild, from_player, to_player, amount, by, note=None, *, at=None) -> int  # reason 'pay'
    set_player_name(guild, player_id, name) -> None
    import_entries(guild, Iterable[LedgerEntry]) -> int   # bulk path (CSV import, benchmarks)
    rebuild_summaries(guild=None) -> None                 # repair tool: recompute summaries from the ledger

Queries (kwx.store.queries); every one names the guild.
    balance(guild, player) -> BalanceRow(player, name, balance, hands)
    balances(guild) -> BalanceSheet(hands, rows: list[BalanceRow])
    leaderboard(guild, period='all'|'month'|'week', *, now=None, limit=None) -> list[LeaderRow]
    history(guild, player, *, limit=20, offset=0) -> list[HandHistory]       # newest first
    hand_money(guild, player, hand_ids) -> {hand id: {reason: + received / − paid}}
    player_stats(guild, player) -> PlayerStats;  stats(guild) -> list[PlayerStats]
    settle_up(guild) -> list[Transfer(from_player, to_player, amount)]      # at most n-1 transfers
    entries(guild, *, player=None, hand_id=None, limit=50, offset=0) -> list[LedgerEntry]   # newest first
    iter_entries(guild) -> AsyncIterator[LedgerEntry];  export_csv(guild, out) -> int
    balance_series(guild, player, *, by='entry'|'day') -> list[(datetime, running balance)]
    chart_series(guild, player, *, max_points=400) -> list[(hands played, datetime, balance)]   # bounded
    export_files(guild, directory, stem, *, max_bytes) -> Export(files, entries)   # gzip CSV, by month if big
Every query reads through its own connection (WAL), never waiting for the writer's lock.
    has_guild(guild) / has_player(guild, player) -> bool;  guild_ids() -> list[str];  player_name(guild, player)

Errors: ValueError (bad input: a hand whose money does not add up, a non-int amount), ReversalRefused (a
ValueError with .code 'already' | 'reversal' | 'hand': a correction the append-only ledger refuses), and the
store's own (kwx.store.errors, the same on both backends): NotFound (unknown table/hand/entry in that guild),
DuplicateEvent, IntegrityError (a rule of the schema refused a write; `.constraint`), StoreBusy /
StoreUnavailable (may pass), StoreError (newer schema, bad import; the base of them all).
`is_transient(exc)` tells a failure that may pass (busy, disk full, I/O, network) from a refusal
(kwx.store.faults).
"""

from kwx.store import postgres, sqlite  # noqa: F401  register the backends of Store.open
from kwx.store.csvio import entries_to_csv, parse_csv
from kwx.store.db import default_db_path
from kwx.store.errors import Constraint, IntegrityError, StoreBusy, StoreUnavailable
from kwx.store.faults import is_transient
from kwx.store.migrations import SCHEMA_VERSION
from kwx.store.models import (
    LEDGER_REASONS,
    PAY,
    PERIODS,
    PLAY_REASONS,
    SETTLEMENT,
    BalanceRow,
    BalanceSheet,
    DuplicateEvent,
    EventRow,
    HandHistory,
    LeaderRow,
    LedgerEntry,
    LedgerHand,
    LedgerPayment,
    NewEvent,
    NotFound,
    PlayerStats,
    ReversalRefused,
    SeatResult,
    StoreError,
    TableRow,
    Transfer,
    as_dict,
    payments_from_seats,
)
from kwx.store.settle import settle_up
from kwx.store.store import Store

__all__ = [
    "LEDGER_REASONS", "PAY", "PERIODS", "PLAY_REASONS", "SCHEMA_VERSION", "SETTLEMENT",
    "BalanceRow", "BalanceSheet", "DuplicateEvent", "EventRow", "HandHistory", "LeaderRow", "LedgerEntry",
    "LedgerHand", "LedgerPayment", "NewEvent", "NotFound", "PlayerStats", "ReversalRefused", "SeatResult", "Store",
    "StoreError", "StoreUnavailable", "is_transient", "Constraint", "IntegrityError", "StoreBusy",
    "TableRow", "Transfer", "as_dict", "default_db_path", "entries_to_csv", "parse_csv", "payments_from_seats",
    "settle_up",
]
