"""What the bot needs in a table's channel, checked before a table opens there.

`/kwx new` reads `interaction.app_permissions` (the bot's own permissions in that channel, as Discord computed
them for the interaction) and refuses, naming what is missing, rather than open a table whose board or results
Discord would refuse. The README's invite link asks for exactly `BOT_PERMISSIONS`.
"""

from __future__ import annotations

import discord

from kwx.present.i18n import tr

# In the order Discord's permission settings list them; each with its catalog key.
NEEDED: tuple[tuple[str, str], ...] = (
    ("view_channel", "perm.view_channel"),
    ("send_messages", "perm.send_messages"),
    ("send_messages_in_threads", "perm.send_messages_in_threads"),
    ("embed_links", "perm.embed_links"),
    ("attach_files", "perm.attach_files"),
    ("use_external_emojis", "perm.use_external_emojis"),
)
# The integer for the invite link (OAuth2 URL `permissions=`): everything above.
BOT_PERMISSIONS = discord.Permissions(**{name: True for name, _ in NEEDED}).value


def missing_permissions(perms: discord.Permissions, *, thread: bool, tile_emojis: bool) -> list[str]:
    """The permissions (attribute names) the bot lacks to run a table here. Send Messages in Threads only in a
    thread (Send Messages elsewhere); Use External Emojis only when the tiles are shown as the bot's emojis."""
    missing = []
    for name, _ in NEEDED:
        if name == "send_messages" and thread or name == "send_messages_in_threads" and not thread:
            continue
        if name == "use_external_emojis" and not tile_emojis:
            continue
        if not getattr(perms, name):
            missing.append(name)
    return missing


def missing_text(missing: list[str], lang: str) -> str:
    keys = dict(NEEDED)
    names = tr("common.list_sep", lang).join(tr(keys[name], lang) for name in missing)
    return tr("error.bot_permissions", lang, missing=names)
