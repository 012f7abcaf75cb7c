"""The table service: every table's lobby, hands, timers, AI seats and 托管, over the store and a front end.

    service = TableService(store, frontend)          # frontend implements kwx.table.ports.FrontEnd
    await service.start()                             # rebuild the open tables from their event logs
    table = await service.open_table("guild", "channel", PlayerRef("42", "Ann"))
    await service.add_ai(table, by="42"); await service.add_ai(table, by="42")
    await service.start_game(table, by="42")
    await service.act(table, "42", "discard", Tile.P5, step=view.step)
    ...
    await service.shutdown()

One asyncio lock per table. An action is validated against the engine's legal actions (refusals are
`TableError`s with a stable code), written to the table's event log and committed (kwx.table.journal, group
commit), applied, and only then shown: views are built at once (kwx.table.viewbuild, the one place that hides
tiles) and queued to the front end per table (kwx.table.outbox), so a slow front end never holds a table.
Hands follow each other `between_hands` seconds apart until the table is stopped; dealer, 上楼 and rotation
come from the engine's TableState (kwx.table.succession), each hand's wall from the secret table seed.

Timers: one deadline per decision — turn_seconds for a turn and for the 漂 choice, claim_seconds for a claim
window — as unix times of the injected clock. When it passes, every human who still has to answer makes the
timeout move (`LiveTable.timeout_move`); two timeouts in a row put the player in 托管 until they act again.
AI seats (and humans in 托管) are played by one AI worker, `ai_delay` seconds after the decision opened. It
makes one decision at a time and none while `max_in_flight` actions are still being committed: decisions are
CPU work on the event loop, and every loop turn they take delays the commits in flight.

Choices where the brief is silent:
- 漂: before each hand (rules.piao set) a `piao` phase: every seat picks 0…max with act(…, "piao", amount=n);
  AI seats pick by their level (kwx.engine.piao), humans in 托管 and timeouts pick 0. Picks stay hidden
  until the deal. The phase has the turn deadline.
- Timeout moves: pass a claim (a missed win is 漏胡, as for any pass); on a turn discard the drawn tile, or
  the AI's discard when there is no drawn tile (after a 碰, the dealer's first turn) or it may not be discarded.
  A 亮倒 seat whose draw offers a win takes the win on timeout (its hand is public and locked anyway);
  otherwise it passes, which discards the draw.
- 托管 ends with any action the player makes, or with set_autoplay(…, False); set_autoplay(…, True) turns it
  on by hand. Pressing during 托管 races the AI (after ai_delay): the first accepted action wins.
- stop() abandons a hand in play: it never reaches the ledger, its kong money neither.
- Leaving a started game takes effect at the end of the hand in play (the AI plays the seat until then);
  the table then pauses until someone takes the seat (`join`, or the host's `add_ai`), and closes when no
  human is left.
- Presence (kwx/table/lifecycle.py): a hand in which a human was asked to decide but no human made
  a move of their own is the last one: the table pauses ("nobody") and makes no move and writes nothing
  until a seated player resumes it (`resume`, or `set_autoplay(…, False)`); a paused table closes after
  `idle_close_minutes`. A table with no human seat (a demo) closes after `demo_hands` hands (None: no limit,
  for a runner that stops by itself, like `--autoplay N`). Pause and resume are event-log records, so a
  restart keeps a table paused.
- A restart costs nobody anything: every open turn, claim and 漂 window gets a full fresh deadline on
  `start()`, and the board is told the table resumed.
- Closing (stop, idle, channel gone, everyone left) tells the front end the table's summary
  (`FrontEnd.table_closed`, optional): hands, each player's net here, the biggest hand, the fewest transfers
  that settle this table.
- A claim answer that the others cannot see yet (碰 while the other claimant still decides) produces no
  board update: the board only changes when the window resolves.
- No tell: at a table with a human, the board holds every discard and 补杠 for `claim_pause` seconds (1.5 by
  default; 0 for benchmarks and tests) whether or not anyone may claim it; the public board shows neither
  the claim deadline nor a count of claim answers (PublicView.step). See kwx/table/held.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import kwx.table.oplog as oplog
from kwx.engine.actions import VERBS, Action, IllegalAction
from kwx.engine.ai import AI_LEVELS
from kwx.engine.hand import CLAIM, ROB
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import Tile, TileError
from kwx.engine.wall import new_seed
from kwx.store import DuplicateEvent, EventRow, Store, TableRow, is_transient
from kwx.store.db import dump_json
from kwx.table.durable import RetryPolicy, StoreFailed, write_durably
from kwx.table.errors import SavingFailed, TableError
from kwx.table.held import HeldBoard
from kwx.table.journal import Journal
from kwx.table.lifecycle import Lifecycle
from kwx.table.live import CLAIM_PAUSE, Applied, LiveTable, parse_tile_arg
from kwx.table.outbox import Outbox
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING
from kwx.table.ports import FrontEnd
from kwx.table.recovery import rebuild
from kwx.table.viewbuild import private_view, public_events, public_view, result_view
from kwx.table.views import (
    PlayerRef,
    PrivateView,
    PublicView,
    ResultView,
)

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

__all__ = ["TableError", "TableService", "ServiceStats"]

STORE_RETRY = RetryPolicy()  # 0.1 s, doubling up to 5 s, for 2 minutes (bot.py reads KWX_STORE_RETRY_SECONDS)
IDLE_CLOSE_MINUTES = 30.0  # a paused table closes by itself after this long
DEMO_HANDS = 100  # a table with no human seat closes after this many hands


@dataclass
class ServiceStats:
    """Counters for benchmarks and health checks. `latencies`: seconds from an action's arrival to its
    record being committed and its front-end calls queued (kept only with record_latency=True)."""

    actions: int = 0
    hands: int = 0
    latencies: list[float] | None = None
    errors: int = 0
    store_retries: int = 0  # store writes tried again after a failure that may pass (kwx.store.is_transient)
    store_pauses: int = 0  # tables paused because a store write failed for good (kwx.table.durable)


@dataclass
class _Move:
    seat: int
    move: Action | int  # an action, or a 漂 amount
    by: str


class TableService(Lifecycle, HeldBoard):
    def __init__(self, store: Store, frontend: FrontEnd, *, ai_delay: float = 0.8, between_hands: float = 4.0,
                 clock: Callable[[], float] = time.time, group_commit: bool = True,
                 record_latency: bool = False, max_in_flight: int = 1,
                 idle_close_minutes: float = IDLE_CLOSE_MINUTES, demo_hands: int | None = DEMO_HANDS,
                 claim_pause: float = CLAIM_PAUSE, store_retry: RetryPolicy = STORE_RETRY) -> None:
        if claim_pause < 0:
            raise ValueError("claim_pause must be ≥ 0")
        self._store = store
        self.idle_close_minutes = idle_close_minutes
        self.demo_hands = demo_hands
        self._frontend = frontend
        self.ai_delay = ai_delay
        self.claim_pause = claim_pause  # the default of new tables (see LiveTable.pause_s)
        self.store_retry = store_retry  # how a failing store write is tried again, and for how long
        self.between_hands = between_hands
        self._clock = clock
        self._journal = Journal(store, group=group_commit)
        self._tables: dict[int, LiveTable] = {}
        self._outboxes: dict[int, Outbox] = {}  # also those of tables closed but still delivering
        self._closed: set[int] = set()
        self._open_lock = asyncio.Lock()
        self._ai_queue: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        self._ai_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Actions received but not yet committed and shown. The AI worker makes no new decision while there
        # are `max_in_flight` of them: its decisions are CPU work on this event loop, and each one would delay
        # every commit in flight (a commit needs several loop turns). 1 gives the lowest latency; more lets
        # the AI think while the database writes (benchmarks/tables.py measures both).
        self._max_in_flight = max(1, max_in_flight)
        self._in_flight = 0
        self._slot_free = asyncio.Event()
        self._running = True
        self._capturing: list[tuple[Any, ...]] | None = None  # _pause_frames collects front-end calls here
        self._store_down: set[int] = set()  # tables whose last store write failed and is being retried
        self.stats = ServiceStats(latencies=[] if record_latency else None)

    @property
    def journal(self) -> Journal:
        return self._journal

    @property
    def running(self) -> bool:
        """False once `shutdown` has begun (a health check reads it)."""
        return self._running

    # == start-up and shutdown ===========================================================================
    async def start(self, include: Callable[[TableRow], bool] | None = None) -> list[int]:
        """Rebuild every open table from its event log (same hand, same step), write a finished hand the
        ledger missed, show the current views again and re-arm the timers (a past deadline fires at once).
        `include` picks the tables this service runs (the terminal runs only its own; the Discord bot leaves
        the `local` ones alone). Returns the ids of the tables rebuilt; a table whose log cannot be replayed
        is logged and skipped."""
        self._running = True
        rebuilt: list[int] = []
        for row in await self._store.unfinished_tables():
            if row.id in self._tables or (include is not None and not include(row)):
                continue
            try:
                t = rebuild(row, await self._store.load_events(row.id))
            except Exception:
                logger.exception("table %s guild %s: cannot replay its event log; left closed in memory", row.id,
                                 row.guild)
                self.stats.errors += 1
                continue
            if t.status == CLOSED:  # its stop is in the log but its row was not closed (the store failed then)
                try:
                    await self._store.close_table(t.id)
                except Exception:
                    logger.exception("table %s: stopped, but its row cannot be closed yet", t.id)
                continue
            self._tables[t.id] = t
            rebuilt.append(t.id)
            oplog.rebuilt(t)
        for table_id in rebuilt:
            t = self._tables[table_id]
            async with t.lock:
                restarted = self._fresh_deadlines(t)
                self._show(t, Applied("resume", new_window=True), everyone=True)
                if restarted:
                    self._send(t, self._frontend.notice, t.id, "table.restarted")
                try:
                    if t.status == BETWEEN and t.hand is not None and t.hand.finished:
                        await self._end_hand(t, resumed=True)
                    elif t.status == PIAO and len(t.piao_picks) == 3 and t.paused is None:
                        await self._deal(t)  # the service stopped between the last pick and the deal
                except SavingFailed:
                    pass  # logged; the table is paused
                finally:
                    self._arm(t)
        return rebuilt

    async def shutdown(self) -> None:
        """Stop timers and the AI, let actions in flight commit, deliver queued front-end calls. Tables stay
        open in the store; `start()` on a new service picks them up."""
        self._running = False
        for t in self._tables.values():
            _cancel(t)
        if self._ai_task is not None:
            self._ai_task.cancel()
            await asyncio.gather(self._ai_task, return_exceptions=True)
            self._ai_task = None
        if self._tasks:
            _, pending = await asyncio.wait(list(self._tasks), timeout=5.0)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await self._journal.idle()
        for t in self._tables.values():
            self._flush_held(t, everything=True)
        for outbox in list(self._outboxes.values()):
            await outbox.close()
        self._outboxes.clear()
        self._in_flight = 0
        self._tables.clear()

    async def release(self, table_ids: Iterable[int]) -> list[int]:
        """Stop running these tables here, as `shutdown` does for all, without closing them: another process
        runs them now (a cluster lease this process lost). Nothing is written; a move in flight finishes and no
        timer, AI or player move follows it here. Returns the ids released."""
        released: list[int] = []
        for table_id in table_ids:
            t = self._tables.get(table_id)
            if t is None:
                continue
            async with t.lock:
                _cancel(t)
                t.paused = "released"  # an AI move already queued checks it, and gives up
                self._tables.pop(table_id, None)
            if t.outbox is not None:
                t.outbox.close_soon()
            released.append(table_id)
        return released

    async def flush(self) -> None:
        """Wait until the event log is written and every queued front-end call delivered (tests, tools)."""
        await self._journal.idle()
        for outbox in list(self._outboxes.values()):
            await outbox.drain()

    # == lobby ===========================================================================================
    async def open_table(self, guild: str, channel: str | None, host: PlayerRef, *, rules: RuleSet = STANDARD,
                         turn_seconds: float = 30, claim_seconds: float = 12, seed: str | None = None,
                         max_open: int | None = None, max_hosted: int | None = None,
                         claim_pause: float | None = None) -> int:
        """A new table with `host` seated; returns its id. One open table per channel; at most `max_open` open
        tables in the guild and `max_hosted` open tables hosted by `host` (anywhere), when given. A timer of 0
        seconds is no timer: the table waits for that decision (the terminal against two AI players).
        `claim_pause`: how long the board holds each discard (the service's default when None; see
        LiveTable.pause_s)."""
        if turn_seconds < 0 or claim_seconds < 0:
            raise ValueError("turn_seconds and claim_seconds must be positive, or 0 for no timer")
        claim_pause = self.claim_pause if claim_pause is None else claim_pause
        if claim_pause < 0:
            raise ValueError("claim_pause must be ≥ 0")
        async with self._open_lock:
            if channel is not None and self.table_in_channel(guild, channel) is not None:
                raise TableError("table_exists", "this channel already has an open table")
            self._check_caps(guild, host.player_id, max_open, max_hosted)
            # A seed a person chose may be guessed: its commitments are salted (kwx.engine.seeds).
            salt = new_seed() if seed else None
            seed = seed or new_seed()
            t = LiveTable(0, guild, channel, rules, seed, host.player_id, [host], turn_seconds=turn_seconds,
                          claim_seconds=claim_seconds, claim_pause=claim_pause, seed_salt=salt)
            t.id = await self._lobby_write("a new table", lambda: self._store.create_table(
                guild, rules=rules, seed=seed, seats=t.seats_json(), channel=channel, options=t.options_json()))
            self._tables[t.id] = t
        oplog.opened(t)
        self._show_lobby(t)
        return t.id

    async def join(self, table_id: int, player: PlayerRef) -> None:
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if t.vacant and t.status != LOBBY:
                await self._take_seat(t, player)
                return
            if t.in_lobby(player.player_id):
                raise TableError("already_seated", "you already have a seat at this table")
            if t.status != LOBBY:
                raise TableError("already_started", "the game has started: seats are taken")
            if len(t.lobby) >= t.capacity:
                raise TableError("table_full", "the table is full")
            spectators = dict(t.spectators)
            spectators.pop(player.player_id, None)
            await self._save_lobby(t, [*t.lobby, player], spectators)
            self._show_lobby(t, ("lobby.joined", {"player": player.name, "player_id": player.player_id}))

    async def leave(self, table_id: int, player_id: str) -> None:
        """Leave a seat or stop spectating. When the host leaves, the next human hosts; when no human is left,
        the table closes. In a started game the seat empties at the end of the hand in play (see
        `_leave_game`)."""
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if player_id in t.spectators and not t.in_lobby(player_id):
                spectators = {k: v for k, v in t.spectators.items() if k != player_id}
                await self._save_lobby(t, t.lobby, spectators)
                self._show_lobby(t)
                return
            if t.status != LOBBY:
                await self._leave_game(t, player_id)
                return
            if not t.in_lobby(player_id):
                raise TableError("not_seated", "you are not at this table")
            player = t.players[player_id]
            lobby = [p for p in t.lobby if p.player_id != player_id]
            humans = [p for p in lobby if not p.is_ai]
            if not humans:
                await self._close(t, player_id)
                return
            if t.host == player_id:
                t.host = humans[0].player_id
            await self._save_lobby(t, lobby, t.spectators)
            t.players.pop(player_id, None)
            self._show_lobby(t, ("lobby.left", {"player": player.name, "player_id": player_id}))

    async def add_ai(self, table_id: int, level: str = "standard", by: str | None = None) -> PlayerRef:
        """Seat an AI player (`by`, when given, must be the host). Its id is `ai:<level>:<n>`."""
        if level not in AI_LEVELS:
            raise TableError("illegal", f"unknown AI level {level!r}: choose one of {', '.join(AI_LEVELS)}")
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if by is not None and by != t.host:
                raise TableError("not_host", "only the host can add AI players")
            if t.vacant and t.status != LOBBY:
                return await self._take_seat(t, self._new_ai(t, level))
            if t.status != LOBBY:
                raise TableError("already_started", "the game has started: seats are taken")
            if len(t.lobby) >= t.capacity:
                raise TableError("table_full", "the table is full")
            player = self._new_ai(t, level)
            await self._save_lobby(t, [*t.lobby, player], t.spectators)
            self._show_lobby(t, ("lobby.ai_added", {"name": player.name, "player_id": player.player_id}))
            return player

    async def spectate(self, table_id: int, player: PlayerRef) -> None:
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if t.in_lobby(player.player_id):
                raise TableError("already_seated", "you have a seat at this table")
            if player.player_id not in t.spectators:
                await self._save_lobby(t, t.lobby, {**t.spectators, player.player_id: player})
                self._show_lobby(t)

    def spectators(self, table_id: int) -> list[PlayerRef]:
        """Who watches the table (front ends decide who gets the board)."""
        return list(self._table(table_id).spectators.values())

    async def start_game(self, table_id: int, by: str) -> None:
        """Deal hand 1 (or open its 漂 phase). Needs every seat filled: 3, or 4 with `rotation`."""
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if by != t.host:
                raise TableError("not_host", "only the host can start the game")
            if t.status != LOBBY:
                raise TableError("already_started", "the game has already started")
            if len(t.lobby) < t.capacity:
                raise TableError("need_players", f"{t.capacity} players are needed to start, "
                                                 f"{len(t.lobby)} are seated")
            applied = await self._commit(t, "start", t.start_record(by, self._clock()))
            oplog.started(t)
            self._show(t, applied)
            await self._open_next_hand(t)

    async def stop(self, table_id: int, by: str, *, force: bool = False, reason: str = "stopped") -> None:
        """Close the table. `by` must be the host unless `force` (the front end has checked that `by` is a
        manager). A hand in play is abandoned: it never reaches the ledger (its kong money neither).
        `reason` (kwx.table.live.CLOSE_REASONS) goes into the close summary."""
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if by != t.host and not force:
                raise TableError("not_host", "only the host (or a manager) can stop the table")
            await self._close(t, by, reason=reason)

    # == playing =========================================================================================
    async def act(self, table_id: int, player_id: str, verb: str, tile: Tile | str | None = None,
                  step: int | None = None, *, amount: int | None = None) -> None:
        """One player's action. `step`: the step of the view the player acted on (None: now); a press made
        for a decision that has passed is refused as `stale`, and so is a second press of the same step.
        Verbs: discard / liangdao (with a tile), gang (a tile on your turn, none on a discard), peng, hu, pass;
        and `piao` with `amount` in the 漂 phase. Raises TableError, changing nothing, when refused."""
        received = time.perf_counter()
        t = self._table(table_id)
        self._enter()
        try:
            await self._act_locked(t, player_id, verb, tile, step, amount, received)
        finally:
            self._leave()

    async def _act_locked(self, t: LiveTable, player_id: str, verb: str, tile: Tile | str | None,
                          step: int | None, amount: int | None, received: float) -> None:
        async with t.lock:
            self._check_open(t)
            seat = self._seat_for_action(t, player_id)
            if t.paused is not None:
                raise TableError("paused", "the table is paused: resume it first")
            self._check_step(t, seat, step)
            if verb == "piao":
                if t.status != PIAO:
                    raise TableError("illegal", "there is no 漂 to choose now", reason="no_piao")
                maximum = t.rules.piao or 0
                if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= maximum:
                    raise TableError("illegal", f"漂 is a whole number from 0 to {maximum}", reason="piao_range",
                                     max=maximum)
                await self._apply_piao(t, seat, amount, "player", received)
            else:
                if t.status == PIAO:
                    raise TableError("illegal", "choose your 漂 first", reason="piao_first")
                self._check_shown(t)
                action = self._validate(t, seat, verb, tile)
                await self._apply_action(t, action, "player", received)

    async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
        """A seated human switches 托管 on (the AI plays for them) or off."""
        t = self._table(table_id)
        async with t.lock:
            self._check_open(t)
            if t.status == LOBBY:
                raise TableError("not_started", "the game has not started")
            seat = t.seat_of(player_id)
            if seat is None:
                raise TableError("not_seated", "you have no seat in this hand")
            if t.seat_player(seat).is_ai:
                return
            if (player_id in t.autoplay) != on:
                applied = await self._commit(t, "autoplay", {"player_id": player_id, "on": on,
                                                             "at": self._clock()})
                self._show(t, applied)
            if not on and t.paused == "nobody":  # "I am back" resumes a table paused for want of players
                await self._resume(t, player_id)
            self._arm(t)

    async def tick(self) -> None:
        """Fire every deadline (and start every next hand) that is due by the injected clock now.
        The timers do this by themselves; tests with a fake clock call it after moving the clock."""
        for t in list(self._tables.values()):
            self._flush_held(t)
            if t.ai_timer is not None and t.ai_at is not None and self._clock() >= t.ai_at:
                t.ai_timer.cancel()
                t.ai_timer = None
                self._queue_ai(t.id, t.step)
            with contextlib.suppress(SavingFailed):  # logged; that table is paused, the others go on
                if t.paused is not None:
                    if self._clock() >= self._idle_due(t):
                        await self._idle_close(t.id, t.paused_at)
                elif t.status in (PIAO, PLAYING) and t.deadline is not None and self._clock() >= t.deadline:
                    await self._on_deadline(t.id, t.window)
                elif t.status == BETWEEN and self._clock() >= self._next_due(t):
                    await self._next_hand(t.id, t.step)

    # == reading =========================================================================================
    def public_view(self, table_id: int) -> PublicView:
        """The board as the front end shows it (during the pause after a discard, not yet what follows)."""
        return self._public_as_shown(self._table(table_id))

    def last_result(self, table_id: int) -> ResultView | None:
        """The result of the hand that just ended while the table is between hands (a front end that resumes
        there shows it rather than the finished board); None otherwise."""
        t = self._table(table_id)
        if t.status != BETWEEN or t.hand is None or not t.hand.finished or t.hand.result is None:
            return None
        return result_view(t)

    def private_view(self, table_id: int, player_id: str) -> PrivateView:
        t = self._table(table_id)
        seat = t.seat_of(player_id) if t.status != LOBBY else None
        if seat is None:
            raise TableError("not_seated", "you have no seat in this hand")
        return self._private_as_shown(t, seat)

    def table_in_channel(self, guild: str, channel: str) -> int | None:
        for t in self._tables.values():
            if t.guild == guild and t.channel == channel and t.status != CLOSED:
                return t.id
        return None

    def tables(self) -> list[int]:
        return sorted(self._tables)

    def rules(self, table_id: int) -> RuleSet:
        """The table's rules (front ends read `rules.piao` for the 漂 choices 0…max)."""
        return self._table(table_id).rules

    def host(self, table_id: int) -> str:
        """The host's player id."""
        return self._table(table_id).host

    # == internals: lookups and checks ===================================================================
    def _table(self, table_id: int) -> LiveTable:
        t = self._tables.get(table_id)
        if t is None:
            if table_id in self._closed:
                raise TableError("closed", f"table {table_id} is closed")
            raise TableError("no_table", f"there is no open table {table_id}")
        return t

    @staticmethod
    def _check_open(t: LiveTable) -> None:
        if t.status == CLOSED:
            raise TableError("closed", f"table {t.id} is closed")

    @staticmethod
    def _seat_for_action(t: LiveTable, player_id: str) -> int:
        if t.status == LOBBY:
            if t.in_lobby(player_id):
                raise TableError("not_started", "the game has not started")
            raise TableError("not_seated", "you are not seated at this table")
        seat = t.seat_of(player_id)
        if seat is None:
            if t.in_lobby(player_id):
                raise TableError("not_seated", "you sit out this hand (rotation)")
            raise TableError("not_seated", "you are not seated at this table")
        return seat

    @staticmethod
    def _check_step(t: LiveTable, seat: int, step: int | None) -> None:
        if step is not None and step > t.step:
            raise TableError("stale", f"step {step} has not happened (now {t.step})")
        if seat not in t.to_act():
            if step is not None and step < t.step:
                raise TableError("stale", "that decision has passed")
            if t.status == BETWEEN:
                raise TableError("not_your_turn", "the hand is over: the next one starts soon")
            raise TableError("not_your_turn", "nothing is asked of you now")
        if step is not None and step < t.prompt_step.get(seat, 0):
            raise TableError("stale", "that decision has passed")

    @staticmethod
    def _validate(t: LiveTable, seat: int, verb: str, tile: Tile | str | None) -> Action:
        if verb not in VERBS:
            raise TableError("illegal", f"unknown action {verb!r}: actions are {', '.join(VERBS)} (and piao)")
        try:
            parsed = parse_tile_arg(tile)
        except TileError as exc:
            raise TableError("bad_tile", str(exc)) from None
        hand = t.hand
        assert hand is not None
        pending = hand.pending
        if verb in ("peng", "hu", "pass"):
            parsed = None  # these never name a tile; a front end may pass the claimed tile along
        elif verb == "gang" and hand.phase in (CLAIM, ROB) and (parsed is None or
                                                               (pending is not None and parsed == pending[1])):
            parsed = None  # 直杠 names no tile
        action = Action(seat, verb, parsed)
        legal = t.legal(seat)
        if action in legal:
            return action
        same_verb = sorted({a.tile for a in legal if a.verb == verb and a.tile is not None})
        if same_verb:
            if parsed is None:
                raise TableError("bad_tile", f"{verb} needs a tile: one of {' '.join(map(str, same_verb))}",
                                 reason="choose", tiles=tuple(same_verb))
            raise TableError("bad_tile", f"you cannot {verb} {parsed} now; you may {verb} "
                                         f"{' '.join(map(str, same_verb))}", reason="choose", tiles=tuple(same_verb))
        try:
            hand.clone().apply(action)
        except IllegalAction as exc:
            raise TableError("illegal", str(exc)) from None
        raise TableError("illegal", f"you cannot {verb} now")  # pragma: no cover - clone agreed it was legal

    # == internals: applying records =====================================================================
    async def _commit(self, t: LiveTable, kind: str, payload: dict[str, Any]) -> Applied:
        """Write the record (committed) and then apply it. Call with `t.lock` held and the record valid."""
        hand_no = t.hand_no if kind not in ("piao_open", "hand_start") else int(payload["setup"]["hand_no"])

        async def write() -> None:
            if "at" in payload and self._store_failing(t):
                payload["at"] = self._clock()  # not written yet: the next decision's time counts from now
            try:
                await self._journal.append(t.id, t.seq + 1, hand_no, kind, payload)
            except DuplicateEvent:
                # A try reported failed may have committed (a connection lost as it committed): when the log
                # holds this very record, it is written, as the log holds it.
                stored = await self._store.load_events(t.id, after_seq=t.seq)
                if not stored or not _same_record(stored[0], kind, payload):
                    raise
                payload.clear()
                payload.update(stored[0].payload)

        try:
            await self._durably(t, f"event {t.seq + 1} ({kind})", write)
        except StoreFailed as failed:
            self._pause_for_store(t)
            raise SavingFailed("saving failed: the table is paused") from failed
        t.seq += 1
        return t.apply(kind, payload)

    async def _apply_action(self, t: LiveTable, action: Action, by: str, received: float) -> None:
        try:
            frames = self._pause_frames(t, action)
            applied = await self._commit(t, "action", t.action_record(action, by, self._clock()))
            if frames:
                self._send_frames(t, applied, frames)
            t.send_due = applied.show_at
            self._show(t, applied)
            self._measured(received)
            if applied.finished:
                self.stats.hands += 1
                await self._end_hand(t)
        finally:
            t.send_due = None
            self._arm(t)  # the table keeps its timers whatever happened to the write

    async def _apply_piao(self, t: LiveTable, seat: int, amount: int, by: str, received: float) -> None:
        try:
            applied = await self._commit(t, "piao", t.piao_record(seat, amount, by, self._clock()))
            self._show(t, applied, board=False)
            if len(t.piao_picks) == 3:
                await self._deal(t)
            self._measured(received)
        finally:
            self._arm(t)

    async def _deal(self, t: LiveTable) -> None:
        """Every 漂 is picked: the deal."""
        self._show(t, await self._commit(t, "hand_start", t.deal_record(self._clock())))

    async def _open_next_hand(self, t: LiveTable) -> None:
        try:
            kind, payload = t.next_hand_record(self._clock())
            applied = await self._commit(t, kind, payload)
            self._show(t, applied)
        finally:
            self._arm(t)

    async def _write_hand(self, t: LiveTable) -> bool | None:
        """Write the finished hand to the ledger (idempotent): True when this wrote it, False when it was
        there already (the crash came after the ledger write), None when the write failed for good: the table
        pauses, and the write is tried again when it is resumed (before the next hand)."""
        try:
            written = await self._durably(t, f"hand {t.hand_no} to the ledger",
                                          lambda: self._store.finish_hand(t.hand_record()))
        except StoreFailed:
            self._pause_for_store(t)
            return None
        t.ledger_done = True
        if written:
            oplog.hand_recorded(t, t.hand_record())
        return bool(written)

    async def _close(self, t: LiveTable, by: str, *, reason: str = "stopped",
                     before: Callable[[], None] | None = None) -> None:
        """`before`: a call to queue once the close is written, ahead of what shows it (a hand's result). A
        finished hand goes to the ledger first: a table whose ledger write fails stays open (paused)."""
        if t.status == BETWEEN and not t.ledger_done and await self._write_hand(t) is None:
            raise SavingFailed("saving failed: the table is paused")
        applied = await self._commit(t, "stop", {"by": by, "at": self._clock(), "reason": reason})
        await self._stopped(t, applied, reason, before)

    async def _stopped(self, t: LiveTable, applied: Applied, reason: str,
                       before: Callable[[], None] | None = None) -> None:
        """The stop is in the log: close the row, stop the timers, tell the front end, forget the table."""
        with contextlib.suppress(StoreFailed):  # logged; the stop is in the log: the next start closes the row
            await self._durably(t, "the closing of the table", lambda: self._store.close_table(t.id))
        oplog.closed(t, reason)
        if before is not None:
            before()
        _cancel(t)
        self._flush_held(t, everything=True)
        self._show(t, applied)
        if t.state is not None:  # a game was played: its summary
            self._send(t, self._frontend.table_closed, self._summary(t, reason))
        self._tables.pop(t.id, None)
        self._closed.add(t.id)
        if t.outbox is not None:
            t.outbox.close_soon()

    async def _save_lobby(self, t: LiveTable, lobby: list[PlayerRef], spectators: dict[str, PlayerRef]) -> None:
        """Persist the lobby (seats JSON + options) first, then change it in memory."""
        old = (t.lobby, t.spectators)
        t.lobby, t.spectators = list(lobby), dict(spectators)
        try:
            await self._lobby_write(f"the lobby of table {t.id}", lambda: self._store.update_table(
                t.id, seats=t.seats_json(), options=t.options_json()))
        except BaseException:
            t.lobby, t.spectators = old
            raise
        for p in lobby:
            t.players[p.player_id] = p

    # == internals: store failures ======================================================================
    async def _durably(self, t: LiveTable, what: str, write: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
        """Run a store write of table `t`, tried again for a bounded time while it fails in a way that may pass
        (kwx.table.durable). The players are told once that saving is being retried and once that it works
        again. Raises StoreFailed, logged, when it gives up: the caller pauses the table. Holds `t.lock`: the
        table waits, and what its timers fire waits for the write."""

        def retrying(exc: BaseException) -> None:
            self.stats.store_retries += 1
            if t.id not in self._store_down:
                self._store_down.add(t.id)
                logger.warning("table %s guild %s: writing %s failed (%r); retrying", t.id, t.guild, what, exc)
                self._put(t, self._frontend.notice, t.id, "event.store_retrying")

        try:
            result = await write_durably(write, self.store_retry, retrying=retrying, keep_going=lambda: self._running)
        except StoreFailed as failed:
            self._store_down.discard(t.id)
            self.stats.errors += 1
            if failed.outage:
                logger.error("table %s guild %s: writing %s still failed after %g s (%r); pausing the table", t.id,
                             t.guild, what, self.store_retry.give_up_after, failed.__cause__)
            else:
                logger.error("table %s guild %s: writing %s failed with an error that retrying cannot help; pausing "
                             "the table", t.id, t.guild, what, exc_info=failed.__cause__)
            raise
        if t.id in self._store_down:
            self._store_down.discard(t.id)
            logger.warning("table %s guild %s: writing %s worked again", t.id, t.guild, what)
            self._put(t, self._frontend.notice, t.id, "event.store_recovered")
        return result

    async def _lobby_write(self, what: str, write: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
        """A lobby write (a new table, who sits where) is tried once: the person who asked is refused and may
        ask again; nothing has moved."""
        try:
            return await write()
        except Exception as exc:
            if is_transient(exc):
                logger.warning("writing %s failed (%r)", what, exc)
            else:
                logger.exception("writing %s failed", what)
                self.stats.errors += 1
            raise SavingFailed("saving failed: try again") from exc

    def _store_failing(self, t: LiveTable) -> bool:
        return t.id in self._store_down

    # == internals: telling the front end ================================================================
    def _send(self, t: LiveTable, call: Callable[..., Coroutine[Any, Any, None]], *args: Any, **kwargs: Any) -> None:
        """Queue a front-end call: now, or (after a discard the board holds) when `t.send_due` comes; calls
        never overtake each other."""
        if self._capturing is not None:
            self._capturing.append((call, args, kwargs))
            return
        due, now = t.send_due, self._clock()
        if t.delayed or (due is not None and due > now):
            last = t.delayed[-1][0] if t.delayed else 0.0
            at = max(due or 0.0, last)
            t.delayed.append((at, call, args, kwargs))
            self._note_shown(t, call, args, at)
            self._arm_flush(t)
            return
        self._note_shown(t, call, args, now)
        self._put(t, call, *args, **kwargs)

    def _put(self, t: LiveTable, call: Callable[..., Coroutine[Any, Any, None]], *args: Any, **kwargs: Any) -> None:
        if t.outbox is None:
            t.outbox = self._outboxes[t.id] = Outbox(t.id, on_closed=lambda: self._outboxes.pop(t.id, None))
        t.outbox.put(call, *args, **kwargs)

    def _show_lobby(self, t: LiveTable, notice: tuple[str, dict[str, Any]] | None = None) -> None:
        self._send(t, self._frontend.board_changed, public_view(t))
        if notice is not None:
            self._send(t, self._frontend.notice, t.id, notice[0], **notice[1])

    def _show(self, t: LiveTable, applied: Applied, *, board: bool = True, everyone: bool = False) -> None:
        """Queue what the front end is told after `applied`: the board (with the public events), 亮倒
        reveals, notices, then each human seat's private view when it changed (prompt when newly asked)."""
        fe = self._frontend
        shown = public_events(applied.events)
        if board and (shown or applied.new_window or applied.notices or applied.kind != "action"):
            view = public_view(t, shown)
            self._send(t, fe.board_changed, view)
            for seat in applied.liangdao_seats:
                self._send(t, fe.liangdao_revealed, view, seat)
        for key, fmt in applied.notices:
            self._send(t, fe.notice, t.id, key, **fmt)
        if t.status not in (PIAO, PLAYING, BETWEEN) or t.setup is None:
            return
        for seat in range(3):
            player = t.seat_player(seat)
            if player.is_ai:
                continue
            view = private_view(t, seat)
            key = (view.hand_no, view.concealed, view.drawn, view.melds, view.choices, view.deadline, view.waits,
                   view.claim_tile, view.liangdao, view.autoplay)
            if not everyone and t.last_private.get(player.player_id) == key:
                continue
            t.last_private[player.player_id] = key
            prompt = bool(view.choices) and player.player_id not in t.autoplay and (
                everyone or t.prompt_step.get(seat) == t.step)
            self._send(t, fe.hand_changed, player, view, prompt=prompt)

    def _measured(self, received: float) -> None:
        self.stats.actions += 1
        if self.stats.latencies is not None:
            self.stats.latencies.append(time.perf_counter() - received)

    # == internals: timers and the AI ====================================================================
    def _next_due(self, t: LiveTable) -> float:
        assert t.finished_at is not None
        return t.finished_at if t.start_now else t.finished_at + self.between_hands

    def _arm(self, t: LiveTable) -> None:
        """Re-arm the table's timer and AI after a change (call with the lock held)."""
        _cancel(t)
        if not self._running or t.status in (LOBBY, CLOSED):
            return
        loop = asyncio.get_running_loop()
        if t.paused is not None:  # no move while paused: only the idle close
            t.timer = loop.call_later(max(0.0, self._idle_due(t) - self._clock()), self._spawn_later,
                                      self._idle_close, t.id, t.paused_at)
            return
        if t.status == BETWEEN:
            delay = self._next_due(t) - self._clock()
            t.timer = loop.call_later(max(0.0, delay), self._spawn_later, self._next_hand, t.id, t.step)
            return
        to_act = t.to_act()
        if any(t.machine_plays(s) for s in to_act):
            t.ai_at = self._ai_due(t)
            delay = t.ai_at - self._clock()
            if delay > 0:
                t.ai_timer = loop.call_later(delay, self._queue_ai, t.id, t.step)
            else:
                self._queue_ai(t.id, t.step)
        deadline = t.deadline
        if deadline is not None and any(not t.is_ai_seat(s) for s in to_act):
            t.timer = loop.call_later(max(0.0, deadline - self._clock()), self._spawn_later, self._on_deadline,
                                      t.id, t.window)

    def _spawn_later(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        self._spawn(fn(*args))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        if isinstance(exc, SavingFailed):
            return  # logged where the write failed; the table is paused
        self.stats.errors += 1
        logger.error("table task failed", exc_info=exc)

    def _enter(self) -> None:
        self._in_flight += 1

    def _leave(self) -> None:
        self._in_flight -= 1
        if self._in_flight < self._max_in_flight:
            self._slot_free.set()

    def _queue_ai(self, table_id: int, step: int) -> None:
        if not self._running:
            return
        self._ai_queue.put_nowait((table_id, step))
        if self._ai_task is None or self._ai_task.done():
            self._ai_task = asyncio.get_running_loop().create_task(self._ai_worker(), name="kwx-ai")

    async def _ai_worker(self) -> None:
        """One decision at a time, yielding between them (see the module docstring)."""
        while True:
            table_id, step = await self._ai_queue.get()
            t = self._tables.get(table_id)
            if t is None or t.step != step or t.status not in (PIAO, PLAYING) or t.paused is not None:
                continue
            try:
                moves = [_Move(*m) for m in t.machine_moves()]
            except Exception:
                logger.exception("table %s: the AI failed to choose", table_id)
                self.stats.errors += 1
                continue
            if moves:
                self._enter()
                self._spawn(self._submit_moves(t, t.window, moves, time.perf_counter()))
            await asyncio.sleep(0)
            while self._in_flight >= self._max_in_flight:
                self._slot_free.clear()
                await self._slot_free.wait()

    async def _submit_moves(self, t: LiveTable, window: int, moves: list[_Move], received: float) -> None:
        try:
            await self._submit_moves_locked(t, window, moves, received)
        finally:
            self._leave()

    async def _submit_moves_locked(self, t: LiveTable, window: int, moves: list[_Move], received: float) -> None:
        async with t.lock:
            for m in moves:
                if t.window != window or t.status not in (PIAO, PLAYING) or m.seat not in t.to_act() or t.paused:
                    return
                if m.by == "auto" and t.seat_player(m.seat).player_id not in t.autoplay:
                    continue  # the player came back meanwhile
                if isinstance(m.move, int):
                    await self._apply_piao(t, m.seat, m.move, m.by, received)
                elif m.move in t.legal(m.seat):
                    await self._apply_action(t, m.move, m.by, received)

    async def _on_deadline(self, table_id: int, window: int) -> None:
        t = self._tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            if t.window != window or t.status not in (PIAO, PLAYING) or t.deadline is None:
                return
            if self._clock() < t.deadline:  # the timer ran early by the injected clock: wait more
                self._arm(t)
                return
            for seat in t.to_act():
                if t.window != window:
                    break
                if t.is_ai_seat(seat):
                    continue
                by = "auto" if t.seat_player(seat).player_id in t.autoplay else "timeout"
                move = t.timeout_move(seat)
                if isinstance(move, int):
                    await self._apply_piao(t, seat, move, by, time.perf_counter())
                else:
                    await self._apply_action(t, move, by, time.perf_counter())

    async def _next_hand(self, table_id: int, step: int) -> None:
        t = self._tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            if t.status != BETWEEN or t.step != step or not self._running or t.paused is not None:
                return
            await self._open_next_hand(t)


def _cancel(t: LiveTable) -> None:
    for handle in (t.timer, t.ai_timer):
        if handle is not None:
            handle.cancel()
    t.timer = t.ai_timer = None


def _same_record(row: EventRow, kind: str, payload: dict[str, Any]) -> bool:
    """The stored record is this one (its time aside: a retried write carries a later one)."""
    mine = json.loads(dump_json(payload))
    return row.kind == kind and {**row.payload, "at": None} == {**mine, "at": None}
