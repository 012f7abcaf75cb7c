"""The Ledger cog: `/kwx balance | leaderboard | history | stats | settleup | pay | record | chart`, and for
managers `/kwx-admin export | undo`; it also answers a result post's 🔍 Verify shuffle (cogs/verify.py).

Every answer reads (and every write names) this server's ledger only: the guild id of the interaction is the
ledger's key. Answers are embeds that read well on a phone: aligned code-block tables (```diff, so winning rows
are green and losing rows red), a green embed for a positive balance and a red one for a negative one, page
buttons for long lists, and mentions that never ping (`AllowedMentions.none()`), except the members a
confirmation request waits for. What a member looks up (balance, leaderboard, history, stats, chart) is answered
to them alone, with 📤 Share to post it (cogs/share.py); settling up, money requests and undo stay public.

Words: 余额 / balance is a player's running total in the ledger (every hand and every cash payment); 输赢 / net is
what hands won or lost (one hand's in a history, a period's on the leaderboard, all of them in stats).

Money moves only with consent (cogs/confirm.py): `pay` waits for the recipient (who confirms the cash reached
them), `record` for every member who would pay. `undo` and `export` need Manage Server (cogs/group.py).
"""

from __future__ import annotations

import io
import logging
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.confirm import CANCELLED, DONE, EXPIRED, FAILED, OPEN, ConfirmButton, ConfirmFlow, Pending, Texts
from cogs.drawing import render_chart
from cogs.group import KwxGroupCog, managers_only, text
from cogs.inputs import NOTE_MAX, TILE_MAX, TILES_MAX, checks_itself, member_key, safe_text, whole_number
from cogs.operations import safe_defer, safe_followup, safe_respond
from cogs.paginate import PageButton, page_view
from cogs.share import ShareButton, Shared, share_view
from cogs.verify import VerifyButton
from kwx.engine.rules import PRESETS, RuleSet
from kwx.present.chart import MAX_SERIES, Series
from kwx.present.i18n import join_names, pattern_name, tr
from kwx.present.ledger_text import clean_name, code_block, diff_marker, money, percent, signed, table, tone
from kwx.store import LedgerPayment, NotFound, ReversalRefused, Store
from kwx.store.export import ExportTooBig
from kwx.table.defaults import guild_settings, server_zone
from kwx.table.manual import (
    MAX_AMOUNT,
    MAX_FAN,
    ManualHandError,
    ManualWin,
    fan_from_tiles,
    manual_payments,
    manual_record,
    payers,
)

if TYPE_CHECKING:
    from bot import KwxBot

logger = logging.getLogger(__name__)

PAGE_SIZE = 10
SHEET_ROWS = 20  # balances listed before "… and n more"
CHART_PLAYERS = 6  # lines on the server chart (the largest balances, either sign)
# Per-member limits (per server): pay/record requests, and the commands that read much of the ledger.
REQUEST_RATE = (10, 60.0)  # at most 10 requests a minute
CHART_COOLDOWN = (2, 30.0)  # two charts per 30 s
EXPORT_COOLDOWN = (1, 60.0)  # one export a minute
DEFAULT_FILESIZE_LIMIT = 8 * 1024 * 1024  # when an interaction does not say (Discord's smallest upload limit)
FILES_PER_MESSAGE = 10  # Discord's limit on attachments per message
NO_PINGS = discord.AllowedMentions.none()

COLOURS = {"win": discord.Colour.green(), "loss": discord.Colour.red(), "even": discord.Colour.light_grey()}
STATE_COLOURS = {OPEN: discord.Colour.blurple(), DONE: discord.Colour.green(), CANCELLED: discord.Colour.dark_grey(),
                 EXPIRED: discord.Colour.dark_grey(), FAILED: discord.Colour.dark_grey()}
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in ("all", "month", "week")]
PRESET_CHOICES = [app_commands.Choice(name=p, value=p) for p in PRESETS]
KONG_REASONS = ("angang", "bugang", "zhigang")  # kong money, shown in a column of its own in a history
WIN_REASONS = ("hu", "baohu", "piao", "maima")  # the money of a win


