"""Crash recovery: a table rebuilt from its tables row and its event log.

The tables row holds the lobby (seats JSON), the rules, the secret seed and the options (host, timers,
spectators); the log holds every game record. Replaying the records through `TableRecord.apply` (`replay`, a
pure function) gives the same state the table had when the last record was committed: same hand, same step,
same 漂 picks and 托管 flags, and deadlines computed from the times the records carry, so a deadline that
passed while the service was down fires as soon as the service re-arms it. What the replay cannot know — whether the ledger got the last
finished hand — the service settles by calling the idempotent `Store.finish_hand` again.
"""

from __future__ import annotations

from collections.abc import Iterable

from kwx.engine.rules import RuleSet
from kwx.store import EventRow, TableRow
from kwx.table.deal import FROM_SEED, Deal
from kwx.table.live import LiveTable
from kwx.table.lobby_row import options_from_json, seats_from_json
from kwx.table.log_records import ActionRecord, PiaoRecord, parse_record
from kwx.table.record import TableRecord


def rebuild(row: TableRow, events: list[EventRow], deal: Deal = FROM_SEED) -> LiveTable:
    """A LiveTable from its tables row (lobby, rules, options) and its event log, replayed in order (dealt as
    `deal` deals, as the table was)."""
    lobby, options = seats_from_json(row.seats), options_from_json(row.options)
    t = LiveTable(row.id, row.guild, row.channel, RuleSet.from_json(row.rules), row.seed,
                  options.host or (lobby[0].player_id if lobby else ""), lobby, options.spectators,
                  turn_seconds=options.turn_seconds, claim_seconds=options.claim_seconds,
                  claim_pause=options.claim_pause, seed_salt=options.seed_salt, deal=deal)
    replay(t, events)
    return t


def replay(record: TableRecord, events: Iterable[EventRow]) -> None:
    """Apply `events` to `record` in order: a pure function of the two (no clock, no I/O). Raises ValueError
    (or the engine's IllegalAction) on a log that does not fit the record."""
    for e in events:
        try:
            entry = parse_record(e.kind, e.payload)
        except ValueError as exc:
            raise ValueError(f"table {record.id}: record {e.seq}: {exc}") from None
        if isinstance(entry, ActionRecord | PiaoRecord) and entry.step != record.step:
            raise ValueError(f"table {record.id}: record {e.seq} was made at step {entry.step}, "
                             f"the replay is at step {record.step}")
        record.apply(entry)
        record.seq = e.seq
