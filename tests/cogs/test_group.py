"""/kwx is shared: another cog adds subcommands to it; syncing sends Chinese texts with English translations."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.group import KwxGroupCog
from tests.cogs.kit import start_kit, stop_kit


class Extra(KwxGroupCog):  # any further cog file adding to /kwx
    @app_commands.command(name="extra", description="额外")
    async def extra(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"extra for {interaction.user.name}", ephemeral=True)


async def test_another_cog_adds_its_subcommands_to_kwx_and_removes_them_when_unloaded(tmp_path) -> None:
    kit = await start_kit(tmp_path)
    try:
        await kit.bot.add_cog(Extra(kit.bot))
        group = kit.bot.tree.get_command("kwx")
        assert {"new", "join", "hand", "balance", "extra"} <= {c.name for c in group.commands}
        assert kit.bot.tree.get_command("extra") is None  # not a top-level command
        out = await kit.fake.slash(kit.alice, kit.channel, "kwx extra")
        assert kit.reply(out) == "extra for alice"
        joined = await kit.slash(kit.alice, "kwx join")  # the table commands still answer
        assert kit.reply(joined) == "这个频道没有牌桌。"
        await kit.bot.remove_cog("Extra")
        assert "extra" not in {c.name for c in group.commands}
        assert "balance" in {c.name for c in group.commands}
    finally:
        await stop_kit(kit)


async def test_sync_sends_the_commands_with_english_translations(tmp_path) -> None:
    kit = await start_kit(tmp_path)
    try:
        kit.bot.sync_guild = str(kit.world.guild.id)
        await kit.bot.sync_app_commands()
        (kwx,) = kit.fake.synced_commands[kit.world.guild.id]
        subs = {o["name"]: o for o in kwx["options"]}
        assert {"new", "join", "leave", "addbot", "start", "stop", "hand", "spectate", "language"} <= set(subs)
        assert {"balance", "leaderboard", "settleup", "pay", "record", "calc", "rules", "config"} <= set(subs)
        assert subs["new"]["description"] == "在本频道开一张卡五星牌桌"
        assert subs["new"]["description_localizations"]["en-US"] == "Open a Ka Wu Xing table in this channel"
        rules = next(o for o in subs["new"]["options"] if o["name"] == "rules")
        assert "standard" in [c["value"] for c in rules["choices"]]
        assert kwx["dm_permission"] is False  # server-only: tables and ledgers belong to a server
    finally:
        await stop_kit(kit)
