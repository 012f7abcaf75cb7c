"""复盘 of ledger hands: only finished hands, only for those who sat in them (or manage the server), and only
after the table's seed is checked against the ledger's commitment and the log replays to the recorded result."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from kwx.engine.actions import Action
from kwx.engine.ai_base import Observation
from kwx.engine.ai_strong import Valued, choose_strong, evaluate
from kwx.engine.review import review
from kwx.engine.rules import RuleSet
from kwx.engine.seeds import reveal
from kwx.table import PlayerRef
from kwx.table.recovery import rebuild
from kwx.table.reviews import (
    ReviewRefused,
    last_table_hand,
    load_exported_hand,
    load_ledger_hand,
    review_hand,
    table_reads,
)
from tests.support.players import ANN, GUILD
from tests.support.tables import finished_hands, table_with, wait_prompt

STRONG_HOST = PlayerRef("ai:strong:1", "AI 1", "strong")


async def strong_table(svc, seed: str, hands: int, frontend) -> int:
    table = await table_with(svc, STRONG_HOST, level="strong", channel=None, seed=seed)
    await svc.start_game(table, by=STRONG_HOST.player_id)
    await finished_hands(frontend, table, hands)
    await svc.stop(table, STRONG_HOST.player_id)
    await svc.flush()
    return table


async def test_a_seated_player_reviews_a_ledger_hand_as_the_table_played_it(make_service, frontend, store):
    svc = make_service(between_hands=0)
    table = await strong_table(svc, "review-one", 3, frontend)
    for hand_no in (1, 2, 3):
        hand_id = await store.hand_id(table, hand_no)
        assert hand_id is not None
        source = await load_ledger_hand(store, GUILD, hand_id, viewer=STRONG_HOST.player_id)
        assert source.hand_no == hand_no and STRONG_HOST.player_id in source.players
        assert set(source.log.by) == {"ai"}
        for seat in range(3):
            done = review_hand(source, seat)
            assert list(done.result.net) == list(source.log.net)  # type: ignore[arg-type]
            # strong seats: strong, shown what the review shows the seat, plays every action the table's strong made
            seen: list[Observation] = []

            def spy(obs: Observation, also: Sequence[Action], seen: list[Observation] = seen) -> list[Valued]:
                seen.append(obs)
                return evaluate(obs, also)

            again = review(source.log, seat, spy)
            assert again.decisions and len(seen) == len(again.decisions)
            assert [choose_strong(obs) for obs in seen] == [d.taken for d in again.decisions]
        # the revealed seed is the one the result post shows
        row = await store.get_table(table)
        assert source.seed == reveal(row.seed, hand_no, row.options["seed_salt"])


async def test_a_member_who_did_not_sit_is_refused_unless_they_manage_the_server(make_service, frontend, store):
    svc = make_service(between_hands=0)
    table = await strong_table(svc, "review-two", 1, frontend)
    hand_id = await store.hand_id(table, 1)
    with pytest.raises(ReviewRefused) as refused:
        await load_ledger_hand(store, GUILD, hand_id, viewer="999")
    assert refused.value.code == "not_seated"
    source = await load_ledger_hand(store, GUILD, hand_id, viewer="999", sees_all=True)
    assert source.seat_of("999") is None
    with pytest.raises(ReviewRefused) as other_server:
        await load_ledger_hand(store, "another-guild", hand_id, viewer=STRONG_HOST.player_id, sees_all=True)
    assert other_server.value.code == "not_found"


async def test_a_table_seed_that_does_not_give_the_commitment_is_reported(make_service, frontend, store):
    svc = make_service(between_hands=0)
    table = await strong_table(svc, "review-three", 1, frontend)
    hand_id = await store.hand_id(table, 1)
    async with store._write() as db:  # noqa: SLF001 - a tampered tables row (the ledger itself is append-only)
        await db.execute("UPDATE tables SET seed = $1 WHERE id = $2", "0" * 64, table)
    with pytest.raises(ReviewRefused) as refused:
        await load_ledger_hand(store, GUILD, hand_id, viewer=STRONG_HOST.player_id)
    assert refused.value.code == "commitment"


async def test_an_exported_log_is_checked_against_its_seed_and_its_result(make_service, frontend, store):
    svc = make_service(between_hands=0)
    table = await strong_table(svc, "review-four", 1, frontend)
    hand_id = await store.hand_id(table, 1)
    exported = json.loads(json.dumps(await store.hand_log(GUILD, hand_id)))
    row = await store.get_table(table)
    seed = reveal(row.seed, 1, row.options["seed_salt"])
    source = load_exported_hand(exported, seed)
    assert review_hand(source, 0).summary.net == tuple(exported["net"])
    with pytest.raises(ReviewRefused) as wrong_seed:
        load_exported_hand(exported, reveal("not the table seed", 1, row.options["seed_salt"]))
    assert wrong_seed.value.code == "commitment"
    tampered = dict(exported, net=[exported["net"][1], exported["net"][2], exported["net"][0] + 1])
    with pytest.raises(ReviewRefused) as mismatch:
        review_hand(load_exported_hand(tampered, seed), 0)
    assert mismatch.value.code == "mismatch"
    unfinished = dict(exported, actions=exported["actions"][:-1])
    with pytest.raises(ReviewRefused) as running:
        review_hand(load_exported_hand(unfinished, seed), 0)
    assert running.value.code == "running"


async def test_a_hand_in_play_is_not_in_the_ledger_to_review(make_service, frontend, store):
    svc = make_service()
    table = await table_with(svc, ANN, level="strong", seed="review-five")
    await svc.start_game(table, by=ANN.player_id)
    await wait_prompt(frontend, svc, table, ANN.player_id)
    assert await last_table_hand(store, GUILD, ANN.player_id) is None
    assert await store.hand_id(table, 1) is None


async def test_the_review_knows_what_the_tables_ai_knew_of_its_players(make_service, frontend, store):
    """The reads the review's AI gets at each deal are the live table's, rebuilt from its whole log."""
    svc = make_service(between_hands=0)
    table = await strong_table(svc, "review-six", 10, frontend)
    row = await store.get_table(table)
    events = await store.load_events(table)
    known = 0
    for i, e in enumerate(events):
        if e.kind != "hand_start":
            continue
        live = rebuild(row, events[:i + 1])
        assert live.state is not None
        expected = live.state.reads.for_seats(live.state.seated)
        seating = e.payload["setup"]["seating"]
        assert table_reads(RuleSet.from_json(row.rules), row.seed, events[:i]).for_seats(seating) == expected
        known += bool(expected)
    assert known >= 3
