"""/kwx is shared: another cog adds subcommands to it; syncing sends Chinese texts with English translations;
the managers' commands are a group of their own that Discord hides from other members."""

from __future__ import annotations

import argparse
import asyncio

import discord
import pytest
from discord import app_commands

import bot
from cogs import fake_discord as fakes
from cogs.bot import CommandSync, KwxBot, SyncError
from cogs.fake_discord import discord_error
from cogs.fake_discord.kit import bot_kit
from cogs.group import KwxGroupCog
from kwx.cli.settings import Settings
from kwx.present.i18n import tr


class Extra(KwxGroupCog):  # any further cog file adding to /kwx
    @app_commands.command(name="extra", description="额外")
    async def extra(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"extra for {interaction.user.name}", ephemeral=True)


async def test_another_cog_adds_its_subcommands_to_kwx_and_removes_them_when_unloaded(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
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


async def test_sync_sends_the_commands_with_english_translations(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        here = CommandSync(guild=str(kit.world.guild.id))
        await kit.bot.sync_app_commands(here)
        kwx = synced(kit, "kwx")
        subs = {o["name"]: o for o in kwx["options"]}
        assert {"new", "join", "leave", "addbot", "start", "stop", "hand", "spectate", "language"} <= set(subs)
        assert {"balance", "leaderboard", "settleup", "pay", "record", "calc", "rules"} <= set(subs)
        assert subs["new"]["description"] == "在本频道开一张卡五星牌桌"
        assert subs["new"]["description_localizations"]["en-US"] == "Open a Ka Wu Xing table in this channel"
        rules = next(o for o in subs["new"]["options"] if o["name"] == "rules")
        assert "standard" in [c["value"] for c in rules["choices"]]
        assert kwx["dm_permission"] is False  # server-only: tables and ledgers belong to a server


def synced(kit, name: str, *, globally: bool = False) -> dict:
    """The command `name` as last synced to the kit's guild (or globally)."""
    found = [c for c in kit.fake.synced_commands[None if globally else kit.world.guild.id] if c["name"] == name]
    assert len(found) == 1, f"/{name} synced {len(found)} times"
    return found[0]


async def test_config_export_and_undo_are_shown_only_to_members_with_manage_server(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        here = CommandSync(guild=str(kit.world.guild.id))
        await kit.bot.sync_app_commands(here)
        admin = synced(kit, "kwx-admin")
        assert {o["name"] for o in admin["options"]} == {"config", "export", "undo"}
        # Discord honours default_member_permissions on a top-level command only: the group carries it.
        assert int(admin["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
        assert admin["dm_permission"] is False
        assert all("default_member_permissions" not in o for o in admin["options"])
        kwx = synced(kit, "kwx")
        assert kwx.get("default_member_permissions") is None  # every member sees /kwx
        assert not {"config", "export", "undo"} & {o["name"] for o in kwx["options"]}

        await kit.bot.sync_app_commands(here)  # syncing again replaces the list: each command once
        assert sorted(c["name"] for c in kit.fake.synced_commands[kit.world.guild.id]) == ["kwx", "kwx-admin"]


async def test_a_sync_replaces_an_older_kwx_that_still_listed_config(tmp_path) -> None:
    """A bot synced before /kwx-admin existed had /kwx config; the next --sync leaves config only under
    /kwx-admin, in the test guild and globally."""
    async with bot_kit(tmp_path) as kit:
        old = {"name": "kwx", "type": 1, "description": "卡五星", "options": [
            {"name": "config", "type": 1, "description": "设置", "options": []}]}
        kit.fake.synced_commands[kit.world.guild.id] = [old]
        here = CommandSync(guild=str(kit.world.guild.id))
        await kit.bot.sync_app_commands(here)
        assert "config" not in {o["name"] for o in synced(kit, "kwx")["options"]}
        assert "config" in {o["name"] for o in synced(kit, "kwx-admin")["options"]}

        kit.fake.synced_commands[None] = [old]
        await kit.bot.sync_app_commands(CommandSync(guild=here.guild, everywhere=True))
        assert "config" not in {o["name"] for o in synced(kit, "kwx", globally=True)["options"]}
        assert "config" in {o["name"] for o in synced(kit, "kwx-admin", globally=True)["options"]}
        assert kit.fake.synced_commands[kit.world.guild.id] == []  # the guild copy went: nothing listed twice


async def test_a_member_given_the_admin_command_by_the_server_is_still_refused(tmp_path) -> None:
    """A server can give /kwx-admin to anyone (Integrations); without Manage Server the bot still refuses."""
    async with bot_kit(tmp_path) as kit:
        kit.fake.members_without(manage_guild=False)
        out = await kit.fake.slash(kit.bob, kit.channel, "kwx-admin config", base=50)
        assert out.records[0].ephemeral and len(out.records) == 1
        assert tr("ledger.error.manage_server") in out.text
        assert await kit.bot.kwx.store.guild_setting(str(kit.world.guild.id), "base") is None


async def test_a_guild_sync_while_the_commands_are_global_is_refused_in_one_line(tmp_path) -> None:
    """A guild copy next to the global commands would list each twice in that server."""
    async with bot_kit(tmp_path) as kit:
        await kit.bot.sync_app_commands(CommandSync())  # globally
        with pytest.raises(SyncError) as refused:
            await kit.bot.sync_app_commands(CommandSync(guild=str(kit.world.guild.id)))
        assert "--global" in str(refused.value) and "\n" not in str(refused.value)
        assert kit.world.guild.id not in kit.fake.synced_commands  # nothing was sent to the guild


async def test_a_sync_discord_refuses_is_one_clear_line(tmp_path, monkeypatch, capsys) -> None:
    async with bot_kit(tmp_path) as kit:
        here = CommandSync(guild=str(kit.world.guild.id))
        kit.fake.inject("PUT", "/applications/{application_id}/guilds/{guild_id}/commands",
                        discord_error(403, 50001, "Missing Access"))
        with pytest.raises(SyncError) as refused:
            await kit.bot.sync_app_commands(here)

    async def run(self, token, **_):
        raise refused.value

    monkeypatch.setattr(KwxBot, "start", run)
    monkeypatch.setattr(bot, "start_logging", lambda: None)
    args = argparse.Namespace(**(vars(bot.build_parser().parse_args(["--sync"]))))
    # run_discord runs its own event loop: in a thread, beside this test's
    assert await asyncio.to_thread(bot.run_discord, args, Settings(discord_token="tok")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not sync" in err and "applications.commands" in err
    assert "Traceback" not in err


async def test_a_sync_refused_as_an_invalid_form_is_still_one_line(tmp_path) -> None:
    """Discord lists each field it refuses on a line of its own; the operator gets one line."""
    async with bot_kit(tmp_path) as kit:
        kit.fake.inject("PUT", "/applications/{application_id}/commands", fakes.off_spec_error(
            {"0": {"name": {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "Bad name"}]}},
             "1": {"description": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Too long"}]}}}))
        with pytest.raises(SyncError) as refused:
            await kit.bot.sync_app_commands(CommandSync())
        assert "\n" not in str(refused.value) and "50035" in str(refused.value) and "Bad name" in str(refused.value)
