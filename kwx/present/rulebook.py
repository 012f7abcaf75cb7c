"""The rule tables for players, generated from the engine's own rule tables and the string catalog.

    tables = rule_tables("en")              # {"patterns": markdown, "cap": ..., "options": ..., "presets": ...,
                                            #  "payments": ..., "draw": ...}
    text = fill_generated(doc_text, "en")   # the doc with every generated block brought up to date

docs/rules.md (English) and docs/rules.zh-CN.md (中文) hold their tables between `<!-- generated: NAME -->`
and `<!-- end generated -->`; `python -m kwx rules --update` rewrites those blocks, and a test fails when a doc
differs from what this module makes of the code. Nothing else in a doc is generated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kwx.engine.rules import PATTERN_FAN, PAYMENT_REASONS, PRESETS, RuleSet
from kwx.present.i18n import DEFAULT_LANG, pattern_name, tr

DOCS = {"en": "docs/rules.md", "zh-CN": "docs/rules.zh-CN.md"}  # relative to the repository root
# Options in the order the options table lists them.
OPTION_ORDER = ("base", "min_fan", "min_fan_discard", "pindao", "fan_cap", "fan_cap_exceptions", "shouzhuayi_fan",
                "zhigang_pay", "haidilao", "haidipao", "kawuxing_single_wait", "louhu_bigger_ok", "draw_dealer",
                "draw_liangdao_penalty", "draw_chajiao", "liangdao_min_wall", "forbid_feeding", "piao", "maima",
                "shukan", "shanglou", "rotation", "fan_values", "sanyuan_qidui")
_BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z_]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def preset_rules() -> dict[str, RuleSet]:
    return {name: RuleSet.preset(name) for name in PRESETS}


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    return "\n".join([_row(headers), _row(["---"] * len(headers)), *(_row(r) for r in rows)])


def value_text(value: Any, lang: str) -> str:
    """An option's value as a player reads it: on/off, none, a number, or `pattern multiplier` pairs."""
    if value is True:
        return tr("tools.on", lang)
    if value is False:
        return tr("tools.off", lang)
    if value is None:
        return tr("tools.none", lang)
    if isinstance(value, Mapping):
        if not value:
            return tr("tools.none", lang)
        return ", ".join(f"{pattern_name(p, lang)} {v}" for p, v in value.items())
    return f"`{value}`" if isinstance(value, str) else str(value)


def patterns_table(lang: str) -> str:
    """Every pattern: id, name, when it holds, and its multiplier under each preset (— where not scored)."""
    presets = preset_rules()
    rows = []
    for pid in PATTERN_FAN:
        cells = [f"`{pid}`", pattern_name(pid, lang), tr(f"pattern.{pid}.when", lang)]
        for rules in presets.values():
            scored = dict(rules.scored_patterns())
            cells.append(f"×{scored[pid]}" if pid in scored else tr("rules.table.absent", lang))
        rows.append(cells)
    headers = [tr("rules.table.id", lang), tr("rules.table.name", lang), tr("rules.table.when", lang), *presets]
    return _table(headers, rows)


def cap_table(lang: str) -> str:
    """The cap (封顶) of each preset, with its per-pattern exceptions."""
    rows = []
    for name, rules in preset_rules().items():
        cap = value_text(rules.fan_cap, lang)
        if rules.fan_cap_exceptions:
            cap += f" ({value_text(rules.fan_cap_exceptions, lang)})"
        rows.append([f"`{name}`", cap])
    return _table([tr("rules.table.preset", lang), tr("rules.table.cap", lang)], rows)


def options_table(lang: str) -> str:
    """Every option: id, meaning, and its value under each preset."""
    presets = preset_rules()
    rows = []
    for option in OPTION_ORDER:
        cells = [f"`{option}`", tr(f"rules.option.{option}", lang)]
        cells += [value_text(getattr(rules, option), lang) for rules in presets.values()]
        rows.append(cells)
    return _table([tr("rules.table.option", lang), tr("rules.table.meaning", lang), *presets], rows)


