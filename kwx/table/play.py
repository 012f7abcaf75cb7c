"""Play: moves at a table — a player's press, a timeout, the AI's — checked, written, applied, shown.

An action is validated against the engine's legal actions (refusals are `TableError`s with a stable code),
written to the table's event log and committed (the durable writer), applied, and only then shown (delivery).

Choices where the rules are silent:
- 漂: before each hand (rules.piao set) a `piao` phase: every seat picks 0…max with act(…, "piao", amount=n);
  AI seats pick by their level (kwx.engine.piao), humans in 托管 and timeouts pick 0. Picks stay hidden
  until the deal. The phase has the turn deadline.
- Timeout moves: pass a claim (a missed win is 漏胡, as for any pass); on a turn discard the drawn tile, or
  the AI's discard when there is no drawn tile (after a 碰, the dealer's first turn) or it may not be discarded.
  A 亮倒 seat whose draw offers a win takes the win on timeout (its hand is public and locked anyway);
  otherwise it passes, which discards the draw. Two timeouts in a row put the player in 托管.
- 托管 ends with any action the player makes, or with set_autoplay(…, False); set_autoplay(…, True) turns it
  on by hand. Pressing during 托管 races the AI (after ai_delay): the first accepted action wins.
- A claim answer that the others cannot see yet (碰 while the other claimant still decides) produces no
  board update: the board only changes when the window resolves.
"""

from __future__ import annotations

import logging
import time

from kwx.engine.actions import VERBS, Action, IllegalAction
from kwx.engine.hand import CLAIM, ROB
from kwx.engine.tiles import Tile, TileError, parse_tile_arg
from kwx.table.context import TableContext, check_open
from kwx.table.delivery import Delivery
from kwx.table.errors import TableError
from kwx.table.live import LiveTable
from kwx.table.log_records import AutoplayRecord
from kwx.table.machine import timeout_move
from kwx.table.phases import BETWEEN, LOBBY, PIAO, PLAYING
from kwx.table.player_settings import AUTO_PASS, PlayerSettings
from kwx.table.presence import Presence
from kwx.table.scheduler import MachineMove, Scheduler
from kwx.table.writer import DurableWriter

logger = logging.getLogger(__name__)


