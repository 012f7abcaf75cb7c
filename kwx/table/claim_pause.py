"""The claim pause: the board's hold after a discard, and what each front end was shown while it runs.

At a table with a human the board holds every discard and 补杠 for `pause_s` seconds (RecordState.pause_s),
whether or not anyone may claim it, so that nothing public depends on concealed tiles. While it runs the table
has moved on (the next draw, an AI's claim answer) but the front ends must not show it yet: the calls that
show it are held back, and a read of the table for a front end gives what that front end was last told.

One `ClaimPause` per table (`RecordState.hold`) owns all of it:

- replayed, set by the reducer from the records' times: `until`, when the board's hold ends, and
  `hidden_answers`, the claim answers applied, which the board's step does not count;
- run time, filled by the delivery (kwx/table/delivery.py) and empty after a restart: the front-end calls held
  back until their moment shows (`hold_back`, `defer`, `due_calls`), the views queued for the board and each
  panel with when each shows (`note_shown`), and the key of each panel last sent (`panel_changed`).

The views of a moment the board holds are built from a copy of the record at that moment (`moment`), with a
pause of its own: nothing built for a moment changes the record.

Its reads give the views as a front end shows them (`public_as_shown`, `private_as_shown`), from the live ones
they are handed (kwx.table.viewbuild builds those from the record as it stands: what the pause may still hide).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from kwx.engine.hand import HandState
from kwx.table.errors import TableError
from kwx.table.phases import PLAYING, Phase
from kwx.table.ports import FrontEndCall
from kwx.table.views import PrivateView, PublicView


class Held(Protocol):
    """What the claim pause reads of its table's record (kwx.table.record_state.RecordState)."""

    status: Phase
    wait_started: float | None
    hand: HandState | None
    step: int
    hold: ClaimPause

    @property
    def pause_s(self) -> float: ...


BOARD = ""  # the key of the board's views (a player id is never empty)

Queued = tuple[FrontEndCall, tuple[Any, ...], dict[str, Any]]  # a front-end call with its arguments


class ClaimPause:
    def __init__(self, record: Held) -> None:
        self._t = record
        # replayed
        self.until: float | None = None  # the board holds a discard or 补杠 until then
        self.hidden_answers = 0  # claim answers applied: steps the public board does not count
        # run time
        self._send_due: float | None = None  # while set, front-end calls go out no earlier than this
        self._held: list[tuple[float, Queued]] = []  # calls held back, each with when it goes out
        self._told: dict[str, list[tuple[float, PublicView | PrivateView]]] = {}  # BOARD or player id -> views
        self._panel_keys: dict[str, tuple[Any, ...]] = {}  # player id -> key fields of the panel last sent

    # == the reducer's: when each moment of a record shows =================================================
    def hold_moments(self, at: float, moments: int, open_window: bool) -> tuple[float, float]:
        """A record at `at` whose events hold `moments` discards and 补杠 on the board, each a pause apart; a
        window left open is its last moment and is held too. The first shows at `at`, or when a hold still
        running ends. Returns (when its first moment shows, when the decision it leads to shows: its deadline
        counts from then)."""
        base = at if self.until is None else max(at, self.until)
        pause = self._t.pause_s
        shown = base + max(0, moments - open_window) * pause
        self.until = base + moments * pause if pause and moments else None
        return base, shown

    def release(self) -> None:
        """A new hand (or 漂 phase) opens: nothing is held."""
        self.until = None

    def answer_hidden(self) -> None:
        """A claim answer was applied: the board does not count it."""
        self.hidden_answers += 1

    # == the decision after the pause ======================================================================
    def opening(self, now: float) -> bool:
        """The decision in play is not shown yet: the pause before it still runs."""
        t = self._t
        return t.status == PLAYING and t.wait_started is not None and now < t.wait_started

    def check_shown(self, now: float) -> None:
        """Nobody may act on a decision the pause still hides (no panel offers it yet)."""
        if self.opening(now):
            raise TableError("not_your_turn", "nothing is asked of you now")

    # == held calls ========================================================================================
    @contextmanager
    def sending_from(self, at: float | None) -> Iterator[None]:
        """Within: front-end calls go out no earlier than `at` (None: at once, after those held)."""
        before, self._send_due = self._send_due, at
        try:
            yield
        finally:
            self._send_due = before

    def hold_back(self, now: float) -> float | None:
        """When a call queued now goes out: None for at once; else the time it is held back until (never before
        a call held already)."""
        due = self._send_due
        if not self._held and (due is None or due <= now):
            return None
        last = self._held[-1][0] if self._held else 0.0
        return max(due or 0.0, last)

    def defer(self, at: float, call: Queued) -> None:
        """Hold `call` back until `at` (from `hold_back`)."""
        self._held.append((at, call))

    def next_due(self) -> float | None:
        """When the first held call goes out (None: nothing is held)."""
        return self._held[0][0] if self._held else None

    def due_calls(self, now: float, *, everything: bool = False) -> list[Queued]:
        """The held calls due by `now` (all with everything=True), in order, no longer held."""
        out: list[Queued] = []
        while self._held and (everything or self._held[0][0] <= now):
            out.append(self._held.pop(0)[1])
        return out

    # == what the front ends were told =====================================================================
    def note_shown(self, key: str, view: PublicView | PrivateView, due: float, now: float) -> None:
        """A view queued for the board (key BOARD) or a player's panel (their id), which shows at `due`. Only
        the last one shown by `now` and those still to come are kept."""
        queued = self._told.setdefault(key, [])
        queued.append((due, view))
        while len(queued) > 1 and queued[1][0] <= now:
            del queued[0]

    def panel_changed(self, player_id: str, key: tuple[Any, ...]) -> bool:
        """Whether the player's panel differs from the one last sent (its key fields); remembers it."""
        if self._panel_keys.get(player_id) == key:
            return False
        self._panel_keys[player_id] = key
        return True

    def _told_now(self, key: str, now: float) -> tuple[bool, PublicView | PrivateView | None]:
        """(whether a view for `key` is still to show, the view it shows now: None when none was sent)."""
        queued = self._told.get(key, [])
        shown = [view for due, view in queued if due <= now]
        return len(shown) < len(queued), (shown[-1] if shown else None)

    # == reads ===========================================================================================
    def public_as_shown(self, now: float, live: Callable[[], PublicView]) -> PublicView:
        """The board as the front ends show it at `now`: during the pause after a discard, the moment held, not
        yet what follows (`live` builds the board as the table stands)."""
        ahead, shown = self._told_now(BOARD, now)
        if ahead and isinstance(shown, PublicView):
            return shown
        return live()

    def private_as_shown(self, now: float, live: PrivateView) -> PrivateView:
        """A seat's panel as the front ends show it at `now`: `live` (the panel as the table stands), or while
        the pause hides the decision, the one last sent with no choices (the decision is offered when it
        shows)."""
        if not self.opening(now):
            return live
        _, shown = self._told_now(live.player_id, now)
        return replace(shown if isinstance(shown, PrivateView) else live, choices=(), deadline=None,
                       discard_waits={})


R = TypeVar("R", bound=Held)


def moment(record: R, hand: HandState, step: int) -> R:
    """A copy of `record` at a moment its board holds: `hand` (a clone stopped there) in place of the hand in
    play, at `step`. Views of that moment are built from it; the record is left as it is. The copy is shallow
    and only read; its pause is its own (a copy of the record's replayed part, nothing held or told)."""
    at = copy.copy(record)
    at.hand, at.step = hand, step
    at.hold = ClaimPause(at)
    at.hold.until, at.hold.hidden_answers = record.hold.until, record.hold.hidden_answers
    return at
