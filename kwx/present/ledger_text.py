"""Plain-text pieces of ledger answers: signed money, percentages, and aligned tables for code blocks.

Discord shows code blocks in a monospace font on every client, so columns line up on a phone too, as long as
each cell is padded by its *display* width (a Chinese character takes two columns) and rows stay short
(about 36 columns fit a phone held upright). Nothing here imports discord.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from kwx.present.numbers import MINUS

NAME_WIDTH = 12  # display columns a name may take in a table before it is cut with "…"
ELLIPSIS = "…"


def char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def display_width(text: str) -> int:
    """Columns `text` takes in a monospace font (wide East Asian characters count two)."""
    return sum(char_width(ch) for ch in text)


def truncate(text: str, width: int) -> str:
    """`text` cut to at most `width` columns, ending in "…" when cut."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def pad(text: str, width: int, align: str = "l") -> str:
    """Pad to `width` display columns: align 'l' (left) or 'r' (right)."""
    gap = " " * max(0, width - display_width(text))
    return gap + text if align == "r" else text + gap


def clean_name(name: str, width: int = NAME_WIDTH) -> str:
    """A player's name for a code block: one line, no backticks (they would end the block), cut to `width`."""
    flat = " ".join(str(name).split()).replace("`", "'")
    return truncate(flat or "?", width)


def money(amount: int) -> str:
    """1234567 -> '1,234,567'."""
    return f"{amount:,}"


def signed_money(amount: int) -> str:
    """+1,200 / −300 (a minus sign, U+2212, as on the board and the result) / 0."""
    return f"+{amount:,}" if amount > 0 else f"{MINUS}{-amount:,}" if amount < 0 else "0"


def percent(rate: float) -> str:
    """0.4 -> '40%', 0.125 -> '12.5%'."""
    value = round(rate * 100, 1)
    return f"{value:.0f}%" if value == int(value) else f"{value:.1f}%"


def tone(amount: int) -> str:
    """'win' for a positive amount, 'loss' for a negative one, 'even' for zero (front ends pick colours)."""
    return "win" if amount > 0 else "loss" if amount < 0 else "even"


def diff_marker(amount: int) -> str:
    """The first character of a row in a ```diff block: '+' shows green, '-' red, ' ' plain."""
    return "+" if amount > 0 else "-" if amount < 0 else " "


def table(rows: Sequence[Sequence[str]], aligns: str, headers: Sequence[str] | None = None,
          *, sep: str = " ") -> str:
    """Rows of cells as aligned lines; `aligns` has one 'l' or 'r' per column. Trailing spaces are dropped."""
    all_rows = [list(headers)] if headers else []
    all_rows += [list(r) for r in rows]
    if not all_rows:
        return ""
    widths = [max(display_width(r[i]) for r in all_rows) for i in range(len(aligns))]
    lines = [sep.join(pad(cell, widths[i], aligns[i]) for i, cell in enumerate(r)).rstrip() for r in all_rows]
    return "\n".join(lines)


def code_block(text: str, lang: str = "") -> str:
    """A fenced code block (`lang` 'diff' colours lines starting with + and -)."""
    return f"```{lang}\n{text}\n```"
