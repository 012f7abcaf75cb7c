"""The FrontEnd port (kwx/table/ports.py) of the game screen: keeps the latest views and tells the app
(kwx.local.app.KwxApp) what to redraw, log or show. The service calls it on the app's own asyncio loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kwx.local.port import BalanceSource, LocalPort
from kwx.local.tables import YOU_ID
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView


class Screen(Protocol):
    def redraw(self, hand: bool = False) -> None: ...
    def log_line(self, markup: str) -> None: ...
    def show_result(self, lines: list[Any]) -> None: ...


class AppFrontEnd(LocalPort):
    """The FrontEnd port for the game screen: keeps the latest views and tells the app to redraw."""

    def __init__(self, app: Screen, *, lang: str, clock: Callable[[], float], ledger: BalanceSource | None = None,
                 table_id: int | None = None) -> None:
        super().__init__(player_id=YOU_ID, lang=lang, clock=clock, ledger=ledger, table_id=table_id)
        self.app = app

    async def board_changed(self, view: PublicView) -> None:
        if not self._mine(view.table_id):
            return
        self.board = view
        for event in self.new_events(view):
            line = self.event_line(event, view)
            if line:
                self.app.log_line(line.lstrip("\n"))
        self.app.redraw()

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        if player.player_id != self.player_id or not self._mine(view.table_id):
            return
        self.hand = view
        self.app.redraw(hand=True)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        """The reveal's log line came with the board's events, in its place; the seats show it from here."""
        if self._mine(view.table_id):
            self.board = view
            self.app.redraw()

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        lines = await self.result_block(result, view)
        if lines is not None:
            if self.last_check:  # stays in the log, under the result and after it is closed
                self.app.log_line(self.last_check)
            self.app.show_result(lines)
            self.app.redraw()

    async def table_paused(self, view: PublicView, reason: str) -> None:
        if self._mine(view.table_id):
            self.board = view
            self.app.redraw()

    async def table_closed(self, summary: Any) -> None:
        if self._mine(summary.table_id):
            self.app.show_result(self.summary_lines(summary))

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        if not self._mine(table_id) or not self.shows_notice(key):
            return
        self.app.log_line(f"[dim]· {self.notice_text(key, fmt)}[/]")
        self.app.redraw()
