"""A table's record is a pure function of its event log: random play (a human choosing at random among her
choices, timing out, switching 托管, AI seats of random levels, random rules) is snapshotted at random moments,
and replaying the log up to each snapshot's record into a fresh TableRecord — no service, no asyncio — gives the
same record: the same board, the same panels, scores, 漂, 托管 and pause. This is crash recovery's promise."""

from __future__ import annotations

import ast
import asyncio
import importlib
import random
from pathlib import Path
from typing import Any

import pytest

from kwx.engine.rules import RuleSet
from kwx.store import Store
from kwx.table import TableError, TableService
from kwx.table.record import TableRecord
from kwx.table.recovery import replay
from kwx.table.viewbuild import private_view, public_view
from tests.support.clock import FakeClock
from tests.support.players import ANN, GUILD

PRESETS = ("standard", "shiyan", "xiaogan")
LEVELS = ("simple", "standard")


def snapshot(t: TableRecord) -> dict[str, Any]:
    """What a player could tell of the record (its views), and the counters its future depends on."""
    seats = range(3) if t.setup is not None else ()
    return {
        "seq": t.seq, "step": t.step, "window": t.window, "status": t.status, "hand_no": t.hand_no,
        "hands_done": t.hands_done, "scores": dict(t.scores), "piao": dict(t.piao_picks),
        "autoplay": sorted(t.autoplay), "timeouts": {k: v for k, v in t.timeouts.items() if v},
        "missed": sorted(t.missed_turn), "paused": t.paused, "host": t.host, "vacant": list(t.vacant),
        "moved": t.human_moved, "asked": t.human_asked, "biggest": t.biggest, "next": t.next,
        "board": public_view(t), "panels": [private_view(t, s) for s in seats],
        "legal": [t.legal(s) for s in seats],
    }


def fresh_record(row: Any) -> TableRecord:
    from kwx.table.views import PlayerRef

    options = row.options or {}
    lobby = [PlayerRef(s["player_id"], s["name"], s.get("ai_level")) for s in row.seats]
    return TableRecord(row.id, row.guild, row.channel, RuleSet.from_json(row.rules), row.seed, options["host"], lobby,
                       turn_seconds=options["turn_seconds"], claim_seconds=options["claim_seconds"],
                       claim_pause=options["claim_pause"], seed_salt=options.get("seed_salt"))


async def play_at_random(svc: TableService, clock: FakeClock, table: int, rng: random.Random,
                         hands: int) -> list[dict[str, Any]]:
    """Ann plays `hands` hands at random; returns snapshots of the live record taken under its lock."""
    snaps: list[dict[str, Any]] = []
    t = svc.live_table(table)
    for _ in range(3000):  # far more rounds than two hands take
        await svc.flush()
        if t.hands_done >= hands and t.status == "between":
            break
        if t.paused is not None:
            await svc.resume(table, ANN.player_id)
            continue
        async with t.lock:  # no record lands while it is taken
            if rng.random() < 0.3:
                snaps.append(snapshot(t))
        roll = rng.random()
        try:
            view = svc.private_view_as_shown(table, ANN.player_id)
        except TableError:
            view = None
        if view is not None and view.choices and roll < 0.8:
            choice = rng.choice(view.choices)
            amount = rng.randint(0, view.piao_max) if choice.verb == "piao" else None
            try:
                await svc.act(table, ANN.player_id, choice.verb, choice.tile, step=view.step, amount=amount)
            except TableError as refused:  # the AI moved first for her (托管) or the window closed
                assert refused.code in ("stale", "not_your_turn"), refused
        elif roll < 0.85 and t.status in ("piao", "playing"):
            await svc.set_autoplay(table, ANN.player_id, ANN.player_id not in t.autoplay)
        else:  # time passes: her deadline, the AI's moves, the next hand
            clock.advance(rng.choice((1, 13, 31, 61)))  # its timers fire; the table plays on while Ann looks
            await asyncio.sleep(0)
    else:
        raise AssertionError("the hands never finished")
    await svc.shutdown()  # no timer or AI moves any more: the last snapshot is of the whole log
    snaps.append(snapshot(t))
    return snaps


@pytest.mark.parametrize("seed", range(4))
async def test_replaying_the_log_gives_the_record_of_live_play(make_service, store: Store, clock, seed):
    rng = random.Random(f"record-replay-{seed}")
    rules = RuleSet.preset(rng.choice(PRESETS))
    svc = make_service(clock=clock, between_hands=5, ai_delay=0)
    table = await svc.open_table(GUILD, "c1", ANN, rules=rules, seed=f"table-{seed}", turn_seconds=30,
                                 claim_seconds=12)
    for _ in range(2):
        await svc.add_ai(table, rng.choice(LEVELS), by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    snaps = await play_at_random(svc, clock, table, rng, hands=2)

    row = await store.get_table(table)
    events = await store.load_events(table)
    assert len(snaps) >= 5 and snaps[-1]["seq"] == len(events)
    for live in snaps:
        record = fresh_record(row)
        replay(record, [e for e in events if e.seq <= live["seq"]])
        assert snapshot(record) == live, f"after record {live['seq']}"


@pytest.mark.parametrize("name", ["record", "record_state", "log_records", "machine", "ledger_entry", "table_seed"])
def test_the_record_knows_nothing_of_asyncio(name):
    module = importlib.import_module(f"kwx.table.{name}")
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"asyncio", "time", "socket", "threading"}, imported
