"""What it takes to check a finished hand's shuffle: its ledger id, its commitment and its revealed seed.

The board shows a commitment to each hand's seed from the deal; once the hand is over its seed is public
(kwx.engine.seeds). A result post keeps neither in sight: its Verify button asks for them here, read again
from the store, so the button works after a restart. Only a hand the ledger has recorded in this server is
answered, so no press can learn the seed of a hand still in play or of another server's table.

    proof = await hand_proof(store, guild, table_id, hand_no)   # None: no such recorded hand here
    proof.seed, proof.seed_ref, proof.hand_id                   # python -m kwx verify SEED --ref SEED_REF
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from kwx.engine.seeds import check_reveal
from kwx.store import NotFound, Store
from kwx.table.table_seed import TableSeed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HandProof:
    hand_id: int  # the ledger's id: python -m kwx ledger hand ID
    hand_no: int
    seed: str  # as revealed: the hand seed, or "<hand seed>~<salt>" at a table whose seed a person chose
    seed_ref: str  # the commitment the ledger recorded


async def hand_proof(store: Store, guild: str, table_id: int, hand_no: int) -> HandProof | None:
    """The proof of a recorded hand of this guild's table; None when there is no such hand."""
    recorded = await store.hand_commitment(guild, table_id, hand_no)
    if recorded is None:
        return None
    hand_id, ref = recorded
    try:
        table = await store.get_table(table_id)
    except NotFound:
        return None
    revealed = TableSeed.of_row(table).revealed(hand_no)
    try:
        check_reveal(revealed, ref)
    except ValueError:  # never expected: the ledger's commitment was made from this seed
        logger.warning("table %s hand %s: its seed does not match the recorded commitment", table_id, hand_no)
        return None
    return HandProof(hand_id, hand_no, revealed, ref)
