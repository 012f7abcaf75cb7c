"""How long the store's write transactions take, counted into histogram buckets.

The store only counts (a few integer additions per write); whoever reports it reads `WriteTimes` when asked
(kwx.metrics serves it as Prometheus' `kwx_store_write_seconds` histogram). A write is timed from asking for
the writer to its commit, which is what a table waits for.
"""

from __future__ import annotations

from bisect import bisect_left

# Upper bounds in seconds, as Prometheus' default buckets but finer below 10 ms, where a healthy store commits.
BUCKETS: tuple[float, ...] = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class WriteTimes:
    """A histogram of write durations: `counts[i]` writes took at most `BUCKETS[i]` and more than the bound
    before it; slower writes only count in `count` and `total`."""

    def __init__(self, buckets: tuple[float, ...] = BUCKETS) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.count = 0
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        i = bisect_left(self.buckets, seconds)
        if i < len(self.counts):
            self.counts[i] += 1

    def cumulative(self) -> list[tuple[float, int]]:
        """(upper bound, writes at most that long) for each bucket, ending with (inf, every write)."""
        out, running = [], 0
        for bound, n in zip(self.buckets, self.counts):
            running += n
            out.append((bound, running))
        out.append((float("inf"), self.count))
        return out
