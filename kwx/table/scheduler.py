"""The scheduler: each table's timers (its deadline, the next hand, the idle close, the board's hold) and
the one AI worker.

Timers: one deadline per decision — turn_seconds for a turn and for the 漂 choice, claim_seconds for a claim
window — as unix times of the injected clock, each armed on that clock's timers (kwx/table/clock.py: the event
loop's in play; a test's fake clock fires them when it is moved).

Nobody loses a turn to the bot's lag. A front end that can tell when a prompt reached its player (Discord: the
panel's edit or DM went through; `confirms_prompts`) says so through `TableService.prompt_delivered`, and the
scheduler holds each seat to its own time from then: a prompt that arrived late gets its whole time from its
arrival (the window's deadline is the latest of its seats'). A seat whose prompt has not arrived when the
deadline comes gets up to one more window's time while the bot catches up; if it is still not there, the
timeout move is made as "late" (`timeout_by`), which never counts toward 托管. A front end that does not confirm
(the terminal, which shows a prompt the moment it is told) keeps the plain deadline. AI seats (and humans in 托管) are played by one AI worker,
`ai_delay` seconds after the decision showed (a claim answer within the board's hold). It makes one decision
at a time and none while `max_in_flight` actions are still being committed: decisions are CPU work on the
event loop, and every loop turn they take delays the commits in flight.

The scheduler decides when; what happens then is its `Targets`' (play: a deadline's timeout moves, the next
hand, the AI's moves; presence: the idle close).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from kwx.engine.actions import Action
from kwx.engine.hand import CLAIM, ROB
from kwx.table.clock import timer_at
from kwx.table.context import TableContext
from kwx.table.errors import SavingFailed
from kwx.table.live import LiveTable
from kwx.table.machine import machine_moves
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING

logger = logging.getLogger(__name__)


@dataclass
class MachineMove:
    seat: int
    move: Action | int  # an action, or a 漂 amount
    by: str  # "ai" (an AI seat) or "auto" (the AI playing for a human in 托管)


@dataclass(frozen=True)
class Targets:
    """What the timers run (each takes the table id and what it was armed for, and checks it still holds)."""

    deadline: Callable[[int, int], Coroutine[Any, Any, None]]  # (table, window): the timeout moves
    next_hand: Callable[[int, int], Coroutine[Any, Any, None]]  # (table, step): open the next hand
    idle_close: Callable[[int, float | None], Coroutine[Any, Any, None]]  # (table, paused at): close it
    machine_moves: Callable[[LiveTable, int, list[MachineMove], float], Coroutine[Any, Any, None]]  # AI moves


# A prompt that reaches its player this soon after its decision opened is on time: no stretch (the claim pause
# and the usual round trip are already in the deadline).
ON_TIME_S = 1.0


class Scheduler:
    def __init__(self, ctx: TableContext, *, ai_delay: float, between_hands: float, idle_close_minutes: float,
                 max_in_flight: int, confirms_prompts: bool = False) -> None:
        self._ctx = ctx
        self.confirms_prompts = confirms_prompts
        # table -> (its window, seat -> when that seat's prompt reached the player, by the service's clock)
        self._reached: dict[int, tuple[int, dict[int, float]]] = {}
        self.ai_delay = ai_delay
        self.between_hands = between_hands
        self.idle_close_minutes = idle_close_minutes
        self._targets: Targets | None = None
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

    def route(self, targets: Targets) -> None:
        """Say what the timers run (once, when the service is put together)."""
        self._targets = targets

    @property
    def targets(self) -> Targets:
        assert self._targets is not None, "Scheduler.route was not called"
        return self._targets

    @property
    def busy(self) -> bool:
        """A timer's task runs or an AI decision is queued (tests wait for quiet)."""
        return bool(self._tasks) or not self._ai_queue.empty()

    # == when ============================================================================================
    def next_due(self, t: LiveTable) -> float:
        assert t.finished_at is not None
        return t.finished_at if t.start_now else t.finished_at + self.between_hands

    def idle_due(self, t: LiveTable) -> float:
        return (t.paused_at or self._ctx.clock()) + self.idle_close_minutes * 60

    def ai_due(self, t: LiveTable) -> float:
        """When the AI decides: `ai_delay` after the decision showed; a claim answer within the pause."""
        opened = t.wait_started if t.wait_started is not None else self._ctx.clock()
        due = opened + self.ai_delay
        hold = t.hold.until
        if hold is not None and t.hand is not None and t.hand.phase in (CLAIM, ROB):
            due = min(due, hold)
        return due

    # == a prompt's arrival ===============================================================================
    def prompt_delivered(self, t: LiveTable, seat: int, step: int) -> None:
        """The front end says `seat`'s prompt for `step` is in front of the player now."""
        if step != t.step or seat not in t.to_act() or t.wait_started is None:
            return  # an older prompt, or one already answered
        window, seats = self._reached.get(t.id, (t.window, {}))
        if window != t.window:
            seats = {}
        if seat in seats:
            return  # the same prompt shown again (an edit, the ephemeral panel): its time runs from the first
        seats[seat] = self._ctx.clock()
        self._reached[t.id] = (t.window, seats)
        if self._ctx.running and t.paused is None:
            self._arm_deadline(t)  # now, even during a move that armed the table already: its deadline moves

    def _waiting_humans(self, t: LiveTable) -> list[int]:
        return [s for s in t.to_act() if not t.is_ai_seat(s) and not t.machine_plays(s)]

    def deadline(self, t: LiveTable) -> float | None:
        """When the open decision times out: its deadline, stretched for each seat whose prompt came late
        (see the module docstring)."""
        base = t.deadline
        if base is None or t.wait_started is None:
            return base
        seconds = base - t.wait_started
        window, reached = self._reached.get(t.id, (-1, {}))
        if window != t.window:
            reached = {}
        due = base
        for seat in self._waiting_humans(t):
            at = reached.get(seat)
            if at is not None and at - t.wait_started > ON_TIME_S:
                due = max(due, at + seconds)
            elif at is None and self.confirms_prompts:
                due = max(due, base + seconds)  # not there yet: the bot is behind, the seat waits for it
        return due

    def reached_at(self, t: LiveTable, seat: int) -> float | None:
        """When the front end said the open decision's prompt reached `seat` (None: it has not said)."""
        window, reached = self._reached.get(t.id, (-1, {}))
        return reached.get(seat) if window == t.window else None

    def timeout_by(self, t: LiveTable, seat: int) -> str:
        """How a timed-out seat's move is recorded: "timeout" (counts toward 托管), or "late" when its prompt
        never reached the player (the bot's fault: it does not count)."""
        if not self.confirms_prompts:
            return "timeout"
        return "timeout" if self.reached_at(t, seat) is not None else "late"

    # == arming ==========================================================================================
    def arm(self, t: LiveTable) -> None:
        """Re-arm the table's timer and AI after a change (call with the lock held)."""
        self.cancel(t)
        if t.status in (LOBBY, CLOSED):
            self._reached.pop(t.id, None)
        if not self._ctx.running or t.status in (LOBBY, CLOSED):
            return
        clock, targets = self._ctx.clock, self.targets
        if t.paused is not None:  # no move while paused: only the idle close
            t.timer = timer_at(clock, self.idle_due(t), self._spawn_later, targets.idle_close, t.id, t.paused_at)
            return
        if t.status == BETWEEN:
            t.timer = timer_at(clock, self.next_due(t), self._spawn_later, targets.next_hand, t.id, t.step)
            return
        to_act = t.to_act()
        if any(t.machine_plays(s) for s in to_act):
            due = self.ai_due(t)
            if due > clock():
                t.ai_timer = clock.call_at(due, self.queue_ai, t.id, t.step)
            else:
                self.queue_ai(t.id, t.step)
        self._arm_deadline(t)

    def _arm_deadline(self, t: LiveTable) -> None:
        """Arm the open decision's deadline (when a human must answer it), in place of the one armed before. It
        fires for its window alone, and `Play.on_deadline` checks it is due, so arming it while a move is under
        way is safe: the move arms the table again when it is done."""
        if t.timer is not None:
            t.timer.cancel()
            t.timer = None
        deadline = self.deadline(t)
        if deadline is not None and any(not t.is_ai_seat(s) for s in t.to_act()):
            t.timer = timer_at(self._ctx.clock, deadline, self._spawn_later, self.targets.deadline, t.id, t.window)

    @staticmethod
    def cancel(t: LiveTable) -> None:
        for handle in (t.timer, t.ai_timer):
            if handle is not None:
                handle.cancel()
        t.timer = t.ai_timer = None

    # == tasks ===========================================================================================
    def _spawn_later(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        self.spawn(fn(*args))

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
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
        self._ctx.stats.errors += 1
        logger.error("table task failed", exc_info=exc)

    async def idle(self) -> None:
        """Wait until no timer's task runs and no AI decision is queued (the timers due now included)."""
        await asyncio.sleep(0)  # a timer due already runs soon on the loop: let it start its task
        while self.busy or self._in_flight:
            if self._tasks:
                await asyncio.wait(list(self._tasks))
            else:
                await asyncio.sleep(0.001)  # an action in flight waits on the store

    def enter(self) -> None:
        """An action arrived: it is in flight until `leave`."""
        self._in_flight += 1

    def leave(self) -> None:
        self._in_flight -= 1
        if self._in_flight < self._max_in_flight:
            self._slot_free.set()

    # == the AI worker ===================================================================================
    def queue_ai(self, table_id: int, step: int) -> None:
        if not self._ctx.running:
            return
        self._ai_queue.put_nowait((table_id, step))
        if self._ai_task is None or self._ai_task.done():
            self._ai_task = asyncio.get_running_loop().create_task(self._ai_worker(), name="kwx-ai")

    async def _ai_worker(self) -> None:
        """One decision at a time, yielding between them (see the module docstring)."""
        while True:
            table_id, step = await self._ai_queue.get()
            t = self._ctx.tables.get(table_id)
            if t is None or t.step != step or t.status not in (PIAO, PLAYING) or t.paused is not None:
                continue
            try:
                moves = [MachineMove(*m) for m in machine_moves(t, self._ctx.ai_policy)]
            except Exception:
                logger.exception("table %s: the AI failed to choose", table_id)
                self._ctx.stats.errors += 1
                continue
            if moves:
                self.enter()
                self.spawn(self._submit(t, t.window, moves, time.perf_counter()))
            await asyncio.sleep(0)
            while self._in_flight >= self._max_in_flight:
                self._slot_free.clear()
                await self._slot_free.wait()

    async def _submit(self, t: LiveTable, window: int, moves: list[MachineMove], received: float) -> None:
        try:
            await self.targets.machine_moves(t, window, moves, received)
        finally:
            self.leave()

    async def stop(self) -> None:
        """Stop every table's timers and the AI worker; let the tasks running finish (5 s at most)."""
        for t in self._ctx.tables.values():
            self.cancel(t)
        if self._ai_task is not None:
            self._ai_task.cancel()
            await asyncio.gather(self._ai_task, return_exceptions=True)
            self._ai_task = None
        if self._tasks:
            _, pending = await asyncio.wait(list(self._tasks), timeout=5.0)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def forget_in_flight(self) -> None:
        self._in_flight = 0
