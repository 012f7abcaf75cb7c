"""What the ledger's cogs share: the store, the server a command came from, and answers that never ping.

The ledger's commands live in three cogs (registered together by cogs/ledger.py): lookups
(cogs/ledger_lookups.py), pay/record requests (cogs/ledger_requests.py) and the managers' export and undo
(cogs/ledger_admin.py). Each derives from `LedgerCog`.
"""

from __future__ import annotations

from typing import Any

import discord

from cogs.group import KwxGroupCog
from cogs.operations import safe_respond
from kwx.present.ledger_text import tone
from kwx.store import Store

NO_PINGS = discord.AllowedMentions.none()
COLOURS = {"win": discord.Colour.green(), "loss": discord.Colour.red(), "even": discord.Colour.light_grey()}


def mention(player: str) -> str:
    return f"<@{player}>" if player.isdigit() else player


def colour_of(amount: int) -> discord.Colour:
    return COLOURS[tone(amount)]


class LedgerCog(KwxGroupCog):
    """A `/kwx` cog that reads or writes this server's ledger: the guild id of the interaction is its key."""

    @property
    def store(self) -> Store:
        return self.rt.store

    @staticmethod
    def guild(interaction: discord.Interaction) -> str:
        return str(interaction.guild_id)

    async def say(self, interaction: discord.Interaction, content: str) -> None:
        await safe_respond(interaction, content=content, ephemeral=True, allowed_mentions=NO_PINGS)

    async def show(self, interaction: discord.Interaction, embed: discord.Embed, **kwargs: Any) -> None:
        await safe_respond(interaction, embed=embed, allowed_mentions=NO_PINGS, **kwargs)

    def name_of(self, interaction: discord.Interaction, player: str, stored: str | None = None) -> str:
        """A player's name: the name the ledger keeps, else a mention (Discord shows each viewer the member's
        name; the bot has only the guilds intent, so no member cache to look names up in)."""
        if stored and stored != player:
            return stored
        return f"<@{player}>" if player.isdigit() else (stored or player)
