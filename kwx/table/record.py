"""A table's record: the state its event log replays to, and the reducer that applies each entry.

Live play and crash recovery go through the same `TableRecord.apply(record)`: the service writes a record to the
store (committed) and then applies it; at start-up every record of an open table is applied again in order,
which rebuilds the same state — the same hand, step, 漂 picks, 托管 flags and deadlines (deadlines are computed
from the unix time each record carries). A TableRecord is plain data and deterministic: no asyncio, no clock,
no I/O (kwx/table/recovery.py replays a log into one); the table being played in a process is a `LiveTable`
(kwx/table/live.py), the record plus its lock, timers and outbox.

This module is the reducer alone. Next to it: the state and what can be read from it (record_state.py), the
log's records and their JSON (log_records.py), what the AI decides for a seat (machine.py), the finished hand
for the ledger (ledger_entry.py), the lobby as the tables row keeps it (lobby_row.py) and the seed's
commitments (table_seed.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kwx.engine.actions import Action, Event, Gang, Liangdao, Peng
from kwx.engine.hand import CLAIM, ROB
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
from kwx.table.record_state import Notice, RecordState
from kwx.table.succession import HandSetup, new_table_state, upcoming

TIMEOUTS_FOR_AUTOPLAY = 2


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


class TableRecord(RecordState):
    """The replayed state of one table and the reducer that changes it: mutated only by `apply` (and the lobby,
    which the service persists in the tables row first)."""

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
        self.state = new_table_state(self.rules, self.secret.text, self.deal.dealer)
        self.next = upcoming(self.state, self.player_ids, self.secret.text)
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
        self.hold.release()
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
        seed = self.secret.hand(setup.hand_no)
        self.hand = self.state.start_hand(seed, p.piao, wall=self.deal.walls(seed))
        self.piao_picks = dict(enumerate(p.piao))
        self.status = PLAYING
        if not self.rules.piao:  # with 漂 the hand began at piao_open
            self.human_moved = self.human_asked = False
        self.hold.release()
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
            self.hold.answer_hidden()
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
        self.next = upcoming(self.state, self.player_ids, self.secret.text)
        if not new.is_ai:
            self.last_human_at = p.at
        return Applied(p.kind, notices=[("table.seat_taken", {"player": new.name, "player_id": new.player_id})])

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
        """Times of a record that moves the hand on (see `pause_s`, kwx/table/claim_pause.py): every discard and
        补杠 in its events is a moment the board holds for the pause. Returns when the decision the record leads
        to shows (its deadline counts from then)."""
        assert self.hand is not None
        out.base, out.show_at = self.hold.hold_moments(at, _moments(events, answered_rob),
                                                       self.hand.phase in (CLAIM, ROB))
        return out.show_at

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
        self.next = upcoming(self.state, self.player_ids, self.secret.text)

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
