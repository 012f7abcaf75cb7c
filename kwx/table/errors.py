"""`TableError`: a refusal the front end shows to the player. Nothing at the table changed."""

from __future__ import annotations

# Stable ids; front ends translate them with the string-catalog key f"error.{code}".
CODES = frozenset({
    "no_table",        # no open table with that id
    "closed",          # the table was stopped
    "not_seated",      # the player has no seat (or no seat this hand, under rotation)
    "not_your_turn",   # nothing is asked of this seat now
    "stale",           # the step the press was made for has passed (also: a second press of the same step)
    "illegal",         # the rules forbid this action now (the message says why)
    "bad_tile",        # the verb is allowed but not with that tile (or the tile text does not parse)
    "table_full",
    "not_host",
    "already_started",
    "not_started",
    "already_seated",
    "need_players",    # start_game with too few seats filled (3, or 4 with rotation)
    "table_exists",    # open_table in a channel that already has an open table
    "paused",          # the table is paused: nothing is played until it is resumed
    "not_paused",      # resume of a table that plays
    "seat_empty",      # resume while a seat someone left is still empty (join, or the host adds an AI)
    "too_many_tables",  # the server has its cap of open tables
    "too_many_hosted",  # the member hosts their cap of open tables
    "store_failed",    # a store write failed for good: nothing changed; a table in play is paused
})


class TableError(Exception):
    """A refusal with a stable `code` (see CODES) and English `message`; the table is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"TableError({self.code!r}, {self.message!r})"


class SavingFailed(TableError):
    """A store write failed for good (code `store_failed`): nothing changed; a table in play is paused."""

    def __init__(self, message: str) -> None:
        super().__init__("store_failed", message)
