"""/kwx calc and /kwx rules: the calculator's numbers, privately; a preset's patterns; in the server's language."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import discord
import pytest

from cogs.tools import option_value
from kwx.engine.rules import RuleSet
from kwx.present.i18n import pattern_name, tr
from tests.support.ledger_kit import LedgerKit, close_kit, ledger_kit


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[LedgerKit]:
    k = await ledger_kit(tmp_path)
    yield k
    await close_kit(k)


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_calc_scores_privately_with_pattern_names_and_payment(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    out = await kit.slash(kit.alice, "kwx calc", hand="1122334456677p", win="5p")
    sent = out.records[0]
    assert sent.kind == "response" and sent.ephemeral and sent.user_id == kit.alice.id
    text = out.text
    assert tr("tools.calc.total", lang, fan=16) in text
    assert pattern_name("qingyise", lang) in text and pattern_name("qidui", lang) in text
    assert tr("tools.calc.pays_discard", lang, amount="16", base=1) in text
    assert kit.fake.log.public(kit.world.channel.id) == []


async def test_calc_self_draw_with_melds_and_chinese_tiles(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx calc", hand="二筒 三筒 四筒 六条 七条 八条 五筒 五筒 五筒 九条", win="九条",
                          melds="pung:7z", self_draw=True)
    assert tr("term.zimo") in out.text and tr("tools.calc.total", fan=1) in out.text
    assert tr("tools.calc.pays_zimo", amount="1", base=1) in out.text


async def test_calc_explains_a_hand_that_does_not_win(kit: LedgerKit) -> None:
    waiting = await kit.slash(kit.alice, "kwx calc", hand="1122334456677p", win="9s")
    assert tr("tools.calc.not_win_waits", tiles="5筒 8筒") in waiting.text  # its waits, in tiles
    broken = await kit.slash(kit.alice, "kwx calc", hand="11p", win="1p")
    assert broken.records[0].ephemeral and tr("tools.calc.error_title") in broken.text and "手牌有 2 张" in broken.text


async def test_calc_follows_the_servers_rules_preset(kit: LedgerKit) -> None:
    hand = dict(hand="1122334455566p", win="5p", self_draw=True)  # 清一色 × 龙七对 = 32
    assert tr("tools.calc.total", fan=32) in (await kit.slash(kit.alice, "kwx calc", **hand)).text
    capped = await kit.slash(kit.alice, "kwx calc", rules="xiangyang-capped", **hand)
    assert tr("tools.calc.total", fan=8) in capped.text and tr("tools.calc.capped", raw=32) in capped.text
    await kit.slash(kit.alice, "kwx-admin config", rules="xiangyang-capped")
    assert tr("tools.calc.total", fan=8) in (await kit.slash(kit.alice, "kwx calc", **hand)).text


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_rules_lists_every_pattern_with_its_multiplier(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    out = await kit.slash(kit.bob, "kwx rules", preset="xiangyang-unlimited")
    text = out.text
    block = text.split("```")[1].strip().split("\n")
    shown = {re.split(r"\s{2,}|\s(?=×)", line.strip())[0]: line.split()[-1] for line in block}
    rules = RuleSet.preset("xiangyang-unlimited")
    for pid in ("sanlong_qidui", "sanyuan_qidui", "qingyise", "pinghu", "liangdao"):
        assert shown[pattern_name(pid, lang)] == f"×{rules.pattern_fan(pid)}"
    assert shown[pattern_name("sanlong_qidui", lang)] == "×128"
    assert tr("tools.rules.options", lang) in text and tr("tools.option.piao", lang) in text
    assert out.records[0].ephemeral  # only the asker sees it (📤 Share posts it)


async def test_rules_without_a_preset_shows_the_servers_default(kit: LedgerKit) -> None:
    standard = (await kit.slash(kit.bob, "kwx rules")).text
    assert tr("tools.rules.server_default") in standard and pattern_name("sanyuan_qidui") not in standard
    await kit.slash(kit.alice, "kwx-admin config", rules="xiaogan", base=5)
    xiaogan = (await kit.slash(kit.bob, "kwx rules")).text
    assert tr("choice.xiaogan") in xiaogan
    options = {line.split()[0]: line.split()[-1] for line in xiaogan.split("```")[-2].strip().split("\n")}
    assert options[tr("tools.option.base")] == "5" and options[tr("tools.option.shukan")] == tr("tools.on")


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_rules_answers_in_a_minute_and_points_to_the_full_rules(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    text = (await kit.slash(kit.bob, "kwx rules", preset="standard")).text
    assert tr("rules.summary", lang) in text
    assert "docs/rules.md" in text and "docs/rules.zh-CN.md" in text


RAW_VALUES = {"half", "full", "stay", "first_liangdao", "each", "first"}  # option values as the engine spells them


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
@pytest.mark.parametrize("preset", ["standard", "online-3d"])
async def test_rules_show_every_option_value_in_words(kit: LedgerKit, lang: str, preset: str) -> None:
    await kit.set_lang(lang)
    text = (await kit.slash(kit.bob, "kwx rules", preset=preset)).text
    options = text.split("```")[-2].strip().split("\n")
    rules = RuleSet.preset(preset)
    assert not [line for line in options if line.split(" ")[-1] in RAW_VALUES], options
    for option in ("pindao", "draw_dealer", "draw_liangdao_penalty"):
        words = tr(f"tools.value.{option}.{getattr(rules, option)}", lang)
        assert any(line.startswith(tr(f"tools.option.{option}", lang)) and line.endswith(f" {words}")
                   for line in options), (option, options)


def test_every_choice_of_a_shown_option_has_words() -> None:
    """Every value the engine allows for a text option (kwx.engine.rules' checks) reads as words in both languages."""
    for option, values in {"pindao": ("half", "full"), "draw_dealer": ("stay", "first_liangdao"),
                           "draw_liangdao_penalty": ("each", "first")}.items():
        for value in values:
            for lang in ("zh-CN", "en"):
                assert option_value(option, value, lang) not in values, (option, value, lang)


@pytest.mark.parametrize("melds", ["碰:7z peng:6z", "碰7z 碰 6z", "pung:7z,pung:666z", "PENG：7z 碰：发"])
async def test_calc_takes_melds_written_in_chinese_or_pinyin(kit: LedgerKit, melds: str) -> None:
    """碰/杠/暗杠 and peng/gang/angang, with or without the colon, read like pung/kong/ankong."""
    english = await kit.slash(kit.alice, "kwx calc", hand="2233445p", win="5p", melds="pung:7z pung:6z")
    other = await kit.slash(kit.alice, "kwx calc", hand="2233445p", win="5p", melds=melds)
    assert other.records[0].embeds[0].description == english.records[0].embeds[0].description
    assert tr("tools.calc.error_title") not in other.text
    kongs = await kit.slash(kit.alice, "kwx calc", hand="2233445p", win="5p", melds="杠:7z 暗杠 6z", self_draw=True)
    assert tr("tools.calc.melds", melds="杠 中、暗杠 发") in kongs.text


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_a_calc_mistake_is_an_error_saying_what_to_write(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    out = await kit.slash(kit.alice, "kwx calc", hand="2233445p", win="5p", melds="chi:5p")
    (sent,) = out.records
    embed = sent.embeds[0]
    assert sent.ephemeral and embed.colour == discord.Colour.red()
    assert embed.title == tr("tools.calc.error_title", lang)
    detail = tr("calc.error.meld_kind", lang, kind="chi")
    assert (embed.description or "").startswith(detail[:1].upper() + detail[1:])
    assert tr("tools.calc.error_hint", lang) in (embed.description or "")
