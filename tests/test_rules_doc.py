"""docs/rules.md and docs/rules.zh-CN.md: their tables are the code's rule tables, and nothing in the repository
points outside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kwx.engine.rules import PATTERN_FAN, PRESETS, RuleSet
from kwx.present.i18n import pattern_name
from kwx.present.rulebook import DOCS, TABLES, fill_generated, generated_blocks, rule_tables

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lang", sorted(DOCS))
def test_the_docs_tables_are_the_codes_tables(lang):
    text = (ROOT / DOCS[lang]).read_text(encoding="utf-8")
    assert set(generated_blocks(text)) == set(TABLES), "every table appears once in each doc"
    assert fill_generated(text, lang) == text, "out of date: run python -m kwx rules --update"


@pytest.mark.parametrize("lang", sorted(DOCS))
def test_a_changed_multiplier_in_a_doc_is_caught(lang):
    text = (ROOT / DOCS[lang]).read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `sanlong_qidui` |"))
    assert row.split(" | ")[-3:] == ["×32", "×32", "×32 |"]  # xiaogan, shiyan, online-3d
    tampered = text.replace(row, row.replace("×128", "×64"))
    assert tampered != text and fill_generated(tampered, lang) != tampered


def test_the_patterns_table_has_every_pattern_under_every_preset():
    rows = {line.split(" | ")[0].strip("| `"): line for line in rule_tables("en")["patterns"].splitlines()[2:]}
    assert set(rows) == set(PATTERN_FAN)
    for column, name in enumerate(PRESETS):
        scored = dict(RuleSet.preset(name).scored_patterns())
        for pid, line in rows.items():
            cell = line.strip("| ").split(" | ")[3 + column]
            assert cell == (f"×{scored[pid]}" if pid in scored else "—"), (pid, name)
    assert pattern_name("sanyuan_qidui", "en") in rows["sanyuan_qidui"]


def test_rules_check_command_agrees():
    out = subprocess.run([sys.executable, "-m", "kwx", "rules", "--check"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_readme_and_fan_help_point_to_the_rules_inside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/rules.md)" in readme and "(docs/rules.zh-CN.md)" in readme
    from kwx.cli import build_parser

    fan = build_parser("fan")._subparsers._group_actions[0].choices["fan"]
    assert "docs/rules.md" in fan.format_help()


# Spelled in pieces so that this file does not match itself.
OUTSIDE = ("../" + "shared", "/" + "work/", "RULES" + ".md", "TEAM" + ".md")


def test_nothing_in_the_repository_points_outside_it():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    bad = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file() or path.suffix in (".png", ".sqlite3", ".ico"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        bad += [f"{rel}: {needle}" for needle in OUTSIDE if needle in text]
    assert bad == []


def test_rules_command_speaks_kwx_lang_refuses_other_languages_and_prints_no_generator_markers(capsys, monkeypatch):
    from kwx.cli import main

    monkeypatch.setenv("KWX_LANG", "zh-CN")
    assert main(["rules"]) == 0
    chinese = capsys.readouterr().out
    assert "| 编号 | 名称 |" in chinese and "<!--" not in chinese
    monkeypatch.setenv("KWX_LANG", "en")
    assert main(["rules"]) == 0
    assert "| 编号 | 名称 |" not in capsys.readouterr().out
    assert main(["rules", "--lang", "zh"]) == 0 and "| 编号 | 名称 |" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["rules", "--lang", "fr"])
    assert refused.value.code == 2 and "'fr' is not a language kwx speaks" in capsys.readouterr().err
