"""The web front end: the table service's FrontEnd port, pushing views to the sockets of open table pages.

Each open page is a `Viewer`: one table, one language, and the player it is for (None: a spectator). The
service calls the port in order per table (kwx.table.outbox); the hub turns each call into one message and
puts it on the queue of every viewer it is for, and each viewer's own task writes its queue to its socket,
so a slow socket never holds a table or another page. Messages queued together (a change's board and the
seat's view) go in one frame, a JSON array; a frame holding one message is that message.

Who gets what is decided here and only here: a seat's private view goes to the viewers of that player at that
table and to nobody else; the board, the result and notices go to every viewer of the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwx.present.i18n import tr
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary
from kwx.web import wire

logger = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # messages waiting for one socket; a page this far behind is closed and reconnects afresh
BATCH_LIMIT = 32  # messages sent to a socket in one frame at most


@dataclass(eq=False)
class Viewer:
    """One open page. `send` writes one text message to its socket; `close` ends it (the page reconnects)."""

    table_id: int
    player_id: str | None  # None: the public view only
    lang: str
    send: Callable[[str], Awaitable[None]]
    close: Callable[[], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    sent: int = 0
    hand: PrivateView | None = None  # the seat's latest view queued for this page (a player's page)

    def put(self, text: str) -> None:
        if self.queue.qsize() >= QUEUE_LIMIT:
            logger.info("table %s: a page fell %d messages behind; closing it", self.table_id, QUEUE_LIMIT)
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)


def message(kind: str, **body: Any) -> str:
    return json.dumps({"t": kind, **body}, ensure_ascii=False, separators=(",", ":"))


class WebFrontEnd:
    """The FrontEnd port for table pages (kwx.table.ports). Pages join and leave with `join` / `leave`."""

    def __init__(self) -> None:
        self._viewers: dict[int, set[Viewer]] = {}
        self._boards: dict[int, PublicView] = {}  # the latest board per table: names for private views

    # -- pages ------------------------------------------------------------------------------------------
    def join(self, viewer: Viewer, first: Sequence[str] = ()) -> None:
        """Start pushing to `viewer`, after `first` (the table as it stands, queued before any later change)."""
        for text in first:
            viewer.put(text)
        self._viewers.setdefault(viewer.table_id, set()).add(viewer)
        viewer.task = asyncio.get_running_loop().create_task(self._write(viewer), name="kwx-web-viewer")

    async def leave(self, viewer: Viewer) -> None:
        viewers = self._viewers.get(viewer.table_id)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self._viewers[viewer.table_id]
        task, viewer.task = viewer.task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def viewers(self, table_id: int | None = None) -> int:
        if table_id is not None:
            return len(self._viewers.get(table_id, ()))
        return sum(len(v) for v in self._viewers.values())

    def board(self, table_id: int) -> PublicView | None:
        return self._boards.get(table_id)

    async def _write(self, viewer: Viewer) -> None:
        """The page's writer: what a change queued for it at once (a board and the seat's view, an answer) goes
        as one frame, a JSON array of the messages, so a busy table costs each socket one send per change."""
        try:
            closing = False
            while not closing:
                text = await viewer.queue.get()
                if text is None:
                    break
                batch = [text]
                while not viewer.queue.empty() and len(batch) < BATCH_LIMIT:
                    more = viewer.queue.get_nowait()
                    if more is None:
                        closing = True
                        break
                    batch.append(more)
                await viewer.send(text if len(batch) == 1 else f"[{','.join(batch)}]")
                viewer.sent += len(batch)
        except (TimeoutError, ConnectionError, RuntimeError) as exc:
            logger.debug("table %s: a page's socket went away (%s)", viewer.table_id, exc)
        finally:
            viewers = self._viewers.get(viewer.table_id)
            if viewers is not None:
                viewers.discard(viewer)
            with contextlib.suppress(Exception):
                await viewer.close()

    def _each(self, table_id: int, render: Callable[[Viewer], str | None]) -> None:
        """Queue one message per viewer of the table, rendering once per language (and per player when
        `render` reads `viewer.player_id`)."""
        cache: dict[tuple[str, str | None], str | None] = {}
        for viewer in tuple(self._viewers.get(table_id, ())):
            key = (viewer.lang, viewer.player_id)
            if key not in cache:
                cache[key] = render(viewer)
            text = cache[key]
            if text is not None:
                viewer.put(text)

    # -- messages a page is sent --------------------------------------------------------------------------
    @staticmethod
    def board_message(view: PublicView, lang: str) -> str:
        return message("board", view=wire.public(view, lang), now=time.time())

    def hand_message(self, view: PrivateView, lang: str) -> str:
        return message("hand", view=wire.private(view, lang, self._boards.get(view.table_id)), now=time.time())

    def put_hand(self, viewer: Viewer, view: PrivateView) -> None:
        """Queue the seat's view for one of its pages, unless that page has this view or a later one already: a
        press's answer carries the view the service has usually just pushed, and encoding and sending it twice
        is what a busy server least needs (the page would draw it again, dropping a tile it had picked)."""
        last = viewer.hand
        if last is not None and ((last.hand_no, last.step) > (view.hand_no, view.step) or last == view):
            return
        viewer.hand = view
        viewer.put(self.hand_message(view, viewer.lang))

    @staticmethod
    def result_message(result: ResultView, view: PublicView, lang: str) -> str:
        return message("result", result=wire.result(result, view, lang))

    # -- the port ---------------------------------------------------------------------------------------
    async def board_changed(self, view: PublicView) -> None:
        self._boards[view.table_id] = view
        by_lang: dict[str, str] = {}

        def render(viewer: Viewer) -> str:
            if viewer.lang not in by_lang:
                by_lang[viewer.lang] = self.board_message(view, viewer.lang)
            return by_lang[viewer.lang]

        self._each(view.table_id, render)

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        for viewer in tuple(self._viewers.get(view.table_id, ())):
            if viewer.player_id == player.player_id:
                self.put_hand(viewer, view)

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        await self.board_changed(view)

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        self._boards[view.table_id] = view
        self._each(view.table_id, lambda v: self.result_message(result, view, v.lang))

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        self._each(table_id, lambda v: message("notice", text=tr(key, v.lang, **fmt)))

    async def table_paused(self, view: PublicView, reason: str) -> None:
        await self.board_changed(view)

    async def table_closed(self, summary: TableSummary) -> None:
        self._boards.pop(summary.table_id, None)
        self._each(summary.table_id, lambda v: message("closed", summary=wire.summary(summary, v.lang)))
