"""The front-end port: what the table service tells a front end, and when.

The terminal table (`kwx/local/`) and the Discord cogs (`cogs/`) implement `FrontEnd`. The service calls
these after the action that caused them is durable in the store. Calls may be frequent (every action at an
AI table); a front end coalesces what it must (Discord edits the board at most about once a second).

The port is one-way: the service calls the front end, never the reverse. Everything a front end shows is in
the views (the host, spectators, the 漂 maximum …), so it needs no handle on the service; what it asks of a
table (a press, a command, "this channel is gone") it asks through the service's public methods.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary

FrontEndCall = Callable[..., Coroutine[Any, Any, None]]  # one of FrontEnd's methods, bound


class FrontEnd(Protocol):
    async def board_changed(self, view: PublicView) -> None:
        """The public board of a table changed (lobby, each action, timers)."""

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        """A player's private panel changed. `prompt` is True when the seat must now act (its turn or a claim):
        a front end notifies the player then (a new DM); otherwise it may update silently."""

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        """A seat declared 亮倒: its hand and waits are now public (in `view.seats[seat]`)."""

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        """A hand ended: the result, every hand revealed, payments already written to the ledger."""

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        """A short public notice by string-catalog key (a seat timed out and entered 托管, a player left …)."""

    async def table_paused(self, view: PublicView, reason: str) -> None:
        """The table paused (`view.paused` is `reason`, a kwx.table.log_records.PauseReason): nothing is
        played until someone resumes it. Its notice has been sent already."""

    async def table_closed(self, summary: TableSummary) -> None:
        """The table closed after a game was played (`summary.reason`, a kwx.table.log_records.CloseReason): who won
        what here, and the fewest transfers that settle it."""
