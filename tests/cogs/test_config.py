"""/kwx-admin config: managers set a server's table defaults and language; tables read them with table_defaults."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kwx.engine.rules import RuleSet
from kwx.present.i18n import tr
from kwx.table.defaults import DEFAULTS, SettingError, parse_setting, table_defaults
from tests.support.ledger_kit import LedgerKit, close_kit, ledger_kit


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[LedgerKit]:
    k = await ledger_kit(tmp_path)
    yield k
    await close_kit(k)


async def test_a_manager_sets_the_defaults_a_new_table_starts_with(kit: LedgerKit) -> None:
    before = await table_defaults(kit.store, kit.guild)
    assert (before["preset"], before["base"], before["turn_seconds"], before["claim_seconds"]) == ("standard", 1, 30, 12)
    out = await kit.slash(kit.alice, "kwx-admin config", rules="xiangyang-capped", base=5, turn_seconds=45,
                          claim_seconds=8)
    assert out.records[0].ephemeral and tr("config.saved") in out.text
    assert tr("choice.xiangyang-capped") in out.text and tr("config.seconds", n=45) in out.text
    after = await table_defaults(kit.store, kit.guild)
    assert after["rules"] == RuleSet.preset("xiangyang-capped", base=5)
    assert (after["base"], after["turn_seconds"], after["claim_seconds"]) == (5, 45.0, 8.0)
    shown = await kit.slash(kit.alice, "kwx-admin config")  # no options: shows what is set
    assert tr("config.hint") in shown.text and "5" in shown.text
    other, _, _ = kit.add_guild()
    assert (await table_defaults(kit.store, str(other.id)))["preset"] == "standard"  # per server


async def test_config_needs_manage_server(kit: LedgerKit) -> None:
    kit.no_manage_server()
    out = await kit.slash(kit.bob, "kwx-admin config", base=50, language="en")
    assert out.records[0].ephemeral and tr("ledger.error.manage_server") in out.text
    assert (await table_defaults(kit.store, kit.guild))["base"] == 1
    assert await kit.store.guild_setting(kit.guild, "lang") is None


async def test_out_of_range_values_are_refused_and_nothing_is_stored(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx-admin config", base=3, turn_seconds=5)
    assert out.records[0].ephemeral
    assert tr("config.error.range", setting=tr("config.turn_seconds"), low=10, high=600) in out.text
    assert await kit.store.guild_setting(kit.guild, "base") is None  # all or nothing
    bad = await kit.slash(kit.alice, "kwx-admin config", rules="nope")
    assert tr("config.error.bad", setting=tr("config.rules"), value="nope") in bad.text


async def test_the_language_switches_every_reply_at_once(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx-admin config", language="en")
    assert tr("config.saved", "en") in out.text and "English" in out.text
    assert tr("ledger.empty", "en") in (await kit.slash(kit.bob, "kwx balance")).text
    assert await kit.store.guild_setting(kit.guild, "lang") == "en"
    back = await kit.slash(kit.alice, "kwx-admin config", language="zh-CN")
    assert tr("config.saved", "zh-CN") in back.text
    assert tr("ledger.empty", "zh-CN") in (await kit.slash(kit.bob, "kwx balance")).text


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_config_answers_in_the_servers_language(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    out = await kit.slash(kit.alice, "kwx-admin config")
    assert tr("config.title", lang) in out.text and tr("config.turn_seconds", lang) in out.text


async def test_a_stored_value_this_version_cannot_use_falls_back_to_the_default(kit: LedgerKit) -> None:
    await kit.store.set_guild_setting(kit.guild, "rules", "gone-preset")
    await kit.store.set_guild_setting(kit.guild, "turn_seconds", "abc")
    await kit.store.set_guild_setting(kit.guild, "base", "7")
    found = await table_defaults(kit.store, kit.guild)
    assert (found["preset"], found["turn_seconds"], found["base"]) == ("standard", DEFAULTS["turn_seconds"], 7)


def test_parse_setting_checks_every_key() -> None:
    assert parse_setting("base", "12") == 12 and parse_setting("lang", "en") == "en"
    for key, value in (("base", 0), ("base", True), ("claim_seconds", 121), ("lang", "fr"), ("rules", "x"),
                       ("colour", "red")):
        with pytest.raises(SettingError):
            parse_setting(key, value)


async def test_the_time_zone_follows_the_language_until_a_manager_sets_one(kit: LedgerKit) -> None:
    shown = await kit.slash(kit.alice, "kwx-admin config")
    assert tr("config.timezone_default", zone="Asia/Shanghai") in shown.text  # a Chinese-language server
    await kit.set_lang("en")
    shown = await kit.slash(kit.alice, "kwx-admin config")
    assert tr("config.timezone_default", "en", zone="UTC") in shown.text
    refused = await kit.slash(kit.alice, "kwx-admin config", timezone="Mars/Olympus")
    assert refused.records[0].ephemeral and tr("config.error.timezone", "en", value="Mars/Olympus") in refused.text
    assert await kit.store.guild_setting(kit.guild, "timezone") is None  # nothing stored
    saved = await kit.slash(kit.alice, "kwx-admin config", timezone="europe/london")
    assert "Europe/London" in saved.text and await kit.store.guild_setting(kit.guild, "timezone") == "Europe/London"


async def test_time_zone_names_are_offered_as_they_are_typed(kit: LedgerKit) -> None:
    from cogs.config import zone_choices

    config = kit.bot.tree.get_command("kwx-admin").get_command("config")  # type: ignore[union-attr]
    assert next(p for p in config.parameters if p.name == "timezone").autocomplete
    assert [c.value for c in zone_choices("shang")] == ["Asia/Shanghai"]
    assert len(zone_choices("")) == 25 and zone_choices("UTC")[0].value == "UTC"
