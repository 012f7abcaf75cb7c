"""Tables of AI seats: hands run to completion by themselves, land in the ledger summing to zero, follow one
another, and are fixed by the table seed however the run is cut."""

from __future__ import annotations

from collections import Counter

import pytest

from kwx.engine.rules import RuleSet
from kwx.engine.seeds import ai_piao, first_dealer, hand_seed
from kwx.table.succession import HandSetup, new_table_state, upcoming
from tests.support import backends
from tests.support.players import GUILD
from tests.support.tables import AI_HOST_ID, ai_table, finished_hands, table_with

BACKENDS = backends.BACKENDS  # these run on PostgreSQL too (tests/table/conftest.py)


async def test_three_ai_seats_play_a_hand_into_the_ledger(make_service, frontend, store):
    svc = make_service(between_hands=60)
    table = await ai_table(svc, "seed-one")
    await finished_hands(frontend, table, 1)
    await svc.flush()
    (result,) = frontend.results(table)
    assert sum(result.net) == 0 and result.scores == result.net
    assert result.outcome in ("win", "draw") and len(result.hands) == 3
    # the ledger has it, with the same money
    sheet = await store.balances(GUILD)
    assert sheet.hands == 1 and sum(r.balance for r in sheet.rows) == 0
    by_player = {r.player: r.balance for r in sheet.rows}
    seats = frontend.boards(table)[-1].seats
    assert {s.player.player_id: result.net[s.seat] for s in seats} == {k: by_player.get(k, 0) for k in by_player}
    hand_id = await store.hand_id(table, 1)
    assert hand_id is not None
    entries = await store.entries(GUILD, hand_id=hand_id, limit=100)
    assert Counter(e.reason for e in entries) == Counter(p.reason for p in result.payments)
    # the board at the end says the hand is over; the next hand waits for between_hands
    assert svc.public_view_as_shown(table).phase == "finished"
    assert frontend.boards(table)[-1].hand_no == 1


async def test_hands_follow_one_another_until_stopped(make_service, frontend, store):
    svc = make_service(between_hands=0)
    table = await ai_table(svc, "seed-two")
    await finished_hands(frontend, table, 3)
    await svc.stop(table, AI_HOST_ID)
    await svc.flush()
    recorded = (await store.balances(GUILD)).hands
    assert recorded >= 3
    results = frontend.results(table)
    assert [r.hand_no for r in results] == list(range(1, len(results) + 1))
    # running scores add up hand by hand (no rotation: the same players in the same seats)
    running = [0, 0, 0]
    for r in results:
        running = [a + b for a, b in zip(running, r.net)]
        assert list(r.scores) == running and sum(r.net) == 0
    assert sum(r.balance for r in (await store.balances(GUILD)).rows) == 0


async def test_the_kth_hand_is_fixed_by_the_seed_however_the_run_is_cut(make_service, frontend, store, tmp_path):
    from kwx.store import Store
    from kwx.table import TableService
    from tests.support.frontends import RecordingFrontEnd

    svc = make_service(between_hands=0)
    table = await ai_table(svc, "same-seed")
    await finished_hands(frontend, table, 2)
    await svc.stop(table, AI_HOST_ID)
    straight = [r.net for r in frontend.results(table)[:2]]

    # the same seed, cut after hand 1 by a restart
    fe2 = RecordingFrontEnd()
    other = await Store.open(tmp_path / "other.sqlite3")
    try:
        first = TableService(other, fe2, ai_delay=0, claim_pause=0, between_hands=3600)
        table2 = await ai_table(first, "same-seed")
        await finished_hands(fe2, table2, 1)
        await first.shutdown()
        second = TableService(other, fe2, ai_delay=0, claim_pause=0, between_hands=0, clock=lambda: 4e9)
        await second.start()
        await finished_hands(fe2, table2, 2)
        await second.stop(table2, AI_HOST_ID)
        await second.shutdown()
    finally:
        await other.close()
    assert [r.net for r in fe2.results(table2) if r.hand_no <= 2][:2] == straight


