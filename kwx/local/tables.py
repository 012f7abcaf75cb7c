"""The local tables (guild `local`): finding, seating and timing them; shared by the terminal and autoplay."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from kwx.store import Store, TableRow
from kwx.table.views import PlayerRef

LOCAL_GUILD = "local"
TERMINAL_CHANNEL = "terminal"
YOU_ID = "local:you"
TURN_SECONDS: float | None = None  # no turn timer: the only other seats are AI players, who can wait
CLAIM_SECONDS = 20.0  # with --turn-seconds: the claim windows' timer
# An AI turn at the terminal takes AI_DELAY + TERMINAL_CLAIM_PAUSE = 0.8 s (benchmarks/terminal_pace.py): the board
# holds every discard for the same time whether or not anyone may claim it (so the pace tells nothing of concealed
# tiles; kwx.table.delivery), then the next AI player thinks. Discord's 1.5 s hold gives a player time to reach a
# button; at the terminal the claim is asked the moment the hold ends, so a short one is enough, and 1.5 + 0.8 s
# made every AI turn 2.3 s.
AI_DELAY = 0.4  # seconds an AI "thinks" before it acts, so the log can be followed
TERMINAL_CLAIM_PAUSE = 0.4  # seconds the terminal table's board holds every discard and 补杠 (new tables)
BETWEEN_HANDS = 6.0  # time to read the result block before the next deal
WARN_SECONDS = 10.0  # one reminder this long before your time runs out


def terminal_player() -> PlayerRef:
    """The terminal's player. The name the ledger keeps is the computer's login name, in no table's language (the
    screens say 你 / You by the id; a stored 你 read "Hands of 你" in an English ledger)."""
    return PlayerRef(YOU_ID, system_user())


def system_user() -> str:
    import getpass

    try:
        name = getpass.getuser().strip()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        name = ""
    return name[:32] or "player"


def only_channel(guild: str, channel: str) -> Callable[[TableRow], bool]:
    """For `TableService.start(include=...)`: the terminal table and the autoplay runner each run only their
    own table, so playing at the terminal never runs the autoplay table in the background, and an autoplay run
    never plays the human's seat by timeout."""
    return lambda row: (row.guild, row.channel) == (guild, channel)


async def find_local_table(store: Store, channel: str, guild: str = LOCAL_GUILD) -> TableRow | None:
    """The open table of a local channel, if any (read before the service starts)."""
    for row in await store.unfinished_tables(guild):
        if row.channel == channel:
            return row
    return None


async def finished_hands(store: Store, table_id: int) -> int:
    """How many hands of the table the ledger holds (hands are recorded in order: 1, 2, …)."""
    n = 0
    for hand_no in await store.hand_numbers(table_id):  # one query, not one per hand
        if hand_no != n + 1:
            break
        n += 1
    return n


async def seat_players(service: Any, table_id: int, host: PlayerRef, humans: Sequence[PlayerRef],
                       ai_level: str = "standard") -> None:
    """Make sure the humans sit and AI players fill the other seats, then deal, if the table is in its lobby."""
    view = service.public_view_as_shown(table_id)
    if view.phase != "lobby":
        return
    seated = {s.player.player_id for s in view.seats}
    for player in humans:
        if player.player_id not in seated:
            await service.join(table_id, player)
    while len(service.public_view_as_shown(table_id).seats) < 3:
        await service.add_ai(table_id, ai_level, by=host.player_id)
    await service.start_game(table_id, by=host.player_id)


async def paused_clock(store: Store, table_id: int | None) -> Callable[[], float]:
    """A clock for the terminal table that stood still while the program was not running.

    Deadlines come from the time each record of the log carries; with the wall clock, a turn left open by `quit`
    would time out the moment the table resumes. This clock runs behind the wall clock by the time that passed
    since the table's last record, so you come back to the time you had left."""
    offset = 0.0
    if table_id is not None:
        for event in reversed(await store.load_events(table_id)):
            at = event.payload.get("at") if isinstance(event.payload, dict) else None
            if isinstance(at, int | float):
                offset = max(0.0, time.time() - float(at))
                break
    return lambda: time.time() - offset


def timers(turn_seconds: float | None) -> tuple[float, float]:
    """(turn, claim) seconds for a new terminal table: none at all by default (0 is no timer to the service);
    with a turn timer the claim windows get CLAIM_SECONDS (or the turn's, if shorter)."""
    if turn_seconds is None or turn_seconds <= 0:
        return 0.0, 0.0
    return float(turn_seconds), min(CLAIM_SECONDS, float(turn_seconds))


def unused_timer(row: TableRow | None, turn_seconds: float | None) -> float | None:
    """The turn timer of the open table `row` when `--turn-seconds` asked for another one, else None: an open
    table keeps the timers it was opened with, and the player is told so (and how to start a new table)."""
    if row is None or turn_seconds is None:
        return None
    current = float(row.options.get("turn_seconds") or 0.0)
    return current if timers(turn_seconds)[0] != current else None


async def open_or_resume(service: Any, you: PlayerRef, *, turn_seconds: float | None = TURN_SECONDS,
                         seed: str | None = None, new: bool = False) -> tuple[int, bool]:
    """Start the service on the terminal table only; resume it or open a new one, seat the AI players and deal.
    With `new`, an open table is stopped first (its finished hands stay in the ledger; a hand in play is
    abandoned) and a new one opens with `turn_seconds` and `seed`. Coming back to the terminal ends 托管 (you
    are here). Returns (table id, resumed)."""
    await service.start(include=only_channel(LOCAL_GUILD, TERMINAL_CHANNEL))
    table_id = service.table_in_channel(LOCAL_GUILD, TERMINAL_CHANNEL)
    if new and table_id is not None:
        await service.stop(table_id, you.player_id, force=True)
        table_id = None
    resumed = table_id is not None
    if table_id is None:
        turn, claim = timers(turn_seconds)
        table_id = await service.open_table(LOCAL_GUILD, TERMINAL_CHANNEL, you, turn_seconds=turn,
                                            claim_seconds=claim, seed=seed)
    await seat_players(service, table_id, you, [you])
    await come_back(service, table_id, you.player_id)
    return table_id, resumed


async def come_back(service: Any, table_id: int, player_id: str) -> bool:
    """You are at the table: a pause ends (the table plays on) and so does 托管. True when either did."""
    did = False
    with contextlib.suppress(Exception):
        view = service.public_view_as_shown(table_id)
        if getattr(view, "paused", None) is not None and hasattr(service, "resume"):
            await service.resume(table_id, player_id)
            did = True
    mine = False
    with contextlib.suppress(Exception):
        view = service.public_view_as_shown(table_id)
        mine = any(s.autoplay and s.player.player_id == player_id for s in view.seats)
    if mine or _private_autoplay(service, table_id, player_id):
        with contextlib.suppress(Exception):
            await service.set_autoplay(table_id, player_id, False)
            did = True
    return did


def _private_autoplay(service: Any, table_id: int, player_id: str) -> bool:
    try:
        return bool(service.private_view_as_shown(table_id, player_id).autoplay)
    except Exception:
        return False
