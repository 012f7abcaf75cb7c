"""A recording FrontEnd for the table service tests, and small helpers around it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary


@dataclass
class Call:
    method: str  # board_changed | hand_changed | liangdao_revealed | hand_finished | notice | table_paused | …
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


class RecordingFrontEnd:
    """Implements kwx.table.ports.FrontEnd by recording every call; `wait_for` awaits a condition on them."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._changed = asyncio.Condition()

    async def _record(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append(Call(method, args, kwargs))
        async with self._changed:
            self._changed.notify_all()

    async def board_changed(self, view: PublicView) -> None:
        await self._record("board_changed", view)

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        await self._record("hand_changed", player, view, prompt=prompt)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        await self._record("liangdao_revealed", view, seat)

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        await self._record("hand_finished", result, view)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        await self._record("notice", table_id, key, **fmt)

    async def table_paused(self, view: PublicView, reason: str) -> None:
        await self._record("table_paused", view, reason)

    async def table_closed(self, summary: TableSummary) -> None:
        await self._record("table_closed", summary)

    # -- reading -----------------------------------------------------------------------------------------
    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def boards(self, table_id: int | None = None) -> list[PublicView]:
        return [c.args[0] for c in self.of("board_changed") if table_id is None or c.args[0].table_id == table_id]

    def results(self, table_id: int | None = None) -> list[ResultView]:
        return [c.args[0] for c in self.of("hand_finished") if table_id is None or c.args[0].table_id == table_id]

    def notices(self, key: str | None = None) -> list[Call]:
        return [c for c in self.of("notice") if key is None or c.args[1] == key]

    def private(self, player_id: str) -> list[tuple[PrivateView, bool]]:
        return [(c.args[1], c.kwargs["prompt"]) for c in self.of("hand_changed") if c.args[0].player_id == player_id]

    def last_prompt(self, player_id: str) -> PrivateView | None:
        prompts = [v for v, prompt in self.private(player_id) if prompt]
        return prompts[-1] if prompts else None

    async def wait_for(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        async def _wait() -> None:
            async with self._changed:
                await self._changed.wait_for(condition)

        await asyncio.wait_for(_wait(), timeout)


class StampedFrontEnd(RecordingFrontEnd):
    """Records every call with the (fake) time it was delivered."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__()
        self.clock = clock
        self.stamps: list[float] = []

    async def _record(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.stamps.append(self.clock())
        await super()._record(method, *args, **kwargs)

    def prompts(self, player_id: str) -> list[tuple[float, PrivateView]]:
        """(when it was delivered, the view) of each prompt (a new decision) sent to this player."""
        return [(at, c.args[1]) for at, c in zip(self.stamps, self.calls)
                if c.method == "hand_changed" and c.kwargs["prompt"] and c.args[0].player_id == player_id]


def notice_keys(frontend) -> list[str]:
    return [c.args[1] for c in frontend.notices() if c.args[1].startswith("event.")]
