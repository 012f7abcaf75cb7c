"""A table's record: the state its event log replays to, and the reducer that applies each entry.

Live play and crash recovery go through the same `TableRecord.apply(kind, payload)`: the service writes a record
to the store (committed) and then applies it; at start-up every record of an open table is applied again in
order, which rebuilds the same state — the same hand, step, 漂 picks, 托管 flags and deadlines (deadlines are
computed from the unix time each record carries). A TableRecord is plain data and deterministic: no asyncio,
no clock, no I/O (kwx/table/recovery.py replays a log into one); the table being played in a process is a
`LiveTable` (kwx/table/live.py), the record plus its lock, timers and outbox.

The records of the event log and their JSON forms are in kwx/table/log_records.py.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Self, TypeAlias

from kwx.engine.actions import Action, Event, Gang, Liangdao, Peng
from kwx.engine.ai import choose, decide, observe
from kwx.engine.hand import CLAIM, ROB, TURN, HandResult, HandState
from kwx.engine.piao import seat_piao
from kwx.engine.reads import FeedRecord
from kwx.engine.rules import RuleSet
from kwx.engine.seeds import hand_seed, reveal, seed_ref
from kwx.engine.table import TableState
from kwx.engine.tiles import Tile, parse_tile
from kwx.engine.wall import wall_from_seed
from kwx.store import LedgerHand, SeatResult, payments_from_seats
from kwx.table.log_records import (
    ActionRecord,
    AutoplayRecord,
    By,
    CloseReason,
    HandStartRecord,
    LeaveRecord,
    LogRecord,
    PauseReason,
    PauseRecord,
    PiaoOpenRecord,
    PiaoRecord,
    RecordKind,
    ResumeRecord,
    SeatRecord,
    StartRecord,
    StopRecord,
    action_record,
)
from kwx.table.phases import BETWEEN, CLOSED, LOBBY, PIAO, PLAYING, Phase
from kwx.table.succession import HandSetup, new_table_state, upcoming
from kwx.table.views import PlayerRef

AUTOPLAY_LEVEL = "strong"  # the AI that plays for a human in 托管
TIMEOUTS_FOR_AUTOPLAY = 2
CLAIM_PAUSE = 1.5  # seconds the board holds every discard and 补杠 at a table with a human (see `pause_s`)


Notice: TypeAlias = tuple[str, dict[str, str]]  # a catalog key for the board, and the words that fill it in


@dataclass
class Applied:
    """What one record changed, for the service to tell the front ends."""

    kind: RecordKind
    events: list[Event] = field(default_factory=list)  # engine events (full; filter before showing)
    new_window: bool = False  # a new decision opened (turn, claim window, 漂 phase): new deadline, new prompts
    liangdao_seats: list[int] = field(default_factory=list)
    finished: bool = False  # the hand ended with this record
    notices: list[Notice] = field(default_factory=list)
    base: float | None = None  # when the record's first moment shows (its time, or the end of a pause)
    show_at: float | None = None  # when what the record leads to shows (after the pauses of its moments)


class TableRecord:
    """The replayed state of one table. Mutated only by `apply` (and the lobby, which the service persists in
    the tables row first)."""

    def __init__(self, table_id: int, guild: str, channel: str | None, rules: RuleSet, seed: str, host: str,
                 lobby: Iterable[PlayerRef] = (), spectators: Iterable[PlayerRef] = (), *,
                 turn_seconds: float = 30.0, claim_seconds: float = 12.0, claim_pause: float = CLAIM_PAUSE,
                 seed_salt: str | None = None) -> None:
        self.id = table_id
        self.guild = guild
        self.channel = channel
        self.rules = rules
        self._seed = seed  # secret: never shown, never logged
        self._salt = seed_salt  # secret too: salts the commitments when a person chose the seed (kwx.engine.seeds)
        self._ref: tuple[int, str] | None = None  # (hand no, seed_ref), cached
        self.host = host
        self.lobby: list[PlayerRef] = list(lobby)
        self.spectators: dict[str, PlayerRef] = {p.player_id: p for p in spectators}
        self.players: dict[str, PlayerRef] = {p.player_id: p for p in self.lobby}
        self.turn_seconds = float(turn_seconds)
        self.claim_seconds = float(claim_seconds)
        self.claim_pause = max(0.0, float(claim_pause))

        self.status: Phase = LOBBY
        self.step = 0  # +1 per game record (piao_open, piao, hand_start, action)
        self.seq = 0  # last event-log seq written
        self.state: TableState | None = None  # the engine's sequence of hands (dealer, 上楼, rotation)
        self.player_ids: tuple[str, ...] = ()  # the engine's player numbers: the lobby order at the start
        self.setup: HandSetup | None = None  # the hand in play, or the one whose 漂 is being picked
        self.next: HandSetup | None = None  # between hands: the next hand's setup
        self.start_now = False  # between hands: start the next hand at once (right after `start`)
        self.hand: HandState | None = None
        self.last_result: HandResult | None = None
        self.piao_picks: dict[int, int] = {}
        self.scores: Counter[str] = Counter()
        self.timeouts: Counter[str] = Counter()
        # Players whose turn (or 漂 pick) timed out and who have not acted since: they were pinged for it, so
        # what they are asked next updates their DM without a new ping. A lapsed claim offer does not count:
        # a player who lets a 碰 go by instead of pressing 过 is still at the table and is pinged for their turn.
        self.missed_turn: set[str] = set()
        self.autoplay: set[str] = set()
        self.shown_autoplay: frozenset[str] = frozenset()  # what the board shows (see held_notices)
        self.prompt_step: dict[int, int] = {}  # seat -> step at which its current choices were offered
        self.window = 0  # +1 per decision opened
        self.wait_started: float | None = None
        self.finished_at: float | None = None
        self.meld_from: dict[tuple[int, int], int] = {}  # (seat, tile) -> whose discard made that meld
        self.held_notices: list[Notice] = []  # from claim answers, until the window closes
        self.ledger_done = True
        # Presence and the end of a table's life: see PauseReason / the pause, resume, leave and
        # seat records.
        self.paused: PauseReason | None = None
        self.paused_at: float | None = None
        self.human_moved = False  # a human made a move of their own in the hand in play (or resumed it)
        self.human_asked = False  # a human seat was asked to decide in the hand in play
        self.last_human_at: float | None = None  # the last record a human made themselves
        self.leaving: set[str] = set()  # seated players whose seats empty at the end of the hand
        self.vacant: list[str] = []  # player ids whose seats are empty (they left), until someone takes them
        self.biggest: tuple[int, str, int] | None = None  # (amount won, player id, hand no) of the biggest hand
        self.hold_until: float | None = None  # the board holds a discard or 补杠 until then (see `pause_s`)
        self.hidden_answers = 0  # claim answers applied: steps the public board does not count

    # == seats ===========================================================================================
    @property
    def capacity(self) -> int:
        return 4 if self.rules.rotation else 3

    @property
    def seating(self) -> tuple[str, ...]:
        """Player ids of seats 0, 1, 2 for the hand in play (or being set up); the lobby order before."""
        if self.setup is not None:
            return self.setup.seating
        return tuple(p.player_id for p in self.lobby[:3])

    @property
    def waiting(self) -> PlayerRef | None:
        if self.setup is not None:
            return self.players[self.setup.waiting] if self.setup.waiting else None
        return self.lobby[3] if len(self.lobby) > 3 else None

    def seat_player(self, seat: int) -> PlayerRef:
        return self.players[self.seating[seat]]

    def seat_of(self, player_id: str) -> int | None:
        try:
            return self.seating.index(player_id)
        except ValueError:
            return None

    def in_lobby(self, player_id: str) -> bool:
        return any(p.player_id == player_id for p in self.lobby)

    def is_ai_seat(self, seat: int) -> bool:
        return self.seat_player(seat).is_ai

    def machine_plays(self, seat: int) -> bool:
        """The AI decides for this seat: an AI seat, or a human in 托管."""
        player = self.seat_player(seat)
        return player.is_ai or player.player_id in self.autoplay

    @property
    def pause_s(self) -> float:
        """Seconds the board holds each discard and 补杠 declaration before the turn moves on, whether or not
        anyone may claim it, so that nothing public depends on concealed tiles: `claim_pause` when a human
        plays this hand (or sits out with rotation), 0 at a table of AI seats only."""
        if not self.claim_pause:
            return 0.0
        ids = [*self.seating, *([self.waiting.player_id] if self.waiting is not None else [])]
        return self.claim_pause if any(not self.players[pid].is_ai for pid in ids if pid in self.players) else 0.0

    @property
    def public_step(self) -> int:
        """The step the board shows: claim answers are not counted (their number would tell how many seats
        could claim)."""
        return self.step - self.hidden_answers

    @property
    def hands_done(self) -> int:
        """Hands finished at this table (the engine's count)."""
        return self.state.hands_played if self.state is not None else 0

    @property
    def hand_no(self) -> int:
        return self.setup.hand_no if self.setup is not None else 0

    # == what is asked now ===============================================================================
    def to_act(self) -> list[int]:
        if self.status == PIAO:
            return [s for s in range(3) if s not in self.piao_picks]
        if self.status == PLAYING and self.hand is not None:
            return sorted(self.hand.to_act())
        return []

    def legal(self, seat: int) -> list[Action]:
        if self.status == PLAYING and self.hand is not None:
            return self.hand.legal_actions(seat)
        return []

    @property
    def deadline(self) -> float | None:
        if self.wait_started is None or self.paused is not None:
            return None
        seconds = 0.0
        if self.status == PIAO:
            seconds = self.turn_seconds
        elif self.status == PLAYING and self.hand is not None and not self.hand.finished:
            seconds = self.turn_seconds if self.hand.phase == TURN else self.claim_seconds
        return self.wait_started + seconds if seconds > 0 else None  # 0 seconds: no timer

    # == building records (the service persists them, then applies them) =================================
    def start_record(self, by: str, at: float) -> StartRecord:
        ids = [p.player_id for p in self.lobby]
        return StartRecord(by, at, tuple(ids[:3]), ids[3] if len(ids) > 3 else None)

    def next_hand_record(self, at: float) -> PiaoOpenRecord | HandStartRecord:
        """Between hands: the record that opens the next hand (its 漂 phase, or the deal)."""
        assert self.status == BETWEEN and self.next is not None
        if self.rules.piao:
            return PiaoOpenRecord(self.next, at)
        return HandStartRecord(self.next, (0, 0, 0), at)

    def deal_record(self, at: float) -> HandStartRecord:
        """After the last 漂 pick: the deal."""
        assert self.status == PIAO and self.setup is not None and len(self.piao_picks) == 3
        return HandStartRecord(self.setup, tuple(self.piao_picks[s] for s in range(3)), at)

    def action_record(self, action: Action, by: By | str, at: float) -> ActionRecord:
        return action_record(action, by, self.step, at)

    def piao_record(self, seat: int, amount: int, by: By | str, at: float) -> PiaoRecord:
        return PiaoRecord(seat, amount, By(by), self.step, at)

    # == the reducer =====================================================================================
    def apply(self, record: LogRecord) -> Applied:
        """Apply one record of the log. Raises ValueError (or the engine's IllegalAction) when it does not fit
        the table as it stands: a corrupt log."""
        match record:
            case StartRecord():
                out = self._on_start(record)
            case PiaoOpenRecord():
                out = self._on_piao_open(record)
            case PiaoRecord():
                out = self._on_piao(record)
            case HandStartRecord():
                out = self._on_hand_start(record)
            case ActionRecord():
                out = self._on_action(record)
            case AutoplayRecord():
                out = self._on_autoplay(record)
            case PauseRecord():
                out = self._on_pause(record)
            case ResumeRecord():
                out = self._on_resume(record)
            case LeaveRecord():
                out = self._on_leave(record)
            case SeatRecord():
                out = self._on_seat(record)
            case StopRecord():
                out = self._on_stop(record)
        if not self.held_notices:
            self.shown_autoplay = frozenset(self.autoplay)
        return out

    def _on_start(self, p: StartRecord) -> Applied:
        if self.status != LOBBY:
            raise ValueError(f"table {self.id}: start while {self.status}")
        ids = [*p.seating, *([p.waiting] if p.waiting else [])]
        missing = [pid for pid in ids if pid not in self.players]
        if missing:
            raise ValueError(f"table {self.id}: start names unknown players {missing}")
        self.status = BETWEEN
        self.player_ids = tuple(ids)
        self.state = new_table_state(self.rules, self._seed)
        self.next = upcoming(self.state, self.player_ids, self._seed)
        self.start_now = True
        self.finished_at = p.at
        return Applied(RecordKind.START, notices=[("lobby.started", {})])

    def _on_piao_open(self, p: PiaoOpenRecord) -> Applied:
        self._check_status(BETWEEN, p.kind)
        self.setup = self._checked_setup(p.setup)  # `next` stays until the deal checks it again
        self.hand = None
        self.meld_from = {}
        self.status = PIAO
        self.piao_picks = {}
        self.human_moved = self.human_asked = False
        self.hold_until = None
        self._open_window(p.at)
        return Applied(p.kind, new_window=True)

    def _on_piao(self, p: PiaoRecord) -> Applied:
        self._check_status(PIAO, p.kind)
        seat, amount = p.seat, p.amount
        if seat in self.piao_picks or not 0 <= amount <= (self.rules.piao or 0):
            raise ValueError(f"table {self.id}: bad 漂 record {p}")
        self.piao_picks[seat] = amount
        self.step += 1
        out = Applied(p.kind)
        self._track(self.seating[seat], p.by, "piao", out, at=p.at)
        return out

    def _on_hand_start(self, p: HandStartRecord) -> Applied:
        if self.status not in (BETWEEN, PIAO):
            raise ValueError(f"table {self.id}: hand_start while {self.status}")
        setup = self.setup = self._checked_setup(p.setup)
        self.next = None
        self.start_now = False
        self.meld_from = {}
        assert self.state is not None
        seed = hand_seed(self._seed, setup.hand_no)
        self.hand = self.state.start_hand(seed, p.piao, wall=wall_from_seed(seed))
        self.piao_picks = dict(enumerate(p.piao))
        self.status = PLAYING
        if not self.rules.piao:  # with 漂 the hand began at piao_open
            self.human_moved = self.human_asked = False
        self.hold_until = None
        self._open_window(p.at)
        return Applied(p.kind, events=list(self.hand.events), new_window=True)

    def _on_action(self, p: ActionRecord) -> Applied:
        self._check_status(PLAYING, p.kind)
        hand = self.hand
        assert hand is not None
        seat = p.seat
        claim = hand.phase in (CLAIM, ROB)
        answered_rob = hand.phase == ROB
        events = hand.apply(p.action)  # raises IllegalAction on a corrupt log
        self.step += 1
        if claim:
            self.hidden_answers += 1
        out = Applied(p.kind, events=events)
        # A claim answer is nobody else's business: no timeout notice says a seat had a claim, and 托管 it
        # caused is announced once the window has closed.
        self._track(self.seating[seat], p.by, p.verb, out, claim=claim, at=p.at)
        for e in events:
            claimed = isinstance(e, Peng) or isinstance(e, Gang) and e.gang == "zhigang"
            if claimed and isinstance(e, Peng | Gang) and e.from_seat is not None:
                self.meld_from[e.seat, int(e.tile)] = e.from_seat
            elif isinstance(e, Liangdao):
                out.liangdao_seats.append(e.seat)
        at = p.at
        if any(e.kind != "pass" for e in events):  # only hidden claim answers leave the window open
            out.new_window = True
            at = self._pause_times(at, events, answered_rob, out)
            self._open_window(at, advance=False)
            out.notices[:0], self.held_notices = self.held_notices, []
        elif out.notices:
            self.held_notices.extend(out.notices)
            out.notices = []
        if hand.finished:
            self._hand_over(at)
            out.finished = True
        return out

    def at_moment(self, hand: HandState, step: int) -> Self:
        """A copy of this record at a moment the board holds (see `pause_s`): `hand` in place of the hand in
        play, at `step`. Views of a moment are built from it; this record is left as it is."""
        moment = copy.copy(self)
        moment.hand, moment.step = hand, step
        return moment

    def _on_autoplay(self, p: AutoplayRecord) -> Applied:
        out = Applied(p.kind)
        pid = p.player_id
        player = self.players.get(pid)
        name = player.name if player else pid
        if p.on and pid not in self.autoplay:
            self.autoplay.add(pid)
            out.notices.append(("event.autoplay_on", {"player": name, "player_id": pid}))
        elif not p.on and pid in self.autoplay:
            self._back(pid, name, out)
        if not p.on:  # "I am back" is a move of one's own
            self._present(p.at)
        return out

    # -- presence and the end of a table's life -----------------------------------------------------------
    def _present(self, at: float) -> None:
        if self.status in (PIAO, PLAYING):
            self.human_moved = True
        self.last_human_at = at

    def _on_pause(self, p: PauseRecord) -> Applied:
        if self.status in (LOBBY, CLOSED):
            raise ValueError(f"table {self.id}: pause while {self.status}")
        self.paused = p.reason
        self.paused_at = p.at
        return Applied(p.kind, notices=[(f"table.paused.{self.paused}", {})])

    def _on_resume(self, p: ResumeRecord) -> Applied:
        """A paused table plays on: an open decision gets a full fresh deadline from now (the pause was
        nobody's timeout); between hands the next hand starts `between_hands` after the resume."""
        if self.paused is None:
            raise ValueError(f"table {self.id}: resume while not paused")
        at = p.at
        out = self._play_on(p.by, at)
        by = self.players.get(p.by)
        if by is not None and not by.is_ai:
            self._present(at)
            if by.player_id in self.autoplay:
                self._back(by.player_id, by.name, out)
        return out

    def _play_on(self, by: str, at: float) -> Applied:
        self.paused = self.paused_at = None
        player = self.players.get(by)
        out = Applied(RecordKind.RESUME, notices=[("table.resumed", {"player": player.name if player else "",
                                                            "player_id": by})])
        if self.status in (PIAO, PLAYING):
            self.window += 1
            self.wait_started = at
            out.new_window = True
        elif self.status == BETWEEN:
            self.finished_at = at
        return out

    def store_paused(self, at: float) -> Applied:
        """Pause in memory: a store write failed for good (PauseReason.STORE: never written)."""
        self.paused, self.paused_at = PauseReason.STORE, at
        return Applied(RecordKind.PAUSE, notices=[(f"table.paused.{PauseReason.STORE}", {})])

    def store_resumed(self, by: str, at: float) -> Applied:
        """A table paused by the store plays on, as it paused, in memory: an open decision gets a fresh
        deadline. Nothing else changes, so the log still replays to this state."""
        if self.paused != PauseReason.STORE:
            raise ValueError(f"table {self.id}: not paused by the store")
        return self._play_on(by, at)

    def _on_leave(self, p: LeaveRecord) -> Applied:
        """A seated player leaves a started game: the AI plays their seat until the hand ends (托管), then
        the seat is empty (`vacant`) until someone takes it. Between hands it is empty at once."""
        pid = p.player_id
        if pid not in self.player_ids or pid in self.vacant:
            raise ValueError(f"table {self.id}: {pid} leaves a seat they do not have")
        player = self.players[pid]
        out = Applied(p.kind, notices=[("table.leaving", {"player": player.name, "player_id": pid})])
        if self.status in (PIAO, PLAYING):
            self.leaving.add(pid)
            if pid not in self.autoplay:
                self.autoplay.add(pid)
        else:
            self._vacate(pid)
        return out

    def _vacate(self, pid: str) -> None:
        self.leaving.discard(pid)
        self.autoplay.discard(pid)
        if pid not in self.vacant:
            self.vacant.append(pid)
        if self.host == pid:
            humans = [x for x in self.player_ids if x not in self.vacant and not self.players[x].is_ai]
            if humans:
                self.host = humans[0]

    def _on_seat(self, p: SeatRecord) -> Applied:
        """Someone takes a left seat (a member joins, or the host seats an AI): the new player plays that
        seat from the next hand on, starting at 0 at this table; the leaver keeps their net in the summary. A
        leaver who comes back takes their own seat again, with their net and what the table knew of them."""
        old, new = p.replaces, p.player
        back = new.player_id == old
        if old not in self.vacant or self.status != BETWEEN or (new.player_id in self.player_ids and not back):
            raise ValueError(f"table {self.id}: bad seat record {p}")
        self.vacant.remove(old)
        self.players[new.player_id] = new
        self.player_ids = tuple(new.player_id if x == old else x for x in self.player_ids)
        self.lobby = [new if x.player_id == old else x for x in self.lobby]
        host_gone = self.host == old or self.players[self.host].is_ai or self.host in self.vacant
        if host_gone and not new.is_ai:
            self.host = new.player_id
        assert self.state is not None
        if not back:  # a new player: nothing known of them yet
            self.state.forget_player(self.player_ids.index(new.player_id))
        self.next = upcoming(self.state, self.player_ids, self._seed)
        if not new.is_ai:
            self.last_human_at = p.at
        return Applied(p.kind, notices=[("table.seat_taken", {"player": new.name, "player_id": new.player_id})])

    def humans_seated(self) -> list[str]:
        """Human players who hold a seat (not left) in the game."""
        ids = self.player_ids or tuple(p.player_id for p in self.lobby)
        return [x for x in ids if x not in self.vacant and x not in self.leaving and not self.players[x].is_ai]

    def summary_players(self) -> list[str]:
        """Everyone who played at this table, in seat order first, then those who left and were replaced."""
        ids = list(self.player_ids or (p.player_id for p in self.lobby))
        ids += [x for x in self.scores if x not in ids]
        return ids

    def _on_stop(self, p: StopRecord) -> Applied:
        self.status = CLOSED
        self.paused = None
        self.wait_started = None
        if p.reason != CloseReason.STOPPED:
            return Applied(p.kind, notices=[(f"table.closed.{p.reason}", {})])
        by = self.players.get(p.by)
        name = by.name if by else p.by
        return Applied(p.kind, notices=[("lobby.stopped", {"player": name, "player_id": p.by})])

    # -- helpers -----------------------------------------------------------------------------------------
    def _checked_setup(self, setup: HandSetup) -> HandSetup:
        """The record's hand setup, which must be the one the engine's table state gives next."""
        if setup != self.next:
            raise ValueError(f"table {self.id}: the log deals {setup}, the table state gives {self.next}")
        return setup

    def _check_status(self, status: Phase, kind: RecordKind) -> None:
        if self.status != status:
            raise ValueError(f"table {self.id}: {kind} while {self.status}")

    def _open_window(self, at: float, *, advance: bool = True) -> None:
        """A new decision: new deadline; every seat asked now is prompted at the current step."""
        if advance:
            self.step += 1
        self.window += 1
        self.wait_started = at
        self.prompt_step = {s: self.step for s in self.to_act()}
        if not self.human_asked and any(not self.players[self.seating[s]].is_ai for s in self.prompt_step):
            self.human_asked = True

    def _pause_times(self, at: float, events: list[Event], answered_rob: bool, out: Applied) -> float:
        """Times of a record that moves the hand on (see `pause_s`): every discard and 补杠 in its events is a
        moment the board holds for the pause. The first shows at `at` (or when a pause still running ends),
        each next one a pause later; a window left open is the last moment and is held too. Returns when the
        decision the record leads to shows (its deadline counts from then)."""
        base = at if self.hold_until is None else max(at, self.hold_until)
        pause = self.pause_s
        moments = _moments(events, answered_rob)
        assert self.hand is not None
        open_window = self.hand.phase in (CLAIM, ROB)
        shown = base + max(0, moments - open_window) * pause
        self.hold_until = base + moments * pause if pause and moments else None
        out.base, out.show_at = base, shown
        return shown

    def _track(self, player_id: str, by: str, verb: str, out: Applied, *, claim: bool = False,
               at: float | None = None) -> None:
        """Timeouts in a row put a human in 托管; any action of their own takes them out of it."""
        player = self.players[player_id]
        if by == "player":
            self.human_moved = True
            if at is not None:
                self.last_human_at = float(at)
            self._back(player_id, player.name, out)
        elif by in ("timeout", "late"):  # late: the prompt never reached the player in time (the bot's lag)
            if by == "timeout":  # only the player's own lapses count toward 托管
                self.timeouts[player_id] += 1
            if not claim:
                self.missed_turn.add(player_id)
                out.notices.append(("event.timeout", {"player": player.name, "player_id": player_id,
                                                      "action": verb}))
            if self.timeouts[player_id] >= TIMEOUTS_FOR_AUTOPLAY and player_id not in self.autoplay:
                self.autoplay.add(player_id)
                out.notices.append(("event.autoplay_on", {"player": player.name, "player_id": player_id}))

    def _back(self, player_id: str, name: str, out: Applied) -> None:
        """The player acts for themselves again: no timeouts in a row, no missed turn, and out of 托管 (said on
        the board) if they were in it."""
        self.timeouts[player_id] = 0
        self.missed_turn.discard(player_id)
        if player_id in self.autoplay:
            self.autoplay.discard(player_id)
            out.notices.append(("event.autoplay_off", {"player": name, "player_id": player_id}))

    def _hand_over(self, at: float) -> None:
        hand = self.hand
        assert hand is not None and hand.result is not None and self.setup is not None
        result = hand.result
        for seat, pid in enumerate(self.setup.seating):
            self.scores[pid] += result.net[seat]
        self.last_result = result
        self.status = BETWEEN
        self.finished_at = at
        self.wait_started = None
        self.prompt_step = {}
        self.ledger_done = False
        best = max(result.winners, key=lambda s: result.net[s], default=None)  # a drawn hand is nobody's win
        if best is not None and result.net[best] > 0 and (self.biggest is None or result.net[best] > self.biggest[0]):
            self.biggest = (result.net[best], self.setup.seating[best], self.setup.hand_no)
        assert self.state is not None
        self.state.finish_hand(hand)
        for pid in sorted(self.leaving):
            self._vacate(pid)
        self.next = upcoming(self.state, self.player_ids, self._seed)

    # == machine decisions ===============================================================================
    def machine_moves(self) -> list[tuple[int, Action | int, str]]:
        """(seat, action or 漂 amount, by) for every seat the AI decides for that must act now."""
        out: list[tuple[int, Action | int, str]] = []
        known = None
        for seat in self.to_act():
            player = self.seat_player(seat)
            if player.is_ai:
                by, level = "ai", player.ai_level or AUTOPLAY_LEVEL
            elif player.player_id in self.autoplay:
                by, level = "auto", AUTOPLAY_LEVEL
            else:
                continue
            if self.status == PIAO:
                assert self.state is not None
                amount = seat_piao(self.state, seat, level, table_seed=self._seed, hand_no=self.hand_no,
                                   player_id=player.player_id) if by == "ai" else 0
                out.append((seat, amount, by))
            else:
                assert self.hand is not None
                if known is None:
                    known = self._feed_records()
                out.append((seat, decide(self.hand, seat, level, known), by))
        return out

    def timeout_move(self, seat: int) -> Action | int:
        """What a seat does when its time runs out: 漂 0; pass a claim; discard the drawn tile. A 亮倒 seat
        takes its win if it has one (else passes, which discards the draw). With no drawn tile (after a 碰, or
        the dealer's first turn) or when the drawn tile may not be discarded, the AI picks the discard."""
        if self.status == PIAO:
            return 0
        hand = self.hand
        assert hand is not None
        legal = hand.legal_actions(seat)
        if hand.phase in (CLAIM, ROB):
            return Action(seat, "pass")
        if hand.declared(seat):
            for verb in ("hu", "pass"):
                if Action(seat, verb) in legal:
                    return Action(seat, verb)
        drawn = hand.drawn
        if drawn is not None and Action(seat, "discard", drawn) in legal:
            return Action(seat, "discard", drawn)
        discards = [a for a in legal if a.verb == "discard"]
        if discards:
            obs = observe(hand, seat, self._feed_records())
            obs.legal = discards
            return choose(obs, AUTOPLAY_LEVEL)
        return legal[0]

    def _feed_records(self) -> dict[int, FeedRecord]:
        """What the table has seen of its players feeding declared hands, per seat of this hand."""
        assert self.state is not None
        return self.state.reads.for_seats(self.state.seated)

    # == the ledger ======================================================================================
    def hand_record(self) -> LedgerHand:
        """The finished hand for `Store.finish_hand`: seats, payments (engine reason ids), nets."""
        hand, setup = self.hand, self.setup
        assert hand is not None and hand.result is not None and setup is not None
        result = hand.result
        ids = setup.seating
        seats = [
            SeatResult(player_id=pid, seat=s, name=self.players[pid].name, won=s in result.winners,
                       self_draw=s in result.winners and result.self_draw, liangdao=hand.declared(s),
                       fan=result.fan.get(s, 0), patterns=list(result.patterns.get(s, ())), net=result.net[s])
            for s, pid in enumerate(ids)]
        summary = {"end": result.end, "base": hand.base, "piao": list(hand.piao), "dealer_seat": setup.dealer,
                   "next_dealer": result.next_dealer, "from_seat": result.from_seat}
        return LedgerHand(guild=self.guild, table_id=self.id, hand_no=setup.hand_no, seats=seats,
                          payments=payments_from_seats(result.payments, ids), dealer=ids[setup.dealer],
                          seed_ref=seed_ref(self._seed, setup.hand_no, self._salt), outcome=result.outcome,  # type: ignore[arg-type]
                          summary=summary)

    # == persistence of the lobby (the tables row) ==========================================================
    def seats_json(self) -> list[dict[str, Any]]:
        return [{"player_id": p.player_id, "name": p.name, "ai_level": p.ai_level} for p in self.lobby]

    def options_json(self) -> dict[str, Any]:
        return {"host": self.host, "turn_seconds": self.turn_seconds, "claim_seconds": self.claim_seconds,
                "claim_pause": self.claim_pause,
                "spectators": [{"player_id": p.player_id, "name": p.name} for p in self.spectators.values()],
                **({"seed_salt": self._salt} if self._salt else {})}

    @property
    def seed_ref(self) -> str | None:
        """The commitment to the seed of the hand dealt (None before the first deal); public from the deal."""
        if self.setup is None:
            return None
        if self._ref is None or self._ref[0] != self.setup.hand_no:
            self._ref = (self.setup.hand_no, seed_ref(self._seed, self.setup.hand_no, self._salt))
        return self._ref[1]

    def revealed_seed(self) -> tuple[str, str]:
        """(seed, seed_ref) of the hand in play or just finished: shown only once the hand is over, so anyone
        can check the shuffle (`python -m kwx verify`); later hands' seeds stay unknowable."""
        assert self.setup is not None and self.hand is not None and self.hand.finished
        return (reveal(self._seed, self.setup.hand_no, self._salt),
                seed_ref(self._seed, self.setup.hand_no, self._salt))


def _moments(events: Iterable[Event], answered_rob: bool) -> int:
    """Discards and 补杠 declarations in a record's events (a rob window's own 补杠 was counted when it
    opened)."""
    n = 0
    skip = answered_rob
    for e in events:
        if e.kind == "discard" or e.kind == "rob_window":
            n += 1
        elif isinstance(e, Gang) and e.gang == "bugang":
            if skip:
                skip = False
            else:
                n += 1
    return n


def parse_tile_arg(tile: Tile | str | None) -> Tile | None:
    """A tile argument from a front end: a Tile, compact/Chinese text, or None. Raises TileError."""
    if tile is None or isinstance(tile, Tile):
        return tile
    return parse_tile(str(tile))
