"""A game screen left without its own shutdown (a test failing under the pilot) still lets the process exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import asyncio, sys
    from kwx.local.app import KwxApp

    async def main(db):
        app = KwxApp(db, lang="en", seed="exit", ai_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(500):
                if app.ready.is_set():
                    break
                await pilot.pause(0.02)
            raise AssertionError("a failing check, before the test's own shutdown")

    try:
        asyncio.run(main(sys.argv[1]))
    except AssertionError:
        print("failed as planned", flush=True)
""")


def test_the_process_exits_after_a_check_fails_under_the_pilot(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "kwx.sqlite3")], capture_output=True,
                          text=True, timeout=60)
    assert "failed as planned" in done.stdout, done.stderr[-2000:]
    assert done.returncode == 0
