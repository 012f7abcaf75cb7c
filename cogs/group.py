"""The one `/kwx` slash-command group that every cog adds its subcommands to.

Discord allows one top-level command per name, but the table commands and the ledger commands live in
different cogs (files). So `/kwx` belongs to the bot's command tree, made on first use by `kwx_group(bot)`,
and a cog that derives from `KwxGroupCog` has its `@app_commands.command` methods moved under it when it is
loaded (and removed again when it is unloaded)::

    class Ledger(KwxGroupCog):
        @app_commands.command(name="balance", description="…")
        async def balance(self, interaction: discord.Interaction) -> None: ...

    async def setup(bot): await bot.add_cog(Ledger(bot))      # → /kwx balance

Descriptions come from the string catalog: `description=text("cmd.balance")` is the Chinese text, and
`cogs.translator.KwxTranslator` (set on the tree by bot.py) gives Discord the English one at sync.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.inputs import InputRefused, check_interaction
from cogs.operations import safe_respond
from cogs.runtime import Runtime, runtime
from kwx.present.i18n import DEFAULT_LANG, t

# Where discord.py logs an app command error nothing handled; the cogs log theirs there too.
_tree_log = logging.getLogger("discord.app_commands.tree")

GROUP_NAME = "kwx"
GROUP_DESCRIPTION = "卡五星 Ka Wu Xing"


def kwx_group(bot: commands.Bot) -> app_commands.Group:
    """The bot's `/kwx` group, added to its tree on first use. Server-only: tables and ledgers are per server."""
    found = bot.tree.get_command(GROUP_NAME)
    if isinstance(found, app_commands.Group):
        return found
    group = app_commands.Group(name=GROUP_NAME, description=GROUP_DESCRIPTION, guild_only=True)
    bot.tree.add_command(group)
    return group


class KwxGroupCog(commands.Cog):
    """A cog whose app commands are subcommands of `/kwx` rather than top-level commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        # The cog machinery made bound copies of the decorated methods; take them before it would add them to
        # the tree as top-level commands, and put them under /kwx in cog_load instead.
        self._kwx_commands: list[Any] = list(self.__cog_app_commands__)
        self.__cog_app_commands__ = []

    @property
    def rt(self) -> Runtime:
        return runtime(self.bot)

    def lang(self, interaction: discord.Interaction) -> str:
        """The language of the server the command came from."""
        return self.rt.languages.of(interaction.guild_id)

    async def require_manager(self, interaction: discord.Interaction) -> bool:
        """Manage Server, else a private refusal. `default_permissions` only hides a command by default; a
        server can give it to anyone, so the command checks again."""
        if interaction.permissions.manage_guild:
            return True
        await safe_respond(interaction, content=t("ledger.error.manage_server", self.lang(interaction)),
                           ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
        return False

    async def interaction_check(self, interaction: discord.Interaction) -> bool:  # type: ignore[override]
        """Before every command of the cog: refuse privately a server-only command outside a server and any
        option outside its declared range, length or choices (cogs.inputs; discord.py checks none of them)."""
        lang = self.lang(interaction)
        refusal = check_interaction(interaction, lang)
        if refusal is None:
            return True
        await safe_respond(interaction, content=t(refusal.key, lang, **refusal.fmt),
                           ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
        raise InputRefused(refusal.key)

    async def cog_app_command_error(self, interaction: discord.Interaction,  # type: ignore[override]
                                    error: app_commands.AppCommandError) -> None:
        """A refused input was answered already; a member over a command's rate is told privately when to
        try again; anything else is logged as discord.py would."""
        if isinstance(error, InputRefused):
            return
        if isinstance(error, app_commands.CommandOnCooldown):
            command = interaction.command.name if interaction.command else "?"
            await safe_respond(interaction, content=t("input.cooldown", self.lang(interaction), command=command,
                                                      seconds=max(1, math.ceil(error.retry_after))),
                               ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
            return
        name = interaction.command.name if interaction.command else "?"
        _tree_log.error("Ignoring exception in command %r", name, exc_info=error)

    async def cog_load(self) -> None:
        group = kwx_group(self.bot)
        for command in self._kwx_commands:
            command.parent = group
            group.add_command(command, override=True)

    async def cog_unload(self) -> None:
        group = kwx_group(self.bot)
        for command in self._kwx_commands:
            group.remove_command(command.name)


def text(key: str) -> app_commands.locale_str:
    """A command or option description from the string catalog: Chinese by default (what Discord shows
    clients in other languages); `cogs.translator.KwxTranslator` gives Discord the English texts and the Chinese
    names."""
    return app_commands.locale_str(t(key, DEFAULT_LANG), key=key)
