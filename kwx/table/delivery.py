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
which its deadline also counts) nobody may act on it, and the views a front end reads (`public_as_shown`,
`private_as_shown`: which button answers, "My hand" and the terminal read) are the ones it was last told,
with no choices — never the live state the pause still hides. So every button a panel shows works, and a
player sees their next decision (a turn after a claim, the draw after a kong) with its whole deadline. What
is held back and what each front end was told is kept by the table's `ClaimPause` (kwx/table/claim_pause.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kwx.engine.actions import Action, Event, Liangdao
from kwx.table.claim_pause import BOARD, Queued, moment
from kwx.table.clock import timer_at
from kwx.table.context import TableContext
from kwx.table.live import LiveTable
from kwx.table.log_records import RecordKind
from kwx.table.outbox import Outbox
from kwx.table.phases import BETWEEN, PIAO, PLAYING
from kwx.table.player_settings import AUTO_PASS, PlayerSettings
from kwx.table.ports import FrontEndCall
from kwx.table.record import Applied
from kwx.table.record_state import RecordState
from kwx.table.viewbuild import private_view, public_events, public_view
from kwx.table.views import PrivateView, PublicView

Call = FrontEndCall


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

    # == queueing ========================================================================================
    def send(self, t: LiveTable, call: Call, *args: Any, **kwargs: Any) -> None:
        """Queue a front-end call: now, or (after a discard the board holds) when the table's claim pause lets
        it go out; calls never overtake each other."""
        now = self._ctx.clock()
        at = t.hold.hold_back(now)
        self._note_shown(t, call, args, now if at is None else at)
        if at is None:
            self.put(t, call, *args, **kwargs)
            return
        t.hold.defer(at, (call, args, kwargs))
        self._arm_flush(t)

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
        for call, args, kwargs in self._calls(t, t, applied, board=board, everyone=everyone):
            self.send(t, call, *args, **kwargs)

    def _calls(self, t: LiveTable, at: RecordState, applied: Applied, *, board: bool = True,
               everyone: bool = False) -> list[Queued]:
        """The calls that tell what `applied` shows of `at` (the table, or a moment its board holds); each
        panel they carry is remembered as the last sent to its player (`ClaimPause.panel_changed`)."""
        fe = self._ctx.frontend
        calls: list[Queued] = []
        shown = public_events(applied.events)
        if board and (shown or applied.new_window or applied.notices or applied.kind != "action"):
            board_view = public_view(at, shown)
            calls.append((fe.board_changed, (board_view,), {}))
            calls += [(fe.liangdao_revealed, (board_view, seat), {}) for seat in applied.liangdao_seats]
        calls += [(fe.notice, (at.id, notice), fmt) for notice, fmt in applied.notices]
        if at.status not in (PIAO, PLAYING, BETWEEN) or at.setup is None:
            return calls
        for seat in range(3):
            player = at.seat_player(seat)
            if player.is_ai:
                continue
            view = replace(private_view(at, seat), auto_pass=self._auto_pass(at, player.player_id))
            key = (view.hand_no, view.concealed, view.drawn, view.melds, view.choices, view.deadline, view.waits,
                   view.claim_tile, view.liangdao, view.autoplay, view.auto_pass)
            if not t.hold.panel_changed(player.player_id, key) and not everyone:
                continue
            prompt = bool(view.choices) and player.player_id not in at.autoplay and (
                everyone or at.prompt_step.get(seat) == at.step)
            calls.append((fe.hand_changed, (player, view), {"prompt": prompt}))
        return calls

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
            moments.append(self._calls(t, moment(t, hand, t.step + 1), Applied(
                RecordKind.ACTION, events=events, new_window=True, liangdao_seats=_declared(events))))
            events = hand.resume()
        return Frames(moments, events) if moments else None

    def send_frames(self, t: LiveTable, applied: Applied, frames: Frames) -> None:
        """Queue the held moments a pause apart; the record's own show (the events after them) comes last.
        The record's notices go with its first moment, as they would with a claim window."""
        assert applied.base is not None
        fe = self._ctx.frontend
        pause = t.pause_s
        for i, calls in enumerate(frames.moments):
            notices: list[Queued] = [(fe.notice, (t.id, key), fmt) for key, fmt in applied.notices] if i == 0 else []
            boards = [c for c in calls if c[0] != fe.hand_changed]
            panels = [c for c in calls if c[0] == fe.hand_changed]
            with t.hold.sending_from(applied.base + i * pause):
                for call, args, kwargs in [*boards, *notices, *panels]:
                    self.send(t, call, *args, **kwargs)
        applied.events = frames.tail
        applied.notices = []
        applied.liangdao_seats = _declared(frames.tail)

    def _note_shown(self, t: LiveTable, call: Call, args: tuple[Any, ...], due: float) -> None:
        """Remember a view queued for the front end and when it shows: the board's, and a panel's under its
        player id."""
        fe = self._ctx.frontend
        if call == fe.board_changed:
            t.hold.note_shown(BOARD, args[0], due, self._ctx.clock())
        elif call == fe.hand_changed:
            t.hold.note_shown(args[0].player_id, args[1], due, self._ctx.clock())

    # == reads: live, or as the front ends show them =====================================================
    def public_live(self, t: LiveTable) -> PublicView:
        """The board as the table stands (what the pause may still hide)."""
        return public_view(t)

    def public_as_shown(self, t: LiveTable) -> PublicView:
        """The board as the front ends show it (during the pause after a discard, not yet what follows)."""
        return t.hold.public_as_shown(self._ctx.clock(), lambda: public_view(t))

    def private_live(self, t: LiveTable, seat: int) -> PrivateView:
        """The seat's panel as the table stands (what the pause may still hide), with the player's auto-pass
        setting."""
        return replace(private_view(t, seat), auto_pass=self._auto_pass(t, t.seating[seat]))

    def private_as_shown(self, t: LiveTable, seat: int) -> PrivateView:
        """The seat's panel as the front ends show it: during the pause, the one last sent, with no choices."""
        return t.hold.private_as_shown(self._ctx.clock(), self.private_live(t, seat))

    def _auto_pass(self, t: RecordState, player_id: str) -> bool:
        """The player's auto-pass setting as last read (kwx.table.player_settings), for their panel."""
        return self._settings.cached(t.guild, player_id, AUTO_PASS)

    # == sending what is due =============================================================================
    def _arm_flush(self, t: LiveTable) -> None:
        due = t.hold.next_due()
        if t.flush_timer is None and due is not None:
            t.flush_timer = timer_at(self._ctx.clock, due, self.flush_held, t)

    def flush_held(self, t: LiveTable, *, everything: bool = False) -> None:
        """Send the front-end calls that are due (all of them with everything=True)."""
        if t.flush_timer is not None:
            t.flush_timer.cancel()
            t.flush_timer = None
        for call, args, kwargs in t.hold.due_calls(self._ctx.clock(), everything=everything):
            self.put(t, call, *args, **kwargs)
        self._arm_flush(t)


def _declared(events: list[Event]) -> list[int]:
    """The seats that declared 亮倒 in these events (their hands are revealed with the board)."""
    return [e.seat for e in events if isinstance(e, Liangdao)]
