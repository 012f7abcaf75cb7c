"""The terminal table: you (`local:you`) against two AI players, in colour, on the same service and ledger as Discord.

    python bot.py            # no DISCORD_TOKEN configured, or --local

The local table lives in the store (guild `local`, channel `terminal`) and stays open across runs: the next run
resumes it, an unfinished hand first. `ConsoleFrontEnd` implements the FrontEnd port (kwx/table/ports.py): it
prints one compact log line per public event and the full board when it is your turn. `TerminalTable` reads
commands (tile names in either notation, action names in Chinese or English), checks them against your
private view so mistakes are explained, and passes them to the service. Input is read by a daemon thread, so
the event loop never blocks and quitting never waits for a keypress.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from kwx.engine.tiles import excerpt
from kwx.local.crash import crash_log_path, report_crash
from kwx.local.dispatch import Dispatcher, Said, TablePresses
from kwx.local.lines import LineSource, StdinLines
from kwx.local.port import BalanceSource, LocalPort
from kwx.local.tables import (
    AI_DELAY,
    BETWEEN_HANDS,
    LOCAL_GUILD,
    TERMINAL_CHANNEL,
    TERMINAL_CLAIM_PAUSE,
    TURN_SECONDS,
    WARN_SECONDS,
    YOU_ID,
    find_local_table,
    open_or_resume,
    paused_clock,
    terminal_player,
    unused_timer,
)
from kwx.local.text import say
from kwx.present.i18n import resolve_lang
from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView

ECHOED = 120  # characters of a piped line printed back in the transcript ("…" where it was cut)


def line_console() -> Console:
    """The line mode's console. Into a pipe or a file it does not break lines at 80 columns (Rich's width when it
    cannot ask a terminal): a reader or a script gets each sentence whole."""
    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal
    return console


class ConsoleFrontEnd(LocalPort):
    """The FrontEnd port for one terminal player. Prints log lines for public events, the full board when the
    player must act, and a result block after every hand. `table_id` (when set) filters other tables out."""

    def __init__(self, console: Console | None = None, *, player_id: str = YOU_ID, lang: str = "zh-CN",
                 clock: Callable[[], float] = time.time, ledger: BalanceSource | None = None,
                 guild: str = LOCAL_GUILD, table_id: int | None = None) -> None:
        super().__init__(player_id=player_id, lang=lang, clock=clock, ledger=ledger, guild=guild, table_id=table_id)
        self.console = console or line_console()
        self.prompted: tuple[int, int] | None = None  # (hand, step) of the last decision the board was shown for
        self._prompt_task: asyncio.Task[None] | None = None
        self._warning: asyncio.TimerHandle | None = None
        self.warn_seconds = WARN_SECONDS
        self.header_for: int | None = None  # the hand whose header was printed last (printed once per deal)
        self.resuming = False  # the first prompt after a resume shows the whole board, a claim's too
        self._move_waiters: list[asyncio.Future[None]] = []  # piped moves waiting for your next decision
        self._prompt_open = False  # the prompt is the last thing printed, its line not ended yet
        self._prompt_cut = False  # a line printed by the table (not typed) ended the open prompt's line

    # -- helpers ------------------------------------------------------------------------------------------
    def print(self, what: Any = "", **kw: Any) -> None:
        """Print console markup (or any rich renderable). A line printed while the prompt waits on its line (an
        AI's move, a timer) ends the prompt's line first; `reprompt` then prints the prompt again."""
        if self._prompt_open:
            self.console.print()
            self._prompt_cut = True
        self._prompt_open = kw.get("end") == ""
        self.console.print(what, highlight=False, **kw)

    def line_read(self) -> None:
        """A line was read: whatever was on the prompt's line, it has ended."""
        self._prompt_open = self._prompt_cut = False

    def reprompt(self) -> None:
        """The prompt again, under lines the table printed after it (it is still your decision)."""
        if self._prompt_cut and not self._prompt_open and self.must_act:
            self.print(self.prompt_text(), end="")
        self._prompt_cut = False

    # -- FrontEnd port ---------------------------------------------------------------------------------------
    async def board_changed(self, view: PublicView) -> None:
        if not self._mine(view.table_id):
            return
        previous = self.board
        self.board = view
        for event in self.new_events(view):
            if event.get("kind") == "deal":
                self.print_header(view)
                continue
            line = self.event_line(event, view)
            if line:
                self.print(line)
        new_hand = previous is not None and previous.hand_no != view.hand_no and view.phase in ("turn", "claim")
        if new_hand:
            self.print_header(view)
        self.reprompt()

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        if player.player_id != self.player_id or not self._mine(view.table_id):
            return
        self.hand = view
        if not view.choices:
            self._clear_prompt()
            return
        self._wake_moves()
        if prompt:
            # Let the board update of the same action print first, then show the board and the prompt once.
            if self._prompt_task is not None and not self._prompt_task.done():
                self._prompt_task.cancel()
            self._prompt_task = asyncio.ensure_future(self._prompt_soon(view))

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        """The reveal's log line came with the board's events, in its place."""
        if self._mine(view.table_id):
            self.board = view

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        lines = await self.result_block(result, view)
        if lines is None:
            return
        self._clear_prompt()
        for line in lines:
            self.print(line)
        self.print(f"[dim]{say('between_hands', self.lang)}[/]")

    async def table_paused(self, view: PublicView, reason: str) -> None:
        """The service paused the table (its notice says why); the prompt now says how to play on."""
        if self._mine(view.table_id):
            self.board = view
            self._wake_moves()  # a waiting move is answered now: the pause is explained, not waited out

    async def table_closed(self, summary: Any) -> None:
        if self._mine(summary.table_id):
            self._wake_moves()
            for line in self.summary_lines(summary):
                self.print(line)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        if not self._mine(table_id) or not self.shows_notice(key):
            return
        self.print(f"[dim]· {self.notice_text(key, fmt)}[/]")
        if key.startswith("table.paused."):
            self.print(f"[bold reverse yellow] {say('paused_banner', self.lang)} [/]")
        if key == "event.autoplay_on" and fmt.get("player_id") == self.player_id:
            self.print(f"[bold reverse yellow] {say('autoplay_banner', self.lang)} [/]")
        self.reprompt()

    # -- a move typed ahead -----------------------------------------------------------------------------------
    async def your_move(self) -> None:
        """Return when a decision of yours is open (at once if one is), or the table paused or closed."""
        if self.must_act:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._move_waiters.append(waiter)
        await waiter

    def _wake_moves(self) -> None:
        waiters, self._move_waiters = self._move_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    # -- the prompt ------------------------------------------------------------------------------------------
    async def _prompt_soon(self, view: PrivateView) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        if _same_decision(self.hand, view):
            self.show_prompt(full=True)

    async def settle(self) -> None:
        """Wait for a scheduled prompt to be printed (tests, and before reading the next line)."""
        if self._prompt_task is not None and not self._prompt_task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await self._prompt_task

    def _clear_prompt(self) -> None:
        if self._warning is not None:
            self._warning.cancel()
            self._warning = None

    def show_prompt(self, *, full: bool) -> None:
        """Print the board (on your turn) or your hand and the claim, then the prompt with the time left."""
        view = self.hand
        if view is None or not view.choices:
            return
        key = (view.hand_no, view.step)
        claim = view.claim_tile is not None and not any(c.verb == "discard" for c in view.choices)
        if full and self.prompted != key:
            if claim and not self.resuming:
                for line in self.hand_lines(view):
                    self.print(line)
            else:
                self.print_board()
        elif self.prompted == key and self._prompt_open:
            return  # this very prompt is on the screen, waiting (a second call for it, after back, adds none)
        self.prompted = key
        self.resuming = False
        self.print(self.prompt_text(), end="")
        self._arm_warning(view)

    def prompt_text(self) -> str:
        view = self.hand
        if self.is_paused():
            return f"[bold reverse yellow] {say('paused_prompt', self.lang)} [/] > "
        if self.in_autoplay():
            return f"[bold reverse yellow] {say('autoplay_prompt', self.lang)} [/] > "
        if view is None or not view.choices:
            return f"[dim]{say('prompt_idle', self.lang)}[/] > "
        secs = self.seconds_left(view.deadline)
        style = "bold red" if secs is not None and secs <= self.warn_seconds else "bold yellow"
        return f"[{style}]▶[/] {self.prompt_line(view)} > "

    def _arm_warning(self, view: PrivateView) -> None:
        self._clear_prompt()
        left = None if view.deadline is None else view.deadline - self.clock()
        if left is None or left <= self.warn_seconds:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def warn() -> None:
            if _same_decision(self.hand, view) and view.choices:
                left = self.seconds_left(view.deadline) or 0
                self.print(f"[bold red]⏰ {say('time_warning', self.lang, secs=left)}[/]")  # on a line of its own
                self.print(self.prompt_text(), end="")

        self._warning = loop.call_later(left - self.warn_seconds, warn)

    # -- rendering -------------------------------------------------------------------------------------------
    def print_header(self, view: PublicView) -> None:
        """The hand's header, once per deal."""
        if self.header_for != view.hand_no:
            self.header_for = view.hand_no
            self.print(self.header(view))

    def print_board(self) -> None:
        """The full board: every seat (melds, discards, 亮倒 reveals, scores), the wall and whose turn, your hand."""
        view = self.board
        if view is not None:
            self.print_header(view)
            self.print(self.seat_table(view))
            self.print(self.status_line(view))
        if self.hand is not None and (view is None or self.hand.hand_no == view.hand_no):
            for line in self.hand_lines(self.hand):
                self.print(line)


def _same_decision(a: PrivateView | None, b: PrivateView) -> bool:
    return a is not None and (a.table_id, a.hand_no, a.step) == (b.table_id, b.hand_no, b.step)


class TerminalTable:
    """The input loop: one line at a time through the terminal's dispatcher (kwx.local.dispatch), each reply
    printed, the prompt again when a decision is still yours."""

    def __init__(self, service: TablePresses, frontend: ConsoleFrontEnd, table_id: int) -> None:
        self.service = service
        self.frontend = frontend
        self.table_id = table_id
        # Piped input arrives all at once: a move read while the AI players move waits for your decision instead
        # of being refused (a typed one is answered at once: you see whose turn it is).
        self.moves_wait = False
        self.dispatcher = Dispatcher(service, frontend, table_id, before_move=self._before_move)

    @property
    def lang(self) -> str:
        return self.frontend.lang

    async def _before_move(self) -> None:
        if self.moves_wait:
            await self.frontend.your_move()

    def show(self) -> None:
        """The full board, and the prompt when you must act."""
        self.dispatcher.refresh()
        fe = self.frontend
        fe.print_board()
        if fe.must_act:
            assert fe.hand is not None
            fe.prompted = (fe.hand.hand_no, fe.hand.step)
            fe.show_prompt(full=False)

    async def handle_line(self, line: str) -> bool:
        """Act on one line; False when the player leaves. Mistakes are explained, never fatal."""
        fe = self.frontend
        reply = await self.dispatcher.line(line)
        if reply.cancelled:
            fe.print(f"[dim]{escape(say('cancelled', self.lang))}[/]")
        kind = reply.kind
        if kind is Said.LEAVE:
            return False
        if kind is Said.SHOW:
            self.show()
            return True
        if kind is Said.CAME_BACK:  # the board, when a decision is yours (the service's own prompt then adds none)
            if fe.must_act:
                fe.show_prompt(full=True)
            return True
        if kind is Said.PLAYED:
            return True
        if kind is Said.REFUSED:
            fe.print(f"[red]✗[/] {reply.text}")
        elif kind is Said.CANCELLED:
            fe.print(f"[dim]{escape(reply.text)}[/]")
        elif kind is Said.ASK:
            fe.print(reply.text)
            fe.print(f"[bold]{escape(say('confirm_again', self.lang))}[/]")
        elif kind in (Said.HELP, Said.SETTING):
            fe.print(escape(reply.text))
        if fe.must_act:
            fe.print(fe.prompt_text(), end="")
        return True

    async def run(self, lines: LineSource) -> None:
        """Read and act until `quit` or the end of input."""
        self.moves_wait = bool(getattr(lines, "echo", False))  # lines not typed at a terminal: a pipe, a script
        fe = self.frontend
        while True:
            line = await lines.readline()
            fe.line_read()  # the prompt's line ended (Enter at a terminal, or the quote below)
            if line is None:
                fe.print()
                fe.print(f"[dim]{say('eof', self.lang)}[/]")
                return
            if getattr(lines, "echo", False):  # a line is quoted, not copied: a 1 MB paste is not printed back
                fe.console.print(excerpt(line, ECHOED), markup=False, highlight=False)
            if not await self.handle_line(line):
                return


async def play_terminal(db_path: str | Path, *, lang: str = "zh-CN", seed: str | None = None,
                        ai_delay: float = AI_DELAY, between_hands: float = BETWEEN_HANDS,
                        turn_seconds: float | None = TURN_SECONDS, claim_pause: float = TERMINAL_CLAIM_PAUSE,
                        console: Console | None = None, lines: LineSource | None = None,
                        service_factory: Callable[..., Any] | None = None, new: bool = False) -> int:
    """Open or resume the terminal table and play until `quit` or end of input. Returns the exit status."""
    console = console or line_console()
    lang = resolve_lang(lang)
    you = terminal_player()
    store = await Store.open(db_path)
    existing = await find_local_table(store, TERMINAL_CHANNEL)
    clock = await paused_clock(store, existing.id if existing is not None else None)
    frontend = ConsoleFrontEnd(console, lang=lang, ledger=store, clock=clock,
                               table_id=existing.id if existing is not None else None)
    frontend.resuming = existing is not None
    factory = service_factory or TableService
    service = factory(store, frontend, ai_delay=ai_delay, between_hands=between_hands, clock=clock,
                      claim_pause=claim_pause)
    console.print(f"[bold]{say('banner', lang)}[/]  [dim]{escape(say('db', lang, path=store.path))}[/]",
                  highlight=False)
    try:
        table_id, resumed = await open_or_resume(service, you, turn_seconds=turn_seconds, seed=seed, new=new)
        if resumed:
            console.print(say("resumed", lang, table=table_id, hand=service.public_view_as_shown(table_id).hand_no),
                          highlight=False)
            unused = unused_timer(existing, turn_seconds)
            if unused is not None:
                console.print(frontend.unused_timer_line(table_id, unused), highlight=False)
        else:
            console.print(say("new_table", lang, table=table_id), highlight=False)
        frontend.table_id = table_id
        table = TerminalTable(service, frontend, table_id)
        await table.dispatcher.load_settings()  # your auto-pass, in the status line
        flush = getattr(service, "flush", None)
        if flush is not None:  # let the views of the resume / the deal reach the screen first
            await flush()
        await frontend.settle()
        if resumed and frontend.prompted is None:  # a new hand shows itself as it is dealt
            last = getattr(service, "last_result", None)
            result = last(table_id) if last is not None else None
            if result is not None:  # between hands: the hand that ended, not its finished board as if live
                await frontend.hand_finished(result, service.public_view_as_shown(table_id))
            else:
                table.show()
        frontend.resuming = False
        await table.run(lines or StdinLines())
        frontend.closed = True
        console.print()
        console.print(say("quit", lang), highlight=False)
        return 0
    finally:
        frontend.closed = True
        await service.shutdown()
        await store.close()


def run_terminal(settings: Any, *, db: str | None = None, seed: str | None = None, delay: float | None = None,
                 turn_seconds: float | None = TURN_SECONDS, new: bool = False) -> int:
    """`python bot.py --plain`: the terminal table line by line. Ctrl-C leaves like `quit`; an error exits
    non-zero with one line naming the crash log (kwx.local.crash)."""
    db_path = db or settings.db_path
    try:
        return asyncio.run(play_terminal(db_path, lang=settings.lang, seed=seed,
                                         ai_delay=AI_DELAY if delay is None else delay, turn_seconds=turn_seconds,
                                         new=new))
    except KeyboardInterrupt:
        print()
        print(say("quit", settings.lang))
        return 0
    except Exception:
        return report_crash(traceback.format_exc(), crash_log_path(db_path), settings.lang)
