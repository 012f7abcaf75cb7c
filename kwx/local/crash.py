"""When the terminal table stops on an error: the whole report goes to a log file beside the database, the
terminal gets one line naming that file, and the program exits non-zero (so `make run` fails visibly).

    path = crash_log_path(db)                  # data/kwx.sqlite3 -> data/kwx-crash.log
    return report_crash(report, path, lang)    # writes the report, prints the line, returns CRASHED

The table itself is safe in the store: the next run resumes it.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from kwx.local.text import say

CRASHED = 1  # the exit status after a crash
CRASH_LOG = "kwx-crash.log"


def crash_log_path(db: str | Path) -> Path:
    """The crash log of the terminal table whose database is `db`: in the same folder."""
    return Path(db).parent / CRASH_LOG


def report_crash(report: str, path: Path, lang: str, out: IO[str] | None = None) -> int:
    """Append the report (a traceback) to the log at `path` (the temporary folder's if that cannot be written)
    and say on one line where it is. Returns the exit status."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    entry = f"== {stamp} the terminal table stopped on an error ==\n{report.rstrip()}\n\n"
    for where in (path, Path(tempfile.gettempdir()) / CRASH_LOG):
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            with where.open("a", encoding="utf-8") as log:
                log.write(entry)
        except OSError:
            continue
        path = where
        break
    print(say("crashed", lang, path=path), file=out if out is not None else sys.stderr)
    return CRASHED
