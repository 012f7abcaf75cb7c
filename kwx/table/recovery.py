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
from kwx.table.live import LiveTable
from kwx.table.log_records import ActionRecord, PiaoRecord, parse_record
from kwx.table.record import CLAIM_PAUSE, TableRecord
from kwx.table.views import PlayerRef


def rebuild(row: TableRow, events: list[EventRow]) -> LiveTable:
    """A LiveTable from its tables row (lobby, rules, options) and its event log, replayed in order."""
    options = row.options or {}
    lobby = [PlayerRef(s["player_id"], s["name"], s.get("ai_level")) for s in row.seats]
    spectators = [PlayerRef(s["player_id"], s["name"]) for s in options.get("spectators", ())]
    t = LiveTable(row.id, row.guild, row.channel, RuleSet.from_json(row.rules), row.seed,
                  options.get("host") or (lobby[0].player_id if lobby else ""), lobby, spectators,
                  turn_seconds=options.get("turn_seconds", 30.0), claim_seconds=options.get("claim_seconds", 12.0),
                  claim_pause=options.get("claim_pause", CLAIM_PAUSE), seed_salt=options.get("seed_salt"))
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
