"""Money that moves with consent: `/kwx pay` and `/kwx record` (cogs/confirm.py).

`pay` waits for the recipient (who confirms the cash reached them), `record` for every member who would pay.
A request is public and mentions only the members it waits for; it survives a restart (the flow keeps it in
the store) and expires if nobody finishes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from cogs.confirm import CANCELLED, DONE, EXPIRED, FAILED, OPEN, ConfirmButton, ConfirmFlow, Pending, Texts
from cogs.group import text
from cogs.inputs import NOTE_MAX, TILE_MAX, TILES_MAX, checks_itself, member_key, safe_text, whole_number
from cogs.ledger_common import LedgerCog, mention
from kwx.engine.rules import PRESETS, RuleSet
from kwx.present.i18n import join_names, pattern_name, tr
from kwx.present.ledger_text import clean_name, code_block, money, table
from kwx.store import LedgerPayment
from kwx.table.defaults import guild_settings
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
    from cogs.bot import KwxBot

REQUEST_RATE = (10, 60.0)  # at most 10 pay/record requests a minute a member (per server)
STATE_COLOURS = {OPEN: discord.Colour.blurple(), DONE: discord.Colour.green(), CANCELLED: discord.Colour.dark_grey(),
                 EXPIRED: discord.Colour.dark_grey(), FAILED: discord.Colour.dark_grey()}
PRESET_CHOICES = [app_commands.Choice(name=p, value=p) for p in PRESETS]


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


class PayRequest:
    """`/kwx pay`: the payer handed the recipient cash; the recipient confirms; a settlement is recorded."""

    def __init__(self, cog: LedgerRequests) -> None:
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

    def __init__(self, cog: LedgerRequests) -> None:
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


class LedgerRequests(LedgerCog, name="LedgerRequests"):
    def __init__(self, bot: KwxBot) -> None:
        super().__init__(bot)
        self._flow: ConfirmFlow | None = None

    @property
    def confirm_flow(self) -> ConfirmFlow:
        if self._flow is None:
            self._flow = ConfirmFlow(self.bot, self.store, {"pay": PayRequest(self), "record": RecordRequest(self)},
                                     lang_of=self.rt.languages.of, texts_of=confirm_texts)
        return self._flow

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.add_dynamic_items(ConfirmButton)
        if getattr(self.bot, "kwx", None) is not None:
            await self.confirm_flow.restore()

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.remove_dynamic_items(ConfirmButton)
        if self._flow is not None:
            self._flow.close()

    async def refuse_bot(self, interaction: discord.Interaction, *members: discord.abc.User | None) -> bool:
        for member in members:
            if member is not None and member.bot:
                await self.say(interaction, tr("ledger.error.bot_member", self.lang(interaction),
                                              member=safe_text(member.display_name)))
                return True
        return False

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
