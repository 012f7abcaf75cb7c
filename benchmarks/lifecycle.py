"""Tables that end: `python -m benchmarks.lifecycle [--json]`.

The real KwxBot (cogs, the Discord front end), TableService and a temporary SQLite store over the fake Discord
of cogs/fake_discord/, with no AI or between-hands delays and a fake clock for the table timers (moved by the
harness: a simulated hour takes well under a second). One scenario each:

- abandoned: two members and one AI seat; the members never answer from the first deal. The clock runs one
  simulated hour.
- walked_away: one member opens tables with two AI seats each in 12 channels and walks away; then other
  members fill the server up to its cap and try one more.
- channel_deleted / bot_removed / permissions_revoked: a table in play loses its channel (deleted; the bot
  kicked from the server; Send Messages and access revoked). Discord answers every later request to that
  channel with 10003 / 50001 / 50013. The clock then runs 40 simulated minutes (past the idle close).
- restart_mid_claim: a member has a claim window open when the bot stops; it is down for 60 s (past the claim
  window) and starts again.

Keys (goal in brackets):
- hands_after_abandon: hands played after the members went silent, per table [≤ 1]
- ledger_entries_after_pause: ledger hands written after the table paused [0]
- dms_to_absent_per_hand: DMs to each silent member per hand played (the deal, and the prompts of the turns
  they let time out before 托管) [≤ 1]; dms_after_autoplay_began: DMs to them once both were in 托管 [0]
- failed_requests_after_loss: refused requests to the lost channel, per table [≤ 3]
- tables_open_after_loss: tables still open at the end of each loss scenario [0]
- restart_timeouts: timeouts recorded for the restart's downtime [0]
- refused_over_cap: the member's 3rd hosted table and the server's 11th table refused [both true]
- rest_calls_walked_away: every REST call the walked-away tables caused in a simulated 75 s and hour
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cogs.fake_discord import discord_error
from cogs.fake_discord.kit import (
    Kit,
    bot_kit,
    count_failures,
    dispatch,
    seat_table,
)
from kwx.devtools.clock import FakeClock


async def run_clock(kit: Kit, clock: FakeClock, seconds: float, step: float = 31.0) -> None:
    """Let `seconds` of table time pass in steps (each fires the table timers due), settling after each."""
    passed = 0.0
    while passed < seconds:
        clock.advance(step)
        passed += step
        await kit.settle()


def count_calls(kit: Kit) -> list[int]:
    """From now on, count every REST request the bot makes."""
    calls = [0]

    def counting(exchange: Any) -> None:
        calls[0] += 1

    kit.fake.on_exchange(counting)
    return calls


async def hands_at(kit: Kit, tables: Any) -> int:
    """Hands written to the ledger by these tables."""
    return sum([len(await kit.rt.store.hand_numbers(t)) for t in tables])


def lose_channel(kit: Kit, channel_id: int, code: int) -> None:
    """Discord answers every later request to this channel (and its messages) with `code`."""
    status, text = {10003: (404, "Unknown Channel"), 50001: (403, "Missing Access"),
                    50013: (403, "Missing Permissions")}[code]
    kit.fake.inject("*", "*", discord_error(status, code, text), times=10**9, channel_id=channel_id)



async def abandoned(tmp: Path) -> dict[str, Any]:
    clock = FakeClock(time.time())  # starting now, so Discord timestamps stay sensible
    async with bot_kit(tmp / "abandoned", clock=clock) as kit:
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        dms_before = {m.id: len(kit.fake.log.dms(m.id)) for m in (kit.alice, kit.bob)}  # the deal's DMs count
        await kit.slash(kit.alice, "kwx start")
        paused_at_hands = None
        ledger_at_pause = 0
        dms_at_autoplay = None
        steps = 0
        while steps * 31 < 3600:
            clock.advance(31)
            steps += 1
            await kit.settle()
            if table not in kit.service.tables():  # closed when idle
                break
            seats = kit.service.public_view_as_shown(table).seats
            if dms_at_autoplay is None and sum(s.autoplay for s in seats) == 2:
                dms_at_autoplay = sum(len(kit.fake.log.dms(m.id)) for m in (kit.alice, kit.bob))
            if paused_at_hands is None and kit.service.public_view_as_shown(table).paused is not None:
                paused_at_hands = len(await kit.rt.store.hand_numbers(table))
                ledger_at_pause = paused_at_hands
        open_ = table in kit.service.tables()
        hands = len(await kit.rt.store.hand_numbers(table))
        dms = sum(len(kit.fake.log.dms(m.id)) - dms_before[m.id] for m in (kit.alice, kit.bob))
        in_autoplay = sum(len(kit.fake.log.dms(m.id)) for m in (kit.alice, kit.bob)) - (dms_at_autoplay or 0)
        return {"hands_after_abandon": hands, "ledger_entries_after_pause": hands - ledger_at_pause,
                "dms_to_absent_per_hand": round(dms / max(1, hands) / 2, 2),
                "dms_after_autoplay_began": in_autoplay if dms_at_autoplay is not None else None,
                "paused": paused_at_hands is not None, "closed_when_idle": not open_}


async def walked_away(tmp: Path) -> dict[str, Any]:
    clock = FakeClock(time.time())  # starting now, so Discord timestamps stay sensible
    async with bot_kit(tmp / "walked_away", clock=clock, names=[f"m{i}" for i in range(8)]) as kit:
        guild = kit.world.guild
        channels = [kit.channel] + [kit.fake.add_text_channel(guild) for _ in range(13)]
        calls = count_calls(kit)
        member = kit.members[0]
        opened = refused_hosted = 0
        for channel in channels[:12]:
            out = await kit.fake.slash(member, channel, "kwx new", timeout=60)
            table = kit.service.table_in_channel(str(guild.id), str(channel.id))
            if table is None:
                refused_hosted += "上限" in kit.reply(out)
                continue
            opened += 1
            for _ in range(2):
                await kit.fake.slash(member, channel, "kwx addbot", timeout=60)
            await kit.fake.slash(member, channel, "kwx start", timeout=60)
        await kit.settle()
        await run_clock(kit, clock, 75)
        calls_75 = calls[0]
        hands_75 = await hands_at(kit, range(1, 20))
        await run_clock(kit, clock, 3600 - 75, step=60)
        tables = [i.table_id for i in kit.service.table_infos(str(guild.id))]
        hands = await hands_at(kit, range(1, 20))
        # other members (two tables each at most) fill the server to its cap (10), then one more tries
        def open_count() -> int:
            return len(kit.service.table_infos(str(guild.id)))

        hosts = [m for m in kit.members[1:] for _ in range(2)]
        while open_count() < 10 and len(hosts) > 1:
            channels.append(kit.fake.add_text_channel(guild))
            await kit.fake.slash(hosts.pop(0), channels[-1], "kwx new", timeout=60)
        extra = kit.fake.add_text_channel(guild)
        out = await kit.fake.slash(hosts[-1], extra, "kwx new", timeout=60)
        server_refused = open_count() == 10 and kit.service.table_in_channel(str(guild.id), str(extra.id)) is None
        return {"tables_opened": opened, "hands_in_75s": hands_75, "hands_in_1h": hands,
                "rest_calls_75s": calls_75, "rest_calls_1h": calls[0], "open_after_1h": len(tables),
                "refused_over_cap": {"third_hosted": refused_hosted >= 1, "eleventh_in_server": server_refused}}


async def channel_loss(tmp: Path, name: str) -> dict[str, Any]:
    clock = FakeClock(time.time())  # starting now, so Discord timestamps stay sensible
    async with bot_kit(tmp / name, clock=clock) as kit:
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await kit.slash(kit.alice, "kwx start")
        await kit.settle()
        cid = kit.channel.id
        lose_at = len(kit.fake.log)
        ledger_before = len(await kit.rt.store.hand_numbers(table))
        dms_before = len(kit.fake.log.dms(kit.alice.id))
        if name == "channel_deleted":
            lose_channel(kit, cid, 10003)
            failed = count_failures(kit, cid)
            await dispatch(kit, "guild_channel_delete", kit.channel)
        elif name == "bot_removed":
            lose_channel(kit, cid, 50001)
            failed = count_failures(kit, cid)
            await dispatch(kit, "guild_remove", kit.world.guild)
        else:
            lose_channel(kit, cid, 50013)
            failed = count_failures(kit, cid)
        await run_clock(kit, clock, 40 * 60)
        host_dms = len(kit.fake.log.dms(kit.alice.id)) - dms_before
        del lose_at
        return {"failed_requests_after_loss": failed[0], "tables_open_after_loss": len(kit.service.tables()),
                "ledger_hands_after_loss": len(await kit.rt.store.hand_numbers(table)) - ledger_before,
                "host_dms": host_dms}


async def restart_mid_claim(tmp: Path) -> dict[str, Any]:
    clock = FakeClock(time.time())  # starting now, so Discord timestamps stay sensible
    async with bot_kit(tmp / "restart", clock=clock) as kit:
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await kit.slash(kit.alice, "kwx start")
        humans = {str(m.id): m for m in (kit.alice, kit.bob)}
        claimant = None
        for _ in range(2000):  # the members play (the AI's choices) until one of them has a claim window
            await kit.settle()
            for pid in humans:
                try:
                    view = kit.service.private_view_as_shown(table, pid)
                except Exception:
                    continue
                if view.choices and view.claim_tile is not None:
                    claimant = (pid, view)
                    break
            if claimant is not None:
                break
            for pid, member in humans.items():
                view = kit.service.private_view_as_shown(table, pid)
                if view.choices:
                    verb, arg = kit.ai_choice(member, table)
                    with contextlib.suppress(Exception):
                        await kit.service.act(table, pid, verb, None if arg == "-" else arg, step=view.step,
                                              **({"amount": int(arg)} if verb == "piao" else {}))
                    break
            else:
                clock.advance(1)
        assert claimant is not None, "no claim window came up"
        pid, view = claimant
        events_before = len(await kit.rt.store.load_events(table))
        await kit.bot.shutdown_kwx()  # the bot stops (kit.restart() below finds it stopped)
        clock.now += 60  # down for 60 s: past the claim window
        await kit.restart(clock=clock)
        await kit.settle()
        events = (await kit.rt.store.load_events(table))[events_before:]
        timeouts = sum(1 for e in events if e.payload.get("by") == "timeout")
        again = kit.service.private_view_as_shown(table, pid)
        resumed_notice = any("重启" in (m.content or "") + json.dumps([e.to_dict() for e in m.embeds],
                                                                      ensure_ascii=False)
                             for m in kit.table_messages())
        return {"restart_timeouts": timeouts, "claim_still_open": again.step == view.step and bool(again.choices),
                "fresh_deadline_s": round((again.deadline or 0) - clock.now, 1), "resumed_notice": resumed_notice}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for sub in ("abandoned", "walked_away", "channel_deleted", "bot_removed", "permissions_revoked",
                    "restart"):
            (tmp / sub).mkdir()
        started = time.perf_counter()
        out["abandoned"] = await abandoned(tmp)
        out["walked_away"] = await walked_away(tmp)
        for name in ("channel_deleted", "bot_removed", "permissions_revoked"):
            out[name] = await channel_loss(tmp, name)
        out["restart_mid_claim"] = await restart_mid_claim(tmp)
        out["seconds"] = round(time.perf_counter() - started, 1)
    losses = [out[n] for n in ("channel_deleted", "bot_removed", "permissions_revoked")]
    out["summary"] = {
        "hands_after_abandon": out["abandoned"]["hands_after_abandon"],
        "ledger_entries_after_pause": out["abandoned"]["ledger_entries_after_pause"],
        "dms_to_absent_per_hand": out["abandoned"]["dms_to_absent_per_hand"],
        "failed_requests_after_loss": max(x["failed_requests_after_loss"] for x in losses),
        "tables_open_after_loss": sum(x["tables_open_after_loss"] for x in losses),
        "restart_timeouts": out["restart_mid_claim"]["restart_timeouts"],
        "refused_over_cap": out["walked_away"]["refused_over_cap"],
    }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lifecycle", description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
