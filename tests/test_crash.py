"""The crash test: the autoplay runner is killed with SIGKILL at random moments and restarted until the table has
played its hands. Nothing may be lost or doubled: every hand sums to zero and is recorded once, the event log has
no gap, replaying the log rebuilds the state the last run ended in, and the money is exactly that of an
uninterrupted run with the same seed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from kwx.local.autoplay import AUTOPLAY_CHANNEL, table_state
from kwx.local.tables import LOCAL_GUILD, find_local_table, finished_hands
from kwx.store import Store

ROOT = Path(__file__).resolve().parent.parent
TARGET = 12
SEED = "crash-test"
KILLS = 6
KILL_RNG_SEED = 20240601


def command(hands: int) -> list[str]:
    return [sys.executable, str(ROOT / "bot.py"), "--local", "--autoplay", str(hands), "--seed", SEED]


def env_for(db: Path) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"} | {"KWX_DB": str(db)}


def run_to_end(db: Path, hands: int) -> tuple[float, dict[str, Any]]:
    started = time.monotonic()
    proc = subprocess.run(command(hands), cwd=ROOT, env=env_for(db), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return time.monotonic() - started, json.loads(proc.stdout.strip().splitlines()[-1])


async def hands_done(db: Path) -> int:
    if not db.exists():
        return 0
    async with await Store.open(db) as store:
        row = await find_local_table(store, AUTOPLAY_CHANNEL)
        return 0 if row is None else await finished_hands(store, row.id)


async def snapshot(db: Path) -> dict[str, Any]:
    """Everything the checks compare, read straight from the store."""
    async with await Store.open(db) as store:
        row = await find_local_table(store, AUTOPLAY_CHANNEL)
        assert row is not None
        players = [seat["player_id"] if isinstance(seat, dict) else seat for seat in row.seats]
        nets: dict[int, dict[str, int]] = defaultdict(dict)
        seat_rows: dict[str, list[int]] = {}
        for player in players:
            mine = [h for h in await store.history(LOCAL_GUILD, player, limit=1000) if h.table_id == row.id]
            seat_rows[player] = sorted(h.hand_no for h in mine)
            for h in mine:
                nets[h.hand_no][player] = h.net
        recorded, ledger_nets = [], {}
        for hand_no in range(1, TARGET + 3):
            hand_id = await store.hand_id(row.id, hand_no)
            if hand_id is None:
                continue
            recorded.append(hand_no)
            moved: dict[str, int] = defaultdict(int)  # what the ledger's entries of this hand did to each player
            for e in await store.entries(LOCAL_GUILD, hand_id=hand_id, limit=None):
                moved[e.from_player] -= e.amount
                moved[e.to_player] += e.amount
            ledger_nets[hand_no] = {p: moved.get(p, 0) for p in players}
        events = await store.load_events(row.id)
        return {
            "table": row.id,
            "nets": dict(nets),
            "seat_rows": seat_rows,
            "recorded": recorded,
            "ledger_nets": ledger_nets,
            "balances": {p: (await store.balance(LOCAL_GUILD, p)).balance for p in players},
            "seqs": [e.seq for e in events],
            "events": [(e.hand_no, e.kind, _stable(e.payload)) for e in events],
        }


_CLOCK_KEYS = {"at", "deadline", "time", "created_at", "now", "until"}


def _stable(payload: Any) -> Any:
    """The payload without wall-clock values (deadlines differ between runs; the game does not)."""
    if isinstance(payload, dict):
        return {k: _stable(v) for k, v in payload.items() if k not in _CLOCK_KEYS}
    if isinstance(payload, list):
        return [_stable(v) for v in payload]
    return payload


def _pump(stream: Any, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _kill_at(proc: subprocess.Popen[str], lines: queue.Queue[str | None], *, first_line: float | None,
             delay: float, last_line: int) -> None:
    """SIGKILL `proc` `delay` seconds after its first hand line (after its start with first_line=None; with a
    number, how long to wait for that line), or at once when it prints its `last_line`-th hand line, whichever
    comes first: the kill lands by the run's own progress however the machine's pace varies, and before the
    run could finish its hands (a run that ended by itself cannot be killed)."""
    seen = 0
    if first_line is not None:
        with contextlib.suppress(queue.Empty):
            if lines.get(timeout=first_line) is None:  # the run ended by itself
                proc.wait()
                return
            seen = 1
    end = time.monotonic() + delay
    while seen < last_line and (left := end - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            proc.wait()
            return
        seen += 1
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


async def replayed_state(db: Path) -> dict[str, Any]:
    """Rebuild the table from its event log in a fresh service (AI players asleep) and describe its state."""
    from kwx.local.autoplay import AutoplayFrontEnd
    from kwx.local.tables import only_channel
    from kwx.store import Store
    from kwx.table.service import TableService

    store = await Store.open(db)
    service = TableService(store, AutoplayFrontEnd(io.StringIO()), ai_delay=3600, between_hands=3600)
    try:
        await service.start(include=only_channel(LOCAL_GUILD, AUTOPLAY_CHANNEL))
        table_id = service.table_in_channel(LOCAL_GUILD, AUTOPLAY_CHANNEL)
        return table_state(service.public_view_as_shown(table_id))
    finally:
        await service.shutdown()
        await store.close()


async def test_sigkill_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    budget_started = time.monotonic()

    # An uninterrupted run with the same seed, and how long start-up and a hand take on this machine.
    reference = tmp_path / "reference.sqlite3"
    startup, _ = run_to_end(tmp_path / "calibrate.sqlite3", 0)
    elapsed, ref_summary = run_to_end(reference, TARGET)
    per_hand = max(0.005, (elapsed - startup) / TARGET)
    print(f"start-up {startup:.2f}s, {per_hand * 1000:.0f} ms a hand")

    crashed = tmp_path / "crashed.sqlite3"
    rng = random.Random(KILL_RNG_SEED)
    kills = 0
    progress: list[int] = []
    while kills < KILLS and (done := await hands_done(crashed)) < TARGET:
        progress.append(done)
        errors = (tmp_path / f"run{len(progress)}.stderr").open("w")
        proc = subprocess.Popen(command(TARGET - done), cwd=ROOT, env=env_for(crashed), stdout=subprocess.PIPE,
                                stderr=errors, text=True)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        # Never later than the run's third hand line (nor its last): each killed run plays at most 3 hands,
        # so the TARGET hands leave room for at least TARGET / 3 kills however the machine's pace varies.
        last_line = max(1, min(3, TARGET - done - 1))
        if rng.random() < 0.3:  # during start-up: the recovery itself must survive a kill
            _kill_at(proc, lines, first_line=None, delay=rng.uniform(0.2, 1.0) * startup, last_line=last_line)
        else:  # in the middle of play: after the run's first hand, at a random point of the next ones
            _kill_at(proc, lines, first_line=startup * 3 + per_hand * 4, delay=rng.uniform(0.0, 2.5) * per_hand,
                     last_line=last_line)
        errors.close()
        if proc.returncode == -signal.SIGKILL:
            kills += 1
        else:
            assert proc.returncode == 0, (tmp_path / f"run{len(progress)}.stderr").read_text()
    remaining = TARGET - await hands_done(crashed)
    print(f"{kills} kills; hands done before each run: {progress}; the last run plays {remaining}")
    _, final_summary = run_to_end(crashed, max(remaining, 0))
    assert kills >= 4, f"only {kills} kills landed (progress {progress}): the kill delays need tuning"

    ref = await snapshot(reference)
    got = await snapshot(crashed)
    # Every hand recorded exactly once, in order, each summing to zero.
    assert got["recorded"][:TARGET] == list(range(1, TARGET + 1))
    for hand_no in range(1, TARGET + 1):
        per_player = got["nets"][hand_no]
        assert len(per_player) == 3 and sum(per_player.values()) == 0, (hand_no, per_player)
        assert got["ledger_nets"][hand_no] == per_player  # the ledger moved exactly the hand's money, once
    for player, hands in got["seat_rows"].items():
        assert hands == sorted(set(hands)) == got["recorded"], player  # one result per hand and player
    # No event lost: the log's seqs have no gap, and replaying it gives the state the last run ended in.
    assert got["seqs"] == list(range(1, len(got["seqs"]) + 1))
    assert await replayed_state(crashed) == final_summary["state"]
    assert await replayed_state(reference) == ref_summary["state"]
    # The same game as the uninterrupted run: the same hands, events and money.
    for hand_no in range(1, TARGET + 1):
        assert got["nets"][hand_no] == ref["nets"][hand_no], hand_no
        assert [e for e in got["events"] if e[0] == hand_no] == [e for e in ref["events"] if e[0] == hand_no]
    finished_in_both = set(got["recorded"]) & set(ref["recorded"])
    if set(got["recorded"]) == set(ref["recorded"]) == finished_in_both:
        assert got["balances"] == ref["balances"]
    else:  # one of the runs finished an extra hand while shutting down: compare the first TARGET hands' money
        for player in ref["balances"]:
            assert sum(got["nets"][h][player] for h in range(1, TARGET + 1)) == \
                sum(ref["nets"][h][player] for h in range(1, TARGET + 1))
    assert time.monotonic() - budget_started < 90
