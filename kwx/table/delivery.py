"""Delivery: what the front end is told, in order, and when — including the board's hold after a discard.

Every front-end call is built from committed state and queued on the table's outbox (kwx/table/outbox.py), so
a slow front end never holds a table; one table's calls never overtake each other.

The pause after each discard: the board tells nothing concealed. At a table with a human, every discard and
补杠 is held on the board for the same `pause_s` seconds whether or not anyone may claim it
(LiveTable.pause_s). When nobody may, the engine has already moved on (the next draw is part of the same
record): the moments in between are shown from a clone of the hand that stops at each of them
(HandState.apply(pause=True)), exactly as a claim window would show, and what follows is sent when the pause
ends. AI claim answers come within the pause and show at its end; a human who answers during the pause is
shown at its end too.

A decision is offered when it shows and not before: until the pause ends (`LiveTable.wait_started`, from
which its deadline also counts) nobody may act on it, and the service's views (`public_view`,
`private_view`, which button answers, "My hand" and the terminal read) are the ones the front end was last
told, with no choices — never the live state the pause still hides. So every button a panel shows works,
and a player sees their next decision (a turn after a claim, the draw after a kong) with its whole deadline.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from kwx.engine.actions import Action, Event, Liangdao
from kwx.table.context import TableContext
from kwx.table.errors import TableError
from kwx.table.live import LiveTable
from kwx.table.log_records import RecordKind
from kwx.table.outbox import Outbox
from kwx.table.phases import BETWEEN, PIAO, PLAYING
from kwx.table.player_settings import AUTO_PASS, PlayerSettings
from kwx.table.ports import FrontEndCall
from kwx.table.record import Applied
from kwx.table.viewbuild import private_view, public_events, public_view
from kwx.table.views import PrivateView, PublicView

BOARD = ""  # LiveTable.told's key for the board (a player id is never empty)

Call = FrontEndCall
Queued = tuple[Call, tuple[Any, ...], dict[str, Any]]  # a front-end call with its arguments


@dataclass
class Frames:
    """The moments a record holds on the board before its last one, and the events after them."""

    moments: list[list[Queued]]  # per held moment: its front-end calls
    tail: list[Event]  # the record's events after the last held moment


class Delivery:
    def __init__(self, ctx: TableContext, settings: PlayerSettings) -> None:
        self._ctx = ctx
        self._settings = settings
        self._outboxes: dict[int, Outbox] = {}  # also those of tables closed but still delivering
        self._capturing: list[Queued] | None = None  # pause_frames collects front-end calls here

    # == queueing ========================================================================================
    def send(self, t: LiveTable, call: Call, *args: Any, **kwargs: Any) -> None:
        """Queue a front-end call: now, or (after a discard the board holds) when `t.send_due` comes; calls
        never overtake each other."""
        if self._capturing is not None:
            self._capturing.append((call, args, kwargs))
            return
        due, now = t.send_due, self._ctx.clock()
        if t.delayed or (due is not None and due > now):
            last = t.delayed[-1][0] if t.delayed else 0.0
            at = max(due or 0.0, last)
            t.delayed.append((at, call, args, kwargs))
            self._note_shown(t, call, args, at)
            self._arm_flush(t)
            return
        self._note_shown(t, call, args, now)
        self.put(t, call, *args, **kwargs)

    def put(self, t: LiveTable, call: Call, *args: Any, **kwargs: Any) -> None:
        """Queue a call on the table's outbox at once (no hold)."""
        if t.outbox is None:
            def closed() -> None:
                self._outboxes.pop(t.id, None)

            t.outbox = self._outboxes[t.id] = Outbox(t.id, on_closed=closed)
        t.outbox.put(call, *args, **kwargs)

    def notice(self, t: LiveTable, key: str, **fmt: Any) -> None:
        self.send(t, self._ctx.frontend.notice, t.id, key, **fmt)

    async def drain(self) -> None:
        """Wait until every queued front-end call is delivered."""
        for outbox in list(self._outboxes.values()):
            await outbox.drain()

    async def close(self) -> None:
        """Deliver what is queued, then stop every sender (shutdown)."""
        for outbox in list(self._outboxes.values()):
            await outbox.close()
        self._outboxes.clear()

    # == what a change shows =============================================================================
    def show_lobby(self, t: LiveTable, notice: tuple[str, dict[str, Any]] | None = None) -> None:
        self.send(t, self._ctx.frontend.board_changed, public_view(t))
        if notice is not None:
            self.notice(t, notice[0], **notice[1])

    def show(self, t: LiveTable, applied: Applied, *, board: bool = True, everyone: bool = False) -> None:
        """Queue what the front end is told after `applied`: the board (with the public events), 亮倒
        reveals, notices, then each human seat's private view when it changed (prompt when newly asked)."""
        fe = self._ctx.frontend
        shown = public_events(applied.events)
        if board and (shown or applied.new_window or applied.notices or applied.kind != "action"):
            board_view = public_view(t, shown)
            self.send(t, fe.board_changed, board_view)
            for seat in applied.liangdao_seats:
                self.send(t, fe.liangdao_revealed, board_view, seat)
        for notice, fmt in applied.notices:
            self.notice(t, notice, **fmt)
        if t.status not in (PIAO, PLAYING, BETWEEN) or t.setup is None:
            return
        for seat in range(3):
            player = t.seat_player(seat)
            if player.is_ai:
                continue
            view = self.private_live(t, seat)
            key = (view.hand_no, view.concealed, view.drawn, view.melds, view.choices, view.deadline, view.waits,
                   view.claim_tile, view.liangdao, view.autoplay, view.auto_pass)
            if not everyone and t.last_private.get(player.player_id) == key:
                continue
            t.last_private[player.player_id] = key
            prompt = bool(view.choices) and player.player_id not in t.autoplay and (
                everyone or t.prompt_step.get(seat) == t.step)
            self.send(t, fe.hand_changed, player, view, prompt=prompt)

    def tell_paused(self, t: LiveTable, applied: Applied, reason: str) -> None:
        """The board shows the pause, its notices follow, then the front end hears why."""
        view = public_view(t)
        self.send(t, self._ctx.frontend.board_changed, view)
        for key, fmt in applied.notices:
            self.notice(t, key, **fmt)
        self.send(t, self._ctx.frontend.table_paused, view, reason)

    # == the board's hold after a discard ================================================================
    def pause_frames(self, t: LiveTable, action: Action) -> Frames | None:
        """The front-end calls of each moment the record will hold before its last one, and the events after
        them; None when the board holds nothing more than the record's own show."""
        if t.pause_s <= 0 or t.status != PLAYING or t.hand is None:
            return None
        hand = t.hand.clone()
        events = hand.apply(action, pause=True)
        moments: list[list[Queued]] = []
        while hand.held:
            captured: list[Queued] = []
            self._capturing = captured
            try:
                self.show(t.at_moment(hand, t.step + 1), Applied(RecordKind.ACTION, events=events, new_window=True,
                                                                 liangdao_seats=_declared(events)))
            finally:
                self._capturing = None
            moments.append(captured)
            events = hand.resume()
        return Frames(moments, events) if moments else None

    def send_frames(self, t: LiveTable, applied: Applied, frames: Frames) -> None:
        """Queue the held moments a pause apart; the record's own show (the events after them) comes last.
        The record's notices go with its first moment, as they would with a claim window."""
        assert applied.base is not None
        fe = self._ctx.frontend
        pause = t.pause_s
        for i, calls in enumerate(frames.moments):
            t.send_due = applied.base + i * pause
            notices: list[Queued] = [(fe.notice, (t.id, key), fmt) for key, fmt in applied.notices] if i == 0 else []
            boards = [c for c in calls if c[0] != fe.hand_changed]
            panels = [c for c in calls if c[0] == fe.hand_changed]
            for call, args, kwargs in [*boards, *notices, *panels]:
                self.send(t, call, *args, **kwargs)
        t.send_due = None
        applied.events = frames.tail
        applied.notices = []
        applied.liangdao_seats = _declared(frames.tail)

    def opening(self, t: LiveTable) -> bool:
        """The decision in play is not shown yet: the pause before it still runs."""
        return t.status == PLAYING and t.wait_started is not None and self._ctx.clock() < t.wait_started

    def check_shown(self, t: LiveTable) -> None:
        """Nobody may act on a decision the pause still hides (no panel offers it yet)."""
        if self.opening(t):
            raise TableError("not_your_turn", "nothing is asked of you now")

    def _note_shown(self, t: LiveTable, call: Call, args: tuple[Any, ...], due: float) -> None:
        """Remember a view queued for the front end and when it shows: the board's under BOARD, a panel's
        under its player id. Only the last one shown by now and those still to come are kept."""
        fe = self._ctx.frontend
        if call == fe.board_changed:
            key, view = BOARD, args[0]
        elif call == fe.hand_changed:
            key, view = args[0].player_id, args[1]
        else:
            return
        queued = t.told.setdefault(key, [])
        queued.append((due, view))
        now = self._ctx.clock()
        while len(queued) > 1 and queued[1][0] <= now:
            del queued[0]

    def _told(self, t: LiveTable, key: str) -> tuple[bool, Any]:
        """(whether a view for `key` is still to show, the view it shows now: None when none was sent)."""
        queued = t.told.get(key, [])
        now = self._ctx.clock()
        shown = [view for due, view in queued if due <= now]
        return len(shown) < len(queued), (shown[-1] if shown else None)

    def public_as_shown(self, t: LiveTable) -> PublicView:
        """The board as the front end shows it (during the pause after a discard, not yet what follows)."""
        ahead, shown = self._told(t, BOARD)
        if ahead and isinstance(shown, PublicView):
            return shown
        return public_view(t)

    def private_as_shown(self, t: LiveTable, seat: int) -> PrivateView:
        """The seat's panel as the front end shows it: the live view, or during a pause the one last sent, with
        no choices (the decision after the pause is offered when it shows)."""
        live = self.private_live(t, seat)
        if not self.opening(t):
            return live
        _, shown = self._told(t, live.player_id)
        return replace(shown if isinstance(shown, PrivateView) else live, choices=(), deadline=None,
                       discard_waits={})

    def private_live(self, t: LiveTable, seat: int) -> PrivateView:
        """The seat's panel as the table stands now (what the pause may still hide), with the player's
        auto-pass setting as last read (kwx.table.player_settings)."""
        view = private_view(t, seat)
        return replace(view, auto_pass=self._settings.cached(t.guild, view.player_id, AUTO_PASS))

    def _arm_flush(self, t: LiveTable) -> None:
        if t.flush_timer is None and t.delayed:
            delay = max(0.0, t.delayed[0][0] - self._ctx.clock())
            t.flush_timer = asyncio.get_running_loop().call_later(delay, self.flush_held, t)

    def flush_held(self, t: LiveTable, *, everything: bool = False) -> None:
        """Send the front-end calls that are due (all of them with everything=True)."""
        if t.flush_timer is not None:
            t.flush_timer.cancel()
            t.flush_timer = None
        now = self._ctx.clock()
        while t.delayed and (everything or t.delayed[0][0] <= now):
            _, call, args, kwargs = t.delayed.pop(0)
            self.put(t, call, *args, **kwargs)
        self._arm_flush(t)


def _declared(events: list[Event]) -> list[int]:
    """The seats that declared 亮倒 in these events (their hands are revealed with the board)."""
    return [e.seat for e in events if isinstance(e, Liangdao)]
