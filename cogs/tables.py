"""The Tables cog: `/kwx new | join | leave | addbot | start | stop [table_id] | tables | hand | spectate |
language` and every button press (lobby buttons, the board's My hand / Resume / 取消托管, the hand panels'
actions), and the listeners that close the tables of a channel, thread or server that went away.

Presence: any press of a player's own panel, `/kwx hand` and the board's 取消托管 end that player's 托管; the
board's Resume (a seated player) resumes a paused table. `/kwx leave` in a started game leaves at the end of
the hand. `/kwx stop [table_id]`: the host, a member with Manage Server (that server's tables), or the bot's
owner (KWX_OWNER_ID, every server) may stop a table, also one whose channel is gone.

A table lives in one channel or thread (`TableService.table_in_channel`); a server may have many. The cog only
translates Discord into service calls and answers the person who asked; everything the table shows (lobby,
board, hands) is sent by the front end (cogs/frontend.py) when the service reports the change. Refusals are
`TableError`s, answered privately with the catalog's `error.<code>` text; nothing changes then.

A panel press is one service call (`TableService.press`, kwx/table/press.py), which decides every refusal
(no seat, another hand, a past step or a second press of the same button), whether to ask first (a costly move,
亮倒) and what the panel shows now; here only a press in someone else's DM is refused (`not_your_button`). The
press is answered at once (a refusal privately, else a deferred update) and its token handed to the DM worker
(cogs/dm_panels.py), the panel's only writer.

In a cluster of processes (kwx.cluster) `/kwx new` first takes its server's lease, and a press of a table
another process runs (a DM press reaches shard 0's process) is deferred and forwarded there (cogs/forwarding.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from cogs import board as boards
from cogs.buttons import PANEL_MODE_VERBS, ActId, PanelVerb, press_of, release
from cogs.forwarding import forward_press
from cogs.group import KwxGroupCog, text
from cogs.inputs import DISCORD_INT_LIMIT
from cogs.operations import PRESS_DONE, safe_defer, safe_respond
from cogs.panels import CONFIRM, LIANGDAO, NORMAL, PanelMessage
from cogs.permissions import missing_permissions, missing_text
from kwx.engine.ai import AI_LEVELS
from kwx.engine.rules import PRESETS, RulesError, RuleSet
from kwx.present.i18n import LANGUAGES, tr
from kwx.table.defaults import table_defaults
from kwx.table.errors import TableError, refusal_text
from kwx.table.press import LOOK, Press, PressOutcome
from kwx.table.views import ActionChoice, PlayerRef, PrivateView

if TYPE_CHECKING:
    from cogs.bot import KwxBot

logger = logging.getLogger(__name__)

LANGUAGE_NAMES = {"zh-CN": "简体中文", "en": "English"}
T = TypeVar("T")
ANSWER_WITHIN = 2.0  # seconds a press waits for the service before it is deferred (Discord allows 3)



def _send_kwargs(message: PanelMessage) -> dict[str, Any]:
    """Sends take no `view=None` (that means "remove the buttons", which only an edit can do)."""
    return {k: v for k, v in message.items() if not (k == "view" and v is None)}


class Tables(KwxGroupCog, name="Tables"):
    # == helpers ==========================================================================================
    def lang(self, interaction: discord.Interaction, table_id: int | None = None) -> str:
        guild: int | str | None = interaction.guild_id
        if guild is None and table_id is not None:  # a DM: the table's server decides
            guild = self.rt.frontend.table_guild(table_id)
        return self.rt.languages.of(guild)

    @staticmethod
    def me(interaction: discord.Interaction) -> PlayerRef:
        user = interaction.user
        return PlayerRef(str(user.id), user.display_name)

    async def say(self, interaction: discord.Interaction, content: str) -> None:
        await safe_respond(interaction, content=content, ephemeral=True)

    async def refuse(self, interaction: discord.Interaction, err: TableError | str, table_id: int | None = None,
                     **fmt: Any) -> None:
        lang = self.lang(interaction, table_id)
        content = refusal_text(err, lang) if isinstance(err, TableError) else tr(f"error.{err}", lang, **fmt)
        await self.say(interaction, content)

    async def refuse_if_busy(self, interaction: discord.Interaction, table_id: int | None = None) -> bool:
        """Admission: when the bot's budget is full (one more busy board would be edited too rarely), a new or
        starting table is refused, with roughly how long until there is room, instead of slowing every table."""
        budget = self.rt.rest.budget
        if budget.room_for_table(table_id):
            return False
        minutes = max(1, round(budget.wait_for_room_s(table_id) / 60))
        await self.refuse(interaction, "bot_busy", table_id, minutes=minutes)
        return True

    def table_here(self, interaction: discord.Interaction) -> int:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise TableError("no_table", "tables live in server channels")
        found = self.rt.service.table_in_channel(str(interaction.guild_id), str(interaction.channel_id))
        if found is None:
            raise TableError("no_table", "there is no table in this channel")
        return found

    @staticmethod
    def is_manager(interaction: discord.Interaction) -> bool:
        return bool(interaction.permissions.manage_guild)

    # == the operations (shared by commands and lobby buttons); each returns its confirmation ================
    async def do_join(self, interaction: discord.Interaction, table_id: int) -> str:
        await self.rt.service.join(table_id, self.me(interaction))
        return tr("cmd.joined", self.lang(interaction), table=table_id)

    async def do_leave(self, interaction: discord.Interaction, table_id: int) -> str:
        started = self.rt.service.public_view_as_shown(table_id).phase != "lobby"
        await self.rt.service.leave(table_id, str(interaction.user.id))
        return tr("cmd.left_game" if started else "cmd.left", self.lang(interaction), table=table_id)

    async def do_resume(self, interaction: discord.Interaction, table_id: int) -> str:
        await self.rt.service.resume(table_id, str(interaction.user.id))
        return tr("table.resumed", self.lang(interaction), player=interaction.user.display_name)

    async def back_from_autoplay(self, table_id: int, player_id: str) -> None:
        """The player is here (pressed their panel, asked for their hand, pressed 取消托管): 托管 ends."""
        service = self.rt.service
        try:
            seats = service.public_view_as_shown(table_id).seats
        except TableError:
            return
        if any(s.player.player_id == player_id and s.autoplay for s in seats):
            with contextlib.suppress(TableError):
                await service.set_autoplay(table_id, player_id, False)

    def may_stop(self, interaction: discord.Interaction, table_id: int) -> bool:
        """The host, a manager of the table's server, or the bot's owner."""
        uid = str(interaction.user.id)
        owner = getattr(getattr(self.bot, "settings", None), "owner_id", None)
        if owner is not None and uid == str(owner):
            return True
        info = self.rt.service.table_of(table_id)
        if info is None:
            return False
        if info.host is not None and info.host.player_id == uid:
            return True
        return str(interaction.guild_id) == info.guild and self.is_manager(interaction)

    async def do_addbot(self, interaction: discord.Interaction, table_id: int, level: str = "standard") -> str:
        player = await self.rt.service.add_ai(table_id, level, by=str(interaction.user.id))
        return tr("lobby.ai_added", self.lang(interaction), name=player.name)

    async def do_start(self, interaction: discord.Interaction, table_id: int) -> str:
        await self.rt.service.start_game(table_id, by=str(interaction.user.id))
        return tr("lobby.started", self.lang(interaction))

    async def show_hand(self, interaction: discord.Interaction, table_id: int) -> None:
        """The hand panel as an ephemeral message (everyone, any time; the way in for closed DMs)."""
        rt = self.rt
        pid = str(interaction.user.id)
        try:
            view = rt.service.private_view_as_shown(table_id, pid)
        except TableError as err:
            await self.refuse(interaction, err, table_id)
            return
        lang = self.lang(interaction, table_id)
        message = rt.frontend.panel(view, lang)
        if rt.frontend.dms_closed(pid):
            message["content"] = tr("error.dms_closed_self", lang, button=tr("action.my_hand", lang))
        if await safe_respond(interaction, ephemeral=True, **_send_kwargs(message)):
            rt.frontend.shown_by_interaction(interaction, view, live=bool(view.choices))
        release(message["view"])  # no 15-minute timer: the buttons are dynamic items

    async def run(self, interaction: discord.Interaction, op: Any, *args: Any, table_id: int | None = None) -> None:
        """A slash command: find the table (unless given), run the operation, answer privately."""
        try:
            table = table_id if table_id is not None else self.table_here(interaction)
            done = await self.in_time(interaction, op(interaction, table, *args), thinking=True)
        except TableError as err:
            await self.refuse(interaction, err, table_id)
            return
        await self.say(interaction, done)
        if op in (self.do_join, self.do_start):  # once answered: a followup of an unanswered command fails
            self.rt.frontend.seated(interaction, table)

    # == slash commands ===================================================================================
    @app_commands.command(name="new", description=text("cmd.new"))
    @app_commands.describe(rules=text("cmd.new.rules"), base=text("cmd.new.base"),
                           turn_seconds=text("cmd.new.turn_seconds"))
    @app_commands.choices(rules=[app_commands.Choice(name=name, value=name) for name in PRESETS])
    async def new(self, interaction: discord.Interaction, rules: str | None = None,
                  base: app_commands.Range[int, 1, 100_000] | None = None,
                  turn_seconds: app_commands.Range[int, 10, 600] | None = None) -> None:
        """Options left out take the server's defaults (`/kwx-admin config`, kwx/table/defaults.py)."""
        rt = self.rt
        lang = self.lang(interaction)
        if interaction.guild_id is None or interaction.channel_id is None:
            await self.refuse(interaction, TableError("no_table", "tables live in server channels"))
            return
        missing = missing_permissions(interaction.app_permissions, thread=isinstance(interaction.channel, discord.Thread),
                                      tile_emojis=bool(rt.tiles.emojis))
        if missing:  # Discord would refuse the board or the results: say what to grant instead
            await self.say(interaction, missing_text(missing, lang))
            return
        if await self.refuse_if_busy(interaction):
            return
        # The store may be slow on a busy evening: past Discord's 3 s the command is deferred, then answered.
        opened = await self.in_time(interaction, self.open_here(interaction, lang, rules, base, turn_seconds),
                                    thinking=True)
        if isinstance(opened, str):
            await self.say(interaction, opened)
            return
        await self.say(interaction, tr("cmd.opened", lang, table=opened))
        rt.frontend.seated(interaction, opened)

    async def open_here(self, interaction: discord.Interaction, lang: str, rules: str | None, base: int | None,
                        turn_seconds: int | None) -> int | str:
        """/kwx new's table, opened in the interaction's channel with the server's defaults: its id, or what to
        answer instead."""
        rt = self.rt
        cluster = self.bot.cluster  # one process of several: this server's tables are this process's to run
        if cluster is not None and not await cluster.claim(str(interaction.guild_id)):
            return tr("error.run_elsewhere", lang)
        defaults = await table_defaults(rt.store, str(interaction.guild_id))
        turn = float(turn_seconds if turn_seconds is not None else defaults["turn_seconds"])
        try:
            ruleset = RuleSet.preset(rules or defaults["preset"], base=base if base is not None else defaults["base"])
        except RulesError as err:
            return f"{tr('error.illegal', lang)} ({err})"
        try:
            return await rt.service.open_table(
                str(interaction.guild_id), str(interaction.channel_id), self.me(interaction), rules=ruleset,
                turn_seconds=turn, claim_seconds=min(float(defaults["claim_seconds"]), turn), seed=rt.table_seed,
                max_open=defaults["max_tables"], max_hosted=defaults["max_hosted"])
        except TableError as err:
            return refusal_text(err, lang)

    @app_commands.command(name="join", description=text("cmd.join"))
    async def join(self, interaction: discord.Interaction) -> None:
        await self.run(interaction, self.do_join)

    @app_commands.command(name="leave", description=text("cmd.leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.run(interaction, self.do_leave)

    @app_commands.command(name="addbot", description=text("cmd.addbot"))
    @app_commands.describe(level=text("cmd.addbot.level"))
    @app_commands.choices(level=[app_commands.Choice(name=name, value=name) for name in AI_LEVELS])
    async def addbot(self, interaction: discord.Interaction, level: str = "standard") -> None:
        await self.run(interaction, self.do_addbot, level)

    @app_commands.command(name="start", description=text("cmd.start"))
    async def start(self, interaction: discord.Interaction) -> None:
        if await self.refuse_if_busy(interaction):
            return
        await self.run(interaction, self.do_start)

    @app_commands.command(name="stop", description=text("cmd.stop"))
    @app_commands.describe(table_id=text("cmd.stop.table_id"))
    async def stop(self, interaction: discord.Interaction,
                   table_id: app_commands.Range[int, 1, DISCORD_INT_LIMIT] | None = None) -> None:
        try:
            table = table_id if table_id is not None else self.table_here(interaction)
            info = self.rt.service.table_of(table)
            owner = getattr(getattr(self.bot, "settings", None), "owner_id", None)
            if info is None or (info.guild != str(interaction.guild_id) and str(interaction.user.id) != str(owner)):
                raise TableError("no_table", f"there is no open table {table} in this server")
            if not self.may_stop(interaction, table):
                raise TableError("not_host", "only the host (or a manager) can stop the table")
            await self.rt.service.stop(table, str(interaction.user.id), force=True)
        except TableError as err:
            await self.refuse(interaction, err)
            return
        await self.say(interaction, tr("cmd.stopped", self.lang(interaction), table=table))

    @app_commands.command(name="tables", description=text("cmd.tables"))
    async def tables(self, interaction: discord.Interaction) -> None:
        """The server's open tables: id, channel, players, status, hands, last human action, running totals."""
        lang = self.lang(interaction)
        infos = self.rt.service.table_infos(str(interaction.guild_id))
        await safe_respond(interaction, embed=boards.tables_embed(infos, lang), ephemeral=True)

    @app_commands.command(name="hand", description=text("cmd.hand"))
    async def hand(self, interaction: discord.Interaction) -> None:
        try:
            table = self.table_here(interaction)
        except TableError as err:
            await self.refuse(interaction, err)
            return
        await self.back_from_autoplay(table, str(interaction.user.id))
        await self.show_hand(interaction, table)

    @app_commands.command(name="spectate", description=text("cmd.spectate"))
    async def spectate(self, interaction: discord.Interaction) -> None:
        try:
            table = self.table_here(interaction)
            await self.rt.service.spectate(table, self.me(interaction))
        except TableError as err:
            await self.refuse(interaction, err)
            return
        self.rt.frontend.refresh(table)  # the lobby lists spectators
        await self.say(interaction, tr("lobby.spectating", self.lang(interaction), table=table))

    @app_commands.command(name="language", description=text("cmd.language"))
    @app_commands.describe(language=text("cmd.language.language"))
    @app_commands.choices(language=[app_commands.Choice(name=LANGUAGE_NAMES[x], value=x) for x in LANGUAGES])
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        if interaction.guild_id is None:
            await self.refuse(interaction, TableError("no_table", "a server setting"))
            return
        if not self.is_manager(interaction):
            await self.refuse(interaction, "not_manager")
            return
        lang = await self.rt.languages.set(interaction.guild_id, language)
        await self.say(interaction, tr("cmd.language_set", lang, language=LANGUAGE_NAMES[lang]))

    # == button presses ===================================================================================
    async def on_table_press(self, interaction: discord.Interaction, table_id: int, verb: str) -> None:
        if await forward_press(self.bot, interaction, table_id):  # another process runs it
            return
        if verb == "hand":
            await self.back_from_autoplay(table_id, str(interaction.user.id))
            await self.show_hand(interaction, table_id)
            return
        if verb == "unauto":
            pid = str(interaction.user.id)
            try:
                seats = self.rt.service.public_view_as_shown(table_id).seats
            except TableError as err:
                await self.refuse(interaction, err, table_id)
                return
            if not any(s.player.player_id == pid and s.autoplay for s in seats):
                await self.refuse(interaction, "not_autoplay", table_id)
                return
            await self.back_from_autoplay(table_id, pid)
            await safe_defer(interaction)
            return
        ops = {"join": self.do_join, "leave": self.do_leave, "addbot": self.do_addbot, "start": self.do_start,
               "resume": self.do_resume}
        op = ops.get(verb)
        if op is None:
            await self.refuse(interaction, "generic")
            return
        if verb == "start" and await self.refuse_if_busy(interaction, table_id):
            return
        try:
            await op(interaction, table_id)
        except TableError as err:
            await self.refuse(interaction, err, table_id)
            return
        await safe_defer(interaction)  # the lobby message itself shows the change
        if verb in ("join", "start"):
            self.rt.frontend.seated(interaction, table_id)

    async def on_act_press(self, interaction: discord.Interaction, act: ActId) -> None:
        """A press of a hand panel: one service call (TableService.press), answered here within Discord's 3
        seconds; the panel itself is then written by the DM worker alone, through this press's token."""
        try:
            await self._act_press(interaction, act)
        finally:
            interaction.extras[PRESS_DONE] = True  # the panel may release it once it edits through it no more

    async def _act_press(self, interaction: discord.Interaction, act: ActId) -> None:
        if await forward_press(self.bot, interaction, act.table):  # a DM press of a table run elsewhere
            return
        rt = self.rt
        pid = str(interaction.user.id)
        owner = rt.frontend.dm_owner(interaction.channel_id) if interaction.guild_id is None else None
        if owner is not None and owner != pid:
            await self.refuse(interaction, "not_your_button", act.table)
            return
        rt.frontend.press_arrived(interaction, act.table)
        if act.verb in PANEL_MODE_VERBS:  # 亮倒 picks / back: only the panel changes
            view = await self.answered(interaction, self.rt.service.press(act.table, pid, Press(
                LOOK, step=act.step, hand=act.hand)), act.table)
            if view is not None:
                await rt.frontend.pressed(interaction, view, mode=LIANGDAO if act.verb is PanelVerb.SHOW_LIANGDAO_PICKS else NORMAL)
            return
        outcome = await self.in_time(interaction, rt.service.press(act.table, pid, press_of(act)))
        if outcome.refusal is not None:
            await self.refuse(interaction, outcome.refusal, act.table)
            return
        if outcome.view is None:
            await safe_defer(interaction)
            return  # the table closed with this press: its close takes the buttons off
        ask = outcome.ask
        await rt.frontend.pressed(interaction, outcome.view, mode=CONFIRM if ask is not None else NORMAL,
                                  confirm=ActionChoice(ask.verb, ask.tile) if ask is not None else None)

    async def answered(self, interaction: discord.Interaction, call: Awaitable[PressOutcome],
                       table_id: int) -> PrivateView | None:
        """A press that only changes the panel's mode: its view when the decision still stands, else the
        refusal is said."""
        outcome = await self.in_time(interaction, call)
        view = outcome.view
        if outcome.refusal is not None or view is None or not view.choices:
            await self.refuse(interaction, outcome.refusal or TableError("stale", "that decision has passed"), table_id)
            return None
        return view

    @staticmethod
    async def in_time(interaction: discord.Interaction, call: Awaitable[T], *, thinking: bool = False) -> T:
        """The service's answer; when it takes longer than Discord waits (a busy store, a busy bot), the
        interaction is deferred first, so it is answered in time and the answer follows (a command's as its
        private "thinking" message, filled in by the answer)."""
        task = asyncio.ensure_future(call)
        done, _ = await asyncio.wait({task}, timeout=ANSWER_WITHIN)
        if not done:
            await safe_defer(interaction, ephemeral=thinking, thinking=thinking)
        return await task


    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A press of a kwx button that its message no longer carries (the panel was edited since: a double tap,
        a tap on a panel just replaced) is dropped by discord.py's view store without a word, and the presser
        would read "This interaction failed": it is told here instead that the button is stale. A press of a
        button the message does carry is answered by that button."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id.startswith("kwx:"):
            return
        if custom_id in _custom_ids(interaction.message):
            return
        table = ActId.parse(custom_id[len("kwx:act:"):]) if custom_id.startswith("kwx:act:") else None
        await self.refuse(interaction, TableError("stale", "that button was replaced"),
                          table.table if table is not None else None)

    # == channels, threads and servers that go away =======================================================
    async def close_gone(self, guild: int | str | None, channel: int | str | None = None) -> None:
        if guild is None or self.bot.kwx is None:
            return
        closed = await self.rt.service.close_where(str(guild), None if channel is None else str(channel),
                                                   reason="channel_gone")
        if closed:
            logger.info("closed table(s) %s: %s %s went away", closed, "channel" if channel else "server",
                        channel or guild)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.close_gone(guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.close_gone(channel.guild.id, channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.close_gone(payload.guild_id, payload.thread_id)

    @commands.Cog.listener()
    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        if after.archived and not before.archived:
            await self.close_gone(after.guild.id, after.id)


def _custom_ids(message: discord.Message | None) -> set[str]:
    """The custom ids of a message's components as Discord sent them with the press."""
    found: set[str] = set()
    stack: list[Any] = list(message.components) if message is not None else []
    while stack:
        item = stack.pop()
        if isinstance(getattr(item, "custom_id", None), str):
            found.add(item.custom_id)
        stack.extend(getattr(item, "children", ()))
    return found


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(Tables(bot))
