"""A table being played in this process: its record (kwx/table/record.py) and what running it needs.

The record is the replayed state, plain data; `LiveTable` adds the runtime the service's collaborators own: the
table's lock (every change to a table happens under it), its timers, the AI's due time and the outbox its
front-end calls go through. None of it is replayed: a restart builds a fresh runtime around the replayed record
(what the board's hold after a discard has held back and shown is the record's `ClaimPause`, whose run-time
part starts empty too: kwx/table/claim_pause.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from kwx.engine.rules import RuleSet
from kwx.table.clock import Timer
from kwx.table.deal import FROM_SEED, Deal
from kwx.table.outbox import Outbox
from kwx.table.record import TableRecord
from kwx.table.record_state import CLAIM_PAUSE
from kwx.table.views import PlayerRef


class LiveTable(TableRecord):
    def __init__(self, table_id: int, guild: str, channel: str | None, rules: RuleSet, seed: str, host: str,
                 lobby: Iterable[PlayerRef] = (), spectators: Iterable[PlayerRef] = (), *,
                 turn_seconds: float = 30.0, claim_seconds: float = 12.0, claim_pause: float = CLAIM_PAUSE,
                 seed_salt: str | None = None, deal: Deal = FROM_SEED) -> None:
        super().__init__(table_id, guild, channel, rules, seed, host, lobby, spectators, turn_seconds=turn_seconds,
                         claim_seconds=claim_seconds, claim_pause=claim_pause, seed_salt=seed_salt, deal=deal)
        self.lock = asyncio.Lock()
        self.timer: Timer | None = None  # the deadline, the next hand or the idle close
        self.ai_timer: Timer | None = None
        self.outbox: Outbox | None = None
        self.flush_timer: Timer | None = None  # sends the calls the claim pause holds back when due
