"""A server's ledger exported to gzip-compressed CSV files, off the writer's path.

    files = export_gzip(db_path, guild, directory, stem, max_bytes=limit)   # in a worker thread

It reads through its own read-only SQLite connection in short read transactions, one batch of entries each (a
read transaction held for the whole export would keep WAL checkpoints from finishing and slow every commit);
since the ledger is append-only and ids only grow, reading by id up to the last id seen at the start is one
consistent ledger. It builds each CSV line inside SQLite, in the exact form
`kwx.store.csvio.write_csv` gives (formula cells neutralised, RFC 4180 quoting), so Python only moves large
strings to zlib: the thread holds the GIL very little and the tables keep their pace.

The whole ledger goes to one `<stem>.csv.gz` when that fits in `max_bytes`; otherwise it is split by month
(`<stem>-2025-03.csv.gz`), and a month too big for one file is cut into parts (`<stem>-2025-03-2.csv.gz`).
Every file has the header row, so each reads back alone with `parse_csv`, and together they hold every entry.
"""

from __future__ import annotations

import gzip
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kwx.store.csvio import COLUMNS, FORMULA_STARTS

BATCH = 5000
_NL = "\r\n"


class ExportTooBig(Exception):
    """Even one part of the export does not fit the size limit."""


@dataclass(frozen=True)
class Export:
    files: list[Path]
    entries: int


def _sql_text(column: str) -> str:
    """SQL for a text cell as csvio writes it: NULL empty, formula starts neutralised, quoted when needed."""
    starts = ", ".join(_sql_literal(ch) for ch in (*FORMULA_STARTS, "'"))
    neutral = f"(CASE WHEN substr({column}, 1, 1) IN ({starts}) THEN '''' || {column} ELSE {column} END)"
    return _sql_quoted(neutral, f"COALESCE({column}, '')")


def _sql_quoted(expr: str, empty: str) -> str:
    needs = " OR ".join(f"instr({expr}, {_sql_literal(ch)}) > 0" for ch in (",", '"', "\r", "\n"))
    return (f"(CASE WHEN {empty} = '' THEN '' WHEN {needs} THEN '\"' || replace({expr}, '\"', '\"\"') || '\"'"
            f" ELSE {expr} END)")


def _sql_literal(ch: str) -> str:
    if ch in ("\t", "\r", "\n"):
        return f"char({ord(ch)})"
    return "'" + ch.replace("'", "''") + "'"


def _sql_int(column: str) -> str:
    return f"COALESCE(CAST({column} AS TEXT), '')"


_CELLS = {
    "id": _sql_int("id"), "created_at": "created_at", "from_player": _sql_text("from_player"),
    "to_player": _sql_text("to_player"), "amount": _sql_int("amount"), "reason": _sql_text("reason"),
    "hand_id": _sql_int("hand_id"), "reverses_id": _sql_int("reverses_id"), "created_by": _sql_text("created_by"),
    "note": _sql_text("note"),
}
LINE_SQL = " || ',' || ".join(_CELLS[c] for c in COLUMNS)
_BATCH_SQL = (f"SELECT id, substr(created_at, 1, 7) AS month, {LINE_SQL} AS line FROM ledger_entries"
              " WHERE guild = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?")
HEADER = ",".join(COLUMNS) + _NL


def csv_lines(conn: sqlite3.Connection, guild: str, upto: int, batch: int = BATCH) -> Iterator[tuple[str, str]]:
    """(month, CSV line) of every entry of the guild with an id up to `upto`, oldest first, in batches."""
    last = 0
    while True:
        rows = conn.execute(_BATCH_SQL, (guild, last, upto, batch)).fetchall()
        for _, month, line in rows:
            yield month, line
        if len(rows) < batch:
            return
        last = rows[-1][0]


class _Part:
    def __init__(self, path: Path, flush_at: int = 1 << 18) -> None:
        self.path = path
        self.flush_at = flush_at
        self._raw = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._gz = gzip.GzipFile(fileobj=self._raw, mode="wb", mtime=0)
        self._chunks: list[str] = []
        self._pending = 0
        self.write(HEADER)

    def write(self, text: str) -> None:
        self._chunks.append(text)
        self._pending += len(text)
        if self._pending >= self.flush_at:
            self.flush()

    def flush(self) -> None:
        """Compress what is buffered and push it to the file (a zlib sync flush), so `size` is exact."""
        if self._chunks:
            self._gz.write("".join(self._chunks).encode("utf-8"))
            self._gz.flush()
            self._chunks, self._pending = [], 0

    @property
    def size(self) -> int:
        """Compressed bytes in the file after the last flush."""
        return self._raw.tell()

    def close(self) -> int:
        self.flush()
        self._gz.close()
        self._raw.close()
        return self.path.stat().st_size


def export_gzip(db_path: str | Path, guild: str, directory: Path, stem: str, *, max_bytes: int) -> Export:
    """Export the guild's ledger from the database file at `db_path` into gzip CSV files in `directory`."""
    conn = sqlite3.connect(f"{Path(db_path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        upto = conn.execute("SELECT COALESCE(MAX(id), 0) FROM ledger_entries").fetchone()[0]  # the export's end
        whole = _Part(directory / f"{stem}.csv.gz")
        count = 0
        for _, line in csv_lines(conn, guild, upto):
            whole.write(line + _NL)
            count += 1
        if whole.close() <= max_bytes:
            return Export([whole.path], count)
        whole.path.unlink()
        return Export(_by_month(conn, guild, upto, directory, stem, max_bytes), count)
    finally:
        conn.close()


def _by_month(conn: sqlite3.Connection, guild: str, upto: int, directory: Path, stem: str,
              max_bytes: int) -> list[Path]:
    flush_at = max(64, min(1 << 18, max_bytes // 8))  # text bytes between size checks
    budget = max_bytes - flush_at - 256  # one more flush (compressed, never much above its text) still fits
    files: list[Path] = []
    part: _Part | None = None
    month, number = None, 0

    def finish() -> None:
        assert part is not None
        if part.close() > max_bytes:
            raise ExportTooBig(f"{part.path.name} is bigger than {max_bytes} bytes")
        files.append(part.path)

    for entry_month, line in csv_lines(conn, guild, upto):
        if part is not None and part._pending == 0 and entry_month == month and part.size >= budget:
            finish()
            part = None
        if part is None or entry_month != month:
            if part is not None:
                finish()
            number = 1 if entry_month != month else number + 1
            month = entry_month
            suffix = f"-{month}" if number == 1 else f"-{month}-{number}"
            part = _Part(directory / f"{stem}{suffix}.csv.gz", flush_at)
        part.write(line + _NL)
    if part is not None:
        finish()
    return files
