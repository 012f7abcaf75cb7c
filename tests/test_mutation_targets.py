"""`make mutation` (scripts/mutation.py): every target names a module, functions and test folders that exist, so
a rename cannot leave a target mutating nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scripts.mutation import TARGETS, Target, _configure, mutant_globs

ROOT = Path(__file__).resolve().parent.parent


def _defined(module: Path) -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        names |= {f"{cls.name}.{n.name}" for n in cls.body if isinstance(n, ast.FunctionDef)}
    return names


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_target_names_what_exists(name: str) -> None:
    target = TARGETS[name]
    module = ROOT / target.module
    assert module.is_file()
    assert all((ROOT / folder).is_dir() for folder in target.tests)
    assert set(target.functions) <= _defined(module)


def test_mutant_names_follow_mutmut() -> None:
    target = Target("kwx/engine/hand.py", ("tests/engine",), functions=("HandState.legal_actions", "_isolated"))
    assert mutant_globs(target) == ["kwx.engine.hand.xǁHandStateǁlegal_actions__mutmut_*",
                                    "kwx.engine.hand.x__isolated__mutmut_*"]
    assert mutant_globs(Target("kwx/engine/payments.py", ("tests/engine",))) == ["kwx.engine.payments.*"]


def test_a_target_adds_its_module_and_tests_to_the_shared_settings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    _configure(tmp_path, TARGETS["payments"])
    text = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert text.count("[tool.mutmut]") == 1
    assert 'only_mutate = ["kwx/engine/payments.py"]' in text
    assert 'pytest_add_cli_args_test_selection = ["tests/engine"]' in text
    assert 'source_paths = ["kwx"]' in text and "[tool.mypy]" in text
