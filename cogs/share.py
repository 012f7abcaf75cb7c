"""Answers only the asker sees, and the Share button that posts one for everyone.

The reading commands (balance, leaderboard, history, stats, chart, rules) answer privately: a public reply
would push the live board up the channel for every player at a table there, for an answer one member asked
for. Under each answer, 📤 Share posts it in the channel, naming who shared it, as Discord's own /giphy
preview does with Send: you see the answer first, then decide whether it is worth showing (a good week, a
chart). A `share:` option would have to be chosen before seeing the answer, and would lengthen every command.

Like the page buttons (cogs/paginate.py), the button keeps working after a restart: its custom id says what
to render (`kwx:share:<kind>:<arg>:<page>`) and the answer is rendered again from the store when pressed. The
cog that owns a kind lists it in `SHARE_KINDS` and implements `render_share`; `bot` must know `ShareButton`
(the ledger lookups cog, cogs/ledger_lookups.py, adds it when it loads).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import discord
from discord import app_commands

from cogs.buttons import ForgedPress, answer_not_loaded, forged
from cogs.inputs import id_number, id_token, member_key
from cogs.operations import safe_defer, safe_followup, safe_respond
from kwx.present.i18n import tr

NO_PINGS = discord.AllowedMentions.none()
# Drawn in a worker process: acknowledged first, posted when drawn, and shared no more often than the command
# itself may be used (two charts per 30 s a member, cogs/ledger_lookups.py CHART_COOLDOWN).
SLOW_KINDS = {"chart": (2, 30.0)}
MAX_TRACKED = 10_000  # members whose recent slow shares are remembered (forgotten all at once past it)
MAX_PAGE = 1_000_000  # as cogs/paginate.py: far past any list's end
KIND = re.compile(r"[a-z]{1,16}")
ARG = re.compile(r"[0-9a-z_-]{0,32}")  # a member id, a period, a rules preset, or nothing


@dataclass
class Shared:
    """One answer as sent: its embed (and the files its embed shows), and whether another page follows."""

    embed: discord.Embed
    files: list[discord.File] = field(default_factory=list)
    more: bool = False


class ShareCooldowns:
    """How often each member has shared a slow kind lately (one per bot: its sharer cog's)."""

    def __init__(self) -> None:
        self._presses: dict[tuple[int | None, int], app_commands.Cooldown] = {}

    def too_soon(self, interaction: discord.Interaction, rate: int, per: float) -> int:
        """Seconds the member must wait before sharing this kind again; 0 when they may now (and it counts)."""
        if len(self._presses) > MAX_TRACKED:
            self._presses.clear()
        bucket = self._presses.setdefault(member_key(interaction), app_commands.Cooldown(rate, per))
        retry = bucket.update_rate_limit()
        return max(1, math.ceil(retry)) if retry else 0


@runtime_checkable
class Sharer(Protocol):
    SHARE_KINDS: frozenset[str]
    share_cooldowns: ShareCooldowns

    def share_lang(self, interaction: discord.Interaction) -> str: ...

    async def render_share(self, interaction: discord.Interaction, kind: str, arg: str, page: int) -> Shared: ...


class ShareButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:share:(?P<fields>.*)"):
    def __init__(self, kind: str, arg: str, page: int = 0, *, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="📤", style=discord.ButtonStyle.secondary,
                                           custom_id=f"kwx:share:{kind}:{arg}:{page}"))
        self.kind, self.arg, self.page = kind, arg, page

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> ShareButton | ForgedPress:
        parts = match["fields"].split(":")  # <kind>:<arg>:<page>
        if len(parts) != 3:
            return forged(item)
        kind, arg, page = id_token(parts[0], KIND), id_token(parts[1], ARG), id_number(parts[2], MAX_PAGE)
        if kind is None or arg is None or page is None:
            return forged(item)
        return cls(kind, arg, page, label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        sharer = find_sharer(interaction.client, self.kind)
        if sharer is None:
            await answer_not_loaded(interaction)
            return
        lang = sharer.share_lang(interaction)
        if self.kind in SLOW_KINDS:
            wait = sharer.share_cooldowns.too_soon(interaction, *SLOW_KINDS[self.kind])
            if wait:
                await safe_respond(interaction, content=tr("input.cooldown", lang, command=f"kwx {self.kind}",
                                                          seconds=wait), ephemeral=True, allowed_mentions=NO_PINGS)
                return
            await safe_defer(interaction, thinking=True)
        shared = await sharer.render_share(interaction, self.kind, self.arg, self.page)
        answer: dict[str, Any] = {"content": tr("share.by", lang, member=interaction.user.mention),
                                  "embed": shared.embed, "allowed_mentions": NO_PINGS}
        if shared.files:
            answer["files"] = shared.files
        if interaction.response.is_done():
            await safe_followup(interaction, **answer)
        else:
            await safe_respond(interaction, **answer)


def find_sharer(client: Any, kind: str) -> Sharer | None:
    for cog in getattr(client, "cogs", {}).values():
        if isinstance(cog, Sharer) and kind in cog.SHARE_KINDS:
            return cog
    return None


def share_button(kind: str, arg: str, page: int, lang: str) -> ShareButton:
    return ShareButton(kind, arg, page, label=tr("share.button", lang))


def share_view(kind: str, arg: str, lang: str, page: int = 0) -> discord.ui.View:
    """A private answer's buttons: 📤 Share alone (a paged list uses `paginate.page_view(..., share=lang)`)."""
    view = discord.ui.View(timeout=None)
    view.add_item(share_button(kind, arg, page, lang))
    view.stop()  # the dynamic item answers presses; no view timer needed
    return view
