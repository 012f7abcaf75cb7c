"""`python -m kwx.devtools.loopback [--json] [--hands N]`: the real `python bot.py` against the loopback Discord.

One player opens a table in a fresh database, adds two AI players, starts, and plays N hands (default 1) by
pressing the buttons of the DMs the bot sends. Prints what it took (one JSON object with --json): requests on
the bot token, interaction responses, 429s, invalid requests, bodies Discord would refuse (off_spec: by its API
description or the limits it cannot express). Exit status 1 when the game did not finish or the bot sent a body
Discord would refuse.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from kwx.devtools.loopback.players import BotProcess, World, play
from kwx.devtools.loopback.server import LoopbackDiscord


async def run(hands: int, timeout: float) -> dict[str, object]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kwx-e2e-") as tmp:
        async with LoopbackDiscord() as discord_:
            world = World.build(discord_, ("alice",))
            async with BotProcess(discord_, db=Path(tmp) / "kwx.sqlite3") as bot:
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
                status = await bot.stop()
            return {"hands": len(world.results()), "finished": finished, "presses": alice.presses,
                    "bot_exit": status, "seconds": round(time.monotonic() - started, 2), **discord_.report(),
                    "off_spec_details": discord_.stats.off_spec[:5]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kwx.devtools.loopback", description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before giving up (default 120)")
    args = p.parse_args(argv)
    out = asyncio.run(run(args.hands, args.timeout))
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:>22}: {value}")
    return 0 if out["finished"] and not out["off_spec"] and out["bot_exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
