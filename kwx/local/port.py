"""What both local front ends (the line mode in kwx.local.plain and the game screen's kwx.local.app_port) do
with the service's calls before drawing anything: keep to their own table, stop after quit, log a board's new
events once, show each hand's result once, and read your balance for the result block."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from kwx.engine.event_json import EventJson
from kwx.local.render import Renderer
from kwx.local.tables import LOCAL_GUILD, YOU_ID
from kwx.table.views import PublicView, ResultView


class BalanceSource(Protocol):
    async def balance(self, guild: str, player: str) -> Any: ...


async def ledger_hand_id(ledger: Any, guild: str, result: ResultView) -> int | None:
    """The ledger's id of a finished hand (for `python -m kwx ledger hand ID`), None when it cannot be read."""
    find = getattr(ledger, "hand_commitment", None)
    if find is None:
        return None
    with contextlib.suppress(Exception):  # a courtesy line; never break the table over it
        found = await find(guild, result.table_id, result.hand_no)
        return None if found is None else int(found[0])
    return None


class LocalPort(Renderer):
    def __init__(self, *, player_id: str = YOU_ID, lang: str = "zh-CN", clock: Callable[[], float] = time.time,
                 ledger: BalanceSource | None = None, guild: str = LOCAL_GUILD,
                 table_id: int | None = None) -> None:
        super().__init__(player_id=player_id, lang=lang, clock=clock)
        self.ledger = ledger
        self.guild = guild
        self.table_id = table_id  # when set, other tables' calls are ignored
        self.closed = False  # after quit: the service's last calls show nothing
        self.results_shown: set[tuple[int, int]] = set()  # (table, hand) whose result block was shown
        self._last_logged: PublicView | None = None  # the last view whose events were logged
        self.last_check: str | None = None  # the last finished hand's seed and how to check it (check_line)

    def _mine(self, table_id: int) -> bool:
        return not self.closed and (self.table_id is None or table_id == self.table_id)

    def new_events(self, view: PublicView) -> list[EventJson]:
        """The view's events, unless this very view was logged already (the same view twice logs once). Not keyed
        by the step: a claim window's answer (碰, 杠, 胡) and what the board held back after a discard come in
        views of the step that showed the discard, and each of them has events of its own."""
        if not view.last_events or view == self._last_logged:
            return []
        self._last_logged = view
        return list(view.last_events)

    def hand_log(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        """The hand in play so far as the log showed it, its header first (with the commitment its seed will be
        checked against): a table resumed after a restart logs what happened before you left."""
        view = self.board
        if view is None:
            return []
        lines = [self.header(view)]
        for event in events:
            line = self.event_line(event, view) if event.get("kind") != "deal" else None
            if line:
                lines.append(line.lstrip("\n"))
        return lines

    async def result_block(self, result: ResultView, view: PublicView) -> list[Any] | None:
        """The result's lines the first time this hand's result arrives, None for a repeat or another table."""
        if not self._mine(result.table_id):
            return None
        self.board = view
        key = (result.table_id, result.hand_no)
        if key in self.results_shown:
            return None
        self.results_shown.add(key)
        ledger: dict[str, int] = {}
        if self.ledger is not None:
            with contextlib.suppress(Exception):  # the ledger line is a courtesy; never break the table over it
                row = await self.ledger.balance(self.guild, self.player_id)
                ledger[self.player_id] = int(row.balance)
        hand_id = await ledger_hand_id(self.ledger, self.guild, result)
        self.last_check = self.check_line(result, hand_id, short=True) if hand_id is not None else None
        check = self.check_line(result, hand_id) if hand_id is not None else None
        return self.result_lines(result, view, ledger, check=check)
