"""`make e2e` (python -m kwx.devtools.loopback) hands the caller's KWX_* settings to the bot it runs, and with
KWX_METRICS_PORT reports what /healthz and /metrics answered after the game."""

from __future__ import annotations

import socket

from kwx.devtools.loopback.__main__ import passed_settings, run


def test_the_callers_kwx_settings_reach_the_bot_but_not_its_store() -> None:
    environ = {"KWX_METRICS_PORT": "9108", "KWX_LANG": "zh-CN", "KWX_DB": "/home/me/kwx.sqlite3",
               "KWX_DATABASE_URL": "postgresql://db/kwx", "DISCORD_TOKEN": "real", "HOME": "/home/me"}
    assert passed_settings(environ) == {"KWX_METRICS_PORT": "9108"}  # the scripted player reads English


async def test_with_a_metrics_port_the_run_reports_healthz_and_metrics() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = await run(1, 120.0, settings={"KWX_METRICS_PORT": str(port), "KWX_BACKUP_HOURS": "0"})
    assert out["finished"] and out["bot_exit"] == 0
    assert out["settings"] == ["KWX_BACKUP_HOURS", "KWX_METRICS_PORT"]
    assert out["/healthz"] == "200 ok", out
    assert str(out["/metrics"]).startswith("200, ")
