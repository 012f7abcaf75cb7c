"""The game screen at the terminal (Textual): a fixed layout that fits 80×24 and reflows when larger.

    python bot.py            # no DISCORD_TOKEN configured, or --local; --plain for the line mode

The table service runs in Textual's own asyncio loop (the app starts it as a worker); `AppFrontEnd` implements
the FrontEnd port (kwx/table/ports.py) by updating the panes. Layout, top to bottom: a status line (hand,
dealer, wall, whose turn and the time left, 托管), the three seats (melds, discards, 亮倒 reveals, scores), the
event log, your hand (the drawn tile apart, a key a–n under each tile), what you may do now (a key 1–9, 0 each,
on two rows when one cannot hold them: kwx.local.panes) and the command line (tile names and commands as in the
line mode, with editing and ↑/↓ history). With the hand focused: a letter selects a tile, the same letter or
Enter discards it, ←/→ move the selection, a digit takes an action, a mouse click selects (and a second click
discards); `:` or Tab goes to the command line, Escape comes back; F2 turns auto-pass on or off; `?` shows the
rules and fans. The result of a hand waits for a key. Every key and line goes through the terminal's one
dispatcher (kwx.local.dispatch), as in the line mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Input, RichLog, Static
from textual.worker import WorkerFailed

from kwx.engine.tiles import Tile
from kwx.local.app_port import AppFrontEnd
from kwx.local.commands import Command
from kwx.local.crash import crash_log_path, report_crash
from kwx.local.dispatch import Dispatcher, Reply, Said
from kwx.local.input_bytes import lenient_textual_input
from kwx.local.panes import ACTION_KEYS, TILE_KEYS, draw_actions, draw_hand, info_text, status_text
from kwx.local.tables import (
    AI_DELAY,
    TERMINAL_CHANNEL,
    TERMINAL_CLAIM_PAUSE,
    TURN_SECONDS,
    find_local_table,
    open_or_resume,
    paused_clock,
    terminal_player,
    unused_timer,
)
from kwx.local.text import say
from kwx.local.widgets import (
    ActionView,
    CommandLine,
    ConfirmScreen,
    GameLog,
    ResultScreen,
    RulesScreen,
    TileView,
    TooSmallScreen,
    speak_bindings,
)
from kwx.present.i18n import resolve_lang
from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import ActionChoice

BETWEEN_HANDS = 3.0  # the result screen waits for a key; the next deal comes underneath
WIDE = 110  # from this width on, the log sits beside the seats
MIN_WIDTH, MIN_HEIGHT = 80, 24  # the smallest terminal the game screen fits


class KwxApp(App[int]):
    CSS = """
    Screen { layout: vertical; }
    TooSmallScreen { align: center middle; background: $background; }
    #too-small { width: 100%; height: auto; content-align: center middle; text-align: center; padding: 0 1; }
    #status { height: 1; background: $boost; }
    #main { height: 1fr; }
    #seats { height: auto; max-height: 10; }
    #log { height: 1fr; min-height: 3; border-top: solid $primary-darken-2; }
    #main.wide { layout: horizontal; }
    #main.wide #seats { width: 3fr; max-height: 100%; height: 1fr; }
    #main.wide #log { width: 2fr; border-top: none; border-left: solid $primary-darken-2; }
    #hand { height: 2; }
    .tile { width: 4; height: 2; }
    .tile.drawn { margin-left: 2; }
    .tile.selected { background: $accent; }
    .tile.danger { background: $error 40%; }
    #info { height: auto; max-height: 5; }
    #actions { height: auto; }
    .action-row { height: 1; }
    .action { width: auto; margin-right: 2; }
    #cmd { height: 1; border: none; padding: 0 1; }
    #cmd:focus { border: none; background: $boost; }
    ResultScreen, ConfirmScreen { align: center middle; }
    #result { width: 90%; max-width: 100; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    #result-body { height: 1fr; }
    #press { height: auto; }
    #confirm { width: 70; height: auto; border: thick red; background: $surface; padding: 1 2; }
    """
    # Descriptions are catalog keys (local.*), put in the game's language when the app starts (`_speak`).
    BINDINGS = [
        Binding("question_mark,f1", "rules", "key_rules"),
        Binding("colon,slash,tab", "command", "Command", show=False),
        Binding("left", "move(-1)", show=False), Binding("right", "move(1)", show=False),
        Binding("enter", "enter", show=False),
        Binding("f2", "auto_pass", "key_auto_pass"),
        Binding("ctrl+q", "leave", "key_quit"),
        # Ctrl-C leaves as in the line mode (the table stays open); priority: the command line would copy instead
        Binding("ctrl+c", "leave", show=False, priority=True),
        Binding("ctrl+p", "command_palette", "key_palette", show=False, priority=True),
    ]

    def __init__(self, db_path: str | Path, *, lang: str = "zh-CN", seed: str | None = None,
                 ai_delay: float = AI_DELAY, between_hands: float = BETWEEN_HANDS,
                 turn_seconds: float | None = TURN_SECONDS, service_factory: Callable[..., Any] | None = None,
                 new: bool = False, claim_pause: float = TERMINAL_CLAIM_PAUSE) -> None:
        super().__init__()
        self.db_path = db_path
        self.lang = resolve_lang(lang)
        self.seed = seed
        self.ai_delay = ai_delay
        self.between_hands = between_hands
        self.turn_seconds = turn_seconds
        self.new = new  # stop the open table and start another (--new)
        self.claim_pause = claim_pause  # how long a new table's board holds every discard
        self.service_factory = service_factory or TableService
        self.fe: AppFrontEnd | None = None
        self.dispatcher: Dispatcher | None = None
        self.service: Any = None
        self.store: Store | None = None
        self.table_id: int | None = None
        self.selected: int | None = None
        self.ready = asyncio.Event()
        self._results: list[list[Any]] = []
        self.crash: str | None = None  # what stopped the app, when an error did (kwx.local.crash writes it)
        speak_bindings(self._bindings, self.lang)

    # -- the command palette (Ctrl-P), in the game's language ------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The game's own commands instead of Textual's (themes, screenshots: English, and not the game's)."""
        yield SystemCommand(say("palette_rules", self.lang), say("palette_rules_help", self.lang), self.action_rules)
        yield SystemCommand(say("palette_help", self.lang), say("palette_help_help", self.lang),
                            lambda: self.log_line(escape(say("help", self.lang))))
        yield SystemCommand(say("palette_quit", self.lang), say("palette_quit_help", self.lang), self.action_leave)

    def action_command_palette(self) -> None:
        if not any(isinstance(screen, CommandPalette) for screen in self.screen_stack):
            self.push_screen(CommandPalette(placeholder=say("palette_placeholder", self.lang), id="--command-palette"))

    # -- layout ----------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Vertical(id="main"):
            yield Static(id="seats")
            # min_width: lines wrap at the pane's width (beside the seats it is narrower than RichLog's default 78)
            yield GameLog(id="log", markup=True, wrap=True, max_lines=500, min_width=20)
        with Horizontal(id="hand"):
            for i in range(len(TILE_KEYS)):
                yield TileView(i)
        yield Static(id="info")
        with Vertical(id="actions"):  # wraps onto its second row when one cannot hold every choice (panes.py)
            for _ in range(2):
                with Horizontal(classes="action-row"):
                    for i in range(len(ACTION_KEYS)):
                        yield ActionView(i)
        yield CommandLine(id="cmd", placeholder=say("cmd_placeholder", self.lang))
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Reflow for the terminal's size: the log beside the seats when wide; below 80×24 the game cannot fit,
        and a notice says so (and how large it needs to be) instead of a cut-off board."""
        self.base.query_one("#main").set_class(width >= WIDE, "wide")
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        shown = next((s for s in self.screen_stack if isinstance(s, TooSmallScreen)), None)
        text = say("too_small", self.lang, width=width, height=height, min_width=MIN_WIDTH, min_height=MIN_HEIGHT)
        if small and shown is None:
            self.push_screen(TooSmallScreen(text))
        elif small and shown is not None:
            shown.say(text)
        elif shown is not None:
            if self.screen is shown:
                self.pop_screen()
            else:  # something opened above it meanwhile (a result): take the notice out from under it
                shown.remove()

    async def on_mount(self) -> None:
        self._fit(self.size.width, self.size.height)
        self.set_focus(None)  # the hand keys first; `:` or Tab goes to the command line
        self.run_worker(self._start(), exclusive=True, group="service")
        self.set_interval(1.0, self.redraw)

    async def _start(self) -> None:
        store = self.store = await Store.open(self.db_path)
        existing = await find_local_table(store, TERMINAL_CHANNEL)
        clock = await paused_clock(store, existing.id if existing is not None else None)
        fe = self.fe = AppFrontEnd(self, lang=self.lang, clock=clock, ledger=store,
                                   table_id=existing.id if existing is not None else None)
        self.service = self.service_factory(store, fe, ai_delay=self.ai_delay, between_hands=self.between_hands,
                                            clock=clock, claim_pause=self.claim_pause)
        you = terminal_player()
        self.table_id, resumed = await open_or_resume(self.service, you, turn_seconds=self.turn_seconds,
                                                      seed=self.seed, new=self.new)
        fe.table_id = self.table_id
        self.dispatcher = Dispatcher(self.service, fe, self.table_id)
        await self.dispatcher.load_settings()  # your auto-pass, in the status line
        key = "resumed" if resumed else "new_table"
        self.log_line(escape(say(key, self.lang, table=self.table_id, hand=self.service.public_view_as_shown(self.table_id).hand_no)))
        unused = unused_timer(existing, self.turn_seconds) if resumed else None
        if unused is not None:
            self.log_line(fe.unused_timer_line(self.table_id, unused))
        self._refresh_views()
        last = getattr(self.service, "last_result", None)
        result = last(self.table_id) if resumed and last is not None else None
        if result is not None:  # between hands: the hand that ended, not its board as if live
            await fe.hand_finished(result, self.service.public_view_as_shown(self.table_id))
        elif resumed:  # a hand in play: its header (with the commitment its seed will be checked against), its log
            hand_events = getattr(self.service, "hand_events", None)
            for line in fe.hand_log(hand_events(self.table_id) if hand_events is not None else ()):
                self.log_line(line)
        self.ready.set()
        self.redraw(hand=True)

    async def on_unmount(self) -> None:
        """However the app ends (Ctrl-Q, an error, a test's pilot leaving early), the service stops and the store
        closes: the store's connection thread is not a daemon, and an open one keeps the process from exiting."""
        await self.shutdown()

    async def shutdown(self) -> None:
        if self.fe is not None:
            self.fe.closed = True
        if self.service is not None:
            service, self.service = self.service, None
            await service.shutdown()
        if self.store is not None:
            store, self.store = self.store, None
            await store.close()

    # -- an error that stops the app ---------------------------------------------------------------------
    def _handle_exception(self, error: Exception) -> None:
        """Textual's funnel for an exception nothing handled: keep its traceback (without the local variables
        Textual would show, which may hold concealed tiles) for the crash log, then let Textual stop the app."""
        if self.crash is None:
            cause = error.error if isinstance(error, WorkerFailed) else error  # a worker's own traceback
            self.crash = "".join(traceback.format_exception(cause))
        super()._handle_exception(error)

    def _print_error_renderables(self) -> None:
        """At exit Textual prints what stopped the app on the terminal; it goes to the crash log instead (a panic
        of the input thread brings only its rendered traceback)."""
        if self._exit_renderables and self.crash is None:
            console = Console(file=io.StringIO(), width=120, color_system=None, legacy_windows=False)
            for renderable in self._exit_renderables:
                console.print(renderable)
            self.crash = console.file.getvalue()  # type: ignore[attr-defined]
        self._exit_renderables.clear()

    async def action_leave(self) -> None:
        await self.shutdown()
        self.exit(0)

    # -- drawing ---------------------------------------------------------------------------------------
    @property
    def base(self) -> Screen[Any]:
        """The game screen (under any result, confirmation or rules screen)."""
        return self.screen_stack[0]

    def log_line(self, markup: str) -> None:
        with contextlib.suppress(Exception):
            self.base.query_one("#log", RichLog).write(Text.from_markup(markup))

    def _refresh_views(self) -> None:
        if self.dispatcher is not None:
            self.dispatcher.refresh()

    def held(self) -> list[Tile]:
        fe = self.fe
        hand = fe.hand if fe is not None else None
        if fe is None or hand is None or (fe.board is not None and hand.hand_no != fe.board.hand_no):
            return []
        return list(hand.concealed) + ([hand.drawn] if hand.drawn is not None else [])

    def choices(self) -> list[ActionChoice]:
        """The actions keyed 1–9 and 0: every choice but a plain discard (that is a tile key)."""
        hand = self.fe.hand if self.fe is not None else None
        if hand is None:
            return []
        return [c for c in hand.choices if c.verb not in ("discard", "piao")][:len(ACTION_KEYS)]

    def redraw(self, hand: bool = False) -> None:
        fe = self.fe
        if fe is None or not self.screen_stack:
            return
        try:
            status = self.base.query_one("#status", Static)
        except NoMatches:  # not composed yet, or already gone
            return
        status.update(status_text(fe))
        if fe.board is not None:
            self.base.query_one("#seats", Static).update(fe.seat_table(fe.board))
        if hand:
            self._draw_hand()
        self.base.query_one("#info", Static).update(info_text(fe))

    def _draw_hand(self) -> None:
        assert self.fe is not None
        tiles = self.held()
        if self.selected is not None and self.selected >= len(tiles):
            self.selected = None
        draw_hand(self.base, self.fe, tiles, self.selected)
        bar = self.base.query_one("#actions")
        draw_actions(self.base, self.fe, self.choices(), (bar.size.width or self.size.width) - 2)

    def show_result(self, lines: list[Any]) -> None:
        if isinstance(self.screen, ResultScreen):
            self._results.append(lines)
            return
        self.push_screen(ResultScreen(lines, self.lang), callback=self._next_result)

    def _next_result(self, _: Any = None) -> None:
        if self._results:
            self.push_screen(ResultScreen(self._results.pop(0), self.lang), callback=self._next_result)

    # -- input -----------------------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        """Hand keys when the command line is not focused: a–n tiles, 1–9 and 0 actions; other text goes to it."""
        if isinstance(self.focused, Input) or self.screen is not self.screen_stack[0]:
            return
        char = event.character or ""
        if event.key in TILE_KEYS and len(event.key) == 1:
            event.stop()
            self.select_tile(TILE_KEYS.index(event.key))
        elif event.key in ACTION_KEYS and ACTION_KEYS.index(event.key) < len(self.choices()):
            event.stop()
            self.take_action(ACTION_KEYS.index(event.key))
        elif char and char.isprintable() and not char.isspace() and char not in "?:/":
            event.stop()  # a tile name or a command typed straight away: the command line takes it
            cmd = self.base.query_one("#cmd", CommandLine)
            cmd.focus()
            cmd.insert_text_at_cursor(char)

    def action_command(self) -> None:
        self.base.query_one("#cmd", CommandLine).focus()

    def action_rules(self) -> None:
        rules = None
        with contextlib.suppress(Exception):
            rules = self.service.rules(self.table_id)
        self.push_screen(RulesScreen(self.lang, rules))

    def action_move(self, step: int) -> None:
        tiles = self.held()
        if not tiles:
            return
        self.selected = (len(tiles) - 1 if step < 0 else 0) if self.selected is None else \
            (self.selected + step) % len(tiles)
        self._draw_hand()

    async def action_enter(self) -> None:
        if self.fe is not None and self.fe.away():
            await self.submit(None)
        elif self.selected is not None:
            self.select_tile(self.selected)

    def select_tile(self, index: int) -> None:
        tiles = self.held()
        if index >= len(tiles):
            return
        if self.selected == index:
            self.run_worker(self.submit(Command("discard", tiles[index])), group="input")
            return
        self.selected = index
        self._draw_hand()

    def take_action(self, index: int) -> None:
        actions = self.choices()
        if index >= len(actions):
            return
        c = actions[index]
        tile = c.tile
        if c.verb == "liangdao":  # 亮倒 with the selected tile when it is one of the options
            options = [a.tile for a in actions if a.verb == "liangdao"]
            held = self.held()
            if self.selected is not None and self.selected < len(held) and held[self.selected] in options:
                tile = held[self.selected]
        self.run_worker(self.submit(Command(c.verb, tile)), group="input")

    async def on_input_submitted(self, message: Input.Submitted) -> None:
        line = message.value
        cmd_line = self.base.query_one("#cmd", CommandLine)
        cmd_line.remember(line.strip())
        cmd_line.value = ""
        self.run_worker(self.submit_line(line), group="input")

    def action_auto_pass(self) -> None:
        """F2: auto-pass on or off (the service keeps it and passes every claim offer but a win)."""
        self.run_worker(self.submit(Command("auto_pass")), group="input")

    def refuse(self, text: str) -> None:
        self.log_line(f"[red]✗[/] {text}")
        self.bell()

    async def submit(self, cmd: Command | None) -> None:
        """A key's command (None: Enter) through the terminal's dispatcher (kwx.local.dispatch)."""
        await self.ready.wait()
        assert self.dispatcher is not None
        await self.show_reply(await self.dispatcher.command(cmd))

    async def submit_line(self, line: str) -> None:
        """A line of the command line, as the line mode takes it."""
        await self.ready.wait()
        assert self.dispatcher is not None
        await self.show_reply(await self.dispatcher.line(line))

    async def show_reply(self, reply: Reply) -> None:
        """Show what became of a command. The service's question before a costly move is asked in a dialog
        (y / n), and its answer goes back through the dispatcher."""
        dispatcher = self.dispatcher
        assert dispatcher is not None
        while reply.kind is Said.ASK:
            reply = await dispatcher.answer(await self.ask(reply.text))
        if reply.kind is Said.LEAVE:
            await self.action_leave()
            return
        if reply.cancelled:
            self.log_line(f"[dim]{escape(say('cancelled', self.lang))}[/]")
        if reply.kind is Said.REFUSED:
            self.refuse(reply.text)
        elif reply.kind is Said.CANCELLED:
            self.log_line(f"[dim]{escape(reply.text)}[/]")
        elif reply.kind in (Said.HELP, Said.SETTING):
            self.log_line(escape(reply.text))
        if reply.kind in (Said.PLAYED, Said.CANCELLED):
            self.selected = None
        self.redraw(hand=True)

    async def ask(self, question: str) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.push_screen(ConfirmScreen(question, self.lang),
                         callback=lambda ok: None if answer.done() else answer.set_result(bool(ok)))
        return await answer


def run_app(settings: Any, *, db: str | None = None, seed: str | None = None, delay: float | None = None,
            turn_seconds: float | None = TURN_SECONDS, new: bool = False) -> int:
    """`python bot.py` at a terminal: the game screen. Ctrl-Q or `quit` leaves; the table stays open."""
    db_path = db or settings.db_path
    app = KwxApp(db_path, lang=settings.lang, seed=seed, ai_delay=AI_DELAY if delay is None else delay,
                 turn_seconds=turn_seconds, new=new)
    return run_to_exit(app, crash_log_path(db_path))


def run_to_exit(app: KwxApp, crash_log: Path, *, headless: bool = False) -> int:
    """Run the game screen until it is left: 0, or after an error CRASHED with one line naming `crash_log`,
    which holds the traceback (kwx.local.crash)."""
    lenient_textual_input()

    async def main() -> int:
        try:
            return await app.run_async(headless=headless) or 0
        finally:
            await app.shutdown()

    try:
        status = asyncio.run(main())
    except Exception:
        app.crash = app.crash or traceback.format_exc()
    if app.crash is not None:
        return report_crash(app.crash, crash_log, app.lang)
    print(say("quit", app.lang))
    return status
