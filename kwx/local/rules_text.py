"""The rules/fan reference screen's text: the game's own docs/rules.md when the checkout has it, else (an
installed package) the fan table of the table's rules from the code, with the terminal's commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kwx.engine.rules import STANDARD, RuleSet
from kwx.local.text import say
from kwx.present.i18n import pattern_name

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def fan_table_markdown(lang: str, rules: RuleSet | None = None) -> str:
    """The patterns `rules` (the table's preset and options) scores, with their multipliers, biggest first: an
    optional pattern the table leaves off (海底炮 under standard) is not listed."""
    rules = rules or STANDARD
    head = say("rules_fan_head", lang, preset=rules.preset_name)
    rows = [f"## {head}", "", f"| {say('rules_pattern', lang)} | | × |", "|---|---|---:|"]
    for pid, fan in rules.scored_patterns():
        rows.append(f"| {pattern_name(pid, 'zh-CN')} | {pattern_name(pid, 'en')} | {fan} |")
    return "\n".join(rows)


def rules_markdown(lang: str, rules: Any = None, doc: Path = RULES_DOC) -> str:
    """The reference screen: the keys, the fan table of this table's rules, then docs/rules.md if present."""
    parts = [f"# {say('rules_title', lang)}", "", say("rules_keys", lang), "",
             fan_table_markdown(lang, rules if isinstance(rules, RuleSet) else None), ""]
    if doc.is_file():
        parts += ["---", "", doc.read_text(encoding="utf-8")]
    else:
        parts += [say("rules_doc", lang)]
    parts += ["", "```", say("help", lang), "```"]
    return "\n".join(parts)
