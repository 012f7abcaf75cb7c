"""The rules/fan reference screen's text: the fan table of the table's rules from the code, the game's own rules
in the player's language (docs/rules.zh-CN.md or docs/rules.md), and the terminal's commands.

The rules docs reach an installed package through kwx/present/rules_docs, a link to docs/ whose rules*.md the
package carries (pyproject's package data), as kwx/present/tiles carries the tile art."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kwx.engine.rules import STANDARD, RuleSet
from kwx.local.text import say
from kwx.present.i18n import pattern_name, resolve_lang
from kwx.present.rulebook import DOCS

RULES_DOCS = Path(__file__).resolve().parents[1] / "present" / "rules_docs"


def rules_doc(lang: str, folder: Path = RULES_DOCS) -> Path:
    """The rules in `lang`: docs/rules.zh-CN.md for Chinese, docs/rules.md for English."""
    return folder / Path(DOCS[resolve_lang(lang)]).name


def fan_table_markdown(lang: str, rules: RuleSet | None = None) -> str:
    """The patterns `rules` (the table's preset and options) scores, with their multipliers, biggest first: an
    optional pattern the table leaves off (海底炮 under standard) is not listed."""
    rules = rules or STANDARD
    head = say("rules_fan_head", lang, preset=rules.preset_name)
    rows = [f"## {head}", "", f"| {say('rules_pattern', lang)} | | × |", "|---|---|---:|"]
    for pid, fan in rules.scored_patterns():
        rows.append(f"| {pattern_name(pid, 'zh-CN')} | {pattern_name(pid, 'en')} | {fan} |")
    return "\n".join(rows)


def rules_markdown(lang: str, rules: Any = None, doc: Path | None = None) -> str:
    """The reference screen: the keys, the fan table of this table's rules, then the rules doc in `lang`."""
    doc = doc if doc is not None else rules_doc(lang)
    parts = [f"# {say('rules_title', lang)}", "", say("rules_keys", lang), "",
             fan_table_markdown(lang, rules if isinstance(rules, RuleSet) else None), ""]
    if doc.is_file():
        parts += ["---", "", doc.read_text(encoding="utf-8")]
    else:
        parts += [say("rules_doc", lang)]
    parts += ["", "```", say("help", lang), "```"]
    return "\n".join(parts)