class Play:
    def __init__(self, ctx: TableContext, delivery: Delivery, writer: DurableWriter, scheduler: Scheduler,
                 presence: Presence, settings: PlayerSettings) -> None:
        self._ctx = ctx
        self._settings = settings
        self._delivery = delivery
        self._writer = writer
        self._scheduler = scheduler
        self._presence = presence

    # == what players ask ================================================================================
    async def act(self, table_id: int, player_id: str, verb: str, tile: Tile | str | None = None,
                  step: int | None = None, *, amount: int | None = None) -> None:
        """One player's action (see TableService.act). Raises TableError, changing nothing, when refused."""
        received = time.perf_counter()
        t = self._ctx.table(table_id)
        self._scheduler.enter()
        try:
            await self._act_locked(t, player_id, verb, tile, step, amount, received)
        finally:
            self._scheduler.leave()

    async def _act_locked(self, t: LiveTable, player_id: str, verb: str, tile: Tile | str | None,
                          step: int | None, amount: int | None, received: float) -> None:
        async with t.lock:
            check_open(t)
            seat = _seat_for_action(t, player_id)
            if t.paused is not None:
                raise TableError("paused", "the table is paused: resume it first")
            _check_step(t, seat, step)
            if verb == "piao":
                if t.status != PIAO:
                    raise TableError("illegal", "there is no 漂 to choose now", reason="no_piao")
                maximum = t.rules.piao or 0
                if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= maximum:
                    raise TableError("illegal", f"漂 is a whole number from 0 to {maximum}", reason="piao_range",
                                     max=maximum)
                await self.apply_piao(t, seat, amount, "player", received)
            else:
                if t.status == PIAO:
                    raise TableError("illegal", "choose your 漂 first", reason="piao_first")
                t.hold.check_shown(self._ctx.clock())
                action = _validate(t, seat, verb, tile)
                await self.apply_action(t, action, "player", received)

    async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
        """A seated human switches 托管 on (the AI plays for them) or off."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if t.status == LOBBY:
                raise TableError("not_started", "the game has not started")
            seat = t.seat_of(player_id)
            if seat is None:
                raise TableError("not_seated", "you have no seat in this hand")
            if t.seat_player(seat).is_ai:
                return
            if (player_id in t.autoplay) != on:
                applied = await self._writer.commit(t, AutoplayRecord(player_id, on, self._ctx.clock()))
                self._delivery.show(t, applied)
            if not on and t.paused == "nobody":  # "I am back" resumes a table paused for want of players
                await self._presence.resume_locked(t, player_id)
            self._scheduler.arm(t)

    async def auto_pass(self, table_id: int, player_id: str, step: int | None) -> None:
        """Pass the claim offer the player has now, if it holds no win (auto-pass was just turned on)."""
        t = self._ctx.table(table_id)
        async with t.lock:
            seat = _seat_for_action(t, player_id)
            _check_step(t, seat, step)
            if t.paused is None and t.status == PLAYING and _passes(t, seat):
                await self.apply_action(t, Action(seat, "pass", None), "player", time.perf_counter())

    # == applying moves (with the table's lock held) =====================================================
    async def apply_action(self, t: LiveTable, action: Action, by: str, received: float) -> None:
        delivery = self._delivery
        try:
            frames = delivery.pause_frames(t, action)
            applied = await self._writer.commit(t, t.action_record(action, by, self._ctx.clock()))
            if frames:
                delivery.send_frames(t, applied, frames)
            with t.hold.sending_from(applied.show_at):
                delivery.show(t, applied)
                self._measured(received)
                if applied.finished:
                    self._ctx.stats.hands += 1
                    await self._presence.end_hand(t)
        finally:
            self._scheduler.arm(t)  # the table keeps its timers whatever happened to the write
        await self._auto_passes(t)

    async def _auto_passes(self, t: LiveTable) -> None:
        """Every human seat with auto-pass on passes a claim offer that holds no win at once (a seat in 托管 is
        played by the AI instead). The pass is the player's own standing answer, recorded as theirs."""
        if t.status != PLAYING or t.paused is not None:
            return
        for seat in t.to_act():
            player = t.seat_player(seat)
            if player.is_ai or player.player_id in t.autoplay or not _passes(t, seat):
                continue
            if await self._settings.get(t.guild, player.player_id, AUTO_PASS):
                self._ctx.stats.auto_passes += 1
                await self.apply_action(t, Action(seat, "pass", None), "player", time.perf_counter())
                return  # that pass ran the others' auto-passes already
    async def apply_piao(self, t: LiveTable, seat: int, amount: int, by: str, received: float) -> None:
        try:
            applied = await self._writer.commit(t, t.piao_record(seat, amount, by, self._ctx.clock()))
            self._delivery.show(t, applied, board=False)
            if len(t.piao_picks) == 3:
                await self._presence.deal(t)
            self._measured(received)
        finally:
            self._scheduler.arm(t)

    async def open_next_hand(self, t: LiveTable) -> None:
        try:
            applied = await self._writer.commit(t, t.next_hand_record(self._ctx.clock()))
            self._delivery.show(t, applied)
        finally:
            self._scheduler.arm(t)

    def _measured(self, received: float) -> None:
        stats = self._ctx.stats
        stats.actions += 1
        if stats.latencies is not None:
            stats.latencies.append(time.perf_counter() - received)

    # == what the timers run =============================================================================
    async def machine_moves(self, t: LiveTable, window: int, moves: list[MachineMove], received: float) -> None:
        """The AI's moves for the seats it plays, made for decision `window` (dropped once it has passed)."""
        async with t.lock:
            for m in moves:
                if t.window != window or t.status not in (PIAO, PLAYING) or m.seat not in t.to_act() or t.paused:
                    return
                if m.by == "auto" and t.seat_player(m.seat).player_id not in t.autoplay:
                    continue  # the player came back meanwhile
                if isinstance(m.move, int):
                    await self.apply_piao(t, m.seat, m.move, m.by, received)
                elif m.move in t.legal(m.seat):
                    await self.apply_action(t, m.move, m.by, received)

    async def on_deadline(self, table_id: int, window: int) -> None:
        """Decision `window`'s time ran out: every human who still has to answer makes the timeout move."""
        t = self._ctx.tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            if t.window != window or t.status not in (PIAO, PLAYING) or t.deadline is None:
                return
            deadline = self._scheduler.deadline(t)  # stretched for a prompt that came late
            if deadline is not None and self._ctx.clock() < deadline:  # the timer ran early: wait more
                self._scheduler.arm(t)
                return
            for seat in t.to_act():
                if t.window != window:
                    break
                if t.is_ai_seat(seat):
                    continue
                by = "auto" if t.seat_player(seat).player_id in t.autoplay else self._scheduler.timeout_by(t, seat)
                if by != "auto":
                    self._ctx.stats.timeouts[by] += 1
                    self._log_timeout(t, seat, by)
                move = timeout_move(t, seat)
                if isinstance(move, int):
                    await self.apply_piao(t, seat, move, by, time.perf_counter())
                else:
                    await self.apply_action(t, move, by, time.perf_counter())

    def _log_timeout(self, t: LiveTable, seat: int, by: str) -> None:
        """One line per human timeout, with how long the prompt was in front of the player (an operator tells
        a player's slowness from the bot's lag)."""
        reached = self._scheduler.reached_at(t, seat)
        shown = f"shown {self._ctx.clock() - reached:.1f} s before" if reached is not None else "never shown"
        started = t.wait_started
        logger.info("table %s: seat %d ran out of time at step %d (%s; prompt %s, decision open %.1f s)", t.id, seat,
                    t.step, by, shown, self._ctx.clock() - started if started is not None else -1.0)

    async def next_hand(self, table_id: int, step: int) -> None:
        t = self._ctx.tables.get(table_id)
        if t is None:
            return
        async with t.lock:
            if t.status != BETWEEN or t.step != step or not self._ctx.running or t.paused is not None:
                return
            await self.open_next_hand(t)


# == checks ==============================================================================================
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


def _passes(t: LiveTable, seat: int) -> bool:
    """The seat has a claim offer (碰, 杠 on a discard) that holds no win: what auto-pass passes."""
    hand = t.hand
    if hand is None or hand.phase not in (CLAIM, ROB) or seat not in t.to_act():
        return False
    verbs = {a.verb for a in t.legal(seat)}
    return "pass" in verbs and "hu" not in verbs


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
        raise TableError("illegal", str(exc)) from None  # the engine's English, for logs: players read the code
    raise TableError("illegal", f"you cannot {verb} now")  # pragma: no cover - clone agreed it was legal
