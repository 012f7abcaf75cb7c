"""Mutation testing: `make mutation` (all targets) or `python -m scripts.mutation payments legality`.
After adding tests, `python -m scripts.mutation legality --again` runs only the mutants that survived.

Each target mutates one module (or some of its functions) with mutmut and runs only its own test folder against
every mutant: a surviving mutant is a change to the code that no test notices. A target runs in a scratch copy of
the tracked files (build/mutation/NAME), so the work tree is never touched, and prints one JSON line:
killed, survived, no_tests (mutants no test reaches), timeout and the score (killed or timed out / all).

The common mutmut settings are [tool.mutmut] in pyproject.toml; a target adds the module and its tests. To add
one, add a row to TARGETS. Slow (minutes per target on two cores): not part of `make test` or CI.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "build" / "mutation"


@dataclass(frozen=True)
class Target:
    module: str  # the file to mutate
    tests: tuple[str, ...]  # the test folders run against its mutants
    functions: tuple[str, ...] = ()  # mutmut names of the functions to mutate (class methods as Class.method); all if empty
    why: str = ""


TARGETS: dict[str, Target] = {
    "payments": Target("kwx/engine/payments.py", ("tests/engine",), why="who pays whom for a hand"),
    "legality": Target(
        "kwx/engine/hand.py", ("tests/engine",),
        functions=("HandState.legal_actions", "HandState._compute_legal", "HandState._turn_actions",
                   "HandState._forbidden", "HandState._liangdao_discards", "HandState._zimo_fan_on",
                   "HandState._declared_self_kong_ok", "HandState.declared_zhigang_ok", "HandState._zimo_result",
                   "HandState._discard_win", "_isolated"),
        why="the hand state machine's legal actions and what they call"),
    "presence": Target("kwx/table/presence.py", ("tests/table",),
                       why="pausing, resuming, leaving and closing tables, and what the end of a hand decides"),
    "viewbuild": Target("kwx/table/viewbuild.py", ("tests/table",),
                        why="the view filter: what the board and each panel show, and what they hide"),
    "advice": Target("kwx/table/advice.py", ("tests/table",),
                     why="what a costly move costs and who gains, what a 自摸 wins: the engine's payments"),
}


def mutant_globs(target: Target) -> list[str]:
    """mutmut's names for the target's mutants: module.x_function__mutmut_N, methods as xǁClassǁmethod."""
    module = target.module.removesuffix(".py").replace("/", ".")
    if not target.functions:
        return [f"{module}.*"]
    out = []
    for name in target.functions:
        cls, _, method = name.rpartition(".")
        out.append(f"{module}.xǁ{cls}ǁ{method}__mutmut_*" if cls else f"{module}.x_{name}__mutmut_*")
    return out


def _copy_tree(dest: Path, fresh: bool = True) -> None:
    """The tracked files (as in the work tree now) into `dest`, emptied first when `fresh`."""
    if fresh and dest.exists():
        shutil.rmtree(dest)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for name in files.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _configure(dest: Path, target: Target) -> None:
    """The scratch pyproject's [tool.mutmut]: the common settings plus this target's module and tests."""
    pyproject = dest / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    common = tomllib.loads(text).get("tool", {}).get("mutmut", {})
    settings = {**common, "only_mutate": [target.module],
                "pytest_add_cli_args_test_selection": list(target.tests)}
    lines = ["[tool.mutmut]"] + [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)
    pyproject.write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n", encoding="utf-8")


_STATUS = re.compile(r"^\s*(\S+__mutmut_\d+): (.+?)\s*$")


_MUTMUT = [sys.executable, "-m", "mutmut"]


def _statuses(dest: Path, globs: list[str]) -> dict[str, str]:
    """mutant name → mutmut's status (killed, survived, no tests …), for the target's mutants."""
    listing = subprocess.run([*_MUTMUT, "results", "--all", "true"], cwd=dest, check=True, capture_output=True,
                             text=True).stdout
    out = {}
    for line in listing.splitlines():
        if (m := _STATUS.match(line)) is not None and any(_matches(m.group(1), g) for g in globs):
            out[m.group(1)] = m.group(2)
    return out


def _mutmut_run(dest: Path, names: list[str], max_children: int) -> None:
    subprocess.run([*_MUTMUT, "run", "--max-children", str(max_children), *names], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL)


def run(name: str, target: Target, max_children: int, again: bool = False) -> dict[str, object]:
    """One target's mutants, or with `again` only those that survived its last run (the scratch copy refreshed
    with the work tree's files, so new tests are run against them)."""
    dest = SCRATCH / name
    globs = mutant_globs(target)
    survivors = [k for k, v in _statuses(dest, globs).items() if v not in ("killed", "timeout")] if again else []
    _copy_tree(dest, fresh=not again)
    _configure(dest, target)
    if not again or survivors:
        _mutmut_run(dest, survivors or globs, max_children)
    unchecked = [k for k, v in _statuses(dest, globs).items() if v == "not checked"]
    if again and unchecked:  # the mutants of functions changed since the last run
        _mutmut_run(dest, unchecked, max_children)
    mine = _statuses(dest, globs)
    counts = {status: sum(1 for v in mine.values() if v == status) for status in sorted(set(mine.values()))}
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    return {
        "target": name, "module": target.module, "tests": list(target.tests), "mutants": len(mine),
        "killed": counts.get("killed", 0), "survived": counts.get("survived", 0),
        "no_tests": counts.get("no tests", 0), "timeout": counts.get("timeout", 0),
        "other": {k: v for k, v in counts.items() if k not in ("killed", "survived", "no tests", "timeout")},
        "score": round(caught / len(mine), 4) if mine else None,
        "survivors": sorted(k for k, v in mine.items() if v != "killed" and v != "timeout"),
        "scratch": str(dest.relative_to(ROOT)),
    }


def _matches(name: str, glob: str) -> bool:
    return re.fullmatch(re.escape(glob).replace(r"\*", ".*"), name) is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=f"of {', '.join(TARGETS)} (default all)")
    parser.add_argument("--max-children", type=int, default=2, help="parallel test processes (default 2)")
    parser.add_argument("--again", action="store_true",
                        help="run only the mutants that survived the last run, against the tests as they are now")
    args = parser.parse_args(argv)
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target {', '.join(unknown)}: targets are {', '.join(TARGETS)}")
    for name in args.targets or list(TARGETS):
        if args.again and not (SCRATCH / name / "mutants").is_dir():
            parser.error(f"--again: {name} has not run yet")
        print(json.dumps(run(name, TARGETS[name], args.max_children, args.again), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
