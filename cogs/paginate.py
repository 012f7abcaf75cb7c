"""Page buttons (◀ ▶) for long lists — history, leaderboard — that keep working after a restart.

A page is rendered from the store on every press, so nothing is held in memory: the button's custom id says
what list it is, which page it leads to and who asked (`kwx:pg:<kind>:<arg>:<page>:<owner>`). Only that member
may turn the pages (others get a private note and can run the command themselves). The cog that owns a kind
lists it in `PAGER_KINDS` and implements `render_page`; `bot` must know `PageButton` (the cog adds it with
`add_dynamic_items` when it loads).
"""

from __future__ import annotations

import re
from typing import Any, Protocol, runtime_checkable

import discord

from cogs.buttons import ForgedPress, answer_not_loaded, forged
from cogs.inputs import SNOWFLAKE_MAX, id_number, id_token
from cogs.operations import safe_respond, safe_update_message
from cogs.share import share_button
from kwx.present.i18n import tr

MAX_PAGE = 1_000_000  # far past any list's end (a page there is empty), and page × size stays a small integer
KIND = re.compile(r"[a-z]{1,16}")
ARG = re.compile(r"[0-9a-z_-]{0,32}")  # a period, a member id


@runtime_checkable
class Pager(Protocol):
    PAGER_KINDS: frozenset[str]

    def pager_lang(self, interaction: discord.Interaction) -> str: ...

    async def render_page(self, interaction: discord.Interaction, kind: str, arg: str,
                          page: int) -> tuple[discord.Embed, bool]: ...  # the page, and whether one follows


class PageButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:pg:(?P<fields>.*)"):
    def __init__(self, kind: str, arg: str, page: int, owner: int, *, label: str,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, disabled=disabled, style=discord.ButtonStyle.secondary,
                                           custom_id=f"kwx:pg:{kind}:{arg}:{page}:{owner}"))
        self.kind, self.arg, self.page, self.owner = kind, arg, page, owner

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> PageButton | ForgedPress:
        parts = match["fields"].split(":")  # <kind>:<arg>:<page>:<owner>
        if len(parts) != 4:
            return forged(item)
        kind, arg = id_token(parts[0], KIND), id_token(parts[1], ARG)
        page, owner = id_number(parts[2], MAX_PAGE), id_number(parts[3], SNOWFLAKE_MAX)
        if kind is None or arg is None or page is None or owner is None:
            return forged(item)
        return cls(kind, arg, page, owner, label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        pager = find_pager(interaction.client, self.kind)
        if pager is None:
            await answer_not_loaded(interaction)
            return
        lang = pager.pager_lang(interaction)
        if interaction.user.id != self.owner:
            await safe_respond(interaction, content=tr("ledger.page.not_yours", lang), ephemeral=True)
            return
        embed, more = await pager.render_page(interaction, self.kind, self.arg, self.page)
        share = lang if self.kind in getattr(pager, "SHARE_KINDS", ()) else None
        await safe_update_message(interaction, embed=embed,
                                  view=page_view(self.kind, self.arg, self.page, more, self.owner, share=share),
                                  allowed_mentions=discord.AllowedMentions.none())


def find_pager(client: Any, kind: str) -> Pager | None:
    for cog in getattr(client, "cogs", {}).values():
        if isinstance(cog, Pager) and kind in cog.PAGER_KINDS:
            return cog
    return None


def page_view(kind: str, arg: str, page: int, more: bool, owner: int, *,
              share: str | None = None) -> discord.ui.View | None:
    """◀ n ▶ for page `page` (0-based), and with `share` (the language) the 📤 Share button of this page
    (cogs/share.py); None when there is nothing to show (one page, no sharing)."""
    paged = page > 0 or more
    if not paged and share is None:
        return None
    view = discord.ui.View(timeout=None)
    if paged:
        view.add_item(PageButton(kind, arg, max(0, page - 1), owner, label="◀", disabled=page == 0))
        view.add_item(discord.ui.Button(label=str(page + 1), disabled=True, custom_id=f"kwx:pgn:{kind}:{page}"))
        view.add_item(PageButton(kind, arg, page + 1, owner, label="▶", disabled=not more))
    if share is not None:
        view.add_item(share_button(kind, arg, page, share))
    view.stop()  # the dynamic items answer presses; no view timer needed
    return view
