"""The `?` screen's fan table lists what the table's own rules score, and nothing they leave off."""

from __future__ import annotations

from kwx.engine.rules import RuleSet
from kwx.local.rules_text import fan_table_markdown


def test_the_standard_fan_table_leaves_off_the_patterns_standard_does_not_score() -> None:
    table = fan_table_markdown("zh-CN", RuleSet.preset("standard"))
    assert "| 清一色 | Full Flush | 4 |" in table and "| 卡五星 |" in table
    assert "海底炮" not in table and "三元七对" not in table  # optional patterns standard leaves off


def test_a_preset_that_scores_an_optional_pattern_lists_it_with_its_value() -> None:
    table = fan_table_markdown("en", RuleSet.preset("xiangyang-unlimited"))
    assert "| 三元七对 | " in table and "| 16 |" in table.split("三元七对", 1)[1].splitlines()[0]
    assert "海底炮" not in table
    assert "| 海底炮 |" in fan_table_markdown("en", RuleSet.preset("standard", haidipao=True))


def test_the_rules_screen_shows_the_rules_in_the_players_language() -> None:
    from kwx.local.rules_text import rules_markdown

    chinese, english = rules_markdown("zh-CN"), rules_markdown("en")
    assert "# 卡五星 —— kwx 的规则" in chinese and "the rules kwx plays" not in chinese
    assert "# Ka Wu Xing (卡五星) — the rules kwx plays" in english and "kwx 的规则" not in english
