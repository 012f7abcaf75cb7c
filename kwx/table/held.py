"""The pause after each discard: the board tells nothing concealed, for TableService.

At a table with a human, every discard and 补杠 is held on the board for the same `pause_s` seconds
whether or not anyone may claim it (LiveTable.pause_s). When nobody may, the engine has already moved on
(the next draw is part of the same record): the moments in between are shown from a clone of the hand
that stops at each of them (HandState.apply(pause=True)), exactly as a claim window would show, and what
follows is sent when the pause ends. AI claim answers come within the pause and show at its end; a human
who answers during the pause is shown at its end too.

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

from kwx.engine.actions import Action
from kwx.engine.hand import CLAIM, ROB
from kwx.table.errors import TableError
from kwx.table.live import Applied, LiveTable
from kwx.table.phases import PLAYING
from kwx.table.viewbuild import private_view, public_view
from kwx.table.views import PrivateView, PublicView

BOARD = ""  # LiveTable.told's key for the board (a player id is never empty)


@dataclass
class _Frames:
    moments: list[list[tuple[Any, ...]]]  # per held moment: its front-end calls (call, args, kwargs)
    tail: list[Any]  # the record's events after the last held moment



class HeldBoard:
    """TableService's methods that hold the board for the pause (a mixin: `self` is the service)."""

    def _pause_frames(self, t: LiveTable, action: Action) -> _Frames | None:
        """The front-end calls of each moment the record will hold before its last one, and the events after
        them; None when the board holds nothing more than the record's own show."""
        if t.pause_s <= 0 or t.status != PLAYING or t.hand is None:
            return None
        hand = t.hand.clone()
        events = hand.apply(action, pause=True)
        moments: list[list[tuple[Any, ...]]] = []
        while hand.held:
            self._capturing = []
            try:
                with t.showing(hand, t.step + 1):
                    self._show(t, Applied("action", events=events, new_window=True, liangdao_seats=[
                        e.seat for e in events if e.kind == "liangdao"]))  # type: ignore[attr-defined]
                moments.append(self._capturing)
            finally:
                self._capturing = None
            events = hand.resume()
        return _Frames(moments, events) if moments else None

    def _send_frames(self, t: LiveTable, applied: Applied, frames: _Frames) -> None:
        """Queue the held moments a pause apart; the record's own show (the events after them) comes last.
        The record's notices go with its first moment, as they would with a claim window."""
        assert applied.base is not None
        pause = t.pause_s
        for i, calls in enumerate(frames.moments):
            t.send_due = applied.base + i * pause
            notices = [(self._frontend.notice, (t.id, key), fmt) for key, fmt in applied.notices] if i == 0 else []
            boards = [c for c in calls if c[0] != self._frontend.hand_changed]
            panels = [c for c in calls if c[0] == self._frontend.hand_changed]
            for call, args, kwargs in [*boards, *notices, *panels]:
                self._send(t, call, *args, **kwargs)
        t.send_due = None
        applied.events = frames.tail
        applied.notices = []
        applied.liangdao_seats = [e.seat for e in frames.tail if e.kind == "liangdao"]  # type: ignore[attr-defined]

    def _opening(self, t: LiveTable) -> bool:
        """The decision in play is not shown yet: the pause before it still runs."""
        return t.status == PLAYING and t.wait_started is not None and self._clock() < t.wait_started

    def _check_shown(self, t: LiveTable) -> None:
        """Nobody may act on a decision the pause still hides (no panel offers it yet)."""
        if self._opening(t):
            raise TableError("not_your_turn", "nothing is asked of you now")

    def _note_shown(self, t: LiveTable, call: Any, args: tuple[Any, ...], due: float) -> None:
        """Remember a view queued for the front end and when it shows: the board's under BOARD, a panel's
        under its player id. Only the last one shown by now and those still to come are kept."""
        fe = self._frontend
        if call == fe.board_changed:
            key, view = BOARD, args[0]
        elif call == fe.hand_changed:
            key, view = args[0].player_id, args[1]
        else:
            return
        queued = t.told.setdefault(key, [])
        queued.append((due, view))
        now = self._clock()
        while len(queued) > 1 and queued[1][0] <= now:
            del queued[0]

    def _told(self, t: LiveTable, key: str) -> tuple[bool, Any]:
        """(whether a view for `key` is still to show, the view it shows now: None when none was sent)."""
        queued = t.told.get(key, [])
        now = self._clock()
        shown = [view for due, view in queued if due <= now]
        return len(shown) < len(queued), (shown[-1] if shown else None)

    def _public_as_shown(self, t: LiveTable) -> PublicView:
        ahead, shown = self._told(t, BOARD)
        return shown if ahead and shown is not None else public_view(t)

    def _private_as_shown(self, t: LiveTable, seat: int) -> PrivateView:
        """The seat's panel as the front end shows it: the live view, or during a pause the one last sent, with
        no choices (the decision after the pause is offered when it shows)."""
        live = private_view(t, seat)
        if not self._opening(t):
            return live
        _, shown = self._told(t, live.player_id)
        return replace(shown if shown is not None else live, choices=(), deadline=None, discard_waits={})

    def _arm_flush(self, t: LiveTable) -> None:
        if t.flush_timer is None and t.delayed:
            delay = max(0.0, t.delayed[0][0] - self._clock())
            t.flush_timer = asyncio.get_running_loop().call_later(delay, self._flush_held, t)

    def _flush_held(self, t: LiveTable, *, everything: bool = False) -> None:
        """Send the front-end calls that are due (all of them with everything=True)."""
        if t.flush_timer is not None:
            t.flush_timer.cancel()
            t.flush_timer = None
        now = self._clock()
        while t.delayed and (everything or t.delayed[0][0] <= now):
            _, call, args, kwargs = t.delayed.pop(0)
            self._put(t, call, *args, **kwargs)
        self._arm_flush(t)

    def _ai_due(self, t: LiveTable) -> float:
        """When the AI decides: `ai_delay` after the decision showed; a claim answer within the pause."""
        opened = t.wait_started if t.wait_started is not None else self._clock()
        due = opened + self.ai_delay
        if t.hold_until is not None and t.hand is not None and t.hand.phase in (CLAIM, ROB):
            due = min(due, t.hold_until)
        return due
