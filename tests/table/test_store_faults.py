"""A failing store never freezes a table, and never loses or doubles a record.

Deny by default (kwx.store.faults): a failure that may pass (a locked or full database, a lost connection) is
tried again with backoff for a bounded time, then the table pauses; any other failure — a bug — pauses it at
once, its traceback in the log. Either way the players are told, and once the store works and someone
resumes, play goes on with every record written exactly once. Faults are injected at every write a table
makes (the new table, its lobby, its event log, the ledger, the closing), on both backends."""

from __future__ import annotations

import errno
import logging
import socket
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest

from kwx.engine.rules import RuleSet
from kwx.store import DuplicateEvent, Store, StoreBusy, StoreError, StoreUnavailable, is_transient
from kwx.store.postgres.conn import store_error as pg_store_error
from kwx.store.sqlite.conn import store_error as sqlite_store_error
from kwx.table import PlayerRef, TableError, TableService
from kwx.table.deal import Deal
from kwx.table.recovery import rebuild
from kwx.table.retry import RetryPolicy
from tests.support import backends
from tests.support.frontends import RecordingFrontEnd
from tests.support.hands import build_wall
from tests.support.tables import ANN_DEALS

BACKENDS = backends.BACKENDS  # these run on PostgreSQL too (tests/table/conftest.py)

GUILD = "g1"
ANN = PlayerRef("100", "Ann")
HOST = PlayerRef("ai:standard:9", "AI 9", "standard")
# The dealer holds a complete hand: 天胡 on the first action (with 漂 first: the shiyan preset).
WINNING_DEAL = ("123p456p789p123s55s", "44668899s5566z3p", "1122456789p117s")
WINNING = Deal.scripted(build_wall(*WINNING_DEAL), dealer=0)  # the deal of play_one_hand's table
WRITES = ("create_table", "update_table", "append_events_batch", "finish_hand", "close_table")
LOBBY = ("create_table", "update_table")  # a lobby write is tried once: the person who asked is refused
NOT_IN_PLAY = (*LOBBY, "event:start", "close_table")  # what fails here pauses no table
QUICK = RetryPolicy(0.001, 0.004, give_up_after=0.05)  # an outage outlasts this at once
PATIENT = RetryPolicy(0.001, 0.004, give_up_after=30.0)  # a blip never does


