"""The Review cog: `/kwx review [hand] [member]`, 复盘 of a finished hand, answered privately.

Thin: the hand is loaded and checked by kwx.table.reviews (only hands the member sat in, unless they have Manage
Server; the seed against the ledger's commitment; the log against the recorded result), replayed and valued by
kwx.engine.review, and worded by kwx.present.review_text. The answer is an ephemeral message: the summary and
one step, with buttons ⏮ ◀ ▶ ⏭, my next decision, next big mistake and a picture of the step. Every press is
answered by an interaction response (an edit of that message), never by a REST call that counts against the
bot's global limit. A button's custom id carries the hand, the seat, the step and who asked
(`kwx:rv:<hand>:<seat>:<step>:<move>:<owner>`), so presses work after a restart: the review is then computed
again. Reviews are CPU work, run in a thread one at a time so the tables keep their share of the event loop.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.buttons import answer_not_loaded
from cogs.group import KwxGroupCog, text
from cogs.inputs import DISCORD_INT_LIMIT, SNOWFLAKE_MAX, excerpt, id_number, member_key, safe_text
from cogs.operations import safe_defer, safe_respond, safe_update_message
from kwx.engine.review import Review
from kwx.present.i18n import tr
from kwx.present.review_art import render_step
from kwx.present.review_text import ReviewText
from kwx.table.reviews import ReviewRefused, ReviewSource, last_table_hand, load_ledger_hand, review_hand

if TYPE_CHECKING:
    from cogs.bot import KwxBot

NO_PINGS = discord.AllowedMentions.none()
MOVES = ("first", "prev", "next", "last", "mine", "mistake")
PICTURE = "png"
CACHED = 32  # reviews kept for the buttons (a press after a restart or past this computes again)
REVIEW_COOLDOWN = (6, 60.0)  # reviews a member may open a minute
DESCRIPTION_MAX = 4096  # Discord's limit on an embed's description
MAX_HAND_ID = DISCORD_INT_LIMIT  # an integer option's bound: Discord refuses the whole sync past 2**53 - 1


class ReviewButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kwx:rv:(?P<hand>\d+):(?P<seat>[0-2]):(?P<step>\d+):(?P<move>[a-z]+):(?P<owner>\d+)"):
    def __init__(self, hand: int, seat: int, step: int, move: str, owner: int, *, label: str | None = None,
                 emoji: str | None = None, disabled: bool = False, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, emoji=emoji, disabled=disabled, row=row,
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"kwx:rv:{hand}:{seat}:{step}:{move}:{owner}"))
        self.hand, self.seat, self.step, self.move, self.owner = hand, seat, step, move, owner
        self.forged_hand: str | None = None  # a hand number no hand can have, as the pressed button wrote it

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> ReviewButton:
        # Each number by its kind (cogs.inputs), never int(): a forged id may carry thousands of digits, or a
        # hand past what the store can hold (SQLite's 2^63), which the store would refuse with a traceback.
        hand = id_number(match["hand"], MAX_HAND_ID)
        step, owner = id_number(match["step"]) or 0, id_number(match["owner"], SNOWFLAKE_MAX) or 0
        button = cls(hand or 0, int(match["seat"]), step, match["move"], owner, label=item.label)
        if hand is None:
            button.forged_hand = excerpt(match["hand"], 24)
        return button

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Review") if hasattr(interaction.client, "get_cog") else None
        if cog is None:
            await answer_not_loaded(interaction)
            return
        await cog.on_press(interaction, self)


class ReviewCog(KwxGroupCog, name="Review"):
    def __init__(self, bot: KwxBot) -> None:
        super().__init__(bot)
        self._cache: OrderedDict[tuple[str, int, int], tuple[ReviewSource, Review]] = OrderedDict()
        self._cpu = asyncio.Semaphore(1)

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.add_dynamic_items(ReviewButton)

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.remove_dynamic_items(ReviewButton)

    @app_commands.command(name="review", description=text("cmd.review"))
    @app_commands.describe(hand=text("cmd.review.hand"), member=text("cmd.review.member"))
    @app_commands.checks.cooldown(*REVIEW_COOLDOWN, key=member_key)
    async def review(self, interaction: discord.Interaction,
                     hand: app_commands.Range[int, 1, MAX_HAND_ID] | None = None,
                     member: discord.Member | None = None) -> None:
        lang, guild, viewer = self.lang(interaction), str(interaction.guild_id), str(interaction.user.id)
        await safe_defer(interaction, ephemeral=True, thinking=True)
        try:
            hand_id = hand if hand is not None else await last_table_hand(self.rt.store, guild, viewer)
            if hand_id is None:
                raise ReviewRefused("none", "no finished hand")
            source, done = await self._reviewed(interaction, hand_id, None, member)
        except ReviewRefused as refused:
            await self._refuse(interaction, refused, lang)
            return
        await safe_respond(interaction, ephemeral=True, allowed_mentions=NO_PINGS,
                           **self._message(source, done, 0, interaction.user.id, lang))

    async def on_press(self, interaction: discord.Interaction, button: ReviewButton) -> None:
        lang = self.lang(interaction)
        if interaction.user.id != button.owner:
            await safe_respond(interaction, content=tr("review.not_yours", lang), ephemeral=True)
            return
        if button.forged_hand is not None:
            await self._refuse(interaction, ReviewRefused("not_found", "no such hand", hand=button.forged_hand), lang)
            return
        await safe_defer(interaction)  # an update of this message, within Discord's 3 seconds
        try:
            source, done = await self._reviewed(interaction, button.hand, button.seat, None)
        except ReviewRefused as refused:
            await self._refuse(interaction, refused, lang)
            return
        step = min(button.step, len(done.frames) - 1)
        if button.move == PICTURE:
            async with self._cpu:
                png = await asyncio.to_thread(render_step, done, self._names(source), step, lang,
                                              hand_id=source.hand_id)
            message = self._message(source, done, step, button.owner, lang)
            message["embed"].set_image(url="attachment://review.png")
            await safe_update_message(interaction, attachments=[discord.File(io.BytesIO(png), "review.png")],
                                      **message)
            return
        step = done.step(step, button.move) if button.move in MOVES else step
        await safe_update_message(interaction, attachments=[], **self._message(source, done, step, button.owner, lang))

    # -- plumbing -----------------------------------------------------------------------------------------------
    async def _reviewed(self, interaction: discord.Interaction, hand_id: int, seat: int | None,
                        member: discord.Member | None) -> tuple[ReviewSource, Review]:
        """The hand, checked for this member (ReviewRefused), and its review from `seat` (default: the member
        named, else the asker's seat, else seat 0)."""
        guild, viewer = str(interaction.guild_id), str(interaction.user.id)
        sees_all = bool(interaction.permissions.manage_guild)
        if seat is not None:
            cached = self._cache.get((guild, hand_id, seat))
            if cached is not None and (sees_all or viewer in cached[0].players):
                self._cache.move_to_end((guild, hand_id, seat))
                return cached
        source = await load_ledger_hand(self.rt.store, guild, hand_id, viewer=viewer, sees_all=sees_all)
        if seat is None:
            if member is not None:
                seat = source.seat_of(str(member.id))
                if seat is None:
                    raise ReviewRefused("not_in_hand", "not in the hand", member=safe_text(member.display_name),
                                        hand=hand_id)
            else:
                seat = source.seat_of(viewer) or 0
        async with self._cpu:
            done = await asyncio.to_thread(review_hand, source, seat)
        self._cache[(guild, hand_id, seat)] = (source, done)
        while len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return source, done

    async def _refuse(self, interaction: discord.Interaction, refused: ReviewRefused, lang: str) -> None:
        fmt = {"hand": "?", "detail": "", "member": "", **refused.fmt}
        await safe_respond(interaction, content=tr(f"review.refused.{refused.code}", lang, **fmt), ephemeral=True,
                           allowed_mentions=NO_PINGS)

    def _names(self, source: ReviewSource) -> list[str]:
        return [safe_text(name, 32) for name in source.names]

    def _message(self, source: ReviewSource, done: Review, step: int, owner: int, lang: str) -> dict[str, Any]:
        words = ReviewText(done, self._names(source), lang, hand_id=source.hand_id)
        body = "\n".join(words.summary_lines()) + "\n\n" + "\n".join(words.frame_lines(step))
        if len(body) > DESCRIPTION_MAX:
            body = body[:DESCRIPTION_MAX - 1] + "…"
        embed = discord.Embed(title=words.title(), description=body, colour=discord.Colour.dark_teal())
        return {"embed": embed, "view": self._buttons(source, done, step, owner, lang)}

    def _buttons(self, source: ReviewSource, done: Review, step: int, owner: int, lang: str) -> discord.ui.View:
        hand = source.hand_id or 0
        view = discord.ui.View(timeout=None)
        marks = {"first": ("⏮", None), "prev": ("◀", None), "next": ("▶", None), "last": ("⏭", None),
                 "mine": (None, tr("review.button.mine", lang)), "mistake": (None, tr("review.button.mistake", lang))}
        for i, move in enumerate(MOVES):
            emoji, label = marks[move]
            view.add_item(ReviewButton(hand, done.seat, step, move, owner, emoji=emoji, label=label, row=i // 4,
                                       disabled=done.step(step, move) == step))
        view.add_item(ReviewButton(hand, done.seat, step, PICTURE, owner, label=tr("review.button.picture", lang),
                                   row=1))
        view.stop()  # the dynamic items answer presses; no view timer needed
        return view


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(ReviewCog(bot))
