"""A table's secret seed and the public commitments to each hand's seed (kwx.engine.seeds).

The seed deals every hand of the table and is never shown or logged. Each hand's commitment (`seed_ref`) is
public from its deal; the hand's own seed is revealed once it is over, so anyone can check its shuffle
(`python -m kwx verify`) while later hands stay unknowable. When a person chose the table's seed, a secret salt
keeps the commitments from being guessed from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kwx.engine.json_values import as_object, get_optional_str
from kwx.engine.seeds import hand_seed, reveal, seed_ref

if TYPE_CHECKING:
    from kwx.store import TableRow


@dataclass(frozen=True)
class TableSeed:
    text: str = field(repr=False)  # secret: never shown, never logged
    salt: str | None = field(default=None, repr=False)  # secret too

    @classmethod
    def of_row(cls, row: TableRow) -> TableSeed:
        """The seed a table's row in the store keeps, with the salt among its options."""
        return cls(row.seed, get_optional_str(as_object(row.options or {}, "a table's options"), "seed_salt"))

    def hand(self, hand_no: int) -> str:
        """The seed that deals hand `hand_no` (its wall, its dice)."""
        return hand_seed(self.text, hand_no)

    def commitment(self, hand_no: int) -> str:
        """The hand's seed_ref, public from its deal."""
        return seed_ref(self.text, hand_no, self.salt)

    def revealed(self, hand_no: int) -> str:
        """What is shown once the hand is over: checked against its commitment by `kwx verify`."""
        return reveal(self.text, hand_no, self.salt)
