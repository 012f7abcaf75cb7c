"""Every /kwx command and option reaches Discord with a Chinese name and Chinese and English descriptions.

Runs the real KwxBot (table commands included) with the ledger, tools and config cogs and the translator loaded,
and reads the command payload it syncs to the fake Discord.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from cogs.bot import CommandSync
from cogs.fake_discord.kit import Kit, bot_kit
from cogs.translator import KwxTranslator
from kwx.present.i18n import catalog

MINE = ("cogs.ledger", "cogs.tools", "cogs.config")
# Discord's rule for command and option names (and their localizations).
NAME = re.compile(r"^[-_'\w]{1,32}$")
TABLE_COMMANDS = {"new", "join", "leave", "addbot", "start", "stop", "hand", "spectate", "language"}
LEDGER_COMMANDS = {"balance", "leaderboard", "history", "stats", "settleup", "pay", "record", "chart", "export",
                   "undo", "calc", "rules", "config"}


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[Kit]:
    async with bot_kit(tmp_path) as k:
        for extension in MINE:
            if extension not in k.bot.extensions:
                await k.bot.load_extension(extension)
        yield k


async def synced(kit: Kit) -> dict[str, Any]:
    """/kwx and /kwx-admin as one list: the subcommands of both, checked alike."""
    await kit.bot.sync_app_commands(CommandSync(guild=str(kit.world.guild.id)))
    kwx, admin = sorted(kit.fake.synced_commands[kit.world.guild.id], key=lambda c: c["name"])
    assert (kwx["name"], admin["name"]) == ("kwx", "kwx-admin")
    check_name(admin)
    check_descriptions(admin)
    return kwx | {"options": kwx["options"] + admin["options"]}


def check_name(item: dict[str, Any]) -> None:
    assert NAME.match(item["name"]) and item["name"] == item["name"].lower(), item["name"]
    zh = item.get("name_localizations", {}).get("zh-CN")
    assert zh and NAME.match(zh) and zh == zh.lower(), (item["name"], zh)


def check_descriptions(item: dict[str, Any]) -> None:
    described = item.get("description_localizations") or {}
    for locale in ("zh-CN", "en-US", "en-GB"):
        text = described.get(locale)
        assert text and len(text) <= 100, (item["name"], locale, text)
    assert re.search(r"[\u4e00-\u9fff]", described["zh-CN"]), (item["name"], described["zh-CN"])
    assert re.search(r"[A-Za-z]{3}", described["en-US"]), (item["name"], described["en-US"])
    assert item["description"] and len(item["description"]) <= 100


async def test_every_command_and_option_is_localized_in_chinese_and_english(kit: Kit) -> None:
    kwx = await synced(kit)
    # (an extension is a fresh module: compare by name)
    assert type(kit.bot.tree.translator).__qualname__ == KwxTranslator.__qualname__
    check_descriptions(kwx)
    subs = {o["name"]: o for o in kwx["options"]}
    assert set(subs) >= TABLE_COMMANDS | LEDGER_COMMANDS
    zh_names = [o["name_localizations"]["zh-CN"] for o in kwx["options"] if o.get("name_localizations")]
    assert len(zh_names) == len(set(zh_names)) == len(subs), "two subcommands share a Chinese name"
    for command in kwx["options"]:
        check_name(command)
        check_descriptions(command)
        options = command.get("options") or []
        option_zh = [o["name_localizations"]["zh-CN"] for o in options if o.get("name_localizations")]
        assert len(option_zh) == len(set(option_zh)) == len(options), command["name"]
        for option in options:
            check_name(option)
            check_descriptions(option)
            for choice in option.get("choices") or []:
                assert (choice.get("name_localizations") or {}).get("zh-CN"), (command["name"], choice)


async def test_the_names_chinese_users_see(kit: Kit) -> None:
    subs = {o["name"]: o for o in (await synced(kit))["options"]}
    assert subs["balance"]["name_localizations"]["zh-CN"] == "余额"
    assert subs["new"]["name_localizations"]["zh-CN"] == "开桌"
    pay = {o["name"]: o for o in subs["pay"]["options"]}
    assert pay["amount"]["name_localizations"]["zh-CN"] == "金额"
    assert pay["amount"]["description_localizations"]["en-US"] == catalog().messages["en"]["cmd.pay.amount"]
    period = next(o for o in subs["leaderboard"]["options"] if o["name"] == "period")
    week = next(c for c in period["choices"] if c["value"] == "week")
    assert week["name_localizations"]["zh-CN"] == "本周"


async def test_the_ledger_cogs_answer_on_the_real_bot(kit: Kit) -> None:
    out = await kit.fake.slash(kit.alice, kit.channel, "kwx balance")
    assert catalog().messages["zh-CN"]["ledger.empty"] in out.text
    calc = await kit.fake.slash(kit.alice, kit.channel, "kwx calc", hand="1122334456677p", win="5p")
    assert "16" in calc.text and calc.records[0].ephemeral


def test_every_catalog_command_key_has_both_languages() -> None:
    zh, en = catalog().messages["zh-CN"], catalog().messages["en"]
    for key in zh:
        if key.startswith(("cmd.", "cmdname.", "choice.")):
            assert key in en, key
    for key, name in zh.items():
        if key.startswith("cmdname."):
            assert NAME.match(name) and name == name.lower(), (key, name)


async def test_every_free_text_option_of_the_real_bot_has_a_max_length(kit: Kit) -> None:
    """Choices bound what may be typed; any other string option must declare its length (Discord enforces it,
    and so does the bot, cogs.inputs)."""
    free = []
    for name in ("kwx", "kwx-admin"):
        for command in kit.bot.tree.get_command(name).walk_commands():
            for param in getattr(command, "parameters", ()):
                if param.type is discord.AppCommandOptionType.string and not param.choices:
                    assert param.max_value is not None, f"/{command.qualified_name} {param.name}"
                    free.append(param.name)
    assert free  # the check saw the free-text options (calc's hand, pay's note …)
