"""A table that dealt hands under an older rules edition rebuilds from its event log after an upgrade exactly as
it was played (kwx.engine.rules.RULES_EDITION; the store pins such tables to their edition)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kwx.engine.rules import RuleSet
from kwx.store import EventRow, TableRow
from kwx.table.live import LiveTable
from kwx.table.log_records import LogRecord
from kwx.table.recovery import rebuild
from kwx.table.views import PlayerRef
from tests.support.hands import passive

LOBBY = [PlayerRef("a", "Ann"), PlayerRef("b", "Bo"), PlayerRef("c", "Cy")]
SEED = "edition-seed"
NOW = datetime(2025, 3, 5, 12, 0, tzinfo=UTC)


def drawn_hands(rules: RuleSet, hands: int) -> tuple[LiveTable, list[tuple[str, dict[str, Any]]]]:
    """A shiyan table whose every hand is played passively (draws discarded, claims passed): each ends in 荒庄."""
    t = LiveTable(1, "g", "c", rules, SEED, "a", LOBBY)
    log: list[tuple[str, dict[str, Any]]] = []

    def record(entry: LogRecord) -> None:
        log.append((entry.kind, entry.to_json()))
        t.apply(entry)

    record(t.start_record("a", 0.0))
    for _ in range(hands):
        record(t.next_hand_record(0.0))
        for seat in range(3):
            record(t.piao_record(seat, 0, "player", 0.0))
        record(t.deal_record(0.0))
        while t.to_act():
            assert t.hand is not None
            seat = t.to_act()[0]
            record(t.action_record(passive(t.hand, seat), "player", 0.0))
        assert t.hand is not None and t.hand.result is not None and t.hand.result.end == "huangzhuang"
    return t, log


def stored(rules_json: Any, log: list[tuple[str, dict[str, Any]]]) -> tuple[TableRow, list[EventRow]]:
    row = TableRow(1, "g", "c", rules_json, [{"player_id": p.player_id, "name": p.name} for p in LOBBY], "open",
                   {"host": "a"}, NOW, NOW, SEED)
    return row, [EventRow(1, seq, 0, kind, payload, NOW) for seq, (kind, payload) in enumerate(log, 1)]


def test_a_table_pinned_to_edition_1_rebuilds_its_climbing_hands() -> None:
    edition_1 = RuleSet.from_json({"preset": "shiyan", "options": {}, "edition": 1})
    played, log = drawn_hands(edition_1, 3)
    assert played.state is not None and played.next is not None
    history = played.state.history
    bases = [r.base for r in history]
    assert [r.base // (2 if r.dice[0] == r.dice[1] else 1) for r in history] == [1, 2, 4]  # edition 1 climbed
    row, events = stored(edition_1.to_json(), log)
    again = rebuild(row, events)
    assert again.state is not None
    assert [r.base for r in again.state.history] == bases
    assert [r.net for r in again.state.history] == [r.net for r in history]
    assert again.next == played.next


def test_the_same_log_read_as_the_current_edition_is_refused_not_replayed_differently() -> None:
    played, log = drawn_hands(RuleSet.from_json({"preset": "shiyan", "options": {}, "edition": 1}), 3)
    row, events = stored({"preset": "shiyan", "options": {}}, log)  # the pin missing
    with pytest.raises(ValueError, match="the log deals"):
        rebuild(row, events)
