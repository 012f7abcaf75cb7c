"""A hand's proof (kwx.table.proof) is given only for a hand the ledger recorded in the asking server: never the
seed of a hand not yet finished, nor of another server's table."""

from __future__ import annotations

from kwx.engine.seeds import check_reveal
from kwx.table.proof import hand_proof
from tests.support.players import GUILD
from tests.support.tables import ai_table, finished_hands


async def test_only_a_recorded_hand_of_this_server_has_a_proof(make_service, frontend, store) -> None:
    svc = make_service(between_hands=60)  # hand 2 waits: it is dealt but not played
    table = await ai_table(svc, "proof-seed")
    await finished_hands(frontend, table, 1)
    await svc.flush()
    (result,) = frontend.results(table)
    proof = await hand_proof(store, GUILD, table, 1)
    assert proof is not None and proof.hand_id == await store.hand_id(table, 1)
    assert proof.seed == result.seed and proof.seed_ref == result.seed_ref  # what the result revealed
    assert check_reveal(proof.seed, proof.seed_ref)
    assert proof.seed_ref == (await store.hand_log(GUILD, proof.hand_id))["seed_ref"]
    assert await hand_proof(store, GUILD, table, 2) is None  # not finished: its seed stays secret
    assert await hand_proof(store, "another-server", table, 1) is None
    assert await hand_proof(store, GUILD, table + 1, 1) is None
