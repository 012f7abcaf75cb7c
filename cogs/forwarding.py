"""Button presses for a table another process of the cluster runs (kwx.cluster).

Discord delivers every interaction from a DM to shard 0, and a server's presses to the process holding its
shard, which after a takeover may not be the one running its tables. The receiver defers the press at once
(Discord's 3 s), then sends it to the owner, the holder of the table's server lease, over LISTEN/NOTIFY. The
owner rebuilds the interaction, already deferred, and runs the same button callback as for a press of its own:
its answers go through the interaction token, which works from any process.

    if await forward_press(bot, interaction, table_id): return     # in the receiver's button handler
    await run_forwarded_press(bot, press)                          # on the owner (ClusterNode's on_press)

What travels is the part of the interaction a press needs (ids, token, user, locale, custom id; well under
NOTIFY's 8000 bytes), not the message it was on.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import discord

from cogs.buttons import ActButton, TableButton
from cogs.operations import safe_defer, safe_respond
from kwx.present.i18n import tr

if TYPE_CHECKING:
    from discord.types.interactions import MessageComponentInteraction as PressPayload

logger = logging.getLogger(__name__)


def press_payload(interaction: discord.Interaction) -> dict[str, Any]:
    """An INTERACTION_CREATE payload for a component press: what the owner rebuilds the interaction from."""
    user = interaction.user
    data: Mapping[str, object] = interaction.data or {}
    who = {"id": str(user.id), "username": user.name, "discriminator": user.discriminator,
           "global_name": user.global_name, "avatar": user.avatar.key if user.avatar else None}
    payload: dict[str, Any] = {
        "id": str(interaction.id), "application_id": str(interaction.application_id), "type": 3,
        "token": interaction.token, "version": interaction.version,
        "attachment_size_limit": interaction.filesize_limit, "locale": interaction.locale.value,
        "data": {"custom_id": data.get("custom_id"), "component_type": data.get("component_type", 2)},
    }
    if interaction.guild_id is not None:  # a server's press: its shard's process lost the lease in a takeover
        payload |= {"guild_id": str(interaction.guild_id), "app_permissions": str(interaction.app_permissions.value),
                    "member": {"user": who, "roles": [], "nick": getattr(user, "nick", None), "joined_at": None,
                               "permissions": str(interaction.permissions.value), "deaf": False, "mute": False,
                               "flags": 0}}
    else:
        payload["user"] = who
        if interaction.channel is not None:
            payload["channel"] = {"id": str(interaction.channel.id), "type": interaction.channel.type.value}
    if interaction.message is not None:  # the panel the press was on: the owner edits and remembers it
        payload["message"] = {"id": str(interaction.message.id), "channel_id": str(interaction.message.channel.id),
                              "type": 0, "content": "", "attachments": [], "embeds": [], "pinned": False,
                              "mention_everyone": False, "tts": False}
    return payload


async def forward_press(bot: Any, interaction: discord.Interaction, table_id: int) -> bool:
    """Whether another live process runs `table_id`; if so the press has been deferred and sent there (the
    presser is asked to press again when the owner does not acknowledge it). False: answer it here."""
    cluster = getattr(bot, "cluster", None)
    # A press already answered (deferred) is one forwarded here: it is never sent on again.
    if cluster is None or interaction.response.is_done() or table_id in bot.kwx.service.tables():
        return False
    owner = await cluster.owner_of_table(table_id)
    if owner is None or owner == cluster.owner:
        return False
    await safe_defer(interaction)
    if not await cluster.forward(owner, press_payload(interaction)):
        lang = bot.kwx.languages.of(interaction.guild_id)
        await safe_respond(interaction, content=tr("error.generic", lang), ephemeral=True)
    return True


def rebuilt_interaction(client: discord.Client, press: dict[str, Any]) -> discord.Interaction:
    """The forwarded press as an interaction of this process, already deferred by the receiver."""
    # `press` is press_payload's JSON, sent by another process of this bot: a component press's payload.
    # discord.py has no public way to build an interaction from a payload, nor to say that another process
    # has answered it already: the two private names below are the smallest reach into it.
    interaction: discord.Interaction = discord.Interaction(data=cast("PressPayload", press), state=client._connection)
    interaction.response._response_type = discord.InteractionResponseType.deferred_message_update
    return interaction


# The buttons a table's press carries (cogs.buttons: `kwx:act:<fields>`, `kwx:tbl:<fields>`), by their prefix;
# each class reads its own fields (from_custom_id) as when discord.py matches its template.
FORWARDED_ID = re.compile(r"(?s)kwx:(?P<kind>act|tbl):(?P<fields>.*)")
KINDS: dict[str, type[ActButton] | type[TableButton]] = {"act": ActButton, "tbl": TableButton}


async def run_forwarded_press(client: discord.Client, press: dict[str, Any]) -> None:
    """Answer a press another process received, with the same button callback as a press of our own."""
    interaction = rebuilt_interaction(client, press)
    custom_id = str(press.get("data", {}).get("custom_id") or "")
    match = FORWARDED_ID.fullmatch(custom_id)
    if match is None:
        logger.warning("forwarded press with an unknown custom id %r", custom_id[:100])
        return
    item_class = KINDS[match["kind"]]
    item = await item_class.from_custom_id(interaction, discord.ui.Button(custom_id=custom_id), match)
    await item.callback(interaction)
