"""/kwx calc and /kwx rules: the calculator's numbers, privately; a preset's patterns; in the server's language."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from kwx.engine.rules import RuleSet
from kwx.present.i18n import pattern_name, t
from tests.cogs.ledger_kit import LedgerKit, close_kit, ledger_kit


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
    assert t("tools.calc.total", lang, fan=16) in text
    assert pattern_name("qingyise", lang) in text and pattern_name("qidui", lang) in text
    assert t("tools.calc.pays_discard", lang, amount="16", base=1) in text
    assert kit.fake.log.public(kit.world.channel.id) == []


async def test_calc_self_draw_with_melds_and_chinese_tiles(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx calc", hand="二筒 三筒 四筒 六条 七条 八条 五筒 五筒 五筒 九条", win="九条",
                          melds="pung:7z", self_draw=True)
    assert t("term.zimo") in out.text and t("tools.calc.total", fan=1) in out.text
    assert t("tools.calc.pays_zimo", amount="1", base=1) in out.text


async def test_calc_explains_a_hand_that_does_not_win(kit: LedgerKit) -> None:
    waiting = await kit.slash(kit.alice, "kwx calc", hand="1122334456677p", win="9s")
    assert t("tools.calc.not_win_waits", tiles="5筒 8筒") in waiting.text  # its waits, in tiles
    broken = await kit.slash(kit.alice, "kwx calc", hand="11p", win="1p")
    assert broken.records[0].ephemeral and t("tools.calc.error", detail="手牌有 2 张") in broken.text


async def test_calc_follows_the_servers_rules_preset(kit: LedgerKit) -> None:
    hand = dict(hand="1122334455566p", win="5p", self_draw=True)  # 清一色 × 龙七对 = 32
    assert t("tools.calc.total", fan=32) in (await kit.slash(kit.alice, "kwx calc", **hand)).text
    capped = await kit.slash(kit.alice, "kwx calc", rules="xiangyang-capped", **hand)
    assert t("tools.calc.total", fan=8) in capped.text and t("tools.calc.capped", raw=32) in capped.text
    await kit.slash(kit.alice, "kwx-admin config", rules="xiangyang-capped")
    assert t("tools.calc.total", fan=8) in (await kit.slash(kit.alice, "kwx calc", **hand)).text


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
    assert t("tools.rules.options", lang) in text and t("tools.option.piao", lang) in text
    assert not out.records[0].ephemeral


async def test_rules_without_a_preset_shows_the_servers_default(kit: LedgerKit) -> None:
    standard = (await kit.slash(kit.bob, "kwx rules")).text
    assert t("tools.rules.server_default") in standard and pattern_name("sanyuan_qidui") not in standard
    await kit.slash(kit.alice, "kwx-admin config", rules="xiaogan", base=5)
    xiaogan = (await kit.slash(kit.bob, "kwx rules")).text
    assert t("choice.xiaogan") in xiaogan
    options = {line.split()[0]: line.split()[-1] for line in xiaogan.split("```")[-2].strip().split("\n")}
    assert options[t("tools.option.base")] == "5" and options[t("tools.option.shukan")] == t("tools.on")


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_rules_answers_in_a_minute_and_points_to_the_full_rules(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    text = (await kit.slash(kit.bob, "kwx rules", preset="standard")).text
    assert t("rules.summary", lang) in text
    assert "docs/rules.md" in text and "docs/rules.zh-CN.md" in text
