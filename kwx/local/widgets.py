"""The game screen's widgets and screens: tiles and actions you can click, the command line with history, the
result that waits for a key, the confirmation before a costly move, the rules and fans."""

from __future__ import annotations

import contextlib
from collections import deque
from dataclasses import replace
from typing import Any, Self

from rich.console import Group
from rich.markdown import Markdown as RichMarkdown
from rich.markup import escape
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, RichLog, Static

from kwx.local.rules_text import rules_markdown
from kwx.local.text import say


def speak_bindings(bindings: BindingsMap, lang: str) -> None:
    """Put the descriptions of a screen's key bindings (catalog keys `local.key_*`) into the game's language, so
    the footer speaks it too."""
    for key, found in bindings.key_to_bindings.items():
        bindings.key_to_bindings[key] = [
            replace(b, description=say(b.description, lang)) if b.description.startswith("key_") else b
            for b in found]


class GameLog(RichLog):
    """The event log. A RichLog wraps each line once, at the width it has when the line is written; this one keeps
    what it was given and wraps it again when its width changes (the log moves beside the seats from 110 columns
    on), so no line is left cut at the old width."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._written: deque[Any] = deque(maxlen=self.max_lines or 1000)
        self._wrapped_at = 0  # the width the lines were last wrapped at
        self._shown_height = 0  # the height it had before this resize

    def write(self, content: Any, *args: Any, **kw: Any) -> Self:
        self._written.append(content)
        return super().write(content, *args, **kw)

    def on_resize(self, event: events.Resize) -> None:
        # a log that showed its newest line keeps showing it when it gets shorter (a warning under the hand
        # takes its lines): the newest lines are the ones the player has to read
        followed = self.auto_scroll and self.scroll_offset.y >= len(self.lines) - self._shown_height
        self._shown_height = event.size.height
        width = event.size.width
        if not self._size_known or width == self._wrapped_at:
            self._wrapped_at = width  # the first size: RichLog renders what waited for it
        else:
            self._wrapped_at = width
            super().clear()
            for content in self._written:
                super().write(content)
        if followed:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def clear(self) -> Self:
        self._written.clear()
        return super().clear()


class TileView(Static):
    """One tile of your hand, with its key below; click to select, click again to discard."""

    def __init__(self, index: int) -> None:
        super().__init__(classes="tile")
        self.index = index

    def on_click(self) -> None:
        self.app.select_tile(self.index)  # type: ignore[attr-defined]


class ActionView(Static):
    def __init__(self, index: int) -> None:
        super().__init__(classes="action")
        self.index = index

    def on_click(self) -> None:
        self.app.take_action(self.index)  # type: ignore[attr-defined]


class CommandLine(Input):
    """The command line: tile names and commands as in the line mode; ↑/↓ walk the history."""

    BINDINGS = [Binding("up", "history(-1)", show=False), Binding("down", "history(1)", show=False),
                Binding("escape", "leave", show=False)]

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.history: list[str] = []
        self._pos = 0

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._pos = len(self.history)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._pos = max(0, min(len(self.history), self._pos + step))
        self.value = self.history[self._pos] if self._pos < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_leave(self) -> None:
        self.app.set_focus(None)


class ResultScreen(ModalScreen[None]):
    """The result of a hand: fan breakdown, payments, balances; waits for a key (arrows scroll)."""

    def __init__(self, lines: list[Any], lang: str) -> None:
        super().__init__()
        self.lines = lines
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="result"):
            with VerticalScroll(id="result-body"):
                yield Static(Group(*[Text.from_markup(x) if isinstance(x, str) else x for x in self.lines]))
            # below the scrolling part: how to close the result stays in sight however long the result is
            yield Static(f"[reverse] {escape(say('press_key', self.lang))} [/]", id="press")

    def on_key(self, event: events.Key) -> None:
        if event.key in ("up", "down", "pageup", "pagedown", "home", "end"):
            return
        event.stop()
        if self.is_active:  # keys typed together arrive in one batch: only the first closes it
            self.dismiss()


class TooSmallScreen(ModalScreen[None]):
    """Over everything while the terminal is smaller than the game: says so, and how large it must be. It goes
    away by itself when the terminal is large enough; Ctrl-Q still leaves."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="too-small")

    def say(self, text: str) -> None:
        self.text = text
        with contextlib.suppress(Exception):
            self.query_one("#too-small", Static).update(text)

    def on_key(self, event: events.Key) -> None:
        if event.key != "ctrl+q":
            event.stop()


class ConfirmScreen(ModalScreen[bool]):
    """Asks once before a costly move: y / Enter goes ahead, n / Escape goes back."""

    def __init__(self, text: str, lang: str) -> None:
        super().__init__()
        self.text = text
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text.from_markup(self.text))
            yield Static(f"[bold]{escape(say('confirm_keys', self.lang))}[/]")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if not self.is_active:  # answered by an earlier key of the same batch
            return
        if event.key in ("y", "enter"):
            self.dismiss(True)
        elif event.key in ("n", "escape", "q"):
            self.dismiss(False)


class RulesScreen(Screen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "key_back")]

    def __init__(self, lang: str, rules: Any) -> None:
        super().__init__()
        self.lang = lang
        self.rules = rules
        speak_bindings(self._bindings, lang)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(RichMarkdown(rules_markdown(self.lang, self.rules)))
        yield Footer()
