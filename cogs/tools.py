"""The Tools cog: `/kwx calc` (the fan calculator) and `/kwx rules` (a preset's patterns and options).

`calc` parses and scores with the `python -m kwx fan` code (kwx/engine/calculator.py), so the bot, the terminal and the
table agree on every hand. Both answer privately in the server's language (`rules` with a Share button, see
cogs/share.py); the rules default to the server's preset (`/kwx-admin config`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.board import preset_name
from cogs.group import KwxGroupCog, text
from cogs.inputs import TILE_MAX, TILES_MAX, safe_text
from cogs.operations import safe_respond
from cogs.share import ShareButton, ShareCooldowns, Shared, share_view
from kwx.engine.analysis import shanten
from kwx.engine.calculator import CONTEXT_FLAGS, Calculation, InputError, calculate, context
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.tiles import SHORT_CHINESE, Tile
from kwx.present.i18n import catalog, error_text, join_names, pattern_name, tr
from kwx.present.ledger_text import code_block, money, table
from kwx.table.defaults import guild_settings

if TYPE_CHECKING:
    from cogs.bot import KwxBot

NO_PINGS = discord.AllowedMentions.none()
PRESET_CHOICES = [app_commands.Choice(name=p, value=p) for p in PRESETS]
# Options shown by /kwx rules, in this order (fan_values and fan_cap_exceptions show in the pattern table).
SHOWN_OPTIONS = ("base", "min_fan", "min_fan_discard", "fan_cap", "pindao", "zhigang_pay", "shouzhuayi_fan",
                 "haidilao", "haidipao", "kawuxing_single_wait", "louhu_bigger_ok", "draw_dealer",
                 "draw_liangdao_penalty", "draw_chajiao", "liangdao_min_wall", "forbid_feeding", "piao", "maima",
                 "shukan", "shanglou", "rotation")
MELD_WORDS = {"pung": "meld.pung", "kong": "meld.kong", "ankong": "meld.ankong"}


def option_value(option: str, value: Any, lang: str) -> str:
    """An option's value in words: on/off, none, a number, or a choice (half, stay, each …) in the language."""
    if isinstance(value, str):
        key = f"tools.value.{option}.{value}"
        return tr(key, lang) if catalog().template(key, lang) is not None else value
    if value is True:
        return tr("tools.on", lang)
    if value is False:
        return tr("tools.off", lang)
    if value is None:
        return tr("tools.none", lang)
    return str(value)


def rule_patterns(rules: RuleSet) -> list[tuple[str, int]]:
    """The patterns these rules score, with multipliers, biggest first."""
    return rules.scored_patterns()


