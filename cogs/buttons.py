"""Persistent buttons: `discord.ui.DynamicItem`s whose custom id carries everything a press needs.

    kwx:act:<table>:<hand>:<step>:<verb>:<arg>    a hand-panel action (DM or ephemeral panel)
        verb: a `PanelVerb` as written on the wire (discard, liangdao, gang, peng, hu, pass, piao, and the short
              ld, back, mq, ap, dok, dnc, lok); parsing decodes it, and only the named member is used after that
        arg:  a tile in compact form (5p, 7z), a 漂 amount, or "-"
    kwx:tbl:<table>:<verb>                        a lobby or board button
        verb: join | leave | addbot | start | hand (the "My hand" panel) | resume (a paused table) |
              unauto (取消托管: the presser is back from 托管)

Nothing is kept in memory between a send and a press, so buttons keep working after a restart: `bot.py`
registers both classes with `add_dynamic_items`. A press is handed to the Tables cog (`cogs/tables.py`), which
checks who pressed, which hand and which step, and answers.

Every field of a custom id is parsed by its kind (cogs.inputs: id_number, id_tile, id_word); an id that does not
parse (a tile `zz`, a table id of thousands of digits, a verb we never send) was not made by us, and its press
becomes a `ForgedPress`: nothing changes, the press gets a silent deferred update and a DEBUG log line. The same holds for cogs/paginate.py and cogs/confirm.py.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import discord

from cogs.inputs import id_number, id_tile, id_word
from cogs.operations import safe_defer, safe_respond
from kwx.engine.tiles import Tile
from kwx.present.i18n import tr
from kwx.table.press import MOQIE as PRESS_MOQIE
from kwx.table.press import TOGGLE_AUTO_PASS, Press

logger = logging.getLogger(__name__)



class PanelVerb(StrEnum):
    """What a hand-panel button asks for. The value is the verb as the custom id carries it: short (an id holds
    100 characters) and never changed, so buttons already posted in Discord keep working after an upgrade."""

    DISCARD = "discard"
    LIANGDAO = "liangdao"
    GANG = "gang"
    PENG = "peng"
    HU = "hu"
    PASS = "pass"
    PIAO = "piao"
    SHOW_LIANGDAO_PICKS = "ld"  # the panel's 亮倒 mode: one button per discard that declares
    BACK = "back"  # from the 亮倒 picks or a confirmation back to the plain panel
    MOQIE = "mq"  # 摸切: discard the drawn tile (its own verb: a message's custom ids must differ)
    TOGGLE_AUTO_PASS = "ap"
    CONFIRM_DISCARD = "dok"  # a costly discard, confirmed after the panel's warning
    CONFIRM_DISCARD_NEVER_ASK = "dnc"  # the same, and turn that warning off for this player
    CONFIRM_LIANGDAO = "lok"


PANEL_MODE_VERBS = frozenset({PanelVerb.SHOW_LIANGDAO_PICKS, PanelVerb.BACK})  # only the panel changes
# The move sent to the table service for each press that makes one (the others change the panel or a setting).
MOVE_OF = {PanelVerb.DISCARD: "discard", PanelVerb.LIANGDAO: "liangdao", PanelVerb.GANG: "gang",
           PanelVerb.PENG: "peng", PanelVerb.HU: "hu", PanelVerb.PASS: "pass", PanelVerb.PIAO: "piao",
           PanelVerb.MOQIE: "discard", PanelVerb.CONFIRM_DISCARD: "discard",
           PanelVerb.CONFIRM_DISCARD_NEVER_ASK: "discard", PanelVerb.CONFIRM_LIANGDAO: "liangdao"}
TILE_VERBS = frozenset({PanelVerb.DISCARD, PanelVerb.LIANGDAO, PanelVerb.MOQIE, PanelVerb.CONFIRM_DISCARD,
                        PanelVerb.CONFIRM_DISCARD_NEVER_ASK, PanelVerb.CONFIRM_LIANGDAO})  # their arg is a tile
NO_ARG_VERBS = frozenset({PanelVerb.PENG, PanelVerb.HU, PanelVerb.PASS, PanelVerb.TOGGLE_AUTO_PASS,
                          *PANEL_MODE_VERBS})  # their arg is NO_ARG
TABLE_VERBS = ("join", "leave", "addbot", "start", "hand", "resume", "unauto")
NO_ARG = "-"
PIAO_MAX = 99  # the largest 漂 amount a custom id may carry (the table's rules allow less; the service checks)


@dataclass(frozen=True)
class ActId:
    table: int
    hand: int
    step: int
    verb: PanelVerb
    arg: str = NO_ARG

    @property
    def custom_id(self) -> str:
        return f"kwx:act:{self.table}:{self.hand}:{self.step}:{self.verb}:{self.arg}"

    @property
    def tile(self) -> Tile | None:
        return None if self.verb is PanelVerb.PIAO else id_tile(self.arg)

    @property
    def amount(self) -> int | None:
        return id_number(self.arg, PIAO_MAX) if self.verb is PanelVerb.PIAO else None

    @property
    def move(self) -> str | None:
        """The table service's verb for the move this press makes; None for a press that makes none."""
        return MOVE_OF.get(self.verb)

    @classmethod
    def parse(cls, fields: str) -> ActId | None:
        """`<table>:<hand>:<step>:<verb>:<arg>` as the bot writes it; None for anything else."""
        parts = fields.split(":")
        if len(parts) != 5:
            return None
        table, hand, step = (id_number(x) for x in parts[:3])
        verb, arg = id_word(parts[3], _PANEL_VERBS), parts[4]
        if table is None or hand is None or step is None or verb is None or not _arg_fits(PanelVerb(verb), arg):
            return None
        return cls(table, hand, step, PanelVerb(verb), arg)


