"""The pause after each discard: the board tells nothing concealed, for TableService.

At a table with a human, every discard and 补杠 is held on the board for the same `pause_s` seconds
whether or not anyone may claim it (LiveTable.pause_s). When nobody may, the engine has already moved on
(the next draw is part of the same record): the moments in between are shown from a clone of the hand
that stops at each of them (HandState.apply(pause=True)), exactly as a claim window would show, and what
follows is sent when the pause ends. AI claim answers come within the pause and show at its end; a human
who answers during the pause is shown at its end too; nobody may act on a turn the pause still hides.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from kwx.engine.actions import Action
from kwx.engine.hand import CLAIM, ROB, TURN
from kwx.table.errors import TableError
from kwx.table.live import Applied, LiveTable
from kwx.table.phases import PLAYING


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

    def _check_not_held(self, t: LiveTable) -> None:
        """During the pause after a discard nobody claimed, the next turn is not open yet (it is not shown)."""
        if t.hand is not None and t.hand.phase == TURN and t.holding(self._clock()):
            raise TableError("not_your_turn", "nothing is asked of you now")

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
