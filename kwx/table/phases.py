"""A live table's status (LiveTable.status), and how it reads on the board (PublicView.phase).

lobby → (start) → between → [piao →] playing → between → [piao →] playing → … → closed
`between` is the pause after a hand (and the instant between `start` and the first deal).
"""

LOBBY, BETWEEN, PIAO, PLAYING, CLOSED = "lobby", "between", "piao", "playing", "closed"
