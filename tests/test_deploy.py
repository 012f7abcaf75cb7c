"""The systemd unit in deploy/ is one systemd accepts (`systemd-analyze verify`, where systemd is installed), and
it runs the installed `kwx-bot` from the state directory it creates."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "deploy" / "kwx.service"
INSTALLED = "/usr/local/bin/kwx-bot"


def _settings(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def test_the_unit_runs_kwx_bot_in_its_state_directory_and_stops_it_with_sigterm():
    unit = _settings(UNIT.read_text(encoding="utf-8"))
    assert unit["ExecStart"] == INSTALLED
    assert unit["StateDirectory"] == "kwx" and unit["WorkingDirectory"] == "/var/lib/kwx"
    assert unit["KillSignal"] == "SIGTERM" and unit["User"] == "kwx"


def test_the_backup_folder_the_settings_suggest_is_writable_under_the_units_read_only_file_system():
    """ProtectSystem=strict makes every path read-only but the ones named: a KWX_BACKUP_DIR on another disk, as
    .env.example and the README suggest, was refused."""
    text = UNIT.read_text(encoding="utf-8")
    writable = [line.split("=", 1)[1].lstrip("-") for line in text.splitlines() if line.startswith("ReadWritePaths=")]
    suggested = re.search(r"KWX_BACKUP_DIR=(/\S+)", (ROOT / ".env.example").read_text(encoding="utf-8"))
    assert _settings(text)["ProtectSystem"] == "strict" and suggested is not None
    assert suggested.group(1).rstrip(",.") in writable
    assert suggested.group(1).rstrip(",.") in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_accepts_the_unit(tmp_path):
    # verify checks that ExecStart exists: point it at this checkout's kwx-bot (the same console script).
    bot = Path(sys.prefix) / "bin" / "kwx-bot"
    assert bot.is_file(), "kwx-bot is missing from the virtualenv: run `make setup`"
    unit = tmp_path / "kwx.service"
    unit.write_text(UNIT.read_text(encoding="utf-8").replace(INSTALLED, str(bot)), encoding="utf-8")
    run = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (run.stdout + run.stderr).splitlines() if "kwx.service" in line]
    assert run.returncode == 0 and complaints == [], run.stderr
