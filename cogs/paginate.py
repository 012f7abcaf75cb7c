"""Page buttons (◀ ▶) for long lists — history, leaderboard — that keep working after a restart.

A page is rendered from the store on every press, so nothing is held in memory: the button's custom id says
what list it is, which page it leads to and who asked (`kwx:pg:<kind>:<arg>:<page>:<owner>`). Only that member
may turn the pages (others get a private note and can run the command themselves). The cog that owns a kind
lists it in `PAGER_KINDS` and implements `render_page`; `bot` must know `PageButton` (the cog adds it with
`add_dynamic_items` when it loads).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from cogs.buttons import answer_not_loaded
from cogs.operations import safe_respond, safe_update_message
from kwx.present.i18n import t


class Pager(Protocol):
    PAGER_KINDS: frozenset[str]

    def pager_lang(self, interaction: discord.Interaction) -> str: ...

    async def render_page(self, interaction: discord.Interaction, kind: str, arg: str,
                          page: int) -> tuple[discord.Embed, bool]: ...  # the page, and whether one follows


class PageButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"kwx:pg:(?P<kind>[a-z]+):(?P<arg>[0-9a-z_-]*):(?P<page>\d+):(?P<owner>\d+)"):
    def __init__(self, kind: str, arg: str, page: int, owner: int, *, label: str,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, disabled=disabled, style=discord.ButtonStyle.secondary,
                                           custom_id=f"kwx:pg:{kind}:{arg}:{page}:{owner}"))
        self.kind, self.arg, self.page, self.owner = kind, arg, page, owner

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> PageButton:
        return cls(match["kind"], match["arg"], int(match["page"]), int(match["owner"]), label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        pager = find_pager(interaction.client, self.kind)
        if pager is None:
            await answer_not_loaded(interaction)
            return
        lang = pager.pager_lang(interaction)
        if interaction.user.id != self.owner:
            await safe_respond(interaction, content=t("ledger.page.not_yours", lang), ephemeral=True)
            return
        embed, more = await pager.render_page(interaction, self.kind, self.arg, self.page)
        await safe_update_message(interaction, embed=embed,
                                  view=page_view(self.kind, self.arg, self.page, more, self.owner),
                                  allowed_mentions=discord.AllowedMentions.none())


def find_pager(client: Any, kind: str) -> Pager | None:
    for cog in getattr(client, "cogs", {}).values():
        if kind in getattr(cog, "PAGER_KINDS", ()):
            return cog  # type: ignore[no-any-return]
    return None


def page_view(kind: str, arg: str, page: int, more: bool, owner: int) -> discord.ui.View | None:
    """◀ n ▶ for page `page` (0-based); None when everything fits on the first page."""
    if page == 0 and not more:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(kind, arg, max(0, page - 1), owner, label="◀", disabled=page == 0))
    view.add_item(discord.ui.Button(label=str(page + 1), disabled=True, custom_id=f"kwx:pgn:{kind}:{page}"))
    view.add_item(PageButton(kind, arg, page + 1, owner, label="▶", disabled=not more))
    view.stop()  # the dynamic items answer presses; no view timer needed
    return view
