"""Persistent buttons: `discord.ui.DynamicItem`s whose custom id carries everything a press needs.

    kwx:act:<table>:<hand>:<step>:<verb>:<arg>    a hand-panel action (DM or ephemeral panel)
        verb: discard | liangdao | gang | peng | hu | pass | piao     (sent to TableService.act)
              ld | back                                              (panel modes: show the 亮倒 picks / back)
        arg:  a tile in compact form (5p, 7z), a 漂 amount, or "-"
    kwx:tbl:<table>:<verb>                        a lobby or board button
        verb: join | leave | addbot | start | hand (the "My hand" panel) | resume (a paused table) |
              unauto (取消托管: the presser is back from 托管)

Nothing is kept in memory between a send and a press, so buttons keep working after a restart: `bot.py`
registers both classes with `add_dynamic_items`. A press is handed to the Tables cog (`cogs/tables.py`), which
checks who pressed, which hand and which step, and answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from cogs.operations import safe_respond
from kwx.engine.tiles import Tile, parse_tile
from kwx.present.i18n import t

ACT_VERBS = ("discard", "liangdao", "gang", "peng", "hu", "pass", "piao")
MODE_VERBS = ("ld", "back")
TABLE_VERBS = ("join", "leave", "addbot", "start", "hand", "resume", "unauto")
NO_ARG = "-"


@dataclass(frozen=True)
class ActId:
    table: int
    hand: int
    step: int
    verb: str
    arg: str = NO_ARG

    @property
    def custom_id(self) -> str:
        return f"kwx:act:{self.table}:{self.hand}:{self.step}:{self.verb}:{self.arg}"

    @property
    def tile(self) -> Tile | None:
        if self.arg == NO_ARG or self.verb == "piao":
            return None
        return parse_tile(self.arg)

    @property
    def amount(self) -> int | None:
        return int(self.arg) if self.verb == "piao" and self.arg.isdigit() else None


def act_arg(tile: Tile | int | None) -> str:
    return NO_ARG if tile is None else Tile(tile).compact


class PressHandler(Protocol):
    """What the Tables cog offers the buttons."""

    async def on_act_press(self, interaction: discord.Interaction, act: ActId) -> None: ...

    async def on_table_press(self, interaction: discord.Interaction, table_id: int, verb: str) -> None: ...


async def answer_not_loaded(interaction: discord.Interaction) -> None:
    """The cog that answers a press is not loaded (starting up or reloading): say so rather than let the press
    fail silently. Shared by every persistent button (here, cogs/confirm.py, cogs/paginate.py)."""
    await safe_respond(interaction, content=t("error.generic", interaction.locale), ephemeral=True)


async def _handler(interaction: discord.Interaction) -> PressHandler | None:
    """The Tables cog; None (after telling the presser) when it is not loaded."""
    client: Any = interaction.client
    handler = client.get_cog("Tables") if hasattr(client, "get_cog") else None
    if handler is None:
        await answer_not_loaded(interaction)
    return handler


class ActButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"kwx:act:(?P<table>\d+):(?P<hand>\d+):(?P<step>\d+):(?P<verb>[a-z]+):(?P<arg>[0-9a-z-]+)",
):
    def __init__(
        self,
        act: ActId,
        *,
        label: str | None = None,
        emoji: discord.PartialEmoji | str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label, emoji=emoji, style=style, row=row, disabled=disabled, custom_id=act.custom_id
            )
        )
        self.act = act

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> ActButton:
        act = ActId(int(match["table"]), int(match["hand"]), int(match["step"]), match["verb"], match["arg"])
        return cls(act, label=item.label, emoji=item.emoji, style=item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_act_press(interaction, self.act)


class TableButton(discord.ui.DynamicItem[discord.ui.Button], template=r"kwx:tbl:(?P<table>\d+):(?P<verb>[a-z]+)"):
    def __init__(
        self,
        table_id: int,
        verb: str,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=style, row=row, custom_id=f"kwx:tbl:{table_id}:{verb}")
        )
        self.table_id = table_id
        self.verb = verb

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> TableButton:
        return cls(int(match["table"]), match["verb"], label=item.label, style=item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_table_press(interaction, self.table_id, self.verb)


DYNAMIC_ITEMS = (ActButton, TableButton)


def release(view: discord.ui.View | None) -> None:
    """Done with a view once Discord has the message: stop it (no timer) and drop its items. Our views hold
    only dynamic items, so nothing needs the object later, and without the view <-> item reference cycle it is
    freed at once instead of piling up for the garbage collector (which then stalls every table)."""
    if view is not None:
        view.stop()
        view.clear_items()
