"""From one hand to the next, by the engine's `TableState` (docs/rules.md §2, §9, §10 `shanglou`, `rotation`).

The engine decides who deals, who sits where (rotation), and the 上楼 multiplier; this module only maps its
player numbers (the lobby order) to player ids and derives each hand's seed from the table seed:

- the first dealer comes from the table seed (`seeds.first_dealer`), a player 0…n−1;
- hand k is dealt from `seeds.hand_seed(table seed, k)`: its wall, its dice, and so its 上楼 doubling.
`HandSetup` is what the event log records for each hand (no seed in it) and what a replay checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kwx.engine.json_values import (
    JsonFormError,
    JsonObject,
    as_object,
    get_int,
    get_ints,
    get_optional_str,
    get_strs,
)
from kwx.engine.rules import RuleSet
from kwx.engine.seeds import first_dealer, hand_seed
from kwx.engine.table import TableState
from kwx.engine.wall import dice_from_seed


@dataclass(frozen=True)
class HandSetup:
    hand_no: int
    dealer: int  # seat
    seating: tuple[str, ...]  # player id per seat 0, 1, 2
    waiting: str | None  # rotation: the fourth player, sitting out
    base_multiplier: int  # 上楼 (1 without the option)
    dice: tuple[int, int]

    def to_json(self) -> JsonObject:
        return {"hand_no": self.hand_no, "dealer": self.dealer, "seating": list(self.seating),
                "waiting": self.waiting, "base_multiplier": self.base_multiplier, "dice": list(self.dice)}

    @classmethod
    def from_json(cls, data: object) -> HandSetup:
        """The setup a record carries; raises JsonFormError (a ValueError) naming the field that does not fit."""
        obj = as_object(data, "a hand setup")
        dice = get_ints(obj, "dice")
        if len(dice) != 2:
            raise JsonFormError(f"'dice' must be two numbers, not {dice!r}")
        return cls(get_int(obj, "hand_no"), get_int(obj, "dealer"), get_strs(obj, "seating"),
                   get_optional_str(obj, "waiting"), get_int(obj, "base_multiplier"), (dice[0], dice[1]))


def new_table_state(rules: RuleSet, table_seed: str,
                    dealer: Callable[[str, int], int] = first_dealer) -> TableState:
    """The engine's sequence of hands, its first dealer chosen by `dealer(table seed, players)`."""
    players = 4 if rules.rotation else 3
    return TableState(rules, dealer(table_seed, players), players)


def upcoming(state: TableState, player_ids: Sequence[str], table_seed: str) -> HandSetup:
    """The next hand of `state` (between hands), with player ids for the engine's player numbers."""
    hand_no = state.hands_played + 1
    seed = hand_seed(table_seed, hand_no)
    return HandSetup(hand_no=hand_no, dealer=state.dealer_seat,
                     seating=tuple(player_ids[p] for p in state.seated),
                     waiting=None if state.waiting is None else player_ids[state.waiting],
                     base_multiplier=state.base_multiplier(seed), dice=dice_from_seed(seed))
