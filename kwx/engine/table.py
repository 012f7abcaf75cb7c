"""A table: a sequence of hands (docs/rules.md §2 dealer succession, §9 rotation, §10 上楼 and 漂).

    table = TableState(rules, first_dealer=0)
    hand = table.start_hand(seed, piao_picks)      # a HandState; seed None draws a fresh secret one
    ... play it ...
    record = table.finish_hand(hand)               # running net, next dealer, 上楼, rotation
    table.reads.for_seats(table.seated)            # what the AI may know of the players (kwx.engine.reads)
    table.balances.for_seats(table.seated)         # and of their win payments, for its 漂 picks (kwx.engine.piao)

Players are numbered 0…n−1 for the whole table; a hand's seats are 0–2 in play order and `seated[seat]` is the
player in that seat. Without rotation seat = player.

上楼 (docs/rules.md §10): the hand right after a 荒庄 or an 一炮双响 is played at base × 2, and a hand whose two
opening dice match at × 2 more, × 4 at most: the doubling never carries past the next hand, however many 荒庄
come in a row ("下局结算的底分x2"). Tables of rules edition 1 (kwx.engine.rules) keep the reckoning they began
with: 2^k for k such hands in a row, k at most LEGACY_MAX_SHANGLOU_LEVEL.

Choices where the rules (docs/rules.md) are silent:
- 上楼: a forbid_feeding ending is no 荒庄 (the hand ends with a payment), so the hand after it is not doubled.
- rotation: the winner's seat goes to the waiting player, who deals; the winner waits. After 一炮双响 or any hand
  without a winner nobody moves, and the dealer follows the usual rule (discarder / draw_dealer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from kwx.engine.hand import HandResult, HandResultJson, HandState
from kwx.engine.reads import BalanceReads, FeedReads, ReadsJson
from kwx.engine.rules import RuleSet, RuleSetJson
from kwx.engine.wall import dice_from_seed, new_seed, wall_from_seed

LEGACY_MAX_SHANGLOU_LEVEL = 3  # edition 1: 上楼 from history stopped climbing at × 8


class HandRecordJson(TypedDict):
    number: int
    seed: str
    dice: list[int]
    seated: list[int]
    dealer: int
    base: int
    result: HandResultJson
    net: dict[str, int]  # player (as text) → points


class TableStateJson(TypedDict):
    """The table between hands (`TableState.to_json`, read back by `TableState.from_json`)."""

    rules: RuleSetJson
    players: int
    seated: list[int]
    waiting: int | None
    dealer: int
    shanglou_level: int
    net: list[int]
    hands_played: int
    feed_reads: ReadsJson
    balance_reads: ReadsJson


@dataclass(frozen=True)
class HandRecord:
    """One finished hand as the table saw it (players, not seats)."""

    number: int  # 1, 2, …
    seed: str
    dice: tuple[int, int]
    seated: tuple[int, ...]  # player in each seat
    dealer: int  # player
    base: int  # points per fan in that hand
    result: HandResult
    net: dict[int, int]  # player -> points won (+) or lost (−) in that hand

    def to_json(self) -> HandRecordJson:
        return {"number": self.number, "seed": self.seed, "dice": list(self.dice), "seated": list(self.seated),
                "dealer": self.dealer, "base": self.base, "result": self.result.to_json(),
                "net": {str(p): n for p, n in self.net.items()}}


class TableState:
    def __init__(self, rules: RuleSet, first_dealer: int = 0, players: int | None = None) -> None:
        expected = 4 if rules.rotation else 3
        if players is None:
            players = expected
        if players != expected:
            raise ValueError(f"{'rotation' if rules.rotation else 'a plain table'} needs {expected} players, "
                             f"not {players}")
        if first_dealer not in range(players):
            raise ValueError(f"the first dealer must be a player 0…{players - 1}")
        self.rules = rules
        self.n_players = players
        # Seats in play order; with rotation the dealer starts in seat 0 and player 3 waits.
        self.seated: tuple[int, ...] = (0, 1, 2)
        self.waiting: int | None = None
        if players == 4:
            others = [p for p in range(4) if p != first_dealer]
            self.seated = (first_dealer, others[0], others[1])
            self.waiting = others[2]
        self.dealer = first_dealer
        self.shanglou_level = 0
        self.net = [0] * players
        self.history: list[HandRecord] = []
        self.reads = FeedReads()  # who feeds declared hands, from the public record of the hands played
        self.balances = BalanceReads()  # who receives more win payments than it pays (the AI's 漂 picks)
        self._hands_before = 0  # hands booked before this object was restored from JSON
        self.current: HandState | None = None
        self._seed: str | None = None
        self._dice: tuple[int, int] = (0, 0)

    # -- views -------------------------------------------------------------------------------------------
    @property
    def dealer_seat(self) -> int:
        return self.seated.index(self.dealer)

    @property
    def hands_played(self) -> int:
        return self._hands_before + len(self.history)

    def seat_of(self, player: int) -> int | None:
        return self.seated.index(player) if player in self.seated else None

    def forget_player(self, player: int) -> None:
        """Someone else now plays as `player` (a seat taken over): what the reads learned was of the last one."""
        self.reads.forget(player)
        self.balances.forget(player)

    def base_multiplier(self, seed: str) -> int:
        """What the base is multiplied by in the hand dealt from `seed` (上楼; 1 without the option)."""
        if not self.rules.shanglou:
            return 1
        dice = dice_from_seed(seed)
        return (1 << self.shanglou_level) * (2 if dice[0] == dice[1] else 1)

    # -- the hand cycle ------------------------------------------------------------------------------------
    def start_hand(self, seed: str | None = None, piao_picks: Sequence[int] | Mapping[int, int] | None = None,
                   wall: Sequence[int] | None = None) -> HandState:
        """Deal the next hand. `piao_picks`: 漂 per seat (a sequence of three) or per player (a mapping).
        `wall` overrides the wall drawn from the seed (scripted hands); the dice still come from the seed."""
        if self.current is not None and not self.current.finished:
            raise ValueError("the current hand is still being played")
        if self.current is not None:
            raise ValueError("finish_hand the last hand before starting the next")
        seed = seed if seed is not None else new_seed()
        if piao_picks is None:
            picks: tuple[int, ...] = (0, 0, 0)
        elif isinstance(piao_picks, Mapping):
            picks = tuple(int(piao_picks.get(p, 0)) for p in self.seated)
        else:
            picks = tuple(int(p) for p in piao_picks)
        tiles = wall_from_seed(seed) if wall is None else wall
        hand = HandState(self.rules, self.dealer_seat, tiles, picks, self.base_multiplier(seed))
        self.current = hand
        self._seed = seed
        self._dice = dice_from_seed(seed)
        return hand

    def finish_hand(self, hand: HandState) -> HandRecord:
        """Book a finished hand: running net, next dealer, 上楼, rotation."""
        if hand is not self.current:
            raise ValueError("that hand was not started by this table (or is already booked)")
        result = hand.result
        if result is None:
            raise ValueError("the hand is not finished")
        assert self._seed is not None
        hand_net = {self.seated[s]: result.net[s] for s in range(3)}
        self.reads.learn(hand.events, self.seated)
        self.balances.learn(result.payments, self.seated, hand.dealer)
        for player, amount in hand_net.items():
            self.net[player] += amount
        record = HandRecord(self.hands_played + 1, self._seed, self._dice, self.seated, self.dealer, hand.base,
                            result, hand_net)
        self.history.append(record)

        if self.rules.shanglou:
            self.shanglou_level = _next_shanglou_level(self.shanglou_level, result, self.rules.edition)

        single_winner = result.outcome == "win" and not result.double_win
        if self.waiting is not None and single_winner:
            winner_seat = result.winners[0]
            winner = self.seated[winner_seat]
            newcomer = self.waiting
            seated = list(self.seated)
            seated[winner_seat] = newcomer
            self.seated = tuple(seated)
            self.waiting = winner
            self.dealer = newcomer
        else:
            self.dealer = self.seated[result.next_dealer]
        self.current = None
        return record

    # -- persistence ---------------------------------------------------------------------------------------
    def to_json(self) -> TableStateJson:
        """The table between hands (history excluded: the store keeps it)."""
        return {"rules": self.rules.to_json(), "players": self.n_players, "seated": list(self.seated),
                "waiting": self.waiting, "dealer": self.dealer, "shanglou_level": self.shanglou_level,
                "net": list(self.net), "hands_played": self.hands_played, "feed_reads": self.reads.to_json(),
                "balance_reads": self.balances.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableState:
        table = cls(RuleSet.from_json(data["rules"]), int(data["dealer"]), int(data["players"]))
        table.seated = tuple(int(p) for p in data["seated"])
        table.waiting = None if data.get("waiting") is None else int(data["waiting"])
        table.shanglou_level = int(data.get("shanglou_level", 0))
        if table.rules.edition > 1:  # saved by an engine that let 上楼 climb: the next hand is doubled once
            table.shanglou_level = min(table.shanglou_level, 1)
        table.net = [int(n) for n in data["net"]]
        table._hands_before = int(data.get("hands_played", 0))
        table.reads = FeedReads.from_json(data.get("feed_reads"))
        table.balances = BalanceReads.from_json(data.get("balance_reads"))
        return table


def _next_shanglou_level(level: int, result: HandResult, edition: int) -> int:
    """How many 上楼 doublings the next hand inherits from the hand just ended (`level` before it)."""
    doubles = result.double_win or result.end == "huangzhuang"
    if edition > 1:
        return 1 if doubles else 0
    # edition 1: each such hand in a row climbed once more; a forbid_feeding ending kept the level
    if doubles:
        return min(level + 1, LEGACY_MAX_SHANGLOU_LEVEL)
    return 0 if result.outcome == "win" else level