def coded(cls: type[sqlite3.Error], message: str, code: int) -> sqlite3.Error:
    """A SQLite error as the driver raises it, with its result code."""
    error = cls(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


def locked() -> Exception:
    """What the SQLite store raises when another writer holds the database."""
    return sqlite_store_error(coded(sqlite3.OperationalError, "database is locked", 5))


def connection_lost() -> Exception:
    """What the PostgreSQL store raises when its connection drops under a statement."""
    return pg_store_error(asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"))


@dataclass
class Fault:
    at: int  # the n-th write (counting WRITES calls from 1) fails (0: the `first` write of that name) …
    error: Exception
    times: int | None = None  # … and the writes after it, this many in all (None: until healed)
    landed: bool = False  # the write commits and then reports the error (a connection lost as it committed)
    first: str | None = None  # with at=0: a write's name, or event:<kind> for an event-log record


class FlakyStore:
    """The store, with one fault at one write point."""

    def __init__(self, store: Store, fault: Fault | None = None) -> None:
        self._store = store
        self.fault = fault
        self.writes = 0
        self.failed: list[str] = []  # the writes that failed: by name, an event-log record as event:<kind>
        self.failed_at: float | None = None  # when the first one did (time.monotonic)

    def heal(self) -> None:
        self.fault = None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name not in WRITES:
            return attr

        async def write(*args: Any, **kwargs: Any) -> Any:
            self.writes += 1
            what = f"event:{args[0][0][1].kind}" if name == "append_events_batch" else name
            f = self.fault
            if f is not None and f.at == 0 and what == f.first:
                f.at = self.writes
            if f is None or not f.at or self.writes < f.at or (f.times is not None and self.writes >= f.at + f.times):
                return await attr(*args, **kwargs)
            if f.landed and not self.failed:
                await attr(*args, **kwargs)
            self.failed.append(what)
            self.failed_at = self.failed_at or time.monotonic()
            raise f.error

        return write


@dataclass
class Played:
    flaky: FlakyStore
    fe: RecordingFrontEnd
    table: int
    svc: TableService

    def notices(self) -> list[str]:
        return [c.args[1] for c in self.fe.notices()]

    def store_pauses(self) -> list[float]:
        """When the front end was told of each pause for the store (time.monotonic)."""
        return [at for at, c in zip(self.fe.times, self.fe.calls) if c.method == "table_paused" and c.args[1] == "store"]


class TimedFrontEnd(RecordingFrontEnd):
    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    async def _record(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.times.append(time.monotonic())
        await super()._record(method, *args, **kwargs)


async def play_one_hand(store: Store, fault: Fault | None = None, *, policy: RetryPolicy = QUICK,
                        group_commit: bool = True) -> Played:
    """An AI table is opened, plays one hand of shiyan rules (漂 first) and is stopped, with `fault`. Whenever
    the table pauses for the store, or a command is refused for it, the store heals and play goes on (a
    paused table is resumed)."""
    flaky = FlakyStore(store, fault)
    fe = TimedFrontEnd()
    svc = TableService(flaky, fe, ai_delay=0, claim_pause=0, between_hands=3600,  # type: ignore[arg-type]
                       group_commit=group_commit, store_retry=policy, deal=WINNING)
    played = Played(flaky, fe, 0, svc)

    async def ask(call: Any, done: Any = lambda: False) -> Any:
        """A person's command: refused while the store fails (a table in play pauses, and is resumed); asked
        again once the store works, unless what it asked for is `done` (the table resumed into it)."""
        try:
            return await call()
        except TableError as err:
            assert err.code == "store_failed", err
            flaky.heal()
            await resume_if_paused()
            return None if done() else await call()

    async def resume_if_paused() -> None:
        if played.table and svc.public_view_as_shown(played.table).paused == "store":
            await svc.resume(played.table, "onlooker", force=True)

    try:
        played.table = await ask(lambda: svc.open_table(GUILD, None, HOST, rules=RuleSet.preset("shiyan"),
                                                        seed="faults"))
        await ask(lambda: svc.add_ai(played.table))
        await ask(lambda: svc.add_ai(played.table))
        await ask(lambda: svc.start_game(played.table, by=HOST.player_id),
                  done=lambda: svc.table_of(played.table).status != "lobby")
        while not fe.results(played.table):  # play, resuming the table whenever it pauses for the store
            await fe.wait_for(lambda: bool(fe.results(played.table)) or flaky.fault is not None and bool(
                played.store_pauses()), 20)
            if not fe.results(played.table):
                flaky.heal()
                await resume_if_paused()
        await ask(lambda: svc.stop(played.table, by=HOST.player_id), done=lambda: svc.table_of(played.table) is None)
        await svc.flush()
    finally:
        await svc.shutdown()
    return played


async def written(store: Store, table: int) -> tuple[Any, ...]:
    """What the store holds of a table: its log (times aside), its hands, their ledger lines, its status."""
    events = [(e.seq, e.kind, {k: v for k, v in e.payload.items() if k != "at"})
              for e in await store.load_events(table)]
    hands = await store.hand_numbers(table)
    entries = []
    for hand_no in hands:
        hand_id = await store.hand_id(table, hand_no)
        entries += sorted((e.from_player, e.to_player, e.amount, e.reason)
                          for e in await store.entries(GUILD, hand_id=hand_id, limit=None))
    return events, hands, entries, (await store.get_table(table)).status


@pytest.fixture
async def clean(store) -> tuple[Any, int]:
    """What a hand played without a fault writes, and how many writes it makes."""
    played = await play_one_hand(store)
    expected = await written(store, played.table)
    assert expected[1] == [1] and expected[2] and expected[3] == "closed"
    assert played.flaky.writes >= 10 and not played.notices().count("event.store_retrying")
    return expected, played.flaky.writes


async def closed_by_a_restart(store: Store, played: Played) -> None:
    """The table's stop is in its log; when its row could not be closed, the next start closes it."""
    if (await store.get_table(played.table)).status == "open":
        assert played.flaky.failed[-1] == "close_table"
        svc = TableService(store, RecordingFrontEnd(), ai_delay=0, claim_pause=0, deal=WINNING)
        try:
            assert await svc.start() == []  # nothing to resume: it was stopped
        finally:
            await svc.shutdown()


def transient_error(backend: str) -> Exception:
    return locked() if backend == "sqlite" else connection_lost()


async def test_a_blip_at_any_write_is_retried_and_written_once(store, clean, backend):
    expected, writes = clean
    for n in range(1, writes + 1):
        played = await play_one_hand(store, Fault(n, transient_error(backend), times=2), policy=PATIENT)
        failed = played.flaky.failed
        assert await written(store, played.table) == expected, f"write {n} ({failed[0]})"  # no gap, no double
        if failed[0] in LOBBY:  # refused at once (and asked again)
            assert len(failed) == 1, n
            continue
        assert len(failed) == 2 and played.store_pauses() == [], n
        keys = played.notices()
        assert keys.count("event.store_retrying") == 1 and keys.count("event.store_recovered") == 1, keys
        assert keys.index("event.store_retrying") < keys.index("event.store_recovered")


async def test_an_outage_at_any_write_is_retried_then_pauses_the_table_and_loses_nothing(store, clean, backend,
                                                                                          caplog):
    expected, writes = clean
    for n in range(1, writes + 1):
        caplog.clear()
        played = await play_one_hand(store, Fault(n, transient_error(backend)))
        failed = played.flaky.failed
        await closed_by_a_restart(store, played)
        assert await written(store, played.table) == expected, f"write {n} ({failed[0]})"  # no gap, no double
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        if failed[0] in LOBBY:  # nothing is in play: the command is refused at once, and asked again
            assert len(failed) == 1 and errors == [] and "event.store_retrying" not in played.notices(), n
            continue
        assert len(failed) > 2, n  # tried again, and again …
        assert len(errors) == 1 and "still failed after" in errors[0].getMessage(), (n, errors)
        assert played.notices().count("event.store_retrying") == 1, n
        if failed[0] not in NOT_IN_PLAY:  # (a table being closed closes anyway: its stop is written)
            assert len(played.store_pauses()) == 1 and "table.paused.store" in played.notices(), n


async def test_a_bug_at_any_write_pauses_the_table_at_once_with_its_traceback(store, clean, caplog):
    expected, writes = clean
    for n in range(1, writes + 1):
        caplog.clear()
        played = await play_one_hand(store, Fault(n, RuntimeError("a bug in the store path")), policy=PATIENT)
        failed = played.flaky.failed
        assert len(failed) == 1, (n, failed)  # never tried again
        await closed_by_a_restart(store, played)
        assert await written(store, played.table) == expected, f"write {n} ({failed[0]})"
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1 and errors[0].exc_info and errors[0].exc_info[0] is RuntimeError, (n, errors)
        assert "event.store_retrying" not in played.notices()
        if failed[0] not in NOT_IN_PLAY:
            (paused_at,) = played.store_pauses()
            assert paused_at - played.flaky.failed_at < 2.0  # within seconds, not after the retry time


async def test_a_write_that_committed_but_reported_failure_is_not_written_twice(store, clean, backend):
    """A connection lost as the write committed: the write is tried again (or the table pauses and is
    resumed) and the record is found in the log, not written a second time."""
    expected, writes = clean
    for n in range(1, writes + 1):
        for times in (1, None):  # a blip, then an outage (the table pauses; on resume it reads the log)
            played = await play_one_hand(store, Fault(n, transient_error(backend), times=times, landed=True),
                                         policy=PATIENT if times else QUICK)
            failed = played.flaky.failed
            if failed[0] == "create_table":
                continue  # its maker, refused, asks again: a second table (nothing marks the first as theirs)
            await closed_by_a_restart(store, played)
            assert await written(store, played.table) == expected, f"write {n} ({failed[0]}, {times})"


@pytest.mark.parametrize("group_commit", [True, False])
async def test_a_long_outage_in_the_middle_of_a_hand_within_the_retry_time(store, clean, group_commit, backend):
    expected, writes = clean
    for n in (5, writes // 2, writes - 2):  # the deal, mid-hand, the ledger (then the close)
        played = await play_one_hand(store, Fault(n, transient_error(backend), times=12), policy=PATIENT,
                                     group_commit=group_commit)
        assert len(played.flaky.failed) == 12 and played.store_pauses() == []
        assert await written(store, played.table) == expected
        replayed = rebuild(await store.get_table(played.table), await store.load_events(played.table), WINNING)
        assert replayed.status == "closed" and replayed.hand_no == 1  # the log replays to the same table


def test_which_failures_may_pass() -> None:
    """Each backend raises kwx's own errors for its driver's; is_transient decides from those alone."""
    def sqlite_error(sql: str) -> sqlite3.Error:
        db = sqlite3.connect(":memory:")
        with pytest.raises(sqlite3.Error) as info:
            db.execute(sql)
        return info.value

    sqlite_transient = [
        coded(sqlite3.OperationalError, "database is locked", 5),
        coded(sqlite3.OperationalError, "database table is locked", 6),
        coded(sqlite3.OperationalError, "database or disk is full", 13),
        coded(sqlite3.OperationalError, "disk I/O error", 10 | 3 << 8),  # SQLITE_IOERR_WRITE
    ]
    pg_transient = [
        asyncpg.ConnectionDoesNotExistError("x"), asyncpg.ConnectionFailureError("x"),
        asyncpg.CannotConnectNowError("starting up"), asyncpg.AdminShutdownError("x"), asyncpg.CrashShutdownError("x"),
        asyncpg.TooManyConnectionsError("x"), asyncpg.DiskFullError("x"), asyncpg.OutOfMemoryError("x"),
        asyncpg.SerializationError("x"), asyncpg.DeadlockDetectedError("x"), asyncpg.LockNotAvailableError("x"),
        ConnectionRefusedError(errno.ECONNREFUSED, "refused"), TimeoutError(),
    ]
    transient = [
        *map(sqlite_store_error, sqlite_transient), *map(pg_store_error, pg_transient),
        ConnectionRefusedError(errno.ECONNREFUSED, "refused"), ConnectionResetError(), BrokenPipeError(),
        TimeoutError(), socket.gaierror(socket.EAI_AGAIN, "temporary failure in name resolution"),
        OSError(errno.ENOSPC, "No space left on device"), OSError(errno.EIO, "Input/output error"),
        StoreUnavailable("down for maintenance"), StoreBusy("locked"),
    ]
    sqlite_permanent = [
        sqlite_error("SELECT * FROM no_such_table"), sqlite_error("SELEC 1"),
        coded(sqlite3.IntegrityError, "UNIQUE constraint failed", 2067), coded(sqlite3.DatabaseError, "malformed", 11),
        sqlite3.InterfaceError("bad parameter"), sqlite3.ProgrammingError("closed database"),
    ]
    pg_permanent = [
        asyncpg.UniqueViolationError("x"), asyncpg.UndefinedTableError("x"), asyncpg.DataError("x"),
        asyncpg.InternalServerError("x"), asyncpg.QueryCanceledError("x"), asyncpg.InterfaceError("x"),
    ]
    permanent = [
        *map(sqlite_store_error, sqlite_permanent), *map(pg_store_error, pg_permanent),
        RuntimeError("a bug"), ZeroDivisionError("division by zero"), RecursionError(), KeyError("seat"),
        ValueError("an inconsistent hand"), TypeError(), AssertionError(), NotImplementedError(),
        DuplicateEvent("seq 7 is taken"), PermissionError(errno.EACCES, "denied"),
        FileNotFoundError(errno.ENOENT, "gone"), OSError(errno.EINVAL, "invalid"),
        *sqlite_transient, *pg_transient[:-2],  # a driver's error that no backend translated is a bug
    ]
    assert all(isinstance(e, StoreError) for e in map(sqlite_store_error, sqlite_transient + sqlite_permanent))
    assert [e for e in transient if not is_transient(e)] == []
    assert [e for e in permanent if is_transient(e)] == []


async def test_a_press_that_committed_before_the_outage_is_not_asked_again(make_service, frontend, script, clock,
                                                                          store, backend):
    """Ann's discard reached the log, but the store reported it failed and then stayed down: the table
    paused. Resumed, it reads the log: her discard stands (she is not asked to discard again, perhaps another
    tile, which the log could not take)."""
    script(*ANN_DEALS, dealer=0)
    flaky = FlakyStore(store)
    svc = make_service(store=flaky, clock=clock, ai_delay=60, store_retry=QUICK)
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    view = svc.private_view_as_shown(table, ANN.player_id)
    tile = next(c.tile for c in view.choices if c.verb == "discard")
    flaky.fault = Fault(flaky.writes + 1, transient_error(backend), landed=True)  # from now on, the store fails

    with pytest.raises(TableError) as refused:
        await svc.act(table, ANN.player_id, "discard", tile, step=view.step)
    assert refused.value.code == "store_failed" and svc.public_view_as_shown(table).paused == "store"
    flaky.heal()
    await svc.resume(table, ANN.player_id)
    await svc.flush()
    board = svc.public_view_as_shown(table)
    assert board.paused is None and board.seats[0].discards == (tile,)
    assert svc.private_view_as_shown(table, ANN.player_id).choices == ()  # her turn is over
    assert [e.kind for e in await flaky.load_events(table)].count("action") == 1


async def test_a_restart_after_a_failed_deal_deals(store):
    """The last 漂 was written but the deal was not (the store failed, the service stopped): the next start
    deals, and the hand is played to the end."""
    flaky = FlakyStore(store)
    fe = RecordingFrontEnd()
    svc = TableService(flaky, fe, ai_delay=0, claim_pause=0, between_hands=3600,  # type: ignore[arg-type]
                       store_retry=QUICK, deal=WINNING)
    try:
        table = await svc.open_table(GUILD, None, HOST, rules=RuleSet.preset("shiyan"), seed="faults")
        await svc.add_ai(table)
        await svc.add_ai(table)
        flaky.fault = Fault(flaky.writes + 6, RuntimeError("a bug"))  # start, piao_open, 3 picks: the deal
        await svc.start_game(table, by=HOST.player_id)
        await fe.wait_for(lambda: bool(fe.of("table_paused")), 20)
        assert flaky.failed == ["event:hand_start"] and svc.public_view_as_shown(table).paused == "store"
    finally:
        await svc.shutdown()
    assert [e.kind for e in await store.load_events(table)][-1] == "piao"

    fe = RecordingFrontEnd()
    again = TableService(store, fe, ai_delay=0, claim_pause=0, between_hands=3600, deal=WINNING)
    try:
        assert await again.start() == [table]
        await fe.wait_for(lambda: bool(fe.results(table)), 20)
    finally:
        await again.shutdown()
    assert await store.hand_numbers(table) == [1]


async def test_the_result_of_a_hand_is_told_when_the_pause_after_it_cannot_be_written(make_service, frontend,
                                                                                      script, store, backend):
    """Nobody played the hand (Ann let the AI play for her), so it ends in a pause for want of players; that
    record cannot be written. The hand is in the ledger: its result is told all the same, and the table pauses
    for the store instead. Ann resumes it, so nobody is missing: the next hand is dealt."""
    script(*WINNING_DEAL, dealer=0)
    flaky = FlakyStore(store, Fault(0, transient_error(backend), first="event:pause"))
    svc = make_service(store=flaky, store_retry=QUICK, between_hands=0)
    table = await svc.open_table(GUILD, "c1", ANN)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.add_ai(table, by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    await svc.set_autoplay(table, ANN.player_id, True)
    await frontend.wait_for(lambda: bool(frontend.of("table_paused")), 20)
    await svc.flush()
    assert flaky.failed[0] == "event:pause" and svc.public_view_as_shown(table).paused == "store"
    assert len(frontend.results(table)) == 1 and await flaky.hand_numbers(table) == [1]

    flaky.heal()
    await svc.resume(table, ANN.player_id)
    await frontend.wait_for(lambda: svc.public_view_as_shown(table).hand_no == 2, 20)
    assert "table.paused.nobody" not in [c.args[1] for c in frontend.notices()]


async def test_a_table_stopped_while_its_hand_is_not_in_the_ledger_writes_the_hand_first(make_service, frontend,
                                                                                          script, store):
    """The ledger write of a finished hand failed (the table paused for the store). Stopped before anyone
    resumes it, the table puts the hand in the ledger first, then closes: no hand played is lost. While the
    store still fails, the stop is refused and the table stays open."""
    script(*WINNING_DEAL, dealer=0)
    flaky = FlakyStore(store, Fault(0, locked(), first="finish_hand"))
    svc = make_service(store=flaky, store_retry=QUICK, between_hands=3600)
    table = await svc.open_table(GUILD, None, HOST)
    await svc.add_ai(table)
    await svc.add_ai(table)
    await svc.start_game(table, by=HOST.player_id)
    await frontend.wait_for(lambda: bool(frontend.of("table_paused")), 20)
    assert flaky.failed[0] == "finish_hand" and svc.public_view_as_shown(table).paused == "store"
    assert await store.hand_numbers(table) == []
    with pytest.raises(TableError) as refused:
        await svc.stop(table, HOST.player_id)
    assert refused.value.code == "store_failed" and table in svc.tables()
    flaky.heal()
    await svc.stop(table, HOST.player_id)
    await svc.flush()
    assert table not in svc.tables() and await store.hand_numbers(table) == [1]
    assert [e.kind for e in await store.load_events(table)][-1] == "stop"


async def test_a_close_that_landed_though_the_store_said_no_closes_the_table_on_resume(make_service, frontend,
                                                                                        script, store):
    """The server's channel went away; the stop record was written but the store reported a failure until the
    table paused. Resuming reads the record from the log: the table closes, for the reason it was closing."""
    script(*WINNING_DEAL, dealer=0)
    flaky = FlakyStore(store)
    svc = make_service(store=flaky, store_retry=QUICK, between_hands=3600)
    table = await svc.open_table(GUILD, "c1", HOST)
    await svc.add_ai(table)
    await svc.add_ai(table)
    await svc.start_game(table, by=HOST.player_id)
    await frontend.wait_for(lambda: bool(frontend.results(table)), 20)
    flaky.fault = Fault(0, locked(), landed=True, first="event:stop")
    assert await svc.close_where(GUILD, "c1") == []  # not closed here: paused for the store
    await svc.flush()
    assert svc.public_view_as_shown(table).paused == "store" and not frontend.of("table_closed")
    flaky.heal()
    await svc.resume(table, HOST.player_id, force=True)  # the table closes as it resumes
    await svc.flush()
    assert table not in svc.tables() and (await store.get_table(table)).status == "closed"
    assert [c.args[0].reason for c in frontend.of("table_closed")] == ["channel_gone"]
    assert frontend.notices("table.closed.channel_gone")


async def test_a_server_gone_closes_its_other_tables_when_one_cannot_be_closed(make_service, frontend, store):
    """The bot left a server with two tables; the first one's stop meets a store bug and that table pauses. The
    other one still closes: one table the store refused keeps no other table open."""
    flaky = FlakyStore(store)
    svc = make_service(store=flaky, store_retry=QUICK)
    stuck = await svc.open_table(GUILD, "c1", HOST)
    other = await svc.open_table(GUILD, "c2", HOST)
    flaky.fault = Fault(0, RuntimeError("a bug"), times=1, first="event:stop")
    assert await svc.close_where(GUILD) == [other]
    await svc.flush()
    assert stuck in svc.tables() and other not in svc.tables()
    assert flaky.failed == ["event:stop"]
