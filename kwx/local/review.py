"""The 复盘 screen at the terminal (`python -m kwx review HAND`): the summary on top, one step of the hand below
with every tile shown in colour, and keys to step through it."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from kwx.engine.review import Review
from kwx.local.text import plain_code, tile_markup
from kwx.present.i18n import tr
from kwx.present.review_text import ReviewText


class ReviewApp(App[None]):
    # Textual's palette offers only its own English commands (themes, screenshots), nothing of the review's
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #title { text-style: bold; padding: 0 1; }
    #summary { padding: 0 1 1 1; color: $text-muted; }
    #step { padding: 0 1; }
    """
    # priority: the step's scroll area has the focus and would take ← → Home End to scroll (↑ ↓ PgUp PgDn do)
    BINDINGS = [
        Binding("left", "move('prev')", "◀", priority=True),
        Binding("right", "move('next')", "▶", priority=True),
        Binding("home", "move('first')", "⏮", priority=True),
        Binding("end", "move('last')", "⏭", priority=True),
        Binding("m", "move('mine')", "★"),
        Binding("x", "move('mistake')", "❗"),
        Binding("q,escape", "quit", "✕"),
    ]

    def __init__(self, review: Review, names: list[str], lang: str, *, hand_id: int | None = None,
                 start: int = 0) -> None:
        super().__init__()
        self.review = review
        self.words = ReviewText(review, [escape(n) for n in names], lang, tile=lambda x: tile_markup(x, lang),
                                hand_id=hand_id)
        self.at = start
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(Text.from_markup(self.words.title()), id="title")
        summary = [*self.words.summary_lines(), escape(tr("review.keys", self.lang))]
        yield Static(Text.from_markup(plain_code("\n".join(summary))), id="summary")
        with VerticalScroll():
            yield Static(id="step")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.at)

    def show(self, index: int) -> None:
        self.at = index
        self.query_one("#step", Static).update(Text.from_markup("\n".join(self.words.frame_lines(index))))

    def action_move(self, move: str) -> None:
        self.show(self.review.step(self.at, move))


def run_review_screen(review: Review, source: Any, lang: str) -> None:
    ReviewApp(review, list(source.names), lang, hand_id=source.hand_id).run()
