"""What the DM side of the Discord front end knows of each player's panels (cogs/dm_panels.py is their writer):
the message a panel is, what it shows, and the interaction whose token may edit it."""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass, field
from typing import Any

import discord

from kwx.table.views import ActionChoice, PrivateView

# An interaction's token edits its message for 15 minutes; later edits use the bot's own token. The margin covers
# an edit that waits a little and clocks that differ.
TOKEN_LIFETIME = datetime.timedelta(minutes=14)


@dataclass
class Shown:
    """What one panel message shows now."""

    channel_id: int
    message_id: int
    hand: int
    step: int
    key: str
    live: bool  # it has enabled buttons
    dealt: bool  # it shows tiles (not just the 漂 choice)
    view: PrivateView | None = None
    ended: bool = False  # collapsed to the hand's one-line end
    # The interaction whose token may edit this message (exempt from the global limit, for 15 minutes): a press
    # answered by updating it (its @original), or the press whose followup posted it (`followup`).
    token: discord.Interaction | None = None
    followup: bool = False
    # Posted in the table's channel as a message only the player sees (a followup of their /kwx new, join or
    # start while the bot was too busy to open a DM): only a token edits it, and a restart cannot find it again.
    ephemeral: bool = False

    def data(self) -> dict[str, Any]:
        return {"hand": self.hand, "step": self.step, "key": self.key, "live": self.live, "dealt": self.dealt,
                "ended": self.ended}


@dataclass
class PanelState:
    table_id: int
    player_id: str
    latest: PrivateView | None = None
    prompt: bool = False
    dirty: bool = False
    # The panel's mode for one decision (亮倒 picks, a question before a costly move): (hand, step, mode, choice)
    mode: tuple[int, int, str, ActionChoice | None] | None = None
    dm: Shown | None = None  # the panel of the current hand
    past: dict[int, Shown] = field(default_factory=dict)  # earlier hands' panels, until their end line is shown
    endings: dict[int, str] = field(default_factory=dict)  # hand -> its one-line end, not yet shown
    eph: discord.Interaction | None = None  # the latest ephemeral panel (My hand), while its token lives
    eph_shown: Shown | None = None
    refused_hand: int | None = None  # the hand in which a DM to this player was refused (retried next hand)
    presses: list[discord.Interaction] = field(default_factory=list)  # held until done with (release_interaction)
    seat_token: discord.Interaction | None = None  # the player's last /kwx new, join or start at this table
    task: asyncio.Task[None] | None = None


def alive(token: discord.Interaction) -> bool:
    """Whether an interaction's token may still edit and follow up (with a margin)."""
    return discord.utils.utcnow() < token.created_at + TOKEN_LIFETIME