class Tools(KwxGroupCog, name="Tools"):
    SHARE_KINDS = frozenset({"rules"})

    def __init__(self, bot: KwxBot) -> None:
        super().__init__(bot)
        self.share_cooldowns = ShareCooldowns()  # a Sharer's (cogs/share.py); the rules are no slow kind

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.add_dynamic_items(ShareButton)

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.remove_dynamic_items(ShareButton)

    share_lang = KwxGroupCog.lang

    async def render_share(self, interaction: discord.Interaction, kind: str, arg: str, page: int) -> Shared:
        return Shared(await self._rules_answer(interaction, arg or None))

    def tiles_text(self, tiles: list[int]) -> str:
        if self.bot.kwx is not None:  # the server's tile emojis, once setup_hook has built the runtime
            return self.bot.kwx.tiles.tiles(tiles)
        return " ".join(SHORT_CHINESE[Tile(x)] for x in tiles)

    # == /kwx calc ============================================================================================
    @app_commands.command(name="calc", description=text("cmd.calc"))
    @app_commands.describe(hand=text("cmd.calc.hand"), win=text("cmd.calc.win"), melds=text("cmd.calc.melds"),
                           self_draw=text("cmd.calc.self_draw"), liangdao=text("cmd.calc.liangdao"),
                           kong_draw=text("cmd.calc.kong_draw"), after_kong=text("cmd.calc.after_kong"),
                           rob_kong=text("cmd.calc.rob_kong"), last_tile=text("cmd.calc.last_tile"),
                           rules=text("cmd.calc.rules"))
    @app_commands.choices(rules=PRESET_CHOICES)
    async def calc(self, interaction: discord.Interaction, hand: app_commands.Range[str, 1, TILES_MAX],
                   win: app_commands.Range[str, 1, TILE_MAX], melds: app_commands.Range[str, 1, TILES_MAX] | None = None,
                   self_draw: bool = False, liangdao: bool = False, kong_draw: bool = False,
                   after_kong: bool = False, rob_kong: bool = False, last_tile: bool = False,
                   rules: str | None = None) -> None:
        lang = self.lang(interaction)
        settings = await guild_settings(self.rt.store, str(interaction.guild_id))
        ruleset = RuleSet.preset(rules or settings["rules"], base=settings["base"])
        flags = (self_draw, liangdao, kong_draw, after_kong, rob_kong, last_tile)
        assert len(flags) == len(CONTEXT_FLAGS)
        try:
            calc = calculate(hand, win, (melds or "").split(), context(flags), ruleset)
        except InputError as exc:
            await safe_respond(interaction, embed=self.calc_error_embed(exc, lang), ephemeral=True,
                               allowed_mentions=NO_PINGS)
            return
        await safe_respond(interaction, embed=self.calc_embed(calc, lang), ephemeral=True,
                           allowed_mentions=NO_PINGS)

    @staticmethod
    def calc_error_embed(exc: InputError, lang: str) -> discord.Embed:
        """What was wrong, as an error: a red embed saying so, the reason as a sentence, and how to write it."""
        detail = safe_text(error_text(exc, lang), 300)
        detail = detail[:1].upper() + detail[1:]
        return discord.Embed(title=tr("tools.calc.error_title", lang),
                             description=f"{detail}\n\n{tr('tools.calc.error_hint', lang)}",
                             colour=discord.Colour.red())

    def calc_embed(self, calc: Calculation, lang: str) -> discord.Embed:
        rules = calc.rules
        lines = [tr("tools.calc.hand", lang, tiles=self.tiles_text(list(calc.hand)), win=self.tiles_text([calc.win]))]
        if calc.melds:
            words = [f"{tr(MELD_WORDS[m.kind], lang)} {self.tiles_text([m.tile])}" for m in calc.melds]
            lines.append(tr("tools.calc.melds", lang, melds=tr("common.list_sep", lang).join(words)))
        how = [tr("term.zimo" if calc.self_draw else "term.dianpao", lang)]
        how += [tr(f"tools.flag.{flag}", lang) for flag in CONTEXT_FLAGS[1:] if getattr(calc.ctx, flag)]
        lines.append(tr("tools.calc.how", lang, how=join_names(how, lang), preset=preset_name(rules.preset_name,
                                                                                          lang)))
        r = calc.result
        if r is None:
            waits = calc.hand_waits()
            if waits:
                lines.append(tr("tools.calc.not_win_waits", lang, tiles=self.tiles_text(list(waits))))
            else:
                lines.append(tr("tools.calc.not_win", lang, shanten=max(1, shanten(calc.counts, len(calc.melds)))))
            return discord.Embed(title=tr("tools.calc.title", lang), description="\n".join(lines),
                                 colour=discord.Colour.dark_grey())
        rows = [[pattern_name(p, lang), f"×{m}"] for p, m in zip(r.patterns, r.multipliers)]
        if r.capped:
            rows.append([tr("tools.calc.capped", lang, raw=r.raw_fan), ""])
        if r.shukan_bonus:
            rows.append([tr("tools.calc.shukan", lang), f"+{r.shukan_bonus}"])
        lines.append(code_block(table(rows, "lr")))
        lines.append(tr("tools.calc.total", lang, fan=r.fan))
        if r.fan < calc.min_fan:
            lines.append(tr("tools.calc.below_min", lang, fan=r.fan, min=calc.min_fan))
            colour = discord.Colour.dark_grey()
        else:
            points = rules.base * r.fan
            key = "tools.calc.pays_zimo" if calc.self_draw else "tools.calc.pays_discard"
            lines.append(tr(key, lang, amount=money(points), base=rules.base))
            colour = discord.Colour.green()
        return discord.Embed(title=tr("tools.calc.title", lang), description="\n".join(lines), colour=colour)

    # == /kwx rules ===========================================================================================
    @app_commands.command(name="rules", description=text("cmd.rules"))
    @app_commands.describe(preset=text("cmd.rules.preset"))
    @app_commands.choices(preset=PRESET_CHOICES)
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        await safe_respond(interaction, embed=await self._rules_answer(interaction, preset), ephemeral=True,
                           view=share_view("rules", preset or "", self.lang(interaction)), allowed_mentions=NO_PINGS)

    async def _rules_answer(self, interaction: discord.Interaction, preset: str | None) -> discord.Embed:
        """The rules of `preset`, or the server's own (its preset and base) when None."""
        settings = await guild_settings(self.rt.store, str(interaction.guild_id))
        name = preset or settings["rules"]
        ruleset = RuleSet.preset(name, base=settings["base"]) if preset is None else RuleSet.preset(name)
        return self.rules_embed(ruleset, self.lang(interaction), default=preset is None)

    def rules_embed(self, rules: RuleSet, lang: str, *, default: bool = False) -> discord.Embed:
        title = tr("tools.rules.title", lang, preset=preset_name(rules.preset_name, lang))
        patterns = [[pattern_name(p, lang), f"×{m}"] for p, m in rule_patterns(rules)]
        summary = tr("rules.summary", lang)
        if default:
            summary = f"{tr('tools.rules.server_default', lang)}\n\n{summary}"
        embed = discord.Embed(title=title, description=summary, colour=discord.Colour.blurple())
        embed.set_footer(text=tr("rules.pointer", lang))
        embed.add_field(name=tr("tools.rules.patterns", lang), value=code_block(table(patterns, "lr")), inline=False)
        if rules.fan_cap is not None:
            exceptions = [f"{pattern_name(p, lang)} {c}" for p, c in rules.fan_cap_exceptions.items()]
            cap = tr("tools.rules.cap", lang, cap=rules.fan_cap)
            if exceptions:
                cap += tr("tools.rules.cap_except", lang, patterns=join_names(exceptions, lang))
            embed.add_field(name=tr("tools.option.fan_cap", lang), value=cap, inline=False)
        options = [[tr(f"tools.option.{o}", lang), option_value(o, getattr(rules, o), lang)] for o in SHOWN_OPTIONS]
        embed.add_field(name=tr("tools.rules.options", lang), value=code_block(table(options, "ll")), inline=False)
        return embed


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(Tools(bot))
