"""Small steps shared by the table tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kwx.engine.tiles import Tile
from kwx.table import PlayerRef, TableError, TableService
from kwx.table.deal import FROM_SEED, Deal
from tests.support.clock import FakeClock
from tests.support.frontends import RecordingFrontEnd
from tests.support.hands import build_wall
from tests.support.players import GUILD

AI_HOST_ID = "ai:standard:9"  # the host of an all-AI table (ai_table)


async def refused(code: str, call: Awaitable[Any]) -> TableError:
    """Await `call`, which must be refused with `code`: a call that is accepted fails the test."""
    with pytest.raises(TableError) as info:
        await call
    assert info.value.code == code, info.value
    return info.value


async def table_with(svc: TableService, host: PlayerRef, *, ais: int = 2, level: str = "standard",
                     channel: str | None = "c1", **kwargs) -> int:
    """A table hosted (and seated) by `host` with `ais` AI players added; not started."""
    table = await svc.open_table(GUILD, channel, host, **kwargs)
    for _ in range(ais):
        await svc.add_ai(table, level, by=host.player_id)
    return table


async def wait_prompt(fe: RecordingFrontEnd, svc: TableService, table: int, player_id: str, after: int = 0,
                      timeout: float = 10.0):
    """Wait until the player has choices at a step > `after`; return their private view."""

    def ready() -> bool:
        try:
            view = svc.private_view_as_shown(table, player_id)
        except Exception:
            return False
        return bool(view.choices) and view.step > after

    await fe.wait_for(ready, timeout)
    return svc.private_view_as_shown(table, player_id)


async def advance_until(svc: TableService, clock: FakeClock, condition: Callable[[], object], *, step: float,
                        rounds: int = 400) -> None:
    """Let the table play what is due, then move the fake clock `step` seconds (its timers fire: the AI's moves,
    deadlines, the next hand), until `condition()` holds."""
    for _ in range(rounds):
        await svc.idle()
        if condition():
            return
        clock.advance(step)
    raise AssertionError(f"the condition never held in {rounds} moves of {step:g} s")


async def finished_hands(fe: RecordingFrontEnd, table: int, n: int, timeout: float = 20.0,
                         resume: TableService | None = None) -> None:
    """Wait for `n` finished hands. With `resume`, a table paused because nobody played (its humans are in
    托管) is resumed by an onlooker (force: nobody comes back from 托管) each time, so the AI plays on."""
    if resume is None:
        await fe.wait_for(lambda: len(fe.results(table)) >= n, timeout)
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(fe.results(table)) < n:
        if resume.public_view_as_shown(table).paused == "nobody":
            await resume.resume(table, "onlooker", force=True)
        left = end - loop.time()
        if left <= 0:
            raise TimeoutError(f"table {table}: {len(fe.results(table))} of {n} hands")
        with contextlib.suppress(TimeoutError):
            await fe.wait_for(lambda: len(fe.results(table)) >= n or resume.public_view_as_shown(table).paused is not None,
                              min(left, 1.0))


# Ann deals (seat 0) a hand ready after discarding 7z (or 5s); the AIs hold nothing she can feed at once.
ANN_DEALS = ("123p456p789p123s5s7z", "44668899s5566z3p", "1122456789p117s")
# AI 1 deals (seat 1) and throws its lone 7z; Ann (seat 0, third from the dealer) holds 77z: she may 碰.
AI_DEALS_7Z = ("123p456p789p123s5s7z", "44668899s5566z3p", "112245678p11s77z")


async def play_own_moves(svc, frontend, table, player_id, moves: int) -> int:
    """Answer `moves` prompts (pass a claim, else discard the drawn tile or the first offered); last step."""
    step = 0
    for _ in range(moves):
        view = await wait_prompt(frontend, svc, table, player_id, after=step)
        verbs = {c.verb: c for c in view.choices}
        if "pass" in verbs:
            choice = verbs["pass"]
        elif view.drawn is not None and any(c.verb == "discard" and c.tile == view.drawn for c in view.choices):
            choice = next(c for c in view.choices if c.verb == "discard" and c.tile == view.drawn)
        else:
            choice = next(c for c in view.choices if c.verb in ("discard", "piao", "hu"))
        await svc.act(table, player_id, choice.verb, choice.tile, step=view.step,
                      amount=1 if choice.verb == "piao" else None)
        step = view.step
    return step


async def ai_table(svc, seed: str, **kwargs) -> int:
    """A table of three AI players (the host one of them), started; returns its id."""
    host = PlayerRef(AI_HOST_ID, "AI 9", "standard")
    table = await table_with(svc, host, channel=None, seed=seed, **kwargs)
    await svc.start_game(table, by=host.player_id)
    return table


class ScriptedDeal:
    """The deal of the table tests' services: from the table seed until the test scripts one, then every hand
    from that wall (in seat order from the dealer, as tests/support/hands.build_wall) with that first dealer.
    `deal` is what a service takes (`TableService(..., deal=script.deal)`); it reads the script when it deals."""

    def __init__(self) -> None:
        self.wall: list[Tile] | None = None
        self.first: int | None = None
        self.deal = Deal(walls=self._walls, dealer=self._dealer)

    def __call__(self, dealer_hand: str, second: str, third: str, draws: str = "", back: str = "",
                 dealer: int = 0) -> None:
        self.wall = build_wall(dealer_hand, second, third, draws, back)
        self.first = dealer

    def _walls(self, seed: str) -> list[Tile]:
        return list(self.wall) if self.wall is not None else FROM_SEED.walls(seed)

    def _dealer(self, table_seed: str, players: int) -> int:
        return self.first if self.first is not None else FROM_SEED.dealer(table_seed, players)