_PANEL_VERBS = frozenset(v.value for v in PanelVerb)


def _arg_fits(verb: PanelVerb, arg: str) -> bool:
    """Whether `arg` is what the bot writes after `verb` (a tile, a 漂 amount, NO_ARG)."""
    if verb in TILE_VERBS:
        return id_tile(arg) is not None
    if verb is PanelVerb.GANG:  # a claimed kong names no tile; a concealed or added one does
        return arg == NO_ARG or id_tile(arg) is not None
    if verb is PanelVerb.PIAO:
        return id_number(arg, PIAO_MAX) is not None
    return verb in NO_ARG_VERBS and arg == NO_ARG


def act_arg(tile: Tile | int | None) -> str:
    return NO_ARG if tile is None else Tile(tile).compact


CONFIRMED = frozenset({PanelVerb.CONFIRM_DISCARD, PanelVerb.CONFIRM_DISCARD_NEVER_ASK, PanelVerb.CONFIRM_LIANGDAO})


def press_of(act: ActId) -> Press:
    """The service's press for an action button (not a mode button): wire abbreviations decoded here."""
    if act.verb is PanelVerb.TOGGLE_AUTO_PASS:
        verb = TOGGLE_AUTO_PASS
    elif act.verb is PanelVerb.MOQIE:
        verb = PRESS_MOQIE
    else:
        verb = act.move or act.verb.value
    return Press(verb, act.tile, step=act.step, hand=act.hand, amount=act.amount, confirmed=act.verb in CONFIRMED,
                 never_ask=act.verb is PanelVerb.CONFIRM_DISCARD_NEVER_ASK)


class PressHandler(Protocol):
    """What the Tables cog offers the buttons."""

    async def on_act_press(self, interaction: discord.Interaction, act: ActId) -> None: ...

    async def on_table_press(self, interaction: discord.Interaction, table_id: int, verb: str) -> None: ...


async def answer_not_loaded(interaction: discord.Interaction) -> None:
    """The cog that answers a press is not loaded (starting up or reloading): say so rather than let the press
    fail silently. Shared by every persistent button (here, cogs/confirm.py, cogs/paginate.py)."""
    await safe_respond(interaction, content=tr("error.generic", interaction.locale), ephemeral=True)


async def _handler(interaction: discord.Interaction) -> PressHandler | None:
    """The Tables cog; None (after telling the presser) when it is not loaded."""
    client: Any = interaction.client
    handler = client.get_cog("Tables") if hasattr(client, "get_cog") else None
    if handler is None:
        await answer_not_loaded(interaction)
    return handler


class ForgedPress(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"(?s).*"):
    """A press of a button whose custom id has our prefix but does not parse: nobody is answered, nothing
    changes, one DEBUG line says so. Never registered; the buttons' `from_custom_id` return it."""

    def __init__(self, custom_id: str) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id))

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> ForgedPress:
        return cls(item.custom_id or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        logger.debug("ignored a press of a custom id we never made: %r (by %s)", self.custom_id[:100],
                     interaction.user.id)
        await safe_defer(interaction)  # answered all the same (silently): never "This interaction failed"


def forged(item: discord.ui.Button[discord.ui.View]) -> ForgedPress:
    return ForgedPress(item.custom_id or "")


class ActButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:act:(?P<fields>.*)"):
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
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> ActButton | ForgedPress:
        act = ActId.parse(match["fields"])
        return forged(item) if act is None else cls(act, label=item.label, emoji=item.emoji, style=item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_act_press(interaction, self.act)


class TableButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:tbl:(?P<fields>.*)"):
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
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> TableButton | ForgedPress:
        table, _, verb = match["fields"].partition(":")  # <table>:<verb>
        table_id, verb_ = id_number(table), id_word(verb, TABLE_VERBS)
        if table_id is None or verb_ is None:
            return forged(item)
        return cls(table_id, verb_, label=item.label, style=item.style)

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
