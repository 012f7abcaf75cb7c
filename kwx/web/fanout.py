"""Several front ends on one table service: the service has one FrontEnd port, and a bot that serves both
Discord and the table pages gives it this, which makes each call on each front end in turn.

A front end that fails a call is logged and the others still get it: a page's socket error never costs a
Discord board its edit, nor the reverse.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from kwx.table.ports import FrontEnd
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary

logger = logging.getLogger(__name__)


class FanOut:
    def __init__(self, frontends: Sequence[FrontEnd]) -> None:
        self.frontends = tuple(frontends)

    async def _each(self, name: str, /, *args: object, **kwargs: object) -> None:
        for frontend in self.frontends:
            try:
                await getattr(frontend, name)(*args, **kwargs)
            except Exception:
                logger.exception("%s.%s failed", type(frontend).__name__, name)

    async def board_changed(self, view: PublicView) -> None:
        await self._each("board_changed", view)

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        await self._each("hand_changed", player, view, prompt=prompt)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        await self._each("liangdao_revealed", view, seat)

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        await self._each("hand_finished", result, view)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        await self._each("notice", table_id, key, **fmt)

    async def table_paused(self, view: PublicView, reason: str) -> None:
        await self._each("table_paused", view, reason)

    async def table_closed(self, summary: TableSummary) -> None:
        await self._each("table_closed", summary)
