"""/kwx new checks the bot's own permissions in the channel and names what is missing."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from cogs.fake_discord.kit import bot_kit
from cogs.permissions import BOT_PERMISSIONS


async def test_new_refuses_naming_the_permissions_the_bot_lacks_and_opens_nothing(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        lacking = discord.Permissions(view_channel=True, send_messages=True, use_external_emojis=True)
        kit.fake.bot_permissions[kit.channel.id] = lacking.value
        out = await kit.slash(kit.alice, "kwx new")
        reply = kit.reply(out)
        assert "嵌入链接" in reply and "附加文件" in reply and "发送消息" not in reply  # Embed Links, Attach Files
        assert out.first("response").ephemeral
        assert kit.service.table_in_channel(str(kit.world.guild.id), str(kit.channel.id)) is None
        assert not kit.table_messages()  # no lobby posted

        kit.fake.bot_permissions[kit.channel.id] = BOT_PERMISSIONS  # what the README's invite link grants
        await kit.slash(kit.alice, "kwx new")
        assert kit.service.table_in_channel(str(kit.world.guild.id), str(kit.channel.id)) is not None


def test_the_readmes_invite_link_asks_for_exactly_what_new_checks() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    asked = set(re.findall(r"permissions=(\d+)", readme)) | set(re.findall(r"permissions integer \*\*(\d+)\*\*", readme))
    assert asked == {str(BOT_PERMISSIONS)}
