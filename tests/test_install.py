"""The one-line install: the project built as a wheel and installed into a fresh virtualenv outside the checkout
(what `pipx install .` and `uv tool install .` do) gives working `kwx` and `kwx-bot` commands, which read `.env`
from the directory they run in, keep their data where it says, and find the tile art and string catalog that
the package carries."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What a clean checkout holds: no virtualenv, caches, builds or databases.
NOT_SOURCE = shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
                                    "*.sqlite3*", "*.log")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """bin/ of a fresh virtualenv with kwx installed from a wheel built from a copy of the checkout. Its
    dependencies come from this virtualenv (a .pth line), so nothing is downloaded; kwx itself is only the
    installed copy (this checkout's editable install is not on that path)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=NOT_SOURCE)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(work / "wheels"), str(source)], check=True, capture_output=True, timeout=300)
    (wheel,) = (work / "wheels").glob("kwx-*.whl")
    target = work / "venv"
    venv.create(target, with_pip=False)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "install", "--quiet",
                    "--no-deps", str(wheel)], check=True, capture_output=True, timeout=300)
    site = Path(subprocess.run([str(target / "bin" / "python"), "-c", "import sysconfig; print(sysconfig."
                                "get_paths()['purelib'])"], check=True, capture_output=True, text=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return target / "bin"


def _run(bin_dir: Path, *argv: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KWX_", "DISCORD_", "PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run([str(bin_dir / argv[0]), *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_installed_commands_work_outside_the_checkout(installed, tmp_path):
    fan = _run(installed, "kwx", "fan", "1122334456677p", "5p", cwd=tmp_path)
    assert fan.returncode == 0 and "Fan 番: 16" in fan.stdout, fan.stderr
    usage = _run(installed, "kwx-bot", "--help", cwd=tmp_path)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: kwx-bot ")
    where = _run(installed, "python", "-c", "import kwx.present.art as art, kwx.present.i18n as i18n; "
                 "from kwx.local.rules_text import rules_doc; "
                 "print(art.__file__); print(len(list(art.TILE_DIR.glob('*.png')))); print(i18n.tr('cli.ledger.name', 'en')); "
                 "print(rules_doc('zh-CN').read_text(encoding='utf-8').splitlines()[0])",
                 cwd=tmp_path)
    module, tiles, word, rules = where.stdout.split("\n")[:4]
    assert Path(module).is_relative_to(installed.parent) and not Path(module).is_relative_to(ROOT)
    assert int(tiles) == 22 and word == "Name"  # the tile art and the catalog came with the package
    assert rules == "# 卡五星 —— kwx 的规则"  # and the rules the `?` screen shows
    page = _run(installed, "python", "-c", "import kwx.web.server as w; print(sorted(p.name for p in "
                "w.STATIC_DIR.iterdir()))", cwd=tmp_path)
    assert page.stdout.strip() == "['discord-sdk.js', 'index.html', 'table.css', 'table.js']", page.stderr


def test_the_installed_bot_reads_env_from_its_directory_and_keeps_data_there(installed, tmp_path):
    (tmp_path / ".env").write_text("KWX_DB=state/game.sqlite3\nKWX_LANG=en\n", encoding="utf-8")
    game = _run(installed, "kwx-bot", "--local", "--autoplay", "1", "--delay", "0", "--seed", "install",
                cwd=tmp_path)
    assert game.returncode == 0, game.stdout[-2000:] + game.stderr[-2000:]
    assert (tmp_path / "state" / "game.sqlite3").is_file()
    backup = _run(installed, "kwx", "ledger", "backup", cwd=tmp_path)
    assert backup.returncode == 0 and "state/backups/game-" in backup.stdout, backup.stderr
    checked = _run(installed, "kwx", "ledger", "verify", cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.startswith("ok: state/game.sqlite3 "), checked.stderr
