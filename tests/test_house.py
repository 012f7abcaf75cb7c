"""The house's floors, read from the source: imports point down, never round in a circle; the engine stays pure.

Every import counts, also one inside a function or under TYPE_CHECKING: a circle that only shows at run time is
still a circle for whoever reads the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kwx", "cogs")

# What an engine module may not import: anything that waits, touches files, the network or a front end.
IO_MODULES = frozenset({
    "asyncio", "aiosqlite", "sqlite3", "discord", "aiohttp", "socket", "ssl", "threading", "subprocess",
    "multiprocessing", "concurrent", "os", "io", "pathlib", "shutil", "tempfile", "urllib", "http", "logging",
    "dotenv", "rich", "PIL", "textual", "prompt_toolkit",
})
# The floors under the front ends, each with the floors it may import (its own included).
LOWER_FLOORS = {
    "kwx.engine": {"kwx.engine"},
    "kwx.store": {"kwx.engine", "kwx.store"},
    "kwx.present": {"kwx.engine", "kwx.store", "kwx.present"},
    "kwx.table": {"kwx.engine", "kwx.store", "kwx.present", "kwx.table"},
    # The web front end: the table service's third front end, under the terminal's (which serves it with --web).
    "kwx.web": {"kwx.engine", "kwx.store", "kwx.present", "kwx.table", "kwx.web"},
    # Beside the floors: what an operator watches reads whatever it is handed, and imports no floor.
    "kwx.metrics": {"kwx.metrics"},
    "kwx.health": {"kwx.metrics", "kwx.health"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    found = {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}
    found["bot"] = ROOT / "bot.py"
    return found


def imported_names_of(tree: ast.AST, name: str, path: Path) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
            if base:
                out.add(base)
    return out


def imported_names(path: Path, name: str) -> set[str]:
    """Every module name an import statement in the file names (absolute; relative imports resolved)."""
    return imported_names_of(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), name, path)


MODULES = source_modules()
IMPORTS = {name: imported_names(path, name) for name, path in MODULES.items()}


def internal_edges(name: str) -> set[str]:
    """The project modules `name` imports (`from a import b` counts as a.b when b is a module, else a)."""
    return {target for target in IMPORTS[name] if target in MODULES and target != name}


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(internal_edges(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    return found


def floor_of(name: str) -> str | None:
    return next((floor for floor in LOWER_FLOORS if name == floor or name.startswith(floor + ".")), None)


def test_the_walk_sees_the_house():
    # A broken walk would pass every test below: it must see the floors and the imports between them.
    assert {"kwx.engine.hand", "kwx.table.service", "cogs.frontend", "cogs.runtime", "bot"} <= set(MODULES)
    assert "kwx.engine.tiles" in internal_edges("kwx.engine.hand")
    assert "cogs.frontend" in internal_edges("cogs.runtime")  # its TYPE_CHECKING import counts


def test_no_import_circles():
    assert cycles() == [], "modules that import each other, directly or round a circle"


def test_the_cycle_finder_finds_one(monkeypatch):
    monkeypatch.setitem(IMPORTS, "kwx.engine.tiles", IMPORTS["kwx.engine.tiles"] | {"kwx.engine.hand"})
    assert any({"kwx.engine.tiles", "kwx.engine.hand"} <= set(c) for c in cycles())


def test_nothing_under_kwx_imports_discord_or_the_discord_front_end():
    bad = {name: sorted(t for t in IMPORTS[name] if t.split(".")[0] in ("discord", "cogs", "bot"))
           for name in MODULES if name.split(".")[0] == "kwx"}
    assert {name: targets for name, targets in bad.items() if targets} == {}


def test_nothing_the_project_ships_imports_the_tests():
    # kwx, cogs and bot.py are installed without tests/ (a wheel, a container), so an import of it fails there
    bad = {name: sorted(t for t in IMPORTS[name] if t.split(".")[0] == "tests") for name in MODULES}
    assert {name: targets for name, targets in bad.items() if targets} == {}


def test_the_engine_does_no_io():
    bad = {}
    for name in MODULES:
        if floor_of(name) == "kwx.engine":
            targets = sorted(t for t in IMPORTS[name] if t.split(".")[0] in IO_MODULES)
            if targets:
                bad[name] = targets
    assert bad == {}, "engine modules importing something that waits, reads, writes or talks"


@pytest.mark.parametrize("floor", sorted(LOWER_FLOORS))
def test_lower_floors_import_only_floors_below_them(floor):
    allowed = LOWER_FLOORS[floor]
    bad = {}
    for name in MODULES:
        if floor_of(name) != floor:
            continue
        up = sorted(t for t in internal_edges(name) if floor_of(t) not in allowed)
        if up:
            bad[name] = up
    assert bad == {}, f"{floor} importing a floor above it"


# Still keeping state in module globals, on their way out (none left).
MODULE_STATE_LEFT: set[str] = set()


def module_state(path: Path) -> list[str]:
    """What keeps state for the whole process: `global` statements, mutable containers made at module level
    (`_cache: dict[...] = {}`), and objects of the module's own classes made at import (`COUNTS = Counts()`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = [f"global {', '.join(node.names)}" for node in ast.walk(tree) if isinstance(node, ast.Global)]
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        empty = isinstance(value, ast.Dict | ast.List | ast.Set) and not (getattr(value, "keys", None) or
                                                                         getattr(value, "elts", None))
        own = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in classes
        if empty or own:
            found.append(ast.unparse(node).split("=")[0].strip())
    return found


