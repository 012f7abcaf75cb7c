"""The state a table's record holds, and what can be read from it: who sits where, who is asked now, the
deadline, the commitment to the hand's seed.

`TableRecord` (kwx/table/record.py) adds the reducer, the only code that changes this state; the fields are
listed and explained here, once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypeAlias

from kwx.engine.actions import Action
from kwx.engine.hand import TURN, HandResult, HandState
from kwx.engine.rules import RuleSet
from kwx.engine.table import TableState
from kwx.table.claim_pause import ClaimPause
from kwx.table.deal import FROM_SEED, Deal
from kwx.table.log_records import PauseReason
from kwx.table.phases import LOBBY, PIAO, PLAYING, Phase
from kwx.table.succession import HandSetup
from kwx.table.table_seed import TableSeed
from kwx.table.views import PlayerRef

CLAIM_PAUSE = 1.5  # seconds the board holds every discard and 补杠 at a table with a human (see `pause_s`)

Notice: TypeAlias = tuple[str, dict[str, str]]  # a catalog key for the board, and the words that fill it in


class RecordState:
    """The replayed state of one table (see TableRecord)."""

    def __init__(self, table_id: int, guild: str, channel: str | None, rules: RuleSet, seed: str, host: str,
                 lobby: Iterable[PlayerRef] = (), spectators: Iterable[PlayerRef] = (), *,
                 turn_seconds: float = 30.0, claim_seconds: float = 12.0, claim_pause: float = CLAIM_PAUSE,
                 seed_salt: str | None = None, deal: Deal = FROM_SEED) -> None:
        self.id = table_id
        self.guild = guild
        self.channel = channel
        self.rules = rules
        self.secret = TableSeed(seed, seed_salt)  # never shown, never logged
        self.deal = deal  # each hand's wall and the first dealer (from the seed; a test may script them)
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
        # The board's hold after a discard, and what each front end was shown while it runs (replayed: when it
        # ends and the claim answers the board does not count; the rest is the delivery's, at run time).
        self.hold = ClaimPause(self)

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
        return self.step - self.hold.hidden_answers

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

    def humans_seated(self) -> list[str]:
        """Human players who hold a seat (not left) in the game."""
        ids = self.player_ids or tuple(p.player_id for p in self.lobby)
        return [x for x in ids if x not in self.vacant and x not in self.leaving and not self.players[x].is_ai]

    def summary_players(self) -> list[str]:
        """Everyone who played at this table, in seat order first, then those who left and were replaced."""
        ids = list(self.player_ids or (p.player_id for p in self.lobby))
        ids += [x for x in self.scores if x not in ids]
        return ids

    @property
    def seed_ref(self) -> str | None:
        """The commitment to the seed of the hand dealt (None before the first deal); public from the deal."""
        if self.setup is None:
            return None
        if self._ref is None or self._ref[0] != self.setup.hand_no:
            self._ref = (self.setup.hand_no, self.secret.commitment(self.setup.hand_no))
        return self._ref[1]

    def revealed_seed(self) -> tuple[str, str]:
        """(seed, seed_ref) of the hand in play or just finished: shown only once the hand is over, so anyone
        can check the shuffle (`python -m kwx verify`); later hands' seeds stay unknowable."""
        assert self.setup is not None and self.hand is not None and self.hand.finished
        return self.secret.revealed(self.setup.hand_no), self.secret.commitment(self.setup.hand_no)
