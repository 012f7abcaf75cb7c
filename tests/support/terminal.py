"""The terminal's tests: boards and panels to render, a fake service the line mode talks to, and a whole
terminal session run from scripted lines (`run`, with a `Recorder` that keeps the service and front end)."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from kwx.engine.tiles import Tile, parse_tiles
from kwx.local.plain import ConsoleFrontEnd, TerminalTable, play_terminal
from kwx.table.advice import warning_for
from kwx.table.errors import TableError
from kwx.table.press import TOGGLE_AUTO_PASS, Press, PressOutcome, Question
from kwx.table.service import TableService
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PlayerRef,
    PrivateView,
    PublicView,
    SeatView,
)

YOU = PlayerRef("local:you", "你")
AI1 = PlayerRef("ai:standard:1", "电脑1", "standard")
AI2 = PlayerRef("ai:standard:2", "电脑2", "standard")
NOW = 1_000_000.0


def make_console() -> Console:
    return Console(file=io.StringIO(), record=True, width=120, color_system=None, highlight=False)


def output(console: Console) -> str:
    return console.export_text(clear=True)


@dataclass
class FakeService:
    """Views set by the test; `press` answers as the service's contract says (kwx.table.press: a 亮倒 and, unless
    turned off, a discard the view warns of are asked first) and records what was played (or refuses with
    `refuse`); the player's settings are kept in `settings`."""

    board: PublicView
    hand: PrivateView
    acts: list[tuple[str, Tile | None, int | None]] = field(default_factory=list)
    refuse: TableError | None = None
    settings: dict[str, bool] = field(default_factory=lambda: {"auto_pass": False, "ask_first": True})

    async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome:
        assert table_id == 1 and player_id == YOU.player_id
        if press.verb == TOGGLE_AUTO_PASS:
            self.settings["auto_pass"] = not self.settings["auto_pass"]
            return PressOutcome(view=self.hand, auto_pass=self.settings["auto_pass"])
        if self.refuse is not None:
            return PressOutcome(refusal=self.refuse, view=self.hand, auto_pass=self.settings["auto_pass"])
        warned = warning_for(self.hand.warnings, press.verb, press.tile) if press.tile is not None else None
        if not press.confirmed and press.tile is not None and (
                press.verb == "liangdao" or (warned is not None and self.settings["ask_first"])):
            return PressOutcome(ask=Question(press.verb, press.tile, warned), view=self.hand)
        self.acts.append((press.verb, press.tile, press.step))
        return PressOutcome(view=self.hand, auto_pass=self.settings["auto_pass"])

    async def player_setting(self, table_id: int, player_id: str, setting: str) -> bool:
        return self.settings[setting]

    async def set_player_setting(self, table_id: int, player_id: str, setting: str, on: bool) -> bool:
        self.settings[setting] = on
        return True

    async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None:
        raise AssertionError("not in autoplay")

    def public_view_as_shown(self, table_id: int) -> PublicView:
        return self.board

    def private_view_as_shown(self, table_id: int, player_id: str) -> PrivateView:
        return self.hand


HAND = tuple(sorted(parse_tiles("1123p456p577s99s7z")))  # 13 tiles, sorted, one 中 (7z)


def board(**kw: Any) -> PublicView:
    seats = (
        SeatView(0, YOU, score=-4, concealed_count=13, discards=(Tile.S1, Tile.P9), is_dealer=True),
        SeatView(1, AI1, score=8, concealed_count=10, melds=(MeldView("pung", Tile.GREEN, 0),),
                 discards=(Tile.WHITE,)),
        SeatView(2, AI2, score=-4, concealed_count=13, discards=(Tile.P1, Tile.S9)),
    )
    values: dict[str, Any] = dict(table_id=1, hand_no=2, step=7, phase="turn", seats=seats, wall_remaining=41,
                                  turn_seat=0, deadline=NOW + 57)
    values.update(kw)
    return PublicView(**values)


def my_turn(**kw: Any) -> PrivateView:
    held = (*HAND, Tile.S8)
    choices = tuple(ActionChoice("discard", x) for x in sorted(set(held)))
    values: dict[str, Any] = dict(table_id=1, hand_no=2, step=7, seat=0, player_id=YOU.player_id, concealed=HAND,
                                  drawn=Tile.S8, melds=(), choices=choices, deadline=NOW + 57,
                                  discard_waits={Tile.RED: (Tile.S5, Tile.S8)})
    values.update(kw)
    return PrivateView(**values)


def claim_on(tile: Tile, verbs: tuple[str, ...]) -> PrivateView:
    return my_turn(drawn=None, claim_tile=tile, choices=tuple(ActionChoice(v) for v in verbs), discard_waits={})


def table_for(hand: PrivateView, lang: str = "zh-CN", **board_kw: Any) -> tuple[TerminalTable, FakeService, Console]:
    console = make_console()
    service = FakeService(board(**board_kw), hand)
    fe = ConsoleFrontEnd(console, lang=lang, clock=lambda: NOW, table_id=1)
    fe.board, fe.hand = service.board, service.hand
    return TerminalTable(service, fe, 1), service, console


class Recorder:
    """A service factory that remembers the front end, so a scripted player can read its views."""

    def __init__(self) -> None:
        self.fe: ConsoleFrontEnd | None = None
        self.service: TableService | None = None

    def __call__(self, store: Any, frontend: ConsoleFrontEnd, **kw: Any) -> TableService:
        self.fe = frontend
        self.service = TableService(store, frontend, **kw)
        return self.service


class QuitWhen:
    """Types for you (win, else pass, else discard the drawn tile) and quits as soon as `stop(fe)` holds."""

    def __init__(self, rec: Recorder, stop) -> None:
        self.rec, self.stop, self.answered = rec, stop, -1

    async def readline(self) -> str | None:
        for _ in range(4000):
            await asyncio.sleep(0.005)
            fe = self.rec.fe
            if fe is None:
                continue
            if self.stop(fe):
                return "quit"
            hand = fe.hand
            if hand is None or not hand.choices or hand.step == self.answered:
                continue
            self.answered = hand.step
            verbs = {c.verb for c in hand.choices}
            if "hu" in verbs:
                return "hu"
            if "discard" not in verbs:
                return "pass"
            return (hand.drawn or hand.concealed[-1]).compact
        return None


async def run(db: Path, lines: Any, rec: Recorder | None = None, **kw: Any) -> str:
    console = make_console()
    kw.setdefault("between_hands", 30)
    kw.setdefault("ai_delay", 0)
    await asyncio.wait_for(play_terminal(db, lang="en", console=console, lines=lines,
                                         service_factory=rec or Recorder(), **kw), timeout=60)
    return console.export_text()
