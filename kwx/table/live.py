"""A table being played in this process: its record (kwx/table/record.py) and what running it needs.

The record is the replayed state, plain data; `LiveTable` adds the runtime the service's collaborators own: the
table's lock (every change to a table happens under it), its timers, the AI's due time, the outbox its
front-end calls go through, and what the board's hold after a discard has queued and shown (see
kwx/table/delivery.py). None of it is replayed: a restart builds a fresh runtime around the replayed record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from kwx.engine.rules import RuleSet
from kwx.table.outbox import Outbox
from kwx.table.ports import FrontEndCall
from kwx.table.record import TableRecord
from kwx.table.record_state import CLAIM_PAUSE
from kwx.table.views import PlayerRef, PrivateView, PublicView


class LiveTable(TableRecord):
    def __init__(self, table_id: int, guild: str, channel: str | None, rules: RuleSet, seed: str, host: str,
                 lobby: Iterable[PlayerRef] = (), spectators: Iterable[PlayerRef] = (), *,
                 turn_seconds: float = 30.0, claim_seconds: float = 12.0, claim_pause: float = CLAIM_PAUSE,
                 seed_salt: str | None = None) -> None:
        super().__init__(table_id, guild, channel, rules, seed, host, lobby, spectators, turn_seconds=turn_seconds,
                         claim_seconds=claim_seconds, claim_pause=claim_pause, seed_salt=seed_salt)
        self.lock = asyncio.Lock()
        self.timer: asyncio.TimerHandle | None = None  # the deadline, the next hand or the idle close
        self.ai_timer: asyncio.TimerHandle | None = None
        self.ai_at: float | None = None  # when the AI timer is due, by the service's clock
        self.outbox: Outbox | None = None
        # What each human seat's panel was last told (its key fields): an unchanged panel is not sent again.
        self.last_private: dict[str, tuple[Any, ...]] = {}
        self.delayed: list[tuple[float, FrontEndCall, tuple[Any, ...], dict[str, Any]]] = []  # calls due later
        self.flush_timer: asyncio.TimerHandle | None = None
        self.send_due: float | None = None  # while set, front-end calls go out no earlier than this
        # The views queued for the board and each player's panel, with when each shows (kwx/table/delivery.py):
        # what the front end shows now, while the pause hides the live state.
        self.told: dict[str, list[tuple[float, PublicView | PrivateView]]] = {}
