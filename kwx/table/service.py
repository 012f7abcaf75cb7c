"""The table service: every table's lobby, hands, timers, AI seats and 托管, over the store and a front end.

    service = TableService(store, frontend)          # frontend implements kwx.table.ports.FrontEnd
    await service.start()                             # rebuild the open tables from their event logs
    table = await service.open_table("guild", "channel", PlayerRef("42", "Ann"))
    await service.add_ai(table, by="42"); await service.add_ai(table, by="42")
    await service.start_game(table, by="42")
    await service.act(table, "42", "discard", Tile.P5, step=view.step)
    ...
    await service.shutdown()

`TableService` is a thin facade: its public methods are the whole API front ends, the command line and the
benchmarks use, and each is answered by one collaborator with one job (they share a `TableContext`):

    Lobby         kwx/table/lobby.py      open, join, leave, AI players, spectators, start, stop
    Play          kwx/table/play.py       a move checked, written, applied and shown; what timers fire
    Presence      kwx/table/presence.py   pause, resume, leaving a game, the end of a hand, closing, summaries
    DurableWriter kwx/table/writer.py     the event log and the ledger, retried; a store that fails pauses
    Scheduler     kwx/table/scheduler.py  deadlines, the next hand, the idle close, the AI worker
    Delivery      kwx/table/delivery.py   the front-end calls in order, the board's hold after a discard

One asyncio lock per table. A record is committed before it is applied, and applied before it is shown:
views are built at once (kwx.table.viewbuild, the one place that hides tiles) and queued to the front end per
table (kwx.table.outbox), so a slow front end never holds a table. Hands follow each other `between_hands`
seconds apart until the table is stopped; dealer, 上楼 and rotation come from the engine's TableState
(kwx.table.succession), each hand's wall from the secret table seed (both through the service's `deal`,
kwx/table/deal.py: a test scripts them).

- Time is the injected `clock` (kwx/table/clock.py): every deadline, AI move, next hand and held-back call
  waits on its timers (the event loop's in play; a test moves a fake clock and they fire).
- A restart costs nobody anything: every open turn, claim and 漂 window gets a full fresh deadline on
  `start()`, and the board is told the table resumed.
- stop() abandons a hand in play: it never reaches the ledger, its kong money neither.
- No tell: at a table with a human, the board holds every discard and 补杠 for `claim_pause` seconds (1.5 by
  default; 0 for benchmarks and tests) whether or not anyone may claim it; the public board shows neither
  the claim deadline nor a count of claim answers (PublicView.step). See kwx/table/delivery.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Iterable

import kwx.table.oplog as oplog
from kwx.engine.event_json import EventJson
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import Tile
from kwx.store import Store, TableRow
from kwx.table.clock import Clock, table_clock
from kwx.table.context import ServiceStats, TableContext
from kwx.table.deal import FROM_SEED, Deal
from kwx.table.delivery import Delivery
from kwx.table.errors import SavingFailed, TableError
from kwx.table.journal import Journal
from kwx.table.live import LiveTable
from kwx.table.lobby import Lobby
from kwx.table.log_records import PauseReason, RecordKind
from kwx.table.machine import ENGINE_AI, AiPolicy
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING
from kwx.table.play import Play
from kwx.table.player_settings import PlayerSettings
from kwx.table.ports import FrontEnd
from kwx.table.presence import Presence
from kwx.table.press import Press, Presses, PressOutcome
from kwx.table.record import Applied
from kwx.table.record_state import CLAIM_PAUSE
from kwx.table.recovery import rebuild
from kwx.table.retry import RetryPolicy
from kwx.table.scheduler import Scheduler, Targets
from kwx.table.viewbuild import public_events, result_view
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableInfo
from kwx.table.writer import DurableWriter

logger = logging.getLogger(__name__)

__all__ = ["TableError", "TableService", "ServiceStats"]

STORE_RETRY = RetryPolicy()  # 0.1 s, doubling up to 5 s, for 2 minutes (bot.py reads KWX_STORE_RETRY_SECONDS)
IDLE_CLOSE_MINUTES = 30.0  # a paused table closes by itself after this long
DEMO_HANDS = 100  # a table with no human seat closes after this many hands


class TableService:
    def __init__(self, store: Store, frontend: FrontEnd, *, ai_delay: float = 0.8, between_hands: float = 4.0,
                 clock: Callable[[], float] | Clock = time.time, group_commit: bool = True,
                 record_latency: bool = False, max_in_flight: int = 1,
                 idle_close_minutes: float = IDLE_CLOSE_MINUTES, demo_hands: int | None = DEMO_HANDS,
                 claim_pause: float = CLAIM_PAUSE, store_retry: RetryPolicy = STORE_RETRY,
                 confirms_prompts: bool = False, deal: Deal = FROM_SEED, ai_policy: AiPolicy = ENGINE_AI) -> None:
        if claim_pause < 0:
            raise ValueError("claim_pause must be ≥ 0")
        ctx = self.context = TableContext(store, frontend, Journal(store, group=group_commit), table_clock(clock),
                                          ServiceStats(latencies=[] if record_latency else None), deal, ai_policy)
        self._settings = PlayerSettings(store)
        self._delivery = Delivery(ctx, self._settings)
        self._scheduler = Scheduler(ctx, ai_delay=ai_delay, between_hands=between_hands,
                                    idle_close_minutes=idle_close_minutes, max_in_flight=max_in_flight,
                                    confirms_prompts=confirms_prompts)
        self._writer = DurableWriter(ctx, self._delivery, self._scheduler, store_retry)
        self._presence = Presence(ctx, self._delivery, self._writer, self._scheduler, demo_hands=demo_hands)
        self._play = Play(ctx, self._delivery, self._writer, self._scheduler, self._presence, self._settings)
        self._presses = Presses(ctx, self._delivery, self._play, self._settings)
        self._lobby = Lobby(ctx, self._delivery, self._writer, self._presence, self._play, claim_pause=claim_pause)
        self._scheduler.route(Targets(deadline=self._play.on_deadline, next_hand=self._play.next_hand,
                                      idle_close=self._presence.idle_close, machine_moves=self._play.machine_moves))

    # == settings and counters ===========================================================================
    @property
    def stats(self) -> ServiceStats:
        return self.context.stats

    @property
    def journal(self) -> Journal:
        return self.context.journal

    @property
    def ai_delay(self) -> float:
        """Seconds an AI seat waits after a decision shows before it acts."""
        return self._scheduler.ai_delay

    @property
    def between_hands(self) -> float:
        """Seconds between the end of a hand and the next deal."""
        return self._scheduler.between_hands

    @property
    def idle_close_minutes(self) -> float:
        """How long a paused table waits before it closes by itself."""
        return self._scheduler.idle_close_minutes

    @property
    def claim_pause(self) -> float:
        """How long the board holds each discard at new tables (LiveTable.pause_s)."""
        return self._lobby.claim_pause

    @property
    def demo_hands(self) -> int | None:
        """Hands after which a table with no human seat closes (None: no limit)."""
        return self._presence.demo_hands

    @property
    def store_retry(self) -> RetryPolicy:
        """How a failing store write is tried again, and for how long."""
        return self._writer.retry

    @property
    def running(self) -> bool:
        """False once `shutdown` has begun (a health check reads it)."""
        return self.context.running

    @property
    def busy(self) -> bool:
        """A timer's task runs or an AI decision is queued (tests and tools wait for quiet)."""
        return self._scheduler.busy

    # == start-up and shutdown ===========================================================================
    async def start(self, include: Callable[[TableRow], bool] | None = None) -> list[int]:
        """Rebuild every open table from its event log (same hand, same step), write a finished hand the
        ledger missed, show the current views again and re-arm the timers (a past deadline fires at once).
        `include` picks the tables this service runs (the terminal runs only its own; the Discord bot leaves
        the `local` ones alone). Returns the ids of the tables rebuilt; a table whose log cannot be replayed
        is logged and skipped."""
        ctx = self.context
        ctx.running = True
        rebuilt: list[int] = []
        for row in await ctx.store.unfinished_tables():
            if row.id in ctx.tables or (include is not None and not include(row)):
                continue
            try:
                t = rebuild(row, await ctx.store.load_events(row.id), ctx.deal)
            except Exception:
                logger.exception("table %s guild %s: cannot replay its event log; left closed in memory", row.id,
                                 row.guild)
                ctx.stats.errors += 1
                continue
            if t.status == CLOSED:  # its stop is in the log but its row was not closed (the store failed then)
                try:
                    await ctx.store.close_table(t.id)
                except Exception:
                    logger.exception("table %s: stopped, but its row cannot be closed yet", t.id)
                continue
            ctx.tables[t.id] = t
            rebuilt.append(t.id)
            oplog.rebuilt(t)
        for table_id in rebuilt:
            t = ctx.tables[table_id]
            async with t.lock:
                restarted = self._presence.fresh_deadlines(t)
                self._delivery.show(t, Applied(RecordKind.RESUME, new_window=True), everyone=True)
                if restarted:
                    self._delivery.notice(t, "table.restarted")
                try:
                    if t.status == BETWEEN and t.hand is not None and t.hand.finished:
                        await self._presence.end_hand(t, resumed=True)
                    elif t.status == PIAO and len(t.piao_picks) == 3 and t.paused is None:
                        await self._presence.deal(t)  # the service stopped between the last pick and the deal
                except SavingFailed:
                    pass  # logged; the table is paused
                finally:
                    self._scheduler.arm(t)
        return rebuilt

    async def shutdown(self) -> None:
        """Stop timers and the AI, let actions in flight commit, deliver queued front-end calls. Tables stay
        open in the store; `start()` on a new service picks them up."""
        ctx = self.context
        ctx.running = False
        await self._scheduler.stop()
        await ctx.journal.idle()
        for t in ctx.tables.values():
            self._delivery.flush_held(t, everything=True)
        await self._delivery.close()
        self._scheduler.forget_in_flight()
        ctx.tables.clear()

    async def release(self, table_ids: Iterable[int]) -> list[int]:
        """Stop running these tables here, as `shutdown` does for all, without closing them: another process
        runs them now (a cluster lease this process lost). Nothing is written; a move in flight finishes and no
        timer, AI or player move follows it here. Returns the ids released."""
        released: list[int] = []
        for table_id in table_ids:
            t = self.context.tables.get(table_id)
            if t is None:
                continue
            async with t.lock:
                Scheduler.cancel(t)
                t.paused = PauseReason.RELEASED  # an AI move already queued checks it, and gives up
                self.context.tables.pop(table_id, None)
            if t.outbox is not None:
                t.outbox.close_soon()
            released.append(table_id)
        return released

    async def flush(self) -> None:
        """Wait until the event log is written and every queued front-end call delivered (tests, tools)."""
        await self.context.journal.idle()
        await self._delivery.drain()

    async def idle(self) -> None:
        """Wait until what is due has happened: the timers due by the clock now have fired, the AI has made the
        moves due, the event log is written and every queued front-end call delivered (tests, tools; with a
        fake clock, after moving it)."""
        while True:
            await self._scheduler.idle()
            await self.flush()
            await asyncio.sleep(0)
            if not self._scheduler.busy:
                return

    # == the lobby =======================================================================================
    async def open_table(self, guild: str, channel: str | None, host: PlayerRef, *, rules: RuleSet = STANDARD,
                         turn_seconds: float = 30, claim_seconds: float = 12, seed: str | None = None,
                         max_open: int | None = None, max_hosted: int | None = None,
                         claim_pause: float | None = None) -> int:
        """A new table with `host` seated; returns its id. One open table per channel; at most `max_open` open
        tables in the guild and `max_hosted` open tables hosted by `host` (anywhere), when given. A timer of 0
        seconds is no timer: the table waits for that decision (the terminal against two AI players).
        `claim_pause`: how long the board holds each discard (the service's default when None; see
        LiveTable.pause_s)."""
        return await self._lobby.open_table(guild, channel, host, rules=rules, turn_seconds=turn_seconds,
                                            claim_seconds=claim_seconds, seed=seed, max_open=max_open,
                                            max_hosted=max_hosted, claim_pause=claim_pause)

    async def join(self, table_id: int, player: PlayerRef) -> None:
        """Take a seat in the lobby, or a seat someone left in a started game."""
        await self._lobby.join(table_id, player)

    async def leave(self, table_id: int, player_id: str) -> None:
        """Leave a seat or stop spectating. When the host leaves, the next human hosts; when no human is left,
        the table closes. In a started game the seat empties at the end of the hand in play."""
        await self._lobby.leave(table_id, player_id)

    async def add_ai(self, table_id: int, level: str = "standard", by: str | None = None) -> PlayerRef:
        """Seat an AI player (`by`, when given, must be the host). Its id is `ai:<level>:<n>`."""
        return await self._lobby.add_ai(table_id, level, by)

    async def spectate(self, table_id: int, player: PlayerRef) -> None:
        """Watch the table (the board lists spectators: `PublicView.spectators`)."""
        await self._lobby.spectate(table_id, player)

    async def start_game(self, table_id: int, by: str) -> None:
        """Deal hand 1 (or open its 漂 phase). Needs every seat filled: 3, or 4 with `rotation`."""
        await self._lobby.start_game(table_id, by)

    async def stop(self, table_id: int, by: str, *, force: bool = False, reason: str = "stopped") -> None:
        """Close the table. `by` must be the host unless `force` (the front end has checked that `by` is a
        manager). A hand in play is abandoned: it never reaches the ledger (its kong money neither).
        `reason` (a kwx.table.log_records.CloseReason) goes into the close summary."""
        await self._lobby.stop(table_id, by, force=force, reason=reason)

    # == playing =========================================================================================
    async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome:
        """A press of a player's panel, in any front end: one call, answered with all the front end needs to
        answer it (kwx.table.press): accepted, a question to ask first (a costly move's warning, 亮倒), or the
        refusal with its catalog code, and the player's panel as it now stands. Never raises a refusal."""
        return await self._presses.press(table_id, player_id, press)

    async def player_setting(self, table_id: int, player_id: str, setting: str) -> bool:
        """A player's table setting as the service honours it (`auto_pass`, `ask_first`), for drawing a panel."""
        return await self._presses.setting(table_id, player_id, setting)

    async def set_player_setting(self, table_id: int, player_id: str, setting: str, on: bool) -> bool:
        """Turn a player's table setting on or off where no press does it (the terminal's `confirm on|off`);
        False when the store could not keep it (it holds in this process all the same)."""
        return await self._presses.set_setting(table_id, player_id, setting, on)

    async def act(self, table_id: int, player_id: str, verb: str, tile: Tile | str | None = None,
                  step: int | None = None, *, amount: int | None = None) -> None:
        """One player's action. `step`: the step of the view the player acted on (None: now); a press made
        for a decision that has passed is refused as `stale`, and so is a second press of the same step.
        Verbs: discard / liangdao (with a tile), gang (a tile on your turn, none on a discard), peng, hu, pass;
        and `piao` with `amount` in the 漂 phase. Raises TableError, changing nothing, when refused."""
        await self._play.act(table_id, player_id, verb, tile, step, amount=amount)

    def prompt_delivered(self, table_id: int, player_id: str, step: int) -> None:
        """The front end's word that the player's prompt for `step` is in front of them now. The decision's
        timer then gives them their whole time from here, and a timeout whose prompt never arrived does not
        count toward 托管 (with `confirms_prompts`, the front end promises to say this for every prompt; see
        kwx/table/scheduler.py). Unknown tables, seats and past steps are ignored."""
        t = self.context.tables.get(table_id)
        seat = t.seat_of(player_id) if t is not None else None
        if t is not None and seat is not None:
            self._scheduler.prompt_delivered(t, seat, step)

    async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
        """A seated human switches 托管 on (the AI plays for them) or off; off resumes a table paused because
        nobody played."""
        await self._play.set_autoplay(table_id, player_id, on)

    # == presence ========================================================================================
    async def pause(self, table_id: int, reason: str) -> bool:
        """Pause a table (e.g. "channel_lost" from a front end that can no longer post there): no move, no
        timeout and no write until `resume`; it closes after `idle_close_minutes`. False when it was already
        paused (or is in its lobby, where nothing is played)."""
        return await self._presence.pause(table_id, reason)

    async def resume(self, table_id: int, by: str, *, force: bool = False) -> None:
        """A seated player (or the host; anyone with `force`) resumes a paused table: an open decision gets a
        full fresh deadline, a player of theirs in 托管 is back. Refused while a left seat is empty."""
        await self._presence.resume(table_id, by, force=force)

    async def close_where(self, guild: str, channel: str | None = None, *, reason: str = "channel_gone") -> list[int]:
        """Close at once every open table of the guild (or of one channel/thread of it): the channel, thread or
        server went away. A hand in play is abandoned as `stop` abandons it. Returns the ids closed."""
        return await self._presence.close_where(guild, channel, reason=reason)

    def table_infos(self, guild: str | None = None) -> list[TableInfo]:
        """The open tables (of one guild), oldest first: for listing and finding them by id."""
        return self._presence.table_infos(guild)

    def tables_in(self, guilds: Collection[str]) -> list[int]:
        """The ids of the open tables of these guilds run here (cheap: nothing is summed up)."""
        return self._presence.tables_in(guilds)

    def table_of(self, table_id: int) -> TableInfo | None:
        """One open table's listing line (None when there is no such open table)."""
        return self._presence.table_of(table_id)

    # == reading =========================================================================================
    def public_view_as_shown(self, table_id: int) -> PublicView:
        """The board as the front ends show it: during the pause after a discard, the moment the board holds,
        not yet what follows (kwx/table/claim_pause.py). What a front end reads."""
        return self._delivery.public_as_shown(self.context.table(table_id))

    def public_view_live(self, table_id: int) -> PublicView:
        """The board as the table stands, which the pause after a discard may still hide (tools, tests)."""
        return self._delivery.public_live(self.context.table(table_id))

    def last_result(self, table_id: int) -> ResultView | None:
        """The result of the hand that just ended while the table is between hands (a front end that resumes
        there shows it rather than the finished board); None otherwise."""
        t = self.context.table(table_id)
        if t.status != BETWEEN or t.hand is None or not t.hand.finished or t.hand.result is None:
            return None
        return result_view(t)

    def hand_events(self, table_id: int) -> tuple[EventJson, ...]:
        """The public events of the hand in play, the deal first, for a front end that starts again and logs the
        hand so far (the terminal after a restart); empty outside a hand in play. Read at start-up: during the
        pause after a discard it would tell what the board still holds back."""
        t = self.context.table(table_id)
        if t.status != PLAYING or t.hand is None:
            return ()
        return tuple(public_events(t.hand.events))

    def private_view_as_shown(self, table_id: int, player_id: str) -> PrivateView:
        """A seated player's panel as the front ends show it: during the pause after a discard, the one last
        sent, with no choices (the decision after the pause is offered when it shows). What a front end reads."""
        t = self.context.table(table_id)
        return self._delivery.private_as_shown(t, _seat(t, player_id))

    def private_view_live(self, table_id: int, player_id: str) -> PrivateView:
        """A seated player's panel as the table stands, which the pause after a discard may still hide (tools,
        tests)."""
        t = self.context.table(table_id)
        return self._delivery.private_live(t, _seat(t, player_id))

    def table_in_channel(self, guild: str, channel: str) -> int | None:
        return self._lobby.table_in_channel(guild, channel)

    def tables(self) -> list[int]:
        return sorted(self.context.tables)

    def rules(self, table_id: int) -> RuleSet:
        """The table's rules (also in its views: `piao_max`, `capacity`)."""
        return self.context.table(table_id).rules

    def host(self, table_id: int) -> str:
        """The host's player id (also in its views: `PublicView.host`)."""
        return self.context.table(table_id).host

    def spectators(self, table_id: int) -> list[PlayerRef]:
        """Who watches the table (also in its views: `PublicView.spectators`)."""
        return list(self.context.table(table_id).spectators.values())

    def live_table(self, table_id: int) -> LiveTable:
        """The table's replayed state itself (tests and tools that check it; front ends read views)."""
        return self.context.table(table_id)


def _seat(t: LiveTable, player_id: str) -> int:
    seat = t.seat_of(player_id) if t.status != LOBBY else None
    if seat is None:
        raise TableError("not_seated", "you have no seat in this hand")
    return seat