async def test_piao_phase_with_ai_picks(make_service, frontend, store):
    svc = make_service(between_hands=60)
    table = await ai_table(svc, "piao-seed", rules=RuleSet.preset("shiyan"))
    await finished_hands(frontend, table, 1)
    boards = frontend.boards(table)
    assert any(b.phase == "piao" for b in boards)
    dealt = next(b for b in boards if b.phase in ("turn", "claim"))
    expected = [ai_piao("piao-seed", 1, s.player.player_id, 3) for s in dealt.seats]
    assert [s.piao for s in dealt.seats] == expected
    hand_id = await store.hand_id(table, 1)
    assert hand_id is not None


async def test_strong_ai_seats_pick_piao_by_what_they_expect(make_service, frontend):
    from kwx.table import PlayerRef

    svc = make_service(between_hands=60)
    host = PlayerRef(AI_HOST_ID, "AI 9", "strong")
    table = await table_with(svc, host, level="strong", channel=None, seed="piao-strong",
                             rules=RuleSet.preset("shiyan"))
    await svc.start_game(table, by=host.player_id)
    await finished_hands(frontend, table, 1)
    dealt = next(b for b in frontend.boards(table) if b.phase in ("turn", "claim"))
    # a new table: only the dealer (a tile ahead) expects to receive more win payments than it pays
    assert [s.piao for s in dealt.seats] == [3 if s.is_dealer else 0 for s in dealt.seats]


async def test_rotation_winner_sits_out(make_service, frontend):
    from kwx.table import PlayerRef

    svc = make_service(between_hands=0)
    host = PlayerRef(AI_HOST_ID, "AI 9", "standard")
    table = await table_with(svc, host, ais=3, channel=None, seed="rot", rules=RuleSet.preset("standard",
                                                                                                rotation=True))
    await svc.start_game(table, by=AI_HOST_ID)
    await finished_hands(frontend, table, 4)
    await svc.stop(table, AI_HOST_ID)
    boards = frontend.boards(table)
    for r in frontend.results(table)[:3]:
        before = next(b for b in boards if b.hand_no == r.hand_no and b.phase in ("turn", "claim"))
        after = next(b for b in boards if b.hand_no == r.hand_no + 1 and b.phase in ("turn", "claim"))
        if len(r.winners) == 1:
            w = r.winners[0]
            assert after.waiting_player == w.player
            assert after.seats[w.seat].player == before.waiting_player and after.seats[w.seat].is_dealer
        else:
            assert [s.player for s in after.seats] == [s.player for s in before.seats]


def test_seeds_and_succession():
    assert hand_seed("s", 1) != hand_seed("s", 2) and hand_seed("s", 1) == hand_seed("s", 1)
    assert first_dealer("s") in (0, 1, 2) and first_dealer("s", 4) in (0, 1, 2, 3)
    state = new_table_state(RuleSet.preset("shiyan", rotation=True), "s")
    ids = ("a", "b", "c", "d")
    setup = upcoming(state, ids, "s")
    assert setup.hand_no == 1 and sorted([*setup.seating, setup.waiting]) == list(ids)
    assert setup.seating[setup.dealer] == ids[first_dealer("s", 4)]
    assert setup.base_multiplier == (2 if setup.dice[0] == setup.dice[1] else 1)
    assert HandSetup.from_json(setup.to_json()) == setup


async def test_without_group_commit_too(make_service, frontend, store):
    svc = make_service(between_hands=60, group_commit=False, max_in_flight=3)
    table = await ai_table(svc, "no-group")
    await finished_hands(frontend, table, 1)
    assert svc.journal.stats.transactions == svc.journal.stats.records
    assert (await store.balances(GUILD)).hands == 1


async def test_stopping_mid_hand_abandons_it(make_service, frontend, store):
    from kwx.table import TableError

    svc = make_service(ai_delay=60)  # the AIs never get to move
    table = await ai_table(svc, "stop-seed")
    assert svc.public_view_as_shown(table).phase in ("turn", "claim")
    await svc.stop(table, AI_HOST_ID)
    await svc.flush()
    assert frontend.boards(table)[-1].phase == "closed"
    assert frontend.notices("lobby.stopped")
    assert await store.hand_id(table, 1) is None and (await store.balances(GUILD)).hands == 0
    assert await store.unfinished_tables() == [] and svc.tables() == []
    with pytest.raises(TableError) as closed:
        svc.public_view_as_shown(table)
    assert closed.value.code == "closed"
