"""What the cogs share: the store, the table service, the Discord front end, tiles and each server's language.

`bot.py` builds one `Runtime` in `setup_hook` and hangs it on the bot as `bot.kwx`; cogs and buttons reach it
with `runtime(interaction.client)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cogs.languages import Languages
from kwx.store import Store

if TYPE_CHECKING:
    from cogs.emoji import TileFormatter
    from cogs.frontend import DiscordFrontEnd
    from cogs.operations import Rest
    from kwx.table.service import TableService
    from kwx.web.server import WebServer


@dataclass
class Runtime:
    store: Store
    service: TableService
    frontend: DiscordFrontEnd
    tiles: TileFormatter
    languages: Languages
    table_seed: str | None = None  # tests and benchmarks: deterministic walls for /kwx new
    web: WebServer | None = None  # the table pages, when KWX_WEB_PORT is set (cogs/web.py)
    web_url: str | None = None  # KWX_WEB_URL: their public address, for the links players are given

    @property
    def rest(self) -> Rest:
        """The bot token's REST calls, on the bot's one budget (the front end's)."""
        return self.frontend.rest


class HasRuntime(Protocol):
    """The bot (cogs.bot.KwxBot, which imports this module) as the cogs reach its Runtime."""

    kwx: Runtime | None


def runtime(client: HasRuntime) -> Runtime:
    """The bot's Runtime; AttributeError before setup_hook has built it."""
    if client.kwx is None:
        raise AttributeError("the bot's runtime is built in setup_hook")
    return client.kwx
