"""Where the line mode's lines come from: standard input (read by a daemon thread), or a fixed list (tests,
demos). A source whose lines were not typed at a terminal says so (`echo`): the transcript quotes them, and a
move read while the AI players move waits for your decision (kwx.local.plain)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Iterable
from typing import IO, Protocol

from kwx.local.input_bytes import lenient


class LineSource(Protocol):
    async def readline(self) -> str | None:
        """The next line without its newline; None at end of input."""


class StdinLines:
    """Lines from a text stream, read by a daemon thread: the event loop never blocks, and leaving the table
    never waits for a keypress (a thread stuck in a read would hold up the interpreter's exit otherwise)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = lenient(stream if stream is not None else sys.stdin)  # bytes not UTF-8 read as U+FFFD
        try:  # typed lines are echoed by the terminal; piped ones are not, so the transcript shows them
            self.echo = not self._stream.isatty()
        except (AttributeError, ValueError):
            self.echo = True
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._pump, name="kwx-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for line in self._stream:
                self._put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._put(None)

    def _put(self, item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: we are exiting anyway
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    async def readline(self) -> str | None:
        return await self._queue.get()


class ScriptedLines:
    """A fixed list of lines (tests, demos); None after the last one."""

    echo = True

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = list(lines)

    async def readline(self) -> str | None:
        await asyncio.sleep(0)
        return self._lines.pop(0) if self._lines else None
