"""requirements.lock, what `make setup` (and so CI) installs, pins every dependency pyproject.toml declares, the
dev and bench extras included, at a version inside the declared range: a dependency added or narrowed without
`make lock` fails here instead of going missing from the next fresh checkout."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def locked_versions() -> dict[str, str]:
    """name -> pinned version, from the lock's `name==version \\` lines; each must carry its hashes (pip then
    installs nothing it has not been told the hash of)."""
    pins: dict[str, str] = {}
    lines = (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
    for line, after in zip(lines, [*lines[1:], ""]):
        if line and not line[0].isspace() and not line.startswith("#"):
            assert after.strip().startswith("--hash=sha256:"), f"no hash for {line}"
            name, _, version = line.split()[0].partition("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_the_lock_pins_every_declared_dependency_within_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    declared = [Requirement(text) for text in (*project["dependencies"], *extras["dev"], *extras["bench"])]
    pins = locked_versions()
    wrong = []
    for req in declared:
        version = pins.get(canonicalize_name(req.name))
        if version is None or not req.specifier.contains(version, prereleases=True):
            wrong.append(f"{req} (locked: {version or 'missing'})")
    assert not wrong, f"requirements.lock is out of date, run `make lock`: {', '.join(wrong)}"
