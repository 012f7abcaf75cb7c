"""Headless local runner: three AI seats play on the local `autoplay` table until N more hands are finished.

    python bot.py --local --autoplay 10 [--seed S] [--delay 0] [--db PATH]

The table is the local one (guild `local`) in its own channel, `autoplay`, so it never disturbs the human's
`terminal` table. Like that one it stays open across runs: the next run continues the same table, resuming an
unfinished hand first, so for a given seed the table's k-th hand is the same however the runs were cut (the seed
is stored with the table when it is created; a later `--seed` does not change an open table).

Output: one summary line per finished hand, then one JSON line: {"table", "hands": [numbers finished in this
run], "scores": [table scores per seat], "balances": {player: ledger balance}, "state": {...}}. Exit status 0.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from kwx.local.tables import LOCAL_GUILD, find_local_table, finished_hands, only_channel, seat_players
from kwx.present.i18n import pattern_name
from kwx.present.numbers import signed_points
from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import PlayerRef, PrivateView, PublicView, ResultView, TableSummary

AUTOPLAY_CHANNEL = "autoplay"
# The host is the first AI player: a table closes when its last human leaves, so an all-AI table is opened by one.
HOST = PlayerRef("ai:standard:1", "AI 1", "standard")
STALL_SECONDS = 120.0  # no table change for this long means something is stuck: give up with status 1


def hand_summary(result: ResultView, view: PublicView) -> str:
    """One line: `hand 4: 电脑1 self-draw 8 fan (清一色 Full Flush ×4, …) · net +16 -8 -8 · scores …`."""
    names = [s.player.name for s in view.seats]

    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

    if not result.winners:
        what = "draw"
    else:
        parts = []
        for w in result.winners:
            how = "self-draw" if w.self_draw else f"on {name(w.from_seat)}'s {w.win_tile.compact}"
            patterns = ", ".join(f"{pattern_name(p, 'zh-CN')} {pattern_name(p, 'en')} ×{m}" for p, m in w.patterns)
            parts.append(f"{name(w.seat)} wins {how}, {w.fan} fan ({patterns})")
        what = "; ".join(parts)
    net = " ".join(signed_points(n) for n in result.net)  # −2 with the minus sign, as everywhere in kwx
    scores = " ".join(signed_points(n) for n in result.scores)
    return f"hand {result.hand_no}: {what} · net {net} · scores {scores}"


class AutoplayFrontEnd:
    """The FrontEnd port with no screen: prints a summary line per finished hand and counts them."""

    def __init__(self, out: IO[str] | None = None, *, after_hand: int = 0, target: int = 0,
                 clock: Callable[[], float] | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.after_hand = after_hand  # hands up to this number were finished before this run
        self.target = target  # stop once this many more hands are finished
        self.finished: list[int] = []
        self.board: PublicView | None = None  # the latest board: after shutdown, the state the run ended in
        self.done = asyncio.Event()
        self.changed = asyncio.Event()  # set on every call: the stall watchdog waits on it

    def _poke(self) -> None:
        self.changed.set()

    async def board_changed(self, view: PublicView) -> None:
        self.board = view
        self._poke()

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        self._poke()

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        self._poke()

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        self.board = view
        self._poke()
        if result.hand_no <= self.after_hand or result.hand_no in self.finished:
            return  # a hand finished before this run (re-announced by a recovery) is not counted again
        self.finished.append(result.hand_no)
        print(hand_summary(result, view), file=self.out, flush=True)
        if len(self.finished) >= self.target:
            self.done.set()

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        self._poke()

    async def table_paused(self, view: PublicView, reason: str) -> None:
        self.board = view
        self._poke()

    async def table_closed(self, summary: TableSummary) -> None:
        self._poke()


def table_state(view: PublicView) -> dict[str, Any]:
    """The public state of a table, JSON-ready: what a replay of the log must rebuild exactly. (No `step`: a
    pass in a claim window moves the step without a board update, so the last board shown may be a step behind.)"""
    return {
        "hand_no": view.hand_no, "phase": view.phase, "wall": view.wall_remaining,
        "turn": view.turn_seat, "scores": [s.score for s in view.seats],
        "seats": [{"player": s.player.player_id, "concealed": s.concealed_count,
                   "discards": [x.compact for x in s.discards],
                   "melds": [[m.kind, m.tile.compact if m.tile is not None else None] for m in s.melds],
                   "liangdao": s.liangdao} for s in view.seats],
    }


async def _watch(frontend: AutoplayFrontEnd, stall_seconds: float) -> bool:
    """True when the target is reached, False when nothing happened for `stall_seconds`."""
    while not frontend.done.is_set():
        frontend.changed.clear()
        done = asyncio.ensure_future(frontend.done.wait())
        changed = asyncio.ensure_future(frontend.changed.wait())
        finished, pending = await asyncio.wait({done, changed}, timeout=stall_seconds,
                                               return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if not finished:
            return False
    return True


async def autoplay(db_path: str | Path, hands: int, *, seed: str | None = None, delay: float = 0.0,
                   level: str = "standard", out: IO[str] | None = None, stall_seconds: float = STALL_SECONDS,
                   service_factory: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Play until `hands` more hands of the autoplay table are finished; return the run's summary."""
    out = out if out is not None else sys.stdout
    store = await Store.open(db_path)
    service: Any = None
    try:
        row = await find_local_table(store, AUTOPLAY_CHANNEL)
        existing = row.id if row is not None else None
        before = await finished_hands(store, existing) if existing is not None else 0
        frontend = AutoplayFrontEnd(out, after_hand=before, target=hands)
        if hands <= 0:
            frontend.done.set()
        factory = service_factory or TableService
        # No hand limit for this demo table: the run itself stops after N hands (the service default would close
        # an all-AI table after DEMO_HANDS hands).
        service = factory(store, frontend, ai_delay=delay, between_hands=delay, demo_hands=None)
        await service.start(include=only_channel(LOCAL_GUILD, AUTOPLAY_CHANNEL))
        table_id = service.table_in_channel(LOCAL_GUILD, AUTOPLAY_CHANNEL)
        if table_id is None:
            table_id = await service.open_table(LOCAL_GUILD, AUTOPLAY_CHANNEL, HOST, seed=seed)
        # In the lobby (a new table, or one whose run was cut before the deal): AI players fill the seats, deal.
        await seat_players(service, table_id, HOST, [], level)
        reached = await _watch(frontend, stall_seconds)
        await service.shutdown()  # lets actions in flight commit and delivers the queued views
        view = frontend.board or service.public_view_as_shown(table_id)
        players = [s.player.player_id for s in view.seats]
        balances = {p: (await store.balance(LOCAL_GUILD, p)).balance for p in players}
        events = await store.load_events(table_id)
        summary = {"table": table_id, "hands": frontend.finished, "scores": [s.score for s in view.seats],
                   "balances": balances, "events": events[-1].seq if events else 0, "stalled": not reached,
                   "state": table_state(view)}
        print(json.dumps(summary, ensure_ascii=False), file=out, flush=True)
        return summary
    finally:
        if service is not None:
            await service.shutdown()
        await store.close()


def run_autoplay(settings: Any, hands: int, *, db: str | None = None, seed: str | None = None,
                 delay: float | None = None) -> int:
    """`python bot.py --local --autoplay N`: exit status 0 once N more hands are finished, 1 if play stalled."""
    summary = asyncio.run(autoplay(db or settings.db_path, hands, seed=seed, delay=0.0 if delay is None else delay))
    return 1 if summary["stalled"] else 0
