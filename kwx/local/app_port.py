"""The FrontEnd port (kwx/table/ports.py) of the game screen: keeps the latest views and tells the app
(kwx.local.app.KwxApp) what to redraw, log or show. The service calls it on the app's own asyncio loop."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from kwx.local.render import Renderer
from kwx.local.tables import LOCAL_GUILD, YOU_ID
from kwx.local.text import say, tile_markup
from kwx.present.i18n import t
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView


class Screen(Protocol):
    def redraw(self, hand: bool = False) -> None: ...
    def log_line(self, markup: str) -> None: ...
    def show_result(self, lines: list[Any]) -> None: ...


class AppFrontEnd(Renderer):
    """The FrontEnd port for the game screen: keeps the latest views and tells the app to redraw."""

    def __init__(self, app: Screen, *, lang: str, clock: Callable[[], float], ledger: Any = None,
                 table_id: int | None = None) -> None:
        super().__init__(player_id=YOU_ID, lang=lang, clock=clock)
        self.app = app
        self.ledger = ledger
        self.table_id = table_id
        self.results_shown: set[tuple[int, int]] = set()
        self._last_logged: tuple[int, int, int] | None = None
        self.closed = False

    def _mine(self, table_id: int) -> bool:
        return not self.closed and (self.table_id is None or table_id == self.table_id)

    async def board_changed(self, view: PublicView) -> None:
        if not self._mine(view.table_id):
            return
        self.board = view
        key = (view.table_id, view.hand_no, view.step)
        if view.last_events and key != self._last_logged:
            self._last_logged = key
            for event in view.last_events:
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
        if not self._mine(view.table_id):
            return
        self.board = view
        s = view.seats[seat]
        line = t("board.liangdao_reveal", self.lang, player=self.name(seat, view),
                 hand=" ".join(tile_markup(x, self.lang) for x in s.revealed))
        waits = " ".join(tile_markup(x, self.lang) for x in s.waits)
        self.app.log_line(f"[bold magenta]★[/] {line}  [bold]{say('waits', self.lang, tiles=waits)}[/]")
        self.app.redraw()

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        if not self._mine(result.table_id):
            return
        self.board = view
        key = (result.table_id, result.hand_no)
        if key in self.results_shown:
            return
        self.results_shown.add(key)
        ledger: dict[str, int] = {}
        if self.ledger is not None:
            with contextlib.suppress(Exception):
                row = await self.ledger.balance(LOCAL_GUILD, self.player_id)
                ledger[self.player_id] = int(row.balance)
        self.app.show_result(self.result_lines(result, view, ledger))
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
