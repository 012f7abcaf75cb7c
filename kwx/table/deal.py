"""Where a table's hands come from: each hand's wall and the table's first dealer.

In play both come from the secret table seed (`seeds.first_dealer`, `wall.wall_from_seed`); the service takes
them as one `Deal` (`TableService(store, frontend, deal=...)`), so a test or a tool that needs a particular
hand scripts the wall and the dealer instead of changing the engine's functions:

    TableService(store, frontend, deal=Deal.scripted(build_wall(...), dealer=0))

A replay must use the deal the table was played with: the record keeps it (RecordState.deal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kwx.engine.seeds import first_dealer
from kwx.engine.tiles import Tile
from kwx.engine.wall import wall_from_seed


@dataclass(frozen=True)
class Deal:
    """`walls(hand seed)` gives a hand's wall; `dealer(table seed, players)` the first dealer (0 … players−1)."""

    walls: Callable[[str], list[Tile]] = wall_from_seed
    dealer: Callable[[str, int], int] = first_dealer

    @classmethod
    def scripted(cls, wall: Sequence[Tile], dealer: int = 0) -> Deal:
        """Every hand dealt from `wall`, and player `dealer` deals first."""
        tiles = list(wall)
        return cls(walls=lambda seed: list(tiles), dealer=lambda seed, players: dealer)


FROM_SEED = Deal()  # what every table plays with