def mention(player: str) -> str:
    return f"<@{player}>" if player.isdigit() else player


def colour_of(amount: int) -> discord.Colour:
    return COLOURS[tone(amount)]


def confirm_texts(lang: str) -> Texts:
    return Texts(confirm=tr("confirm.yes", lang), cancel=tr("confirm.no", lang), not_yours=tr("confirm.not_yours", lang),
                 already=tr("confirm.already", lang), gone=tr("confirm.gone", lang),
                 expired=tr("confirm.expired_note", lang), too_many=tr("confirm.too_many", lang))


def state_lines(pending: Pending, state: str, lang: str, detail: str | None) -> list[str]:
    """The lines under a request that say where it stands."""
    if state == OPEN:
        lines = [tr("ledger.confirm.waiting", lang, members=join_names([mention(m) for m in pending.waiting], lang))]
        if pending.confirmed:
            lines.append(tr("ledger.confirm.confirmed", lang,
                           members=join_names([mention(m) for m in pending.confirmed], lang)))
        lines.append(tr("ledger.confirm.expires", lang, time=f"<t:{int(pending.expires)}:R>"))
        return lines
    if state == CANCELLED:
        return [tr("ledger.confirm.cancelled", lang, member=mention(detail or pending.initiator))]
    if state == EXPIRED:
        return [tr("ledger.confirm.expired", lang)]
    if state == FAILED:
        return [tr("ledger.confirm.failed", lang, detail=detail or "?")]
    return []


def file_groups(files: list[Path], limit: int) -> list[list[Path]]:
    """Files packed into messages: at most FILES_PER_MESSAGE each, their sizes together within `limit`."""
    groups: list[list[Path]] = []
    used = limit + 1
    for path in files:
        size = path.stat().st_size
        if not groups or len(groups[-1]) >= FILES_PER_MESSAGE or used + size > limit:
            groups.append([])
            used = 0
        groups[-1].append(path)
        used += size
    return groups


class PayRequest:
    """`/kwx pay`: the payer handed the recipient cash; the recipient confirms; a settlement is recorded."""

    def __init__(self, cog: Ledger) -> None:
        self.cog = cog

    def render(self, pending: Pending, state: str, lang: str, detail: str | None = None) -> discord.Embed:
        d = pending.data
        fmt = {"payer": mention(d["payer"]), "payee": mention(d["payee"]), "amount": money(d["amount"])}
        lines = [tr("ledger.pay.done" if state == DONE else "ledger.pay.open", lang, **fmt)]
        if d.get("note"):
            lines.append(tr("ledger.pay.note", lang, note=safe_text(d["note"])))
        lines += state_lines(pending, state, lang, detail)
        return discord.Embed(title=tr("ledger.pay.title", lang), description="\n".join(lines),
                             colour=STATE_COLOURS[state])

    async def apply(self, pending: Pending) -> None:
        d, store = pending.data, self.cog.store
        for player, name in d.get("names", {}).items():
            await store.set_player_name(pending.guild, player, name)
        note = "; ".join(x for x in (d.get("note"), f"confirmed by {d['payee']}") if x)
        entry = await store.record_settlement(pending.guild, d["payer"], d["payee"], d["amount"],
                                              by=pending.initiator, note=note)
        d["entry"] = entry


