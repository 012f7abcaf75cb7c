"""The terminal's one command dispatcher, for both local front ends (the line mode kwx.local.plain and the game
screen kwx.local.app): a typed line, or a key of the game screen, becomes one press of the table service
(`TableService.press`, kwx/table/press.py) or a command of the terminal's own, and comes back as a `Reply`
that each front end shows in its own way.

    dispatcher = Dispatcher(service, frontend, table_id)
    reply = await dispatcher.line("9s")          # a typed line (the line mode; the game screen's command line)
    reply = await dispatcher.command(Command("discard", Tile.S9))   # a key of the game screen
    if reply.kind is Said.ASK: ... reply = await dispatcher.answer(yes)   # the service asked first

In order: any line but quit takes your seat back from 托管 or a pause (kwx.local.tables.come_back); help,
hand and quit are the front end's; `confirm on|off` and `autopass` are your table settings, which the service
keeps and honours (kwx.table.player_settings); a game move is checked against your view first, so a typo is
explained in your words (kwx.local.commands), then pressed. The service answers with a refusal (its catalog
words), a question before a costly move (its facts, in kwx.local.warnings' words; the next answer settles it:
yes or the same move goes ahead, anything else cancels), or acceptance.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from kwx.local.commands import AUTO_PASS, Command, CommandError, parse_command, resolve_command
from kwx.local.port import LocalPort
from kwx.local.tables import come_back
from kwx.local.text import say
from kwx.local.warnings import is_yes, question_text
from kwx.table.errors import refusal_text
from kwx.table.press import TOGGLE_AUTO_PASS, Press, PressOutcome
from kwx.table.views import ActionChoice, PrivateView, PublicView


class Said(StrEnum):
    """What became of a line."""

    NOTHING = "nothing"  # an empty line (or back, when nothing needed taking back): the prompt again
    CAME_BACK = "came_back"  # the line took your seat back from 托管 or a pause, and did nothing else
    LEAVE = "leave"
    HELP = "help"
    SHOW = "show"  # the board and your hand again
    SETTING = "setting"  # a setting of yours changed: `text` says so
    REFUSED = "refused"  # `text` says why
    ASK = "ask"  # `text` is the service's question; `Dispatcher.answer` (or the next line) settles it
    CANCELLED = "cancelled"  # the question was answered no, or its decision passed meanwhile
    PLAYED = "played"


@dataclass(frozen=True)
class Reply:
    kind: Said
    text: str = ""  # markup
    cancelled: bool = False  # a question was waiting, and this line cancelled it before being acted on itself


class TablePresses(Protocol):
    """The part of kwx.table.service.TableService the dispatcher uses."""

    async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome: ...
    async def player_setting(self, table_id: int, player_id: str, setting: str) -> bool: ...
    async def set_player_setting(self, table_id: int, player_id: str, setting: str, on: bool) -> bool: ...
    async def set_autoplay(self, table_id: int, player_id: str, on: bool) -> None: ...
    def public_view_as_shown(self, table_id: int) -> PublicView: ...
    def private_view_as_shown(self, table_id: int, player_id: str) -> PrivateView: ...


@dataclass(frozen=True)
class _Asked:
    press: Press
    choice: ActionChoice


class Dispatcher:
    def __init__(self, service: TablePresses, frontend: LocalPort, table_id: int, *,
                 before_move: Callable[[], Awaitable[None]] | None = None) -> None:
        self.service = service
        self.frontend = frontend
        self.table_id = table_id
        # awaited before a move is checked (the line mode: a piped move waits for your decision)
        self.before_move = before_move
        self.asked: _Asked | None = None  # a press the service asked about, waiting for its answer

    @property
    def lang(self) -> str:
        return self.frontend.lang

    @property
    def player_id(self) -> str:
        return self.frontend.player_id

    def refresh(self) -> None:
        """Take the service's current views (they are the truth; the front end's copies may lag a callback)."""
        fe = self.frontend
        with contextlib.suppress(Exception):
            fe.board = self.service.public_view_as_shown(self.table_id)
        with contextlib.suppress(Exception):
            fe.hand = self.service.private_view_as_shown(self.table_id, self.player_id)

    async def load_settings(self) -> None:
        """Read your auto-pass setting for the status line (it was kept in the store by an earlier run)."""
        with contextlib.suppress(Exception):
            self.frontend.auto_pass = await self.service.player_setting(self.table_id, self.player_id, "auto_pass")

    # -- a typed line --------------------------------------------------------------------------------------
    async def line(self, text: str) -> Reply:
        """Act on one typed line. A question waiting for its answer takes this line as the answer first."""
        cancelled = False
        if self.asked is not None:
            if is_yes(text) or self._same_move(text, self.asked.choice):
                return await self.answer(True)
            reply = await self.answer(False)
            if not text.strip():
                return reply
            cancelled = True  # anything else cancels, and is acted on
        try:
            cmd = parse_command(text, self.lang)
        except CommandError as exc:
            return Reply(Said.REFUSED, exc.text, cancelled)
        reply = await self.command(cmd)
        return Reply(reply.kind, reply.text, cancelled) if cancelled else reply

    def _same_move(self, text: str, choice: ActionChoice) -> bool:
        try:
            cmd = parse_command(text, self.lang)
            return cmd is not None and resolve_command(cmd, self.frontend.hand, self.lang) == choice
        except CommandError:
            return False

    # -- a command ---------------------------------------------------------------------------------------------
    async def command(self, cmd: Command | None) -> Reply:
        """Act on a parsed command (None: an empty line, or Enter on the game screen's hand)."""
        self.asked = None
        came_back = (cmd is None or cmd.verb != "quit") and await self.come_back()
        if came_back and (cmd is None or cmd.verb == "back"):
            return Reply(Said.CAME_BACK)
        if cmd is None or cmd.verb == "back":
            return Reply(Said.NOTHING)
        if cmd.verb == "quit":
            return Reply(Said.LEAVE)
        if cmd.verb == "help":
            return Reply(Said.HELP, say("help", self.lang))
        if cmd.verb == "hand":
            self.refresh()
            return Reply(Said.SHOW)
        if cmd.verb in ("confirm_on", "confirm_off"):
            on = cmd.verb == "confirm_on"
            await self.service.set_player_setting(self.table_id, self.player_id, "ask_first", on)
            return Reply(Said.SETTING, say(cmd.verb, self.lang))
        if cmd.verb in AUTO_PASS:
            return await self.auto_pass(AUTO_PASS[cmd.verb])
        self.refresh()
        fe = self.frontend
        if self.before_move is not None and not fe.must_act and not fe.away():
            await self.before_move()
            self.refresh()
        try:
            choice = resolve_command(cmd, fe.hand, self.lang)
        except CommandError as exc:
            return Reply(Said.REFUSED, exc.text)
        assert fe.hand is not None
        return await self._press(Press(choice.verb, choice.tile, step=fe.hand.step, hand=fe.hand.hand_no), choice)

    async def answer(self, yes: bool) -> Reply:
        """The answer to the service's question: yes presses the move again, confirmed, if its decision is still
        open; no (or a decision that passed while you read) plays nothing."""
        asked, self.asked = self.asked, None
        if asked is None:
            return Reply(Said.NOTHING)
        self.refresh()
        hand = self.frontend.hand
        if not yes or hand is None or hand.step != asked.press.step:
            return Reply(Said.CANCELLED, say("cancelled", self.lang))
        return await self._press(Press(asked.press.verb, asked.press.tile, step=asked.press.step,
                                       hand=asked.press.hand, confirmed=True), asked.choice)

    async def _press(self, press: Press, choice: ActionChoice) -> Reply:
        outcome = await self.service.press(self.table_id, self.player_id, press)
        self.frontend.auto_pass = outcome.auto_pass
        if outcome.refusal is not None:
            return Reply(Said.REFUSED, refusal_text(outcome.refusal, self.lang))
        if outcome.ask is not None:
            self.asked = _Asked(press, choice)
            return Reply(Said.ASK, question_text(self.frontend, outcome.view or self.frontend.hand, outcome.ask))
        self.refresh()
        return Reply(Said.PLAYED)

    async def auto_pass(self, on: bool | None = None) -> Reply:
        """Turn auto-pass on or off (None: the other way round). The service keeps it and passes for you every
        claim offer that holds no win, one open now included."""
        fe = self.frontend
        self.refresh()
        if on is None or on != fe.auto_pass:
            hand = fe.hand
            step = hand.step if hand is not None and hand.choices else None
            outcome = await self.service.press(self.table_id, self.player_id, Press(TOGGLE_AUTO_PASS, step=step))
            if outcome.refusal is not None:
                return Reply(Said.REFUSED, refusal_text(outcome.refusal, self.lang))
            fe.auto_pass = outcome.auto_pass
            self.refresh()
        return Reply(Said.SETTING, say("auto_pass_on" if fe.auto_pass else "auto_pass_off", self.lang))

    async def come_back(self) -> bool:
        """Any line while you are in 托管 (or the table is paused) takes your seat back; True when it did."""
        self.refresh()
        if not self.frontend.away():
            return False
        await come_back(self.service, self.table_id, self.player_id)
        flush = getattr(self.service, "flush", None)
        if flush is not None:
            await flush()
        self.refresh()
        return True
