"""Every public event of a hand reaches the log, once and in order, in both terminal front ends: the 碰, the
直杠, the 亮倒 and the discards thrown for the declared hand, and the 胡 on a discard (each comes in a view of
the same step as the discard before it). One scripted hand (tests/support/scripted.py) on the real service and
store, the board held after each discard as at a real table."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Input

from kwx.local.app import KwxApp
from kwx.local.plain import ConsoleFrontEnd, play_terminal
from kwx.local.widgets import ResultScreen
from kwx.table.service import TableService
from tests.support.scripted import CLAIMS_LOG, ScriptedHand, in_order

PAUSE = 0.05  # the board's hold after each discard (1.5 s at a real table)


class Held:
    """A service factory with a short hold after each discard, dealing the scripted hand and playing its AI seats;
    remembers the front end it was given."""

    def __init__(self, hand: ScriptedHand) -> None:
        self.fe: Any = None
        self.hand = hand

    def __call__(self, store: Any, frontend: Any, **kw: Any) -> TableService:
        self.fe = frontend
        return TableService(store, frontend, **(kw | {"claim_pause": PAUSE, "deal": self.hand.deal,
                                                      "ai_policy": self.hand.decide}))


class YouType:
    """Your lines in the line mode: the scripted hand's move at each of your decisions; `quit` after the result."""

    echo = True

    def __init__(self, factory: Held, hand: ScriptedHand) -> None:
        self.factory, self.hand, self.answered = factory, hand, None

    async def readline(self) -> str | None:
        for _ in range(2000):
            await asyncio.sleep(0.005)
            fe: ConsoleFrontEnd | None = self.factory.fe
            if fe is None:
                continue
            if fe.results_shown:
                return "quit"
            view = fe.hand
            if view is not None and view.choices and (view.hand_no, view.step) != self.answered:
                self.answered = (view.hand_no, view.step)
                return self.hand.your_move(view)
        return None


async def test_the_line_mode_logs_every_claim_the_declared_hand_and_the_win(tmp_path: Path) -> None:
    hand = ScriptedHand()
    factory = Held(hand)
    console = Console(file=io.StringIO(), record=True, width=160, color_system=None, highlight=False)
    await asyncio.wait_for(play_terminal(tmp_path / "kwx.sqlite3", lang="zh-CN", ai_delay=0, between_hands=30,
                                         console=console, lines=YouType(factory, hand), service_factory=factory),
                           timeout=60)
    text = console.export_text()
    assert in_order(text, CLAIMS_LOG["zh-CN"]) == []
    assert text.index("★ AI 1 胡了") < text.index("第 1 局结果")  # the win is logged before its result block


async def test_the_game_screen_logs_every_claim_the_declared_hand_and_the_win(tmp_path: Path) -> None:
    hand = ScriptedHand()
    app = KwxApp(tmp_path / "kwx.sqlite3", lang="en", ai_delay=0, service_factory=Held(hand))
    async with app.run_test(size=(100, 40)) as pilot:  # the log spans the screen: its lines are not wrapped
        answered = None
        for _ in range(500):
            if app.fe is not None and app.fe.results_shown:
                break
            view = app.fe.hand if app.fe is not None else None
            if view is not None and view.choices and (view.hand_no, view.step) != answered:
                answered = (view.hand_no, view.step)
                to_line = [] if isinstance(app.focused, Input) else ["colon"]
                await pilot.press(*to_line, *hand.your_move(view), "enter")  # typed on the command line
            await pilot.pause(0.02)
        else:
            raise AssertionError("the scripted hand never ended")
        await pilot.pause(0.05)
        assert isinstance(app.screen, ResultScreen)
        log = "\n".join(strip.text for strip in app.base.query_one("#log").lines)
        assert in_order(log, CLAIMS_LOG["en"]) == []
        await app.shutdown()