class RecordRequest:
    """`/kwx record`: a hand played in person; everyone who pays confirms; the hand is recorded."""

    def __init__(self, cog: Ledger) -> None:
        self.cog = cog

    def render(self, pending: Pending, state: str, lang: str, detail: str | None = None) -> discord.Embed:
        d = pending.data
        names = d.get("names", {})
        how = "ledger.record.win_zimo" if d["self_draw"] else "ledger.record.win_discard"
        lines = [tr(how, lang, winner=mention(d["winner"]), payer=mention(d["payer"])),
                 tr("ledger.record.fan", lang, fan=d["fan"], base=d["base"], preset=tr(f"choice.{d['preset']}", lang))]
        if d.get("patterns"):
            lines.append(tr("ledger.record.patterns", lang,
                           patterns=join_names([pattern_name(p, lang) for p in d["patterns"]], lang)))
        rows = [[clean_name(names.get(f, f), 10), "→", clean_name(names.get(to, to), 10), money(amount),
                 tr(f"payment.{reason}", lang)] for f, to, amount, reason in d["payments"]]
        lines.append(code_block(table(rows, "lllrl")))
        if d.get("note"):
            lines.append(tr("ledger.pay.note", lang, note=safe_text(d["note"])))
        if state == DONE:
            lines.append(tr("ledger.record.done", lang, hand=d.get("hand_id", "?")))
        lines += state_lines(pending, state, lang, detail)
        return discord.Embed(title=tr("ledger.record.title", lang), description="\n".join(lines),
                             colour=STATE_COLOURS[state])

    async def apply(self, pending: Pending) -> None:
        d = pending.data
        win = ManualWin(winner=d["winner"], payer=d["payer"], third=d.get("third"), self_draw=d["self_draw"],
                        fan=d["fan"], patterns=tuple(d.get("patterns", ())), liangdao=d.get("liangdao", False),
                        extra={"base": d["base"], "rules": d["preset"], "tiles": d.get("tiles")})
        payments = [LedgerPayment(*p) for p in d["payments"]]  # exactly what the members confirmed
        record = manual_record(pending.guild, win, payments, d.get("names", {}), by=pending.initiator,
                               note=d.get("note"))
        d["hand_id"] = await self.cog.store.record_manual_hand(record)


