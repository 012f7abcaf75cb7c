"""CSV form of ledger entries: `Store.export_csv` writes it, `parse_csv` + `Store.import_entries` read it back.

Columns (header row first): id, created_at, from_player, to_player, amount, reason, hand_id, reverses_id,
created_by, note. Empty cells are None; created_at is ISO-8601 UTC. The guild is not a column: a file is one
server's ledger and the importer names the guild.

Text cells are safe to open in a spreadsheet: a cell that starts with = + - @, a tab or a carriage return (a
spreadsheet would run it as a formula) is written with a leading apostrophe, as is a cell that already starts
with one; `parse_csv` removes exactly that apostrophe, so an export still reads back to the same entries.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import IO

from kwx.store.clock import from_text, to_text
from kwx.store.models import LEDGER_REASONS, LedgerEntry, StoreError

COLUMNS = ("id", "created_at", "from_player", "to_player", "amount", "reason", "hand_id", "reverses_id",
           "created_by", "note")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"


def neutral(text: str) -> str:
    """A text cell a spreadsheet shows as text: a leading apostrophe before = + - @ tab CR (or an apostrophe)."""
    return _QUOTE + text if text.startswith(FORMULA_STARTS + (_QUOTE,)) else text


def unneutral(text: str) -> str:
    """The inverse of `neutral`."""
    return text[1:] if text.startswith(_QUOTE) else text


def entry_row(entry: LedgerEntry) -> list[str]:
    def cell(value: object) -> str:
        return "" if value is None else str(value)

    def text(value: str | None) -> str:
        return "" if value is None else neutral(value)

    return [cell(entry.id), to_text(entry.created_at), text(entry.from_player), text(entry.to_player),
            str(entry.amount), text(entry.reason), cell(entry.hand_id), cell(entry.reverses_id),
            text(entry.created_by), text(entry.note)]


def write_csv(entries: Iterable[LedgerEntry], out: IO[str], *, header: bool = True) -> int:
    """Write entries as CSV rows; return how many."""
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180; a cell holding CR or LF is then quoted
    if header:
        writer.writerow(COLUMNS)
    count = 0
    for entry in entries:
        writer.writerow(entry_row(entry))
        count += 1
    return count


def entries_to_csv(entries: Iterable[LedgerEntry]) -> str:
    out = io.StringIO()
    write_csv(entries, out)
    return out.getvalue()


def parse_csv(source: str | IO[str], guild: str) -> list[LedgerEntry]:
    """Parse an exported ledger into entries of `guild`; a malformed row raises StoreError naming its line."""
    reader = csv.reader(io.StringIO(source) if isinstance(source, str) else source)
    header = next(reader, None)
    if header is None or tuple(header) != COLUMNS:
        raise StoreError(f"not a kwx ledger export: the header must be {','.join(COLUMNS)}")
    entries = []
    for row in reader:
        line = reader.line_num
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise StoreError(f"line {line}: expected {len(COLUMNS)} cells, got {len(row)}")
        cells = dict(zip(COLUMNS, row))
        for name in ("from_player", "to_player", "reason", "created_by", "note"):
            cells[name] = unneutral(cells[name])
        try:
            entry = LedgerEntry(
                id=_opt_int(cells["id"]),
                guild=guild,
                from_player=cells["from_player"],
                to_player=cells["to_player"],
                amount=int(cells["amount"]),
                reason=cells["reason"],
                created_at=from_text(cells["created_at"]),
                hand_id=_opt_int(cells["hand_id"]),
                created_by=cells["created_by"] or None,
                note=cells["note"] or None,
                reverses_id=_opt_int(cells["reverses_id"]),
            )
        except ValueError as exc:
            raise StoreError(f"line {line}: {exc}") from None
        if entry.reason not in LEDGER_REASONS:
            raise StoreError(f"line {line}: unknown reason {entry.reason!r}")
        entries.append(entry)
    return entries


def _opt_int(text: str) -> int | None:
    return int(text) if text else None
