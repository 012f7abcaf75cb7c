"""A table's event log written by an earlier release replays: the log in tests/table/logs was captured from a
table played to its close (four hands of 漂 with 上楼, a human's own moves, timeouts, 托管 switched on and off,
a pause and a resume, a player leaving and another taking the seat, the host's stop) and is kept byte for byte.
Crash recovery must rebuild that table to the same scores, seats and step, however the record is written in
memory today."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kwx.store import EventRow, TableRow
from kwx.table.log_records import parse_record
from kwx.table.recovery import rebuild

LOGS = Path(__file__).parent / "logs"


def load(name: str) -> tuple[TableRow, list[EventRow], dict[str, Any]]:
    data = json.loads((LOGS / name).read_text(encoding="utf-8"))
    t, now = data["table"], datetime(2026, 12, 6, tzinfo=UTC)
    row = TableRow(t["id"], t["guild"], t["channel"], t["rules"], t["seats"], "closed", t["options"], now, now,
                   seed=t["seed"])
    events = [EventRow(row.id, e["seq"], e["hand_no"], e["kind"], e["payload"], now) for e in data["events"]]
    return row, events, data["after"]


def test_a_log_of_the_december_2026_format_replays_to_the_table_it_recorded():
    row, events, after = load("table_log_2026_12.json")
    assert {e.kind for e in events} == {"start", "piao_open", "piao", "hand_start", "action", "autoplay", "pause",
                                        "resume", "leave", "seat", "stop"}  # every kind of record
    t = rebuild(row, events)
    assert (t.status, t.step, t.seq, t.hands_done) == (after["status"], after["step"], after["seq"],
                                                       after["hands_done"])
    assert dict(t.scores) == after["scores"] and sum(t.scores.values()) == 0
    assert (t.host, list(t.vacant), list(t.player_ids)) == (after["host"], after["vacant"], after["player_ids"])
    assert list(t.biggest or ()) == after["biggest"]


def test_todays_records_are_written_in_the_form_the_old_log_holds():
    """Reading a record and writing it again gives the JSON the log holds: a log written now reads as before
    (`kwx verify`, the review page and people read it too)."""
    _, events, _ = load("table_log_2026_12.json")
    for e in events:
        assert parse_record(e.kind, e.payload).to_json() == e.payload, e


def test_a_malformed_record_is_refused_naming_the_field():
    row, events, _ = load("table_log_2026_12.json")
    bad = next(e for e in events if e.kind == "action")
    broken = EventRow(bad.table_id, bad.seq, bad.hand_no, "action", {**bad.payload, "verb": "steal"}, bad.created_at)
    with pytest.raises(ValueError, match=r"record \d+: the action record: 'verb' must be one of discard, .*'steal'"):
        rebuild(row, [e for e in events if e.seq < bad.seq] + [broken])
    with pytest.raises(ValueError, match="unknown event-log record 'shuffle'"):
        parse_record("shuffle", {})
