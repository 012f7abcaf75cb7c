"""The Config cog: `/kwx-admin config [rules] [base] [turn_seconds] [claim_seconds] [language] [timezone]
[max_tables] [max_hosted]` (Manage Server, see cogs/group.py).

Without options it shows the server's settings; with options it validates and stores them (guild settings, see
kwx/table/defaults.py, which the table commands read when a table opens). The language goes through the
runtime's `Languages`, so every reply switches at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.group import KwxGroupCog, managers_only, text
from cogs.inputs import checks_itself, excerpt
from cogs.operations import safe_respond
from kwx.engine.rules import PRESETS
from kwx.present.i18n import LANGUAGES, tr
from kwx.table.defaults import (
    BASE,
    CLAIM_SECONDS,
    LANG,
    MAX_HOSTED,
    MAX_TABLES,
    RULES,
    SETTING_KEYS,
    TIMEZONE,
    TURN_SECONDS,
    SettingError,
    default_zone,
    guild_settings,
    parse_setting,
    set_setting,
    zone_names,
)

if TYPE_CHECKING:
    from cogs.bot import KwxBot

LANGUAGE_NAMES = {"zh-CN": "简体中文", "en": "English"}
NO_PINGS = discord.AllowedMentions.none()
MAX_CHOICES = 25  # Discord shows at most 25 autocomplete choices


def zone_choices(typed: str) -> list[app_commands.Choice[str]]:
    """Time zone names holding what was typed (any case), the shortest first: "shang" -> Asia/Shanghai."""
    needle = typed.strip().lower()
    names = sorted((name for low, name in zone_names().items() if needle in low), key=lambda n: (len(n), n))
    return [app_commands.Choice(name=n, value=n) for n in names[:MAX_CHOICES]]


class Config(KwxGroupCog, name="Config"):
    @app_commands.command(name="config", description=text("cmd.config"))
    @app_commands.describe(rules=text("cmd.config.rules"), base=text("cmd.config.base"),
                           turn_seconds=text("cmd.config.turn_seconds"),
                           claim_seconds=text("cmd.config.claim_seconds"), language=text("cmd.config.language"),
                           timezone=text("cmd.config.timezone"), max_tables=text("cmd.config.max_tables"),
                           max_hosted=text("cmd.config.max_hosted"))
    @app_commands.choices(rules=[app_commands.Choice(name=p, value=p) for p in PRESETS],
                          language=[app_commands.Choice(name=LANGUAGE_NAMES[x], value=x) for x in LANGUAGES])
    @managers_only
    @checks_itself(RULES, BASE, TURN_SECONDS, CLAIM_SECONDS, LANG, TIMEZONE)  # parse_setting, in the settings' own words
    async def config(self, interaction: discord.Interaction, rules: str | None = None,
                     base: app_commands.Range[int, 1, 100_000] | None = None,  # kwx.table.defaults.BOUNDS
                     turn_seconds: app_commands.Range[int, 10, 600] | None = None,
                     claim_seconds: app_commands.Range[int, 5, 120] | None = None,
                     language: str | None = None,
                     timezone: app_commands.Range[str, 1, 64] | None = None,
                     max_tables: app_commands.Range[int, 1, 50] | None = None,
                     max_hosted: app_commands.Range[int, 1, 10] | None = None) -> None:
        guild = str(interaction.guild_id)
        lang = self.lang(interaction)
        given: dict[str, Any] = {RULES: rules, BASE: base, TURN_SECONDS: turn_seconds,
                                 CLAIM_SECONDS: claim_seconds, LANG: language, TIMEZONE: timezone,
                                 MAX_TABLES: max_tables,
                                 MAX_HOSTED: max_hosted}
        given = {k: v for k, v in given.items() if v is not None}
        try:  # check everything before storing anything
            for key, value in given.items():
                parse_setting(key, value)
        except SettingError as err:
            await safe_respond(interaction, content=self.setting_error_text(err, lang), ephemeral=True)
            return
        for key, value in given.items():
            if key == LANG:
                lang = await self.rt.languages.set(guild, value)
            else:
                await set_setting(self.rt.store, guild, key, value)
        values = await guild_settings(self.rt.store, guild)
        values[LANG] = self.rt.languages.of(guild)
        await safe_respond(interaction, embed=self.settings_embed(values, lang, changed=set(given)),
                           ephemeral=True, allowed_mentions=NO_PINGS)

    @config.autocomplete("timezone")
    async def timezone_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return zone_choices(current)

    @staticmethod
    def setting_error_text(err: SettingError, lang: str) -> str:
        if err.key == TIMEZONE:
            return tr("config.error.timezone", lang, value=excerpt(err.value))
        setting = tr(f"config.{err.key}", lang)
        if err.bounds is not None:
            return tr("config.error.range", lang, setting=setting, low=err.bounds[0], high=err.bounds[1])
        return tr("config.error.bad", lang, setting=setting, value=err.value)

    @staticmethod
    def settings_embed(values: dict[str, Any], lang: str, changed: set[str]) -> discord.Embed:
        shown = {RULES: f"{tr(f'choice.{values[RULES]}', lang)} ({values[RULES]})", BASE: str(values[BASE]),
                 TURN_SECONDS: tr("config.seconds", lang, n=values[TURN_SECONDS]),
                 CLAIM_SECONDS: tr("config.seconds", lang, n=values[CLAIM_SECONDS]),
                 LANG: LANGUAGE_NAMES.get(values[LANG], values[LANG]),
                 TIMEZONE: values[TIMEZONE] or tr("config.timezone_default", lang, zone=default_zone(values[LANG])),
                 MAX_TABLES: str(values[MAX_TABLES]),
                 MAX_HOSTED: str(values[MAX_HOSTED])}
        lines = [f"{'✅' if key in changed else '▫️'} **{tr(f'config.{key}', lang)}**: {shown[key]}"
                 for key in SETTING_KEYS]
        embed = discord.Embed(title=tr("config.title", lang), description="\n".join(lines),
                              colour=discord.Colour.green() if changed else discord.Colour.blurple())
        embed.set_footer(text=tr("config.saved" if changed else "config.hint", lang))
        return embed


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(Config(bot))
