"""What an operator of one kwx process watches, in Prometheus' text format (through prometheus_client).

    metrics = Metrics()                                   # a registry of its own (never the global one)
    metrics.watch(service=service, store=store, cluster=lambda: bot.cluster, backups=lambda: schedule)
    metrics.add(collector)                                # a front end's own metrics (cogs/telemetry.py: Discord)
    body = metrics.render()                               # bytes of CONTENT_TYPE; call it on the tables' loop

Everything is read when scraped, from counters the floors below keep anyway: the table service's
`ServiceStats` and open tables, the store's write-time histogram (kwx.store.timing), a cluster node's leases,
the backup schedule's last result. So the tables and the store know nothing of Prometheus, and a process with
no metrics port pays nothing. Render on the event loop that runs the tables (kwx.health does): the values are
then read where they are written, never halfway through a change.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST
RATE_WINDOW_S = 60.0  # actions per second: over about the last minute


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


class Metrics(Collector):
    """The process's registry, and the collector of everything that is not Discord's."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self._clock = clock
        self._started = clock()
        self._service: Callable[[], Any] = _constant(None)
        self._store: Callable[[], Any] = _constant(None)
        self._cluster: Callable[[], Any] = _constant(None)
        self._backups: Callable[[], Any] = _constant(None)
        self._actions: deque[tuple[float, int]] = deque()  # (when, actions so far) at recent scrapes
        self.loop_lag: float | None = None  # seconds the loop took to start the latest scrape (kwx.health)
        self.registry.register(self)

    def watch(self, *, service: Any = None, store: Any = None, cluster: Callable[[], Any] | None = None,
              backups: Callable[[], Any] | None = None) -> None:
        """What to read at each scrape: the TableService, the Store, and callables returning the cluster node
        and the BackupSchedule (None while there is none)."""
        if service is not None:
            self._service = _constant(service)
        if store is not None:
            self._store = _constant(store)
        if cluster is not None:
            self._cluster = cluster
        if backups is not None:
            self._backups = backups

    def add(self, collector: Collector) -> None:
        self.registry.register(collector)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    # -- the collector -------------------------------------------------------------------------------------
    def collect(self) -> Iterator[Metric]:
        yield from self._tables(self._service())
        yield from self._writes(self._store())
        yield from self._leases(self._cluster())
        yield from self._backups_done(self._backups())
        if self.loop_lag is not None:
            yield GaugeMetricFamily("kwx_event_loop_lag_seconds", "How long the event loop that runs the tables "
                                    "took to start the latest scrape (a busy or stuck loop shows here)",
                                    value=self.loop_lag)

    def _tables(self, service: Any) -> Iterator[Metric]:
        if service is None:
            return
        stats = service.stats
        yield GaugeMetricFamily("kwx_tables_open", "Tables this process runs", value=len(service.tables()))
        yield CounterMetricFamily("kwx_hands_finished", "Hands played to the end here", value=stats.hands)
        yield CounterMetricFamily("kwx_actions", "Moves accepted at the tables (players', AI seats', timeouts')",
                                  value=stats.actions)
        yield GaugeMetricFamily("kwx_actions_per_second", f"Moves per second over about the last "
                                f"{RATE_WINDOW_S:.0f} s", value=self._rate(stats.actions))
        yield CounterMetricFamily("kwx_table_errors", "Table tasks that failed (see the log)", value=stats.errors)
        yield CounterMetricFamily("kwx_store_retries", "Store writes the tables tried again after a failure that "
                                  "may pass", value=stats.store_retries)
        yield CounterMetricFamily("kwx_auto_passes", "Claim offers (碰, 杠) passed at once for a player who turned "
                                  "auto-pass on", value=stats.auto_passes)
        timeouts = CounterMetricFamily("kwx_turn_timeouts", "Human seats whose time ran out: by timeout (their "
                                       "own, counts toward 托管) or late (their prompt never reached them: the "
                                       "bot's lag, not counted)", labels=["by"])
        for by in ("timeout", "late"):
            timeouts.add_metric([by], stats.timeouts[by])
        yield timeouts

    def _rate(self, actions: int) -> float:
        now = self._clock()
        self._actions.append((now, actions))
        while len(self._actions) > 2 and now - self._actions[1][0] >= RATE_WINDOW_S:
            self._actions.popleft()
        since, before = self._actions[0] if len(self._actions) > 1 else (self._started, 0)
        return (actions - before) / (now - since) if now > since else 0.0

    @staticmethod
    def _writes(store: Any) -> Iterator[Metric]:
        times = getattr(store, "write_times", None)
        if times is None:
            return
        buckets = [("+Inf" if bound == float("inf") else repr(bound), n) for bound, n in times.cumulative()]
        yield HistogramMetricFamily("kwx_store_write_seconds", "Store write transactions, from asking for the "
                                    "writer to the commit (what a table waits for)", buckets=buckets,
                                    sum_value=times.total)

    @staticmethod
    def _leases(node: Any) -> Iterator[Metric]:
        if node is None:
            return
        yield GaugeMetricFamily("kwx_cluster_leases_held", "Servers whose tables this process owns by lease",
                                value=len(node.leases.held))
        yield CounterMetricFamily("kwx_cluster_takeovers", "Servers taken over from a process that stopped "
                                  "renewing its lease", value=len(node.taken_over))

    @staticmethod
    def _backups_done(schedule: Any) -> Iterator[Metric]:
        if schedule is None:
            return
        last = schedule.last
        if last is not None:
            yield GaugeMetricFamily("kwx_backup_last_success_timestamp_seconds", "When the latest scheduled backup "
                                    "was taken (unix time)", value=last.taken_at.timestamp())
            yield GaugeMetricFamily("kwx_backup_last_size_bytes", "Size of the latest scheduled backup",
                                    value=last.size)
        yield CounterMetricFamily("kwx_backup_failures", "Scheduled backups that failed", value=schedule.failures)
