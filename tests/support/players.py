"""Who plays in the tests: the guild, and the players the table service tests seat."""

from __future__ import annotations

from kwx.table import PlayerRef

GUILD = "g1"
ANN = PlayerRef("100", "Ann")
BOB = PlayerRef("200", "Bob")
CY = PlayerRef("300", "Cy")
DEE = PlayerRef("400", "Dee")