class Ledger(KwxGroupCog, name="Ledger"):
    PAGER_KINDS = frozenset({"hist", "lb"})
    SHARE_KINDS = frozenset({"bal", "lb", "hist", "stats", "chart"})

    def __init__(self, bot: KwxBot) -> None:
        super().__init__(bot)
        self._flow: ConfirmFlow | None = None

    # == plumbing ============================================================================================
    @property
    def store(self) -> Store:
        return self.rt.store

    @property
    def confirm_flow(self) -> ConfirmFlow:
        if self._flow is None:
            self._flow = ConfirmFlow(self.bot, self.store, {"pay": PayRequest(self), "record": RecordRequest(self)},
                                     lang_of=self.rt.languages.of, texts_of=confirm_texts)
        return self._flow

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.add_dynamic_items(ConfirmButton, PageButton, ShareButton, VerifyButton)
        if getattr(self.bot, "kwx", None) is not None:
            await self.confirm_flow.restore()

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.remove_dynamic_items(ConfirmButton, PageButton, ShareButton, VerifyButton)
        if self._flow is not None:
            self._flow.close()

    pager_lang = KwxGroupCog.lang

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

    @staticmethod
    def target(interaction: discord.Interaction, member: discord.Member | None) -> str:
        """The player a command is about: the member given, else whoever asked."""
        return str((member or interaction.user).id)

    async def refuse_bot(self, interaction: discord.Interaction, *members: discord.abc.User | None) -> bool:
        for member in members:
            if member is not None and member.bot:
                await self.say(interaction, tr("ledger.error.bot_member", self.lang(interaction),
                                              member=safe_text(member.display_name)))
                return True
        return False

    # == reading: private answers, each with a Share button (cogs/share.py) ===================================
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
            body = code_block(f"{diff_marker(row.balance)} {signed(row.balance)}", "diff")
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
        rows = [[diff_marker(r.balance), clean_name(self.name_of(interaction, r.player, r.name)), signed(r.balance)]
                for r in shown]
        headers = [" ", tr("ledger.col.player", lang), tr("ledger.col.balance", lang)]
        body = table(rows, "llr", headers)
        hidden = len(sheet.rows) - len(shown)
        if hidden:
            body += "\n" + tr("ledger.balances.more", lang, count=hidden)
            mine = next((r for r in sheet.rows[SHEET_ROWS:] if r.player == me), None)
            if mine is not None:
                body += "\n" + table([[diff_marker(mine.balance), clean_name(self.name_of(interaction, me, mine.name)),
                                       signed(mine.balance)]], "llr")
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
        period_ = period if period in ("all", "month", "week") else "all"
        board = await self.store.leaderboard(self.guild(interaction), period_)  # type: ignore[arg-type]
        title = tr("ledger.leaderboard.title", lang, period=tr(f"ledger.period.{period_}", lang))
        if not board:
            return discord.Embed(title=title, description=tr("ledger.leaderboard.empty", lang),
                                 colour=discord.Colour.gold()), False
        chunk = board[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        rows = [[diff_marker(r.net), str(r.rank), clean_name(self.name_of(interaction, r.player, r.name)),
                 signed(r.net), str(r.hands)] for r in chunk]
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
                result, net = tr("ledger.history.reversed", lang), f"({signed(h.net)})"
            else:
                result, net = self._result_word(h, moved, lang), signed(h.net)
            rows.append([" " if h.reversed else diff_marker(h.net), f"#{h.hand_id}",
                         h.created_at.astimezone(zone).strftime("%m-%d"), result,
                         str(h.fan.get(player, 0)) if h.won else "", signed(kong) if kong else "", net])
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
            [diff_marker(s.net), tr("ledger.stats.net", lang), signed(s.net), ""],
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
        png = await render_chart(series[:MAX_SERIES], x_label=tr("ledger.chart.x_label", lang),  # titled by the embed
                                 empty_text=tr("ledger.chart.empty", lang))
        last = series[0].points[-1][1] if player is not None and series[0].points else 0
        embed = discord.Embed(title=title, colour=colour_of(last) if player is not None else discord.Colour.gold())
        if player is not None:
            embed.description = f"{mention(player)}: **{signed(last)}**"
        embed.set_image(url="attachment://balances.png")
        if moments:
            zone = await server_zone(self.store, guild, lang)
            days = sorted({at.astimezone(zone).strftime("%Y-%m-%d") for at in (min(moments), max(moments))})
            embed.set_footer(text=tr("ledger.chart.footer", lang, dates=" – ".join(days), zone=zone.key))
        return Shared(embed, [discord.File(io.BytesIO(png), filename="balances.png")])

    # == consent: pay and record ===============================================================================
    @app_commands.command(name="pay", description=text("cmd.pay"))
    @app_commands.describe(member=text("cmd.pay.member"), amount=text("cmd.pay.amount"), note=text("cmd.pay.note"))
    @app_commands.checks.cooldown(*REQUEST_RATE, key=member_key)
    @checks_itself("amount")  # ledger.error.amount says it in money words
    async def pay(self, interaction: discord.Interaction, member: discord.Member,
                  amount: app_commands.Range[int, 1, MAX_AMOUNT],
                  note: app_commands.Range[str, 1, NOTE_MAX] | None = None) -> None:
        lang = self.lang(interaction)
        if await self.refuse_bot(interaction, member):
            return
        if member.id == interaction.user.id:
            await self.say(interaction, tr("ledger.error.self_pay", lang))
            return
        whole = whole_number(amount, 1, MAX_AMOUNT)  # not 1.9 (a request for 1), not NaN
        if whole is None:
            await self.say(interaction, tr("ledger.error.amount", lang, max=money(MAX_AMOUNT)))
            return
        payer, payee = str(interaction.user.id), str(member.id)
        data = {"payer": payer, "payee": payee, "amount": whole, "note": (note or "").strip()[:NOTE_MAX] or None,
                "names": {payer: interaction.user.display_name, payee: member.display_name}}
        await self.confirm_flow.open(interaction, "pay", [payee], data)

    @app_commands.command(name="record", description=text("cmd.record"))
    @app_commands.describe(
        winner=text("cmd.record.winner"), payer=text("cmd.record.payer"), third=text("cmd.record.third"),
        self_draw=text("cmd.record.self_draw"), fan=text("cmd.record.fan"), hand=text("cmd.record.hand"),
        win=text("cmd.record.win"), melds=text("cmd.record.melds"), liangdao=text("cmd.record.liangdao"),
        payer_liangdao=text("cmd.record.payer_liangdao"), rules=text("cmd.record.rules"),
        base=text("cmd.record.base"), note=text("cmd.record.note"))
    @app_commands.choices(rules=PRESET_CHOICES)
    @app_commands.checks.cooldown(*REQUEST_RATE, key=member_key)
    async def record(self, interaction: discord.Interaction, winner: discord.Member, payer: discord.Member,
                     third: discord.Member | None = None, self_draw: bool = False,
                     fan: app_commands.Range[int, 1, MAX_FAN] | None = None,
                     hand: app_commands.Range[str, 1, TILES_MAX] | None = None,
                     win: app_commands.Range[str, 1, TILE_MAX] | None = None,
                     melds: app_commands.Range[str, 1, TILES_MAX] | None = None, liangdao: bool = False,
                     payer_liangdao: bool = False, rules: str | None = None,
                     base: app_commands.Range[int, 1, 100_000] | None = None,
                     note: app_commands.Range[str, 1, NOTE_MAX] | None = None) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        if await self.refuse_bot(interaction, winner, payer, third):
            return
        settings = await guild_settings(self.store, guild)
        preset = rules or settings["rules"]
        base_points = int(base or settings["base"])
        ruleset = RuleSet.preset(preset, base=base_points)
        try:
            fan_value, patterns = self._record_fan(ruleset, fan, hand, win, melds, self_draw, liangdao)
            mwin = ManualWin(winner=str(winner.id), payer=str(payer.id), third=str(third.id) if third else None,
                             self_draw=self_draw, fan=fan_value, patterns=patterns, liangdao=liangdao,
                             payer_liangdao=payer_liangdao)
            payments = manual_payments(mwin, base=base_points)
        except ManualHandError as err:
            await self.say(interaction, tr(f"ledger.record.error.{err.code}", lang, **err.fmt))
            return
        names = {str(m.id): m.display_name for m in (winner, payer, third) if m is not None}
        data = {"winner": mwin.winner, "payer": mwin.payer, "third": mwin.third, "self_draw": self_draw,
                "fan": fan_value, "patterns": list(patterns), "liangdao": liangdao, "base": base_points,
                "preset": preset, "note": (note or "").strip()[:NOTE_MAX] or None, "names": names,
                "tiles": {"hand": hand, "win": win, "melds": melds} if hand else None,
                "payments": [[p.from_player, p.to_player, p.amount, p.reason] for p in payments]}
        needed = [p for p in payers(payments) if p != str(interaction.user.id)]
        await self.confirm_flow.open(interaction, "record", needed, data)

    @staticmethod
    def _record_fan(rules: RuleSet, fan: int | None, hand: str | None, win: str | None, melds: str | None,
                    self_draw: bool, liangdao: bool) -> tuple[int, tuple[str, ...]]:
        if hand:
            if not win:
                raise ManualHandError("need_win_tile")
            computed, patterns = fan_from_tiles(rules, hand, win, melds=(melds or "").split(), self_draw=self_draw,
                                                liangdao=liangdao)
            if fan is not None and int(fan) != computed:
                raise ManualHandError("fan_mismatch", computed=computed, given=fan)
            return computed, patterns
        if fan is None:
            raise ManualHandError("need_fan")
        if not 1 <= int(fan) <= MAX_FAN:
            raise ManualHandError("bad_fan", max=MAX_FAN)
        return int(fan), ()

    # == managers: export and undo ==============================================================================
    @app_commands.command(name="export", description=text("cmd.export"))
    @app_commands.checks.cooldown(*EXPORT_COOLDOWN, key=member_key)
    @managers_only
    async def export(self, interaction: discord.Interaction) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        await safe_defer(interaction, ephemeral=True, thinking=True)
        limit = getattr(interaction, "filesize_limit", None) or DEFAULT_FILESIZE_LIMIT
        stem = f"kwx-ledger-{guild}-{datetime.now(UTC).strftime('%Y%m%d')}"
        try:  # the deferred reply is always filled: the files, or what went wrong
            with tempfile.TemporaryDirectory(prefix="kwx-export-") as tmp:
                export = await self.store.export_files(guild, Path(tmp), stem, max_bytes=limit)
                key = "ledger.export.done" if len(export.files) == 1 else "ledger.export.split"
                content: str | None = tr(key, lang, count=export.entries, files=len(export.files))
                for group in file_groups(export.files, limit):
                    await safe_followup(interaction, content=content, ephemeral=True,
                                        files=[discord.File(path, filename=path.name) for path in group])
                    content = None
        except ExportTooBig:
            await safe_followup(interaction, content=tr("ledger.export.too_big", lang), ephemeral=True)
        except Exception:
            logger.exception("export of guild %s failed", guild)
            await safe_followup(interaction, content=tr("ledger.export.failed", lang), ephemeral=True)

    @app_commands.command(name="undo", description=text("cmd.undo"))
    @app_commands.describe(entry=text("cmd.undo.entry"), hand=text("cmd.undo.hand"), reason=text("cmd.undo.reason"))
    @managers_only
    async def undo(self, interaction: discord.Interaction, entry: app_commands.Range[int, 1] | None = None,
                   hand: app_commands.Range[int, 1] | None = None,
                   reason: app_commands.Range[str, 1, NOTE_MAX] | None = None) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        if entry is not None and hand is not None:
            await self.say(interaction, tr("ledger.undo.one_of", lang))
            return
        by = str(interaction.user.id)
        why = (reason or "").strip()[:NOTE_MAX] or tr("ledger.undo.default_reason", lang)
        try:
            if entry is not None:
                new_id = await self.store.reverse_entry(guild, entry, by, why)
                line = tr("ledger.undo.entry", lang, entry=entry, new=new_id, member=mention(by),
                         reason=safe_text(why))
                ids = [new_id]
            else:
                target = hand if hand is not None else await self._last_hand(guild)
                if target is None:
                    await self.say(interaction, tr("ledger.undo.nothing", lang))
                    return
                ids = await self.store.reverse_hand(guild, target, by, why)
                line = tr("ledger.undo.hand", lang, hand=target, count=len(ids), member=mention(by),
                         reason=safe_text(why))
        except NotFound:
            await self.say(interaction, tr("ledger.undo.not_found", lang))
            return
        except ReversalRefused as refused:
            key = {"reversal": "ledger.undo.final", "hand": "ledger.undo.part_of_hand"}.get(refused.code,
                                                                                          "ledger.undo.already")
            await self.say(interaction, tr(key, lang, entry=entry, hand=refused.hand_id))
            return
        names = {r.player: r.name for r in (await self.store.balances(guild)).rows}
        reversed_entries = [e for e in await self.store.entries(guild, limit=len(ids)) if e.id in set(ids)]
        rows = [[f"#{e.id}", clean_name(self.name_of(interaction, e.from_player, names.get(e.from_player)), 10), "→",
                 clean_name(self.name_of(interaction, e.to_player, names.get(e.to_player)), 10), money(e.amount)]
                for e in reversed(reversed_entries)]
        body = line + ("\n" + code_block(table(rows, "llllr")) if rows else "")
        await self.show(interaction, discord.Embed(title=tr("ledger.undo.title", lang), description=body,
                                                   colour=discord.Colour.orange()))

    async def _last_hand(self, guild: str) -> int | None:
        """The newest hand of the server whose money still stands."""
        reversed_ids: set[int] = set()
        offset = 0
        while True:
            batch = await self.store.entries(guild, limit=200, offset=offset)
            if not batch:
                return None
            for e in batch:
                if e.reverses_id is not None:
                    reversed_ids.add(e.reverses_id)
                elif e.hand_id is not None and e.id not in reversed_ids:
                    return e.hand_id
            offset += len(batch)


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(Ledger(bot))
