"""A store error never freezes a table: every write a moving table makes (its event log, the ledger at the
end of a hand, the closing) is tried again with backoff while it fails in a way that may pass; the players
are told, and once the store works again play goes on with every record written exactly once."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from kwx.engine.rules import RuleSet
from kwx.store import Store, StoreUnavailable, is_transient
from kwx.table import PlayerRef, TableService
from kwx.table.recovery import rebuild
from tests.table.fakes import RecordingFrontEnd

HOST = PlayerRef("ai:standard:9", "AI 9", "standard")
# The dealer holds a complete hand: 天胡 on the first action (with 漂 first: the shiyan preset).
WINNING_DEAL = ("123p456p789p123s55s", "44668899s5566z3p", "1122456789p117s")
WRITES = ("append_events_batch", "finish_hand", "close_table")


class FlakyStore:
    """The store, except that the `fail_at`-th write (counting WRITES calls from 1) and the `times - 1`
    writes after it raise what a locked database raises."""

    def __init__(self, store: Store, fail_at: int = 0, times: int = 1,
                 error: Exception | None = None) -> None:
        self._store = store
        self.fail_at, self.times = fail_at, times
        self.error = error or sqlite3.OperationalError("database is locked")
        self.writes = 0
        self.failed: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name not in WRITES:
            return attr

        async def write(*args: Any, **kwargs: Any) -> Any:
            self.writes += 1
            if self.fail_at and self.fail_at <= self.writes < self.fail_at + self.times:
                self.failed.append(name)
                raise self.error
            return await attr(*args, **kwargs)

        return write


async def play_one_hand(db_path, fail_at: int = 0, times: int = 1, *, group_commit: bool = True,
                        rules: RuleSet | None = None) -> tuple[FlakyStore, RecordingFrontEnd, int]:
    """An AI table plays one hand and is stopped, with the `fail_at`-th store write failing `times` times."""
    store = await Store.open(db_path)
    flaky = FlakyStore(store, fail_at, times)
    fe = RecordingFrontEnd()
    svc = TableService(flaky, fe, ai_delay=0, claim_pause=0, between_hands=3600, group_commit=group_commit,
                       store_retry=(0.001, 0.004))  # type: ignore[arg-type]
    try:
        table = await svc.open_table("g1", "c1", HOST, rules=rules or RuleSet.preset("standard"), seed="faults")
        await svc.add_ai(table)
        await svc.add_ai(table)
        await svc.start_game(table, by=HOST.player_id)
        await fe.wait_for(lambda: len(fe.results(table)) == 1, timeout=20)
        await svc.stop(table, by=HOST.player_id)
        await svc.flush()
    finally:
        await svc.shutdown()
        await store.close()
    return flaky, fe, table


def written(db_path, table: int) -> tuple[list[int], int, int, str]:
    with sqlite3.connect(db_path) as db:
        seqs = [r[0] for r in db.execute("SELECT seq FROM events WHERE table_id = ? ORDER BY seq", (table,))]
        hands = db.execute("SELECT count(*) FROM hands WHERE table_id = ?", (table,)).fetchone()[0]
        entries = db.execute("SELECT count(*) FROM ledger_entries e JOIN hands h ON e.hand_id = h.id "
                             "WHERE h.table_id = ?", (table,)).fetchone()[0]
        status = db.execute("SELECT status FROM tables WHERE id = ?", (table,)).fetchone()[0]
    return seqs, hands, entries, status


async def test_a_failure_at_every_write_of_a_hand_is_retried_and_written_once(tmp_path, script):
    script(*WINNING_DEAL, dealer=0)
    rules = RuleSet.preset("shiyan")  # 漂 picks and the deal are records too
    clean, fe, table = await play_one_hand(tmp_path / "clean.sqlite3", rules=rules)
    expected = written(tmp_path / "clean.sqlite3", table)
    assert expected[1] == 1 and expected[3] == "closed" and clean.writes >= 8
    for n in range(1, clean.writes + 1):
        db = tmp_path / f"fail-{n}.sqlite3"
        flaky, fe, table = await play_one_hand(db, n, times=2, rules=rules)
        assert flaky.failed, n
        assert written(db, table) == expected, f"write {n} ({flaky.failed[0]})"  # no gap, no duplicate
        keys = [c.args[1] for c in fe.notices()]
        assert keys.count("event.store_retrying") == 1 and keys.count("event.store_recovered") == 1, keys
        assert keys.index("event.store_retrying") < keys.index("event.store_recovered")


@pytest.mark.parametrize("group_commit", [True, False])
async def test_a_long_outage_in_the_middle_of_a_hand(tmp_path, group_commit):
    clean, _, table = await play_one_hand(tmp_path / "clean.sqlite3", group_commit=group_commit)
    expected = written(tmp_path / "clean.sqlite3", table)
    for n in (3, clean.writes // 2, clean.writes - 2):  # the deal, mid-hand, the ledger (then the close)
        db = tmp_path / f"{group_commit}-{n}.sqlite3"
        flaky, fe, table = await play_one_hand(db, n, times=12, group_commit=group_commit)
        assert len(flaky.failed) == 12
        assert written(db, table) == expected
        async with await Store.open(db) as store:  # the log replays to the same finished table
            replayed = rebuild(await store.get_table(table), await store.load_events(table))
        assert replayed.status == "closed" and replayed.hand_no == 1


def test_which_failures_may_pass() -> None:
    assert is_transient(sqlite3.OperationalError("database is locked"))
    assert is_transient(sqlite3.OperationalError("database or disk is full"))
    assert is_transient(sqlite3.OperationalError("disk I/O error"))
    assert is_transient(OSError(28, "No space left on device"))
    assert is_transient(StoreUnavailable("connection lost"))
    assert not is_transient(sqlite3.IntegrityError("UNIQUE constraint failed"))
    assert not is_transient(ValueError("an inconsistent hand"))

    class PgError(Exception):
        def __init__(self, sqlstate: str) -> None:
            self.sqlstate = sqlstate

    assert is_transient(PgError("53100"))  # disk full
    assert is_transient(PgError("40001"))  # serialization failure
    assert not is_transient(PgError("23505"))  # unique violation
