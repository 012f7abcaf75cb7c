"""Crash recovery: a new service on the same database rebuilds every open table from its event log — same
hand, same step, same views — re-arms its timers, and writes a finished hand the ledger missed, once."""

from __future__ import annotations

import pytest

from kwx.store import Store
from kwx.table import PlayerRef, TableService
from tests.support import backends
from tests.support.frontends import RecordingFrontEnd
from tests.support.players import ANN, GUILD
from tests.support.tables import finished_hands, play_own_moves, table_with, wait_prompt

BACKENDS = backends.BACKENDS  # these run on PostgreSQL too (tests/table/conftest.py)


async def test_restart_mid_hand_gives_the_same_table(store, frontend, db_path, clock):
    first = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    table = await table_with(first, ANN, seed="restart-seed")
    await first.start_game(table, by=ANN.player_id)
    last = await play_own_moves(first, frontend, table, ANN.player_id, 3)
    await wait_prompt(frontend, first, table, ANN.player_id, after=last)
    await first.flush()
    board, mine = first.public_view_as_shown(table), first.private_view_as_shown(table, ANN.player_id)
    assert board.hand_no == 1 and board.phase in ("turn", "claim")
    await first.shutdown()

    fe2 = RecordingFrontEnd()
    async with await Store.open(db_path) as store2:
        second = TableService(store2, fe2, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
        assert await second.start() == [table]
        assert second.public_view_as_shown(table) == board
        assert second.private_view_as_shown(table, ANN.player_id) == mine
        await second.flush()
        # the front end is shown the table again, and Ann is asked again
        assert fe2.boards(table)[-1] == board
        assert fe2.last_prompt(ANN.player_id) == mine
        # and the hand goes on to its end, into the ledger
        def asked_or_over(after: int) -> bool:
            view = second.private_view_as_shown(table, ANN.player_id)
            return bool(fe2.results(table)) or (view.step > after and bool(view.choices))

        step = 0
        for _ in range(200):  # one of her decisions a round; a hand has far fewer
            await fe2.wait_for(lambda after=step: asked_or_over(after))
            if fe2.results(table):
                break
            step = await play_own_moves(second, fe2, table, ANN.player_id, 1)
        else:
            raise AssertionError("the hand never ended")
        await finished_hands(fe2, table, 1)
        assert await store2.hand_id(table, 1) is not None
        sheet = await store2.balances(GUILD)
        assert sheet.hands == 1 and sum(r.balance for r in sheet.rows) == 0
        await second.shutdown()


async def test_a_restart_gives_the_open_decision_a_fresh_deadline(store, frontend, db_path, clock):
    """The time the service was down is nobody's timeout: her turn waits a full turn time from the restart."""
    first = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    table = await table_with(first, ANN, seed="deadline-seed", turn_seconds=30, claim_seconds=10)
    await first.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, first, table, ANN.player_id)
    await first.shutdown()
    clock.advance(45)  # the service was down past her deadline
    fe2 = RecordingFrontEnd()
    async with await Store.open(db_path) as store2:
        second = TableService(store2, fe2, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
        await second.start()
        await second.idle()
        assert not any(c.args[1] == "event.timeout" for c in fe2.notices())
        assert [c.args[1] for c in fe2.notices("table.restarted")] == ["table.restarted"]
        again = second.private_view_as_shown(table, ANN.player_id)
        assert again.step == view.step and again.choices == view.choices
        fresh = clock.now + (10 if view.claim_tile is not None else 30)
        assert again.deadline == fresh and second.public_view_as_shown(table).deadline == fresh
        clock.advance(fresh - clock.now + 1)  # her fresh time runs out: now it is a timeout
        await second.idle()
        await fe2.wait_for(lambda: second.public_view_as_shown(table).step > view.step)
        assert second.public_view_as_shown(table).step > view.step
        await second.shutdown()


class CrashingLedger(Exception):
    pass


async def test_crash_between_the_hand_end_and_the_ledger_write(store, frontend, db_path, monkeypatch):
    host = PlayerRef("ai:standard:7", "AI 7", "standard")
    first = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=3600)

    async def crash(record):
        raise CrashingLedger("the process died here")

    monkeypatch.setattr(store, "finish_hand", crash)
    table = await table_with(first, host, seed="crash-seed", channel=None)
    await first.start_game(table, by=host.player_id)
    await frontend.wait_for(lambda: first.public_view_as_shown(table).phase == "finished")
    await first.flush()
    assert frontend.results(table) == []  # never shown: the ledger did not get it
    await first.shutdown()
    monkeypatch.undo()

    async with await Store.open(db_path) as store2:
        assert await store2.hand_id(table, 1) is None
        fe2 = RecordingFrontEnd()
        second = TableService(store2, fe2, ai_delay=0, claim_pause=0, between_hands=3600)
        await second.start()
        await second.flush()
        hand_id = await store2.hand_id(table, 1)
        assert hand_id is not None
        (result,) = fe2.results(table)
        entries = await store2.entries(GUILD, hand_id=hand_id, limit=500)
        sheet = await store2.balances(GUILD)
        assert sheet.hands == 1 and sum(r.balance for r in sheet.rows) == 0
        assert sorted(r.balance for r in sheet.rows if r.balance) == sorted(n for n in result.net if n)
        await second.shutdown()

        third = TableService(store2, RecordingFrontEnd(), ai_delay=0, claim_pause=0, between_hands=3600)
        await third.start()
        await third.shutdown()
        assert len(await store2.entries(GUILD, hand_id=hand_id, limit=500)) == len(entries)
        assert (await store2.balances(GUILD)).hands == 1


@pytest.mark.parametrize("cut_after", [1, 4])
async def test_replay_checks_every_record_against_its_step(store, frontend, db_path, cut_after):
    """The replay is exact: every logged action was made at the step the replay reaches before it."""
    svc = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60)
    table = await table_with(svc, ANN, seed=f"steps-{cut_after}")
    await svc.start_game(table, by=ANN.player_id)
    await play_own_moves(svc, frontend, table, ANN.player_id, cut_after)
    await svc.shutdown()
    events = await store.load_events(table)
    steps = [e.payload["step"] for e in events if e.kind == "action"]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert all("seed" not in e.payload for e in events)


async def test_restart_during_the_piao_choice(store, frontend, db_path, clock):
    from kwx.engine.rules import RuleSet

    first = TableService(store, frontend, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
    table = await table_with(first, ANN, seed="piao-restart", rules=RuleSet.preset("shiyan"))
    await first.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, first, table, ANN.player_id)
    await first.flush()
    board = first.public_view_as_shown(table)
    assert board.phase == "piao"
    await first.shutdown()

    fe2 = RecordingFrontEnd()
    async with await Store.open(db_path) as store2:
        second = TableService(store2, fe2, ai_delay=0, claim_pause=0, between_hands=60, clock=clock)
        await second.start()
        assert second.public_view_as_shown(table) == board
        assert second.private_view_as_shown(table, ANN.player_id) == view
        await second.act(table, ANN.player_id, "piao", amount=3, step=view.step)
        await fe2.wait_for(lambda: second.public_view_as_shown(table).phase in ("turn", "claim"))
        assert second.public_view_as_shown(table).seats[0].piao == 3
        await second.shutdown()
