"""Discord's side of the web table (kwx/web): serving it beside the bot, and the board's two buttons.

    kwx:web:<table>:open   打开牌桌 / Open the table: answered with LAUNCH_ACTIVITY, Discord opens the Activity
                           in that channel (the page finds the table by its channel)
    kwx:web:<table>:link   在浏览器中打开 / Open in a browser: the presser's personal link, answered to them alone

The buttons are on the board while a hand is in play, and only when the bot serves the pages (KWX_WEB_PORT;
"open" also needs the Activity's secret, DISCORD_CLIENT_SECRET). A seated player's DM panel carries their
personal link itself, as a link button (`personal_link`).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from cogs.operations import safe_respond
from kwx.present.i18n import tr
from kwx.web.hub import WebFrontEnd
from kwx.web.oauth import DiscordOAuth
from kwx.web.seats import SeatLinks, secret_from
from kwx.web.server import WebServer

logger = logging.getLogger(__name__)

WEB_VERBS = ("open", "link")
ENTRY_POINT_TYPE = 4  # PRIMARY_ENTRY_POINT: how an app with Activities is launched from the App Launcher
LAUNCH_BY_DISCORD = 2  # its handler: Discord opens the Activity itself, no interaction reaches the bot


def entry_point_command() -> dict[str, Any]:
    """The app's entry point command: Discord launches the Activity (the page finds the table by its channel)."""
    return {"name": "launch", "type": ENTRY_POINT_TYPE, "handler": LAUNCH_BY_DISCORD,
            "description": tr("web.entry_point", "en"),
            "description_localizations": {"zh-CN": tr("web.entry_point", "zh-CN")},
            "integration_types": [0], "contexts": [0]}


async def sync_with_entry_point(client: Any) -> None:
    """The global slash commands and the entry point command in one overwrite: Discord refuses an overwrite that
    drops an Activity's entry point (50240), so a bot with an Activity cannot use tree.sync() alone."""
    tree, translator = client.tree, client.tree.translator
    payload = [await c.get_translated_payload(tree, translator) if translator is not None else c.to_dict(tree)
               for c in tree.get_commands()]
    await client.http.bulk_upsert_global_commands(client.application_id, payload=[*payload, entry_point_command()])


async def serve_web(client: Any, service: Any, hub: WebFrontEnd, settings: Any, store: Any) -> WebServer:
    """The web root for this bot's tables, listening on KWX_WEB_HOST:KWX_WEB_PORT (0: any free port)."""
    seed = settings.web_secret or settings.discord_token or ""
    oauth = None
    if settings.client_secret and client.application_id:
        oauth = DiscordOAuth(str(client.application_id), settings.client_secret, api_base=settings.api_base,
                             bot_token=settings.discord_token)
    server = WebServer(service, hub, SeatLinks(secret_from(seed)), oauth=oauth, store=store,
                       default_lang=settings.lang)
    port = await server.start(settings.web_host, settings.web_port or 0)
    logger.info("table pages at http://%s:%d/ (public address %s)", settings.web_host, port,
                settings.web_url or "unset: KWX_WEB_URL")
    return server


def personal_link(client: Any, table_id: int, player_id: str, lang: str) -> str | None:
    """The player's own signed, expiring link to their seat at the table (kwx.web.seats), on the public address
    (KWX_WEB_URL, else where the pages listen); None when this bot serves no pages."""
    runtime = getattr(client, "kwx", None)
    web: WebServer | None = getattr(runtime, "web", None)
    if web is None:
        return None
    base = getattr(runtime, "web_url", None) or f"http://127.0.0.1:{web.port}/"
    return f"{base}?lang={lang}#link={web.sessions.links.issue(table_id, player_id)}"


def web_buttons(client: Any, table_id: int, lang: str) -> list[discord.ui.Item[Any]]:
    """The board's web buttons for this bot: none when it serves no pages."""
    web: WebServer | None = getattr(getattr(client, "kwx", None), "web", None)
    if web is None:
        return []
    items: list[discord.ui.Item[Any]] = []
    if web.oauth is not None:
        items.append(WebButton(table_id, "open", label=tr("web.open_table", lang), style=discord.ButtonStyle.success))
    items.append(WebButton(table_id, "link", label=tr("web.open_in_browser", lang)))
    return items


class WebButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"kwx:web:(?P<table>\d{1,12}):(?P<verb>\w+)"):
    def __init__(self, table_id: int, verb: str, *, label: str | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(custom_id=f"kwx:web:{table_id}:{verb}", label=label, style=style))
        self.table_id = table_id
        self.verb = verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> WebButton:
        return cls(int(match["table"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        runtime = getattr(interaction.client, "kwx", None)
        web: WebServer | None = getattr(runtime, "web", None)
        lang = runtime.languages.of(interaction.guild_id) if runtime is not None else "zh-CN"
        if self.verb not in WEB_VERBS:
            return
        if web is None:
            await safe_respond(interaction, content=tr("web.no_web", lang), ephemeral=True)
        elif self.verb == "open":
            if web.oauth is None:
                await safe_respond(interaction, content=tr("web.no_activity", lang), ephemeral=True)
                return
            try:
                await interaction.response.launch_activity()
            except discord.HTTPException as exc:
                logger.info("LAUNCH_ACTIVITY refused for table %s: %r", self.table_id, exc)
                await safe_respond(interaction, content=tr("web.no_activity", lang), ephemeral=True)
        else:
            url = personal_link(interaction.client, self.table_id, str(interaction.user.id), lang)
            await safe_respond(interaction, content=tr("web.link_sent", lang, table=self.table_id, url=url),
                               ephemeral=True)
