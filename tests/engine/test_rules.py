"""Rule sets (docs/rules.md §10 options, §11 presets): what each preset sets, validation, the JSON form."""

from __future__ import annotations

import dataclasses

import pytest

from kwx.engine.rules import PATTERN_FAN, PRESETS, RULES_EDITION, STANDARD, RulesError, RuleSet


def test_standard_is_every_default_of_section_10() -> None:
    r = RuleSet.preset("standard")
    assert r == STANDARD
    assert (r.base, r.min_fan, r.min_fan_discard, r.pindao, r.fan_cap) == (1, 1, 1, "half", None)
    assert (r.shouzhuayi_fan, r.zhigang_pay, r.haidilao, r.haidipao, r.kawuxing_single_wait) == (4, 2, True, False, False)
    assert (r.draw_dealer, r.draw_liangdao_penalty, r.draw_chajiao, r.liangdao_min_wall) == ("stay", "each", False, 0)
    assert (r.forbid_feeding, r.piao, r.maima, r.shukan, r.shanglou, r.rotation) == (False, None, False, False, False, False)
    assert not r.sanyuan_qidui


def test_every_pattern_has_a_multiplier() -> None:
    assert STANDARD.pattern_fan("qingyise") == 4
    assert STANDARD.pattern_fan("sanlong_qidui") == 32
    assert dict(STANDARD.fan_table) == {p: STANDARD.pattern_fan(p) for p in PATTERN_FAN}


def test_xiangyang_capped() -> None:
    r = RuleSet.preset("xiangyang-capped")
    assert r.fan_cap == 8
    assert dict(r.fan_cap_exceptions) == {"shuanglong_qidui": 16}


def test_xiangyang_unlimited_pattern_values() -> None:
    r = RuleSet.preset("xiangyang-unlimited")
    assert r.fan_cap is None and r.sanyuan_qidui
    assert [r.pattern_fan(p) for p in ("longqidui", "shuanglong_qidui", "sanlong_qidui", "sanyuan_qidui")] \
        == [8, 32, 128, 16]
    assert r.fan_table["shuanglong_qidui"] == 32
    assert r.pattern_fan("qingyise") == 4  # untouched patterns keep their §7 value


def test_xiaogan_shiyan_online_3d() -> None:
    x = RuleSet.preset("xiaogan")
    assert (x.shukan, x.liangdao_min_wall, x.maima, x.piao) == (True, 12, True, 3)
    s = RuleSet.preset("shiyan")
    assert (s.shanglou, s.piao, s.shukan) == (True, 3, False)
    o = RuleSet.preset("online-3d")
    assert (o.min_fan, o.forbid_feeding, o.draw_chajiao, o.maima, o.piao, o.pindao) == (2, True, True, True, 3, "full")


def test_overrides_are_coerced_from_text() -> None:
    r = RuleSet.preset("standard", shouzhuayi_fan="2", haidilao="off", haidipao="on", fan_cap="none", piao="3")
    assert (r.shouzhuayi_fan, r.haidilao, r.haidipao, r.fan_cap, r.piao) == (2, False, True, None, 3)
    assert r.pattern_fan("shouzhuayi") == 2 and r.fan_table["shouzhuayi"] == 2


@pytest.mark.parametrize(("call", "message"), [
    (lambda: RuleSet.preset("nope"), "unknown rules preset 'nope'"),
    (lambda: RuleSet.preset("standard", bogus=1), "unknown option 'bogus'"),
    (lambda: RuleSet.preset("standard", shouzhuayi_fan=3), "shouzhuayi_fan is 2 or 4"),
    (lambda: RuleSet.preset("standard", pindao="quarter"), "pindao is half or full"),
    (lambda: RuleSet.preset("standard", haidilao="maybe"), "option haidilao is on or off"),
    (lambda: RuleSet.preset("standard", min_fan=0), "min_fan must be a whole number"),
    (lambda: RuleSet.preset("standard", fan_cap_exceptions={"nosuch": 16}), "unknown pattern 'nosuch'"),
])
def test_bad_rules_are_refused_with_a_reason(call, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        call()


def test_rule_sets_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STANDARD.min_fan = 2  # type: ignore[misc]


def test_json_round_trip_keeps_only_the_differences() -> None:
    for name in PRESETS:
        r = RuleSet.preset(name)
        assert r.to_json() == {"preset": name, "options": {}}
        assert RuleSet.from_json(r.to_json()) == r
    r = RuleSet.preset("xiangyang-capped", min_fan_discard=2)
    assert r.to_json() == {"preset": "xiangyang-capped", "options": {"min_fan_discard": 2}}
    assert RuleSet.from_json(r.to_json()) == r
    assert RuleSet.from_json(None) == STANDARD
    assert RuleSet.from_json("online-3d") == RuleSet.preset("online-3d")


def test_the_edition_is_kept_apart_from_the_options() -> None:
    assert STANDARD.edition == RULES_EDITION and "edition" not in STANDARD.options()
    assert "edition" not in STANDARD.to_json()  # a current rule set is written as before
    old = RuleSet.from_json({"preset": "shiyan", "options": {"base": 2}, "edition": 1})
    assert (old.edition, old.base, old.shanglou) == (1, 2, True) and old != RuleSet.preset("shiyan", base=2)
    assert old.to_json() == {"preset": "shiyan", "options": {"base": 2}, "edition": 1}
    assert RuleSet.from_json(old.to_json()) == old
    with pytest.raises(RulesError, match="unknown option 'edition'"):
        RuleSet.preset("standard", edition=1)
    with pytest.raises(RulesError, match="edition is 1 to"):
        RuleSet.from_json({"preset": "standard", "edition": RULES_EDITION + 1})
