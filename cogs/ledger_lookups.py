"""Money lookups: `/kwx balance | leaderboard | history | stats | settleup | chart`.

What a member looks up (balance, leaderboard, history, stats, chart) is answered to them alone, with 📤 Share to
post it (cogs/share.py), and page buttons for long lists (cogs/paginate.py); settling up is public. Answers
are embeds that read well on a phone: aligned code-block tables (```diff, so winning rows are green and losing
rows red), a green embed for a positive balance and a red one for a negative one. This cog also answers a
result post's 🔍 Verify shuffle (cogs/verify.py).

Words: 余额 / balance is a player's running total in the ledger (every hand and every cash payment); 输赢 / net is
what hands won or lost (one hand's in a history, a period's on the leaderboard, all of them in stats).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.drawing import ChartDrawer
from cogs.group import KwxGroupCog, text
from cogs.inputs import member_key, safe_text
from cogs.ledger_common import COLOURS, NO_PINGS, LedgerCog, colour_of, mention
from cogs.operations import safe_defer, safe_followup
from cogs.paginate import PageButton, page_view
from cogs.share import ShareButton, ShareCooldowns, Shared, share_view
from cogs.verify import VerifyButton
from kwx.present.chart import MAX_SERIES, Series
from kwx.present.i18n import tr
from kwx.present.ledger_text import clean_name, code_block, diff_marker, money, percent, signed_money, table
from kwx.store.models import Period
from kwx.table.defaults import server_zone

if TYPE_CHECKING:
    from cogs.bot import KwxBot

PAGE_SIZE = 10
SHEET_ROWS = 20  # balances listed before "… and n more"
CHART_PLAYERS = 6  # lines on the server chart (the largest balances, either sign)
CHART_COOLDOWN = (2, 30.0)  # two charts per 30 s a member (per server): a chart reads much of the ledger
PERIODS: dict[str, Period] = {"all": "all", "month": "month", "week": "week"}
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in PERIODS]
KONG_REASONS = ("angang", "bugang", "zhigang")  # kong money, shown in a column of its own in a history
WIN_REASONS = ("hu", "baohu", "piao", "maima")  # the money of a win


class LedgerLookups(LedgerCog, name="LedgerLookups"):
    PAGER_KINDS = frozenset({"hist", "lb"})
    SHARE_KINDS = frozenset({"bal", "lb", "hist", "stats", "chart"})

    def __init__(self, bot: KwxBot) -> None:
        super().__init__(bot)
        self.charts = ChartDrawer()  # its worker process stops with the cog
        self.share_cooldowns = ShareCooldowns()

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.add_dynamic_items(PageButton, ShareButton, VerifyButton)

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.remove_dynamic_items(PageButton, ShareButton, VerifyButton)
        self.charts.close()

    pager_lang = KwxGroupCog.lang

    @staticmethod
    def target(interaction: discord.Interaction, member: discord.Member | None) -> str:
        """The player a command is about: the member given, else whoever asked."""
        return str((member or interaction.user).id)

    # == private answers, each with a Share button (cogs/share.py); settling up is public ====================
    async def answer(self, interaction: discord.Interaction, kind: str, arg: str, shared: Shared) -> None:
        """A reading command's answer, only for the asker: its pages (if any) and 📤 Share."""
        lang = self.lang(interaction)
        view = (page_view(kind, arg, 0, shared.more, interaction.user.id, share=lang) if kind in self.PAGER_KINDS
                else share_view(kind, arg, lang))
        extra: dict[str, Any] = {"files": shared.files} if shared.files else {}
        if interaction.response.is_done():  # deferred (the chart): the answer fills the "thinking" message
            await safe_followup(interaction, embed=shared.embed, view=view, ephemeral=True,
                                allowed_mentions=NO_PINGS, **extra)
        else:
            await self.show(interaction, shared.embed, view=view, ephemeral=True, **extra)

    share_lang = KwxGroupCog.lang

    async def render_share(self, interaction: discord.Interaction, kind: str, arg: str, page: int) -> Shared:
        if kind in self.PAGER_KINDS:
            embed, more = await self.render_page(interaction, kind, arg, page)
            return Shared(embed, more=more)
        if kind == "bal":
            return Shared(await self._balance_embed(interaction, arg or None))
        if kind == "stats":
            return Shared(await self._stats_embed(interaction, arg))
        name = (await self.store.player_name(self.guild(interaction), arg) or arg) if arg else None
        return await self._chart(interaction, arg or None, name)

    @app_commands.command(name="balance", description=text("cmd.balance"))
    @app_commands.describe(member=text("cmd.balance.member"))
    async def balance(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        arg = str(member.id) if member is not None else ""
        await self.answer(interaction, "bal", arg, Shared(await self._balance_embed(interaction, arg or None)))

    async def _balance_embed(self, interaction: discord.Interaction, player: str | None) -> discord.Embed:
        lang, guild = self.lang(interaction), self.guild(interaction)
        if player is not None:
            row = await self.store.balance(guild, player)
            name = self.name_of(interaction, row.player, row.name)
            body = code_block(f"{diff_marker(row.balance)} {signed_money(row.balance)}", "diff")
            embed = discord.Embed(title=tr("ledger.balance.title", lang, name=safe_text(name)),
                                  description=f"{mention(row.player)}\n{body}", colour=colour_of(row.balance))
            embed.set_footer(text=tr("ledger.balance.hands", lang, count=row.hands))
            return embed
        sheet = await self.store.balances(guild)
        if not sheet.rows:
            return discord.Embed(title=tr("ledger.balances.title", lang), description=tr("ledger.empty", lang),
                                 colour=COLOURS["even"])
        me = str(interaction.user.id)
        shown = sheet.rows[:SHEET_ROWS]
        rows = [[diff_marker(r.balance), clean_name(self.name_of(interaction, r.player, r.name)), signed_money(r.balance)]
                for r in shown]
        headers = [" ", tr("ledger.col.player", lang), tr("ledger.col.balance", lang)]
        body = table(rows, "llr", headers)
        hidden = len(sheet.rows) - len(shown)
        if hidden:
            body += "\n" + tr("ledger.balances.more", lang, count=hidden)
            mine = next((r for r in sheet.rows[SHEET_ROWS:] if r.player == me), None)
            if mine is not None:
                body += "\n" + table([[diff_marker(mine.balance), clean_name(self.name_of(interaction, me, mine.name)),
                                       signed_money(mine.balance)]], "llr")
        my_balance = next((r.balance for r in sheet.rows if r.player == me), 0)
        embed = discord.Embed(title=tr("ledger.balances.title", lang), description=code_block(body, "diff"),
                              colour=colour_of(my_balance))
        embed.set_footer(text=tr("ledger.balances.footer", lang, hands=sheet.hands, players=len(sheet.rows)))
        return embed

    @app_commands.command(name="leaderboard", description=text("cmd.leaderboard"))
    @app_commands.describe(period=text("cmd.leaderboard.period"))
    @app_commands.choices(period=PERIOD_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, period: str = "all") -> None:
        embed, more = await self.render_page(interaction, "lb", period, 0)
        await self.answer(interaction, "lb", period, Shared(embed, more=more))

    @app_commands.command(name="history", description=text("cmd.history"))
    @app_commands.describe(member=text("cmd.history.member"))
    async def history(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        player = self.target(interaction, member)
        embed, more = await self.render_page(interaction, "hist", player, 0)
        await self.answer(interaction, "hist", player, Shared(embed, more=more))

    async def render_page(self, interaction: discord.Interaction, kind: str, arg: str,
                          page: int) -> tuple[discord.Embed, bool]:
        if kind == "lb":
            return await self._leaderboard_page(interaction, arg, page)
        return await self._history_page(interaction, arg, page)

    async def _leaderboard_page(self, interaction: discord.Interaction, period: str,
                                page: int) -> tuple[discord.Embed, bool]:
        lang = self.lang(interaction)
        period_ = PERIODS.get(period, "all")  # from a custom id: anything else is all time
        board = await self.store.leaderboard(self.guild(interaction), period_)
        title = tr("ledger.leaderboard.title", lang, period=tr(f"ledger.period.{period_}", lang))
        if not board:
            return discord.Embed(title=title, description=tr("ledger.leaderboard.empty", lang),
                                 colour=discord.Colour.gold()), False
        chunk = board[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        rows = [[diff_marker(r.net), str(r.rank), clean_name(self.name_of(interaction, r.player, r.name)),
                 signed_money(r.net), str(r.hands)] for r in chunk]
        headers = [" ", "#", tr("ledger.col.player", lang), tr("ledger.col.net", lang), tr("ledger.col.hands", lang)]
        embed = discord.Embed(title=title, description=code_block(table(rows, "lrlrr", headers), "diff"),
                              colour=discord.Colour.gold())
        more = len(board) > (page + 1) * PAGE_SIZE
        embed.set_footer(text=tr("ledger.page", lang, page=page + 1))
        return embed, more

    async def _history_page(self, interaction: discord.Interaction, player: str,
                            page: int) -> tuple[discord.Embed, bool]:
        """One page of a player's hands: what happened to them (won, dealt in, another's self-draw …), the
        kong money they took or paid in its own column, and the hand's net, so that a net of 0 explains itself."""
        lang, guild = self.lang(interaction), self.guild(interaction)
        found = await self.store.history(guild, player, limit=PAGE_SIZE + 1, offset=page * PAGE_SIZE)
        name = self.name_of(interaction, player, await self.store.player_name(guild, player))
        title = tr("ledger.history.title", lang, name=safe_text(name))
        if not found and page == 0:
            return discord.Embed(title=title, description=tr("ledger.history.empty", lang, name=safe_text(name)),
                                 colour=COLOURS["even"]), False
        shown = found[:PAGE_SIZE]
        money = await self.store.hand_money(guild, player, [h.hand_id for h in shown])
        zone = await server_zone(self.store, guild, lang)
        rows = []
        for h in shown:
            moved = money.get(h.hand_id, {})
            kong = sum(moved.get(reason, 0) for reason in KONG_REASONS)
            if h.reversed:
                result, net = tr("ledger.history.reversed", lang), f"({signed_money(h.net)})"
            else:
                result, net = self._result_word(h, moved, lang), signed_money(h.net)
            rows.append([" " if h.reversed else diff_marker(h.net), f"#{h.hand_id}",
                         h.created_at.astimezone(zone).strftime("%m-%d"), result,
                         str(h.fan.get(player, 0)) if h.won else "", signed_money(kong) if kong else "", net])
        headers = [" ", "#", tr("ledger.col.date", lang), tr("ledger.col.result", lang), tr("ledger.col.fan", lang),
                   tr("ledger.col.kong", lang), tr("ledger.col.net", lang)]
        balance = await self.store.balance(guild, player)
        embed = discord.Embed(title=title, description=code_block(table(rows, "llllrrr", headers), "diff"),
                              colour=colour_of(balance.balance))
        embed.set_footer(text=tr("ledger.page", lang, page=page + 1))
        return embed, len(found) > PAGE_SIZE

    @staticmethod
    def _result_word(h: Any, moved: dict[str, int], lang: str) -> str:
        """How the hand ended for the player: their win, their deal-in, a draw, or another's win (one they paid
        for when it was a self-draw)."""
        if h.won:
            return tr("term.zimo", lang) if h.self_draw else tr("ledger.history.won", lang)
        if h.dealt_in:
            return tr("term.dianpao", lang)
        if h.outcome == "draw":
            return tr("payment.forbid_feeding" if "forbid_feeding" in moved else "result.draw", lang)
        paid_win = any(moved.get(reason, 0) < 0 for reason in WIN_REASONS)
        return tr("ledger.history.other_zimo" if paid_win else "ledger.history.other_won", lang)

    @app_commands.command(name="stats", description=text("cmd.stats"))
    @app_commands.describe(member=text("cmd.stats.member"))
    async def stats(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        player = self.target(interaction, member)
        await self.answer(interaction, "stats", player, Shared(await self._stats_embed(interaction, player)))

    async def _stats_embed(self, interaction: discord.Interaction, player: str) -> discord.Embed:
        """A player's numbers, each rate saying what it is a share of (of hands, of wins, of 亮倒 hands)."""
        lang = self.lang(interaction)
        s = await self.store.player_stats(self.guild(interaction), player)
        name = self.name_of(interaction, player, s.name)
        title = tr("ledger.stats.title", lang, name=safe_text(name))
        if s.hands == 0:
            return discord.Embed(title=title, description=tr("ledger.history.empty", lang, name=safe_text(name)),
                                 colour=COLOURS["even"])

        def rate(key: str, value: float, whole: int) -> str:
            return tr(key, lang, rate=percent(value)) if whole else ""

        rows = [
            [" ", tr("ledger.stats.hands", lang), str(s.hands), ""],
            [" ", tr("ledger.stats.wins", lang), str(s.wins), rate("ledger.stats.of_hands", s.win_rate, s.hands)],
            [" ", tr("ledger.stats.self_draws", lang), str(s.self_draws),
             rate("ledger.stats.of_wins", s.self_draw_rate, s.wins)],
            [" ", tr("ledger.stats.deal_ins", lang), str(s.deal_ins),
             rate("ledger.stats.of_hands", s.deal_in_rate, s.hands)],
            [" ", tr("ledger.stats.liangdao", lang), str(s.liangdao),
             rate("ledger.stats.liangdao_won", s.liangdao_win_rate, s.liangdao)],
            [" ", tr("ledger.stats.max_fan", lang), str(s.max_fan), ""],
            [" ", tr("ledger.stats.avg_fan", lang), f"{s.avg_fan:.1f}", tr("ledger.stats.per_win", lang) if s.wins else ""],
            [diff_marker(s.net), tr("ledger.stats.net", lang), signed_money(s.net), ""],
        ]
        body = code_block(table(rows, "llrl"), "diff")
        return discord.Embed(title=title, description=f"{mention(player)}\n{body}", colour=colour_of(s.net))

    @app_commands.command(name="settleup", description=text("cmd.settleup"))
    async def settleup(self, interaction: discord.Interaction) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        transfers = await self.store.settle_up(guild)
        if not transfers:
            await self.show(interaction, discord.Embed(title=tr("ledger.settle.title", lang),
                                                       description=tr("ledger.settle.square", lang),
                                                       colour=COLOURS["even"]))
            return
        names = {r.player: r.name for r in (await self.store.balances(guild)).rows}
        rows = [[clean_name(self.name_of(interaction, x.from_player, names.get(x.from_player)), 10), "→",
                 clean_name(self.name_of(interaction, x.to_player, names.get(x.to_player)), 10), money(x.amount)]
                for x in transfers]
        body = code_block(table(rows, "lllr")) + "\n" + tr("ledger.settle.hint", lang)
        embed = discord.Embed(title=tr("ledger.settle.title", lang), description=body, colour=discord.Colour.gold())
        embed.set_footer(text=tr("ledger.settle.footer", lang, count=len(transfers)))
        await self.show(interaction, embed)

    @app_commands.command(name="chart", description=text("cmd.chart"))
    @app_commands.describe(member=text("cmd.chart.member"))
    @app_commands.checks.cooldown(*CHART_COOLDOWN, key=member_key)
    async def chart(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        await safe_defer(interaction, ephemeral=True, thinking=True)
        player, name = (str(member.id), member.display_name) if member is not None else (None, None)
        await self.answer(interaction, "chart", player or "", await self._chart(interaction, player, name))

    async def _chart(self, interaction: discord.Interaction, player: str | None, name: str | None) -> Shared:
        """The balance chart of one player, or of the CHART_PLAYERS largest balances: by hands played, its
        dates in the server's time zone."""
        lang, guild = self.lang(interaction), self.guild(interaction)
        if player is not None:
            players = [(player, name or player)]
        else:
            rows = sorted((await self.store.balances(guild)).rows, key=lambda r: (-abs(r.balance), r.player))
            players = [(r.player, self.name_of(interaction, r.player, r.name)) for r in rows[:CHART_PLAYERS]]
        series, moments = [], []
        for one, label in players:  # a bounded number of points each, read off the writer's path
            points = await self.store.chart_series(guild, one)
            series.append(Series(label, [(hands, balance) for hands, _, balance in points]))
            moments += [at for _, at, _ in points]
        title = tr("ledger.chart.title", lang)
        png = await self.charts.draw(series[:MAX_SERIES], x_label=tr("ledger.chart.x_label", lang),  # titled by the embed
                                     empty_text=tr("ledger.chart.empty", lang))
        last = series[0].points[-1][1] if player is not None and series[0].points else 0
        embed = discord.Embed(title=title, colour=colour_of(last) if player is not None else discord.Colour.gold())
        if player is not None:
            embed.description = f"{mention(player)}: **{signed_money(last)}**"
        embed.set_image(url="attachment://balances.png")
        if moments:
            zone = await server_zone(self.store, guild, lang)
            days = sorted({at.astimezone(zone).strftime("%Y-%m-%d") for at in (min(moments), max(moments))})
            embed.set_footer(text=tr("ledger.chart.footer", lang, dates=" – ".join(days), zone=zone.key))
        return Shared(embed, [discord.File(io.BytesIO(png), filename="balances.png")])
