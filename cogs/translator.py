"""The app-commands Translator: Chinese and English names and descriptions of every `/kwx` command and option.

Set it on the tree before syncing (`await bot.tree.set_translator(KwxTranslator())`); Discord then shows each
client its own language. The texts live in the string catalog (kwx/present/locale/*.json), found by key:

    cmd.<command>                  the command's description      cmd.new, cmd.balance
    cmd.<command>.<option>         an option's description         cmd.new.rules, cmd.pay.amount
    cmdname.<command>              the command's zh-CN name        cmdname.balance = 余额
    cmdname.<command>.<option>     an option's zh-CN name          cmdname.pay.amount = 金额
    choice.<value>                 a choice's name                 choice.week = 本周 / this week

`<command>` is the name under /kwx (`kwx balance` -> `balance`; the group itself is `kwx`); a description made
with `cogs.group.text(key)` carries its key. Command and option names stay ASCII English by default (what
English clients see) with `name_localizations` for zh-CN; descriptions are given for zh-CN and English. A key
missing from the catalog leaves Discord's default (the text in the code).

bot.py's setup_hook sets it on the tree before loading the cogs.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from kwx.present.i18n import catalog

LOCALES = {
    discord.Locale.chinese: "zh-CN",
    discord.Locale.american_english: "en",
    discord.Locale.british_english: "en",
}
NAME_LANGS = frozenset({"zh-CN"})  # English names are the base names
NAME_MAX, DESCRIPTION_MAX = 32, 100


def command_path(command: app_commands.Command[Any, ..., Any] | app_commands.Group | app_commands.ContextMenu) -> str:
    """`kwx balance` -> `balance`; the root group `kwx` -> `kwx`; a nested `kwx a b` -> `a.b`."""
    parts = command.qualified_name.split()
    return ".".join(parts[1:] if len(parts) > 1 else parts)


def catalog_key(string: app_commands.locale_str, context: app_commands.TranslationContextTypes) -> str | None:
    """The catalog key of a string Discord asks about, or None for strings the catalog does not cover."""
    # Each location carries its own kind of data: narrowed by the location (discord.py types each pair).
    if context.location is Where.command_name or context.location is Where.group_name:
        return f"cmdname.{command_path(context.data)}"
    if context.location is Where.command_description or context.location is Where.group_description:
        return string.extras.get("key") or f"cmd.{command_path(context.data)}"
    if context.location is Where.parameter_name:
        return f"cmdname.{command_path(context.data.command)}.{context.data.name}"
    if context.location is Where.parameter_description:
        return string.extras.get("key") or f"cmd.{command_path(context.data.command)}.{context.data.name}"
    if context.location is Where.choice_name:
        return f"choice.{context.data.value}"
    return string.extras.get("key")


class KwxTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = LOCALES.get(locale)
        if lang is None:
            return None
        is_name = context.location in (Where.command_name, Where.group_name, Where.parameter_name)
        if is_name and lang not in NAME_LANGS:
            return None
        key = catalog_key(string, context)
        if key is None:
            return None
        found = catalog().messages.get(lang, {}).get(key)  # no fallback: a missing text keeps Discord's default
        if found is None:
            return None
        if is_name:
            return found.strip().lower().replace(" ", "-")[:NAME_MAX]
        return found[:DESCRIPTION_MAX]
