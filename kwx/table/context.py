"""What the table service's collaborators share: the store, the front end, the clock, the open tables.

`TableService` (kwx/table/service.py) is a facade over collaborators with one job each — delivery (what the
front end is told, and when), the durable writer (the event log, the ledger, store failures), the scheduler
(deadlines, the AI worker, timers), presence (pause, resume, leave, close, summaries), play (moves) and the
lobby. They hold one `TableContext` between them instead of reaching into each other's private names.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kwx.store import Store
from kwx.table.clock import Clock
from kwx.table.deal import FROM_SEED, Deal
from kwx.table.errors import TableError
from kwx.table.journal import Journal
from kwx.table.live import LiveTable
from kwx.table.machine import ENGINE_AI, AiPolicy
from kwx.table.phases import CLOSED
from kwx.table.ports import FrontEnd


@dataclass
class ServiceStats:
    """Counters for benchmarks and health checks. `latencies`: seconds from an action's arrival to its
    record being committed and its front-end calls queued (kept only with record_latency=True)."""

    actions: int = 0
    hands: int = 0
    latencies: list[float] | None = None
    errors: int = 0
    store_retries: int = 0  # store writes tried again after a failure that may pass (kwx.store.is_transient)
    store_pauses: int = 0  # tables paused because a store write failed for good (kwx.table.retry)
    # Human seats timed out, by how the move was recorded: "timeout" (their own lapse, counts toward 托管) or
    # "late" (their prompt never reached them in time: the bot's lag, never counted)
    timeouts: Counter[str] = field(default_factory=Counter)
    auto_passes: int = 0  # claim offers passed at once for a player's auto-pass setting


@dataclass(eq=False)
class TableContext:
    """The service's shared state. `clock` gives unix times and the timers that wait on them (kwx/table/clock.py;
    injected: tests move a fake one); `deal` where each table's walls and first dealer come from (the seed; a test
    scripts them); `ai_policy` how the AI picks its seats' moves (kwx/table/machine.py; a test may script it)."""

    store: Store
    frontend: FrontEnd
    journal: Journal
    clock: Clock
    stats: ServiceStats
    deal: Deal = FROM_SEED
    ai_policy: AiPolicy = ENGINE_AI
    tables: dict[int, LiveTable] = field(default_factory=dict)  # the open tables run here
    closed: set[int] = field(default_factory=set)  # tables closed while this service ran
    running: bool = True  # False once shutdown has begun: no timer, AI move or retry starts

    def table(self, table_id: int) -> LiveTable:
        """An open table, or the refusal a player gets for it (`closed`, `no_table`)."""
        t = self.tables.get(table_id)
        if t is None:
            if table_id in self.closed:
                raise TableError("closed", f"table {table_id} is closed")
            raise TableError("no_table", f"there is no open table {table_id}")
        return t


def check_open(t: LiveTable) -> None:
    """Refuse anything at a table that closed while the caller waited for its lock."""
    if t.status == CLOSED:
        raise TableError("closed", f"table {t.id} is closed")
