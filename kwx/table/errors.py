"""`TableError`: a refusal the front end shows to the player. Nothing at the table changed."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from kwx.present.i18n import catalog, join_names, tile_name, tr

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
    """A refusal with a stable `code` (see CODES); the table is unchanged. Players read it from the string
    catalog: `catalog_key` (`error.<code>`, or `error.<code>.<reason>` when the service can say more, e.g.
    `error.illegal.piao_range`) formatted with `fmt` (numbers, tiles). `message` is English for logs and tools."""

    def __init__(self, code: str, message: str, *, reason: str | None = None, **fmt: object) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.fmt = fmt

    @property
    def catalog_key(self) -> str:
        return f"error.{self.code}.{self.reason}" if self.reason else f"error.{self.code}"

    def __repr__(self) -> str:
        return f"TableError({self.code!r}, {self.message!r})"


class SavingFailed(TableError):
    """A store write failed for good (code `store_failed`): nothing changed; a table in play is paused."""

    def __init__(self, message: str) -> None:
        super().__init__("store_failed", message)


def refusal_text(err: TableError, lang: object) -> str:
    """A refusal in a player's language, from the catalog alone (never the English `message`): the precise
    words when the catalog has them, else those of its code, else the generic line."""
    fmt = {k: _words(v, lang) for k, v in err.fmt.items()}
    for key in (err.catalog_key, f"error.{err.code}"):
        if catalog().template(key, lang) is not None:
            return tr(key, lang, **fmt)
    return tr("error.generic", lang)


def _words(value: object, lang: object) -> object:
    """Tiles as words in `lang` (5筒 / 5 Dots); a list of them joined the language's way."""
    if isinstance(value, Tile):
        return tile_name(value, lang)
    if isinstance(value, tuple) and value and all(isinstance(x, Tile) for x in value):
        return join_names([tile_name(x, lang) for x in value], lang)
    return value
