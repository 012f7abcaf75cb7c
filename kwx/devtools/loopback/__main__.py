"""`python -m kwx.devtools.loopback [--json] [--hands N] [--hold S]`: the real `python bot.py` against the
loopback Discord (`make e2e`).

One player opens a table in a fresh database, adds two AI players, starts, and plays N hands (default 1) by
pressing the buttons of the DMs the bot sends. Prints what it took (one JSON object with --json): requests on
the bot token, interaction responses, 429s, invalid requests, bodies Discord would refuse (off_spec: by its API
description or the limits it cannot express). Exit status 1 when the game did not finish or the bot sent a body
Discord would refuse.

The bot gets the caller's KWX_* settings (all but KWX_DB and KWX_DATABASE_URL, as the run has a fresh store of
its own, and KWX_LANG, as its scripted player reads English). With KWX_METRICS_PORT the report adds what /healthz and /metrics answered after the game, and
`--hold S` keeps the bot running S seconds more to watch them:

    make e2e KWX_METRICS_PORT=9108 HOLD=120        # then: curl 127.0.0.1:9108/healthz  127.0.0.1:9108/metrics
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import aiohttp

from kwx.devtools.loopback.players import BotProcess, World, play
from kwx.devtools.loopback.server import LoopbackDiscord

# The run's fresh store is its own, and its scripted player reads the bot's English.
OWN_SETTINGS = ("KWX_DB", "KWX_DATABASE_URL", "KWX_LANG")


def passed_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's KWX_* settings the bot is given."""
    return {k: v for k, v in environ.items() if k.startswith("KWX_") and k not in OWN_SETTINGS}


async def watched(settings: Mapping[str, str]) -> dict[str, object]:
    """What /healthz and /metrics answer now, when the bot serves them (KWX_METRICS_PORT)."""
    port = settings.get("KWX_METRICS_PORT")
    if not port:
        return {}
    base = f"http://{settings.get('KWX_METRICS_HOST') or '127.0.0.1'}:{port}"
    out: dict[str, object] = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        for path in ("/healthz", "/metrics"):
            try:
                async with session.get(base + path) as answer:
                    text = await answer.text()
            except (aiohttp.ClientError, TimeoutError) as exc:
                out[path] = f"no answer: {type(exc).__name__}"
                continue
            lines = [line for line in text.splitlines() if line and not line.startswith("#")]
            out[path] = f"{answer.status} {lines[0]}" if path == "/healthz" else f"{answer.status}, {len(lines)} samples"
    return out


async def run(hands: int, timeout: float, *, settings: Mapping[str, str] | None = None,
              hold: float = 0.0) -> dict[str, object]:
    started = time.monotonic()
    settings = dict(settings or {})
    with tempfile.TemporaryDirectory(prefix="kwx-e2e-") as tmp:
        async with LoopbackDiscord() as discord_:
            world = World.build(discord_, ("alice",))
            async with BotProcess(discord_, db=Path(tmp) / "kwx.sqlite3", env=settings) as bot:
                alice = world.players[0]
                await alice.command(world.channel, "kwx new")
                for _ in range(2):
                    await alice.command(world.channel, "kwx addbot")
                await alice.command(world.channel, "kwx start")
                finished = True
                try:
                    await play(world.players, lambda: len(world.results()) >= hands, timeout=timeout)
                except TimeoutError:
                    finished = False
                seen = await watched(settings)
                if hold > 0:
                    print(f"the bot stays up {hold:g} s (log: {bot.log})", file=sys.stderr, flush=True)
                    await asyncio.sleep(hold)
                status = await bot.stop()
            return {"hands": len(world.results()), "finished": finished, "presses": alice.presses,
                    "bot_exit": status, "seconds": round(time.monotonic() - started, 2), **discord_.report(),
                    "off_spec_details": discord_.stats.off_spec[:5], "settings": sorted(settings), **seen}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kwx.devtools.loopback", description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before giving up (default 120)")
    p.add_argument("--hold", type=float, default=0.0, metavar="S",
                   help="keep the bot running S seconds after the game (to watch /healthz and /metrics)")
    args = p.parse_args(argv)
    out = asyncio.run(run(args.hands, args.timeout, settings=passed_settings(os.environ), hold=args.hold))
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:>22}: {value}")
    return 0 if out["finished"] and not out["off_spec"] and out["bot_exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