def presets_table(lang: str) -> str:
    """Each preset, what it is, and the options it sets (everything else at its default)."""
    rows = []
    for name, options in PRESETS.items():
        sets = "; ".join(f"`{k}` {value_text(v, lang)}" for k, v in options.items()) or tr("tools.none", lang)
        rows.append([f"`{name}`", tr(f"rules.preset.{name}", lang), sets])
    return _table([tr("rules.table.preset", lang), tr("rules.table.meaning", lang), tr("rules.table.sets", lang)],
                  rows)


def payments_table(lang: str) -> str:
    """The reasons a payment may carry in the ledger."""
    return _table([tr("rules.table.id", lang), tr("rules.table.reason", lang)],
                  [[f"`{r}`", tr(f"payment.{r}", lang)] for r in PAYMENT_REASONS])


@dataclass(frozen=True)
class DrawRow:
    """One row of the table of what is paid when a hand ends without a winner; its words are the catalog's
    `rules.draw.<id>` (the case) and `rules.draw.<id>.paid`. tests/engine/test_draw_settlement.py plays a
    scripted hand for every row."""

    id: str
    options: tuple[tuple[str, Any], ...] = ()  # (option id, value) the row depends on; value None: any
    reasons: tuple[str, ...] = ()  # the payment reasons it books in the ledger


DRAW_ROWS: tuple[DrawRow, ...] = (
    DrawRow("kong", reasons=("angang", "bugang", "zhigang")),
    DrawRow("liangdao_each", (("draw_liangdao_penalty", "each"),), ("draw_liangdao",)),
    DrawRow("liangdao_first", (("draw_liangdao_penalty", "first"),), ("draw_liangdao",)),
    DrawRow("chajiao", (("draw_chajiao", True),), ("chajiao",)),
    DrawRow("chajiao_declared", (("draw_chajiao", True),), ("chajiao", "draw_liangdao")),
    DrawRow("chajiao_all_ready", (("draw_chajiao", True),)),
    DrawRow("ready", (("draw_chajiao", True), ("min_fan", None))),
    DrawRow("dead_end", (("forbid_feeding", True),), ("forbid_feeding",)),
    DrawRow("piao", (("piao", None), ("maima", None))),
    DrawRow("base", (("shanglou", True),)),
)


def draw_table(lang: str) -> str:
    """What is paid at an exhaustive draw (荒庄) and at forbid_feeding's dead end, case by case."""
    rows = []
    for row in DRAW_ROWS:
        options = ", ".join(f"`{o}`" if v is None else f"`{o}` {value_text(v, lang)}" for o, v in row.options)
        reasons = ", ".join(f"`{r}`" for r in row.reasons)
        rows.append([tr(f"rules.draw.{row.id}", lang), options or tr("rules.table.absent", lang),
                     tr(f"rules.draw.{row.id}.paid", lang), reasons or tr("rules.table.absent", lang)])
    return _table([tr("rules.table.case", lang), tr("rules.table.option", lang), tr("rules.table.paid", lang),
                   tr("rules.table.reason", lang)], rows)


TABLES: dict[str, Callable[[str], str]] = {
    "patterns": patterns_table, "cap": cap_table, "options": options_table, "presets": presets_table,
    "payments": payments_table, "draw": draw_table,
}


def rule_tables(lang: str = DEFAULT_LANG) -> dict[str, str]:
    return {name: make(lang) for name, make in TABLES.items()}


def generated_blocks(text: str) -> dict[str, str]:
    """The generated blocks of a doc, by name (their bodies without the trailing newline)."""
    return {m["name"]: m["body"].rstrip("\n") for m in _BLOCK.finditer(text)}


def fill_generated(text: str, lang: str) -> str:
    """`text` with every generated block replaced by the current table; an unknown block name is an error."""
    tables = rule_tables(lang)

    def fill(m: re.Match[str]) -> str:
        if m["name"] not in tables:
            raise KeyError(f"unknown generated block {m['name']!r}: blocks are {', '.join(tables)}")
        return f"{m.group(1)}{tables[m['name']]}\n{m.group(4)}"

    return _BLOCK.sub(fill, text)


def doc_path(root: Path, lang: str) -> Path:
    return root / DOCS[lang]
