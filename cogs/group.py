"""The `/kwx` slash-command group that every cog adds its subcommands to, and `/kwx-admin` for managers.

Discord allows one top-level command per name, but the table commands and the ledger commands live in
different cogs (files). So `/kwx` belongs to the bot's command tree, made on first use by `kwx_group(bot)`,
and a cog that derives from `KwxGroupCog` has its `@app_commands.command` methods moved under it when it is
loaded (and removed again when it is unloaded)::

    class Ledger(KwxGroupCog):
        @app_commands.command(name="balance", description="…")
        async def balance(self, interaction: discord.Interaction) -> None: ...

        @app_commands.command(name="undo", description="…")
        @managers_only
        async def undo(self, interaction: discord.Interaction) -> None: ...

    async def setup(bot): await bot.add_cog(Ledger(bot))      # → /kwx balance, /kwx-admin undo

Commands marked `managers_only` go under `/kwx-admin` instead. Discord honours `default_permissions` on a
top-level command only (on a subcommand it does nothing), so the group carries Manage Server: members without
it do not see the group unless a server gives it to them. Every call is checked again here, since a server can
give the group to anyone (Server Settings → Integrations).

Descriptions come from the string catalog: `description=text("cmd.balance")` is the Chinese text, and
`cogs.translator.KwxTranslator` (set on the tree by bot.py) gives Discord the English one at sync.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from cogs.inputs import InputRefused, Refusal, check_interaction
from cogs.operations import safe_respond
from cogs.runtime import Runtime, runtime
from kwx.present.i18n import DEFAULT_LANG, tr

if TYPE_CHECKING:
    from cogs.bot import KwxBot

# Where discord.py logs an app command error nothing handled; the cogs log theirs there too.
_tree_log = logging.getLogger("discord.app_commands.tree")
T = TypeVar("T", bound=Callable[..., Any])

GROUP_NAME = "kwx"
GROUP_DESCRIPTION = "卡五星 Ka Wu Xing"
ADMIN_GROUP_NAME = "kwx-admin"
MANAGERS = discord.Permissions(manage_guild=True)


def kwx_group(bot: commands.Bot) -> app_commands.Group:
    """The bot's `/kwx` group, added to its tree on first use. Server-only: tables and ledgers are per server."""
    return _group(bot, GROUP_NAME, GROUP_DESCRIPTION)


def admin_group(bot: commands.Bot) -> app_commands.Group:
    """The bot's `/kwx-admin` group: server-only, and shown by default only to members with Manage Server."""
    return _group(bot, ADMIN_GROUP_NAME, text("cmd.kwx-admin"), default_permissions=MANAGERS)


def _group(bot: commands.Bot, name: str, description: str | app_commands.locale_str,
           **extra: Any) -> app_commands.Group:
    found = bot.tree.get_command(name)
    if isinstance(found, app_commands.Group):
        return found
    group = app_commands.Group(name=name, description=description, guild_only=True, **extra)
    bot.tree.add_command(group)
    return group


def managers_only(func: T) -> T:
    """Put a command under `/kwx-admin` (mark its callback: put this below `@app_commands.command`)."""
    func.__kwx_managers_only__ = True  # type: ignore[attr-defined]
    return func


def is_managers_only(command: Any) -> bool:
    return bool(getattr(getattr(command, "callback", None), "__kwx_managers_only__", False))


def in_admin_group(command: Any) -> bool:
    """Whether an invoked command is (under) `/kwx-admin`."""
    while command is not None:
        if command.name == ADMIN_GROUP_NAME and getattr(command, "parent", None) is None:
            return True
        command = getattr(command, "parent", None)
    return False


class KwxGroupCog(commands.Cog):
    """A cog whose app commands are subcommands of `/kwx` (or of `/kwx-admin`) rather than top-level commands."""

    def __init__(self, bot: KwxBot) -> None:
        self.bot = bot
        # The cog machinery made bound copies of the decorated methods; take them before it would add them to
        # the tree as top-level commands, and put them under /kwx (or /kwx-admin) in cog_load instead.
        self._kwx_commands: list[Any] = list(self.__cog_app_commands__)
        self.__cog_app_commands__ = []

    @property
    def rt(self) -> Runtime:
        return runtime(self.bot)

    def lang(self, interaction: discord.Interaction) -> str:
        """The language of the server the command came from."""
        return self.rt.languages.of(interaction.guild_id)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Before every command of the cog: refuse privately a server-only command outside a server, a
        `/kwx-admin` command from a member without Manage Server (the group's `default_permissions` only hides
        it by default: a server can give it to anyone), and any option outside its declared range, length or
        choices (cogs.inputs; discord.py checks none of them)."""
        lang = self.lang(interaction)
        refusal = check_interaction(interaction, lang)
        if refusal is None and in_admin_group(interaction.command) and not interaction.permissions.manage_guild:
            refusal = Refusal("ledger.error.manage_server", {})
        if refusal is None:
            return True
        await safe_respond(interaction, content=tr(refusal.key, lang, **refusal.fmt),
                           ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
        raise InputRefused(refusal.key)

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        """A refused input was answered already; a member over a command's rate is told privately when to
        try again; anything else is logged as discord.py would."""
        if isinstance(error, InputRefused):
            return
        if isinstance(error, app_commands.CommandOnCooldown):
            command = interaction.command.qualified_name if interaction.command else "?"
            await safe_respond(interaction, content=tr("input.cooldown", self.lang(interaction), command=command,
                                                      seconds=max(1, math.ceil(error.retry_after))),
                               ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
            return
        name = interaction.command.name if interaction.command else "?"
        _tree_log.error("Ignoring exception in command %r", name, exc_info=error)

    def _group_of(self, command: Any) -> app_commands.Group:
        return admin_group(self.bot) if is_managers_only(command) else kwx_group(self.bot)

    async def cog_load(self) -> None:
        for command in self._kwx_commands:
            group = self._group_of(command)
            command.parent = group
            group.add_command(command, override=True)

    async def cog_unload(self) -> None:
        for command in self._kwx_commands:
            group = self._group_of(command)
            group.remove_command(command.name)
            if not group.commands:  # Discord would list a group that has nothing to run
                self.bot.tree.remove_command(group.name)


def text(key: str) -> app_commands.locale_str:
    """A command or option description from the string catalog: Chinese by default (what Discord shows
    clients in other languages); `cogs.translator.KwxTranslator` gives Discord the English texts and the Chinese
    names."""
    return app_commands.locale_str(tr(key, DEFAULT_LANG), key=key)
