"""A live table's status (LiveTable.status), and how it reads on the board (PublicView.phase).

lobby → (start) → between → [piao →] playing → between → [piao →] playing → … → closed
`between` is the pause after a hand (and the instant between `start` and the first deal).
"""

from enum import StrEnum


class Phase(StrEnum):
    """A StrEnum: a status compares equal to its text ("playing" …), the form views and tests use."""

    LOBBY = "lobby"
    BETWEEN = "between"
    PIAO = "piao"
    PLAYING = "playing"
    CLOSED = "closed"


LOBBY, BETWEEN, PIAO, PLAYING, CLOSED = Phase.LOBBY, Phase.BETWEEN, Phase.PIAO, Phase.PLAYING, Phase.CLOSED