def test_the_discord_front_end_keeps_its_state_on_the_bot_not_in_module_globals():
    """Two bots in one process (the tests, a restart in place) must share nothing: a cooldown, a worker pool
    or a limiter lives on the bot or one of its cogs."""
    found = {name: module_state(path) for name, path in MODULES.items() if name.split(".")[0] in ("cogs", "bot")}
    assert {name for name, state in found.items() if state} <= MODULE_STATE_LEFT, found


def test_the_state_finder_finds_process_wide_state(tmp_path):
    # A blind finder would pass the test above: it must see each kind it looks for, and no constant.
    source = tmp_path / "m.py"
    source.write_text("class Counts:\n    n = 0\n\n\nCOUNTS = Counts()\n_cache: dict[str, int] = {}\n"
                      "LIMIT = int('3')\nNAMES = ('a',)\n\n\ndef bump():\n    global LIMIT\n", encoding="utf-8")
    assert module_state(source) == ["global LIMIT", "COUNTS", "_cache: dict[str, int]"]


# == the tests' own house ===============================================================================
# Helpers live in tests/support (and what the benchmarks share with the tests, the Discord harness, in
# cogs/fake_discord): a test module never imports another test module, and a benchmark never imports
# the tests.
TESTS = ROOT / "tests"
SUPPORT = "tests.support"


def foreign_test_imports(path: Path, text: str | None = None) -> list[str]:
    """The modules under tests/ but outside tests/support that a file imports: by dotted name (`tests.cogs.x`,
    relative ones resolved) or by bare name (`import store_helpers`: pytest puts a test folder without an
    __init__.py on sys.path, so a sibling module is importable by its name)."""
    tree = ast.parse(text if text is not None else path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path)
    siblings = {p.stem for p in path.parent.glob("*.py")} - {path.stem}
    found: list[str] = []
    for target in sorted(imported_names_of(tree, name, path)):
        top = target.split(".")[0]
        if top == "tests":
            dotted = target
        elif top in siblings:
            dotted = module_name(path.parent / f"{top}.py")
        else:
            continue
        # `from tests.table import x` names the module x, or a name in tests/table/__init__.py (no test module)
        module = dotted if (ROOT / (dotted.replace(".", "/") + ".py")).exists() else dotted.rpartition(".")[0]
        if not (ROOT / (module.replace(".", "/") + ".py")).exists() or module.startswith(SUPPORT + "."):
            continue
        found.append(module)
    return sorted(set(found))


def test_no_test_module_imports_another_test_module():
    found = {str(p.relative_to(ROOT)): foreign_test_imports(p) for p in sorted(TESTS.rglob("*.py"))
             if SUPPORT.replace(".", "/") not in str(p.relative_to(ROOT))}
    assert {path: targets for path, targets in found.items() if targets} == {}, \
        "helpers a test shares belong in tests/support"


def test_tests_support_imports_no_test_module():
    found = {str(p.relative_to(ROOT)): foreign_test_imports(p) for p in sorted((TESTS / "support").rglob("*.py"))}
    assert {path: targets for path, targets in found.items() if targets} == {}


def test_the_test_import_check_sees_each_kind_of_import():
    here = TESTS / "table" / "test_lobby.py"
    assert foreign_test_imports(here, "from tests.table.test_actions import ANN_DEALS") == ["tests.table.test_actions"]
    assert foreign_test_imports(here, "from tests.table import test_actions") == ["tests.table.test_actions"]
    assert foreign_test_imports(here, "from . import conftest") == ["tests.table.conftest"]
    assert foreign_test_imports(here, "import test_presence") == ["tests.table.test_presence"]
    assert foreign_test_imports(here, "from tests.support.tables import refused\nimport kwx.table") == []


def test_benchmarks_import_no_tests():
    found = {}
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = imported_names_of(tree, module_name(path), path)
        bad = sorted(n for n in names if n.split(".")[0] == "tests")
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert found == {}, "what a benchmark shares with the tests lives in kwx/devtools or, for Discord, cogs/fake_discord"


# The harness that drives the Discord front end for the tests and the benchmarks (cogs.fake_discord)
# imports discord.py and the cogs; nothing the bot runs imports it.
DISCORD_HARNESS = "cogs.fake_discord"


def in_harness(name: str) -> bool:
    return name == DISCORD_HARNESS or name.startswith(DISCORD_HARNESS + ".")


def test_nothing_the_bot_runs_imports_the_discord_harness():
    bad = {name: sorted(t for t in IMPORTS[name] if in_harness(t)) for name in MODULES if not in_harness(name)}
    assert {name: targets for name, targets in bad.items() if targets} == {}
