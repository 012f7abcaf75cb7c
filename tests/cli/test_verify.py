"""Shuffles anyone can check: the board commits to each hand's seed at the deal, the result reveals it, and
`python -m kwx verify SEED --ref SEED_REF --actions LOG` checks the seed, rebuilds the wall and replays the
hand (its log from `python -m kwx ledger hand ID --actions`) to the result the ledger recorded."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from kwx.cli import main
from kwx.engine.seeds import commitment, hand_seed
from kwx.engine.wall import format_sequence, wall_from_seed
from kwx.store import Store
from kwx.table import PlayerRef, TableService
from tests.support.frontends import RecordingFrontEnd

HOST = PlayerRef("ai:standard:9", "AI 9", "standard")


async def _play(path, seed: str | None, hands: int = 2) -> tuple[RecordingFrontEnd, int]:
    async with await Store.open(path) as store:
        fe = RecordingFrontEnd()
        svc = TableService(store, fe, ai_delay=0, claim_pause=0, between_hands=0)
        table = await svc.open_table("local", "c1", HOST, seed=seed)
        await svc.add_ai(table)
        await svc.add_ai(table)
        await svc.start_game(table, by=HOST.player_id)
        await fe.wait_for(lambda: len(fe.results(table)) >= hands, timeout=30)
        await svc.shutdown()
    return fe, table


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "kwx.sqlite3"
    fe, table = asyncio.run(_play(path, None))
    with sqlite3.connect(path) as db:
        hands = db.execute("SELECT id, hand_no, seed_ref FROM hands WHERE table_id = ? ORDER BY hand_no",
                           (table,)).fetchall()
    return path, fe, table, hands


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_result_reveals_the_seed_the_board_committed_to(played):
    path, fe, table, hands = played
    results = fe.results(table)
    for result, (_, hand_no, ref) in zip(results, hands):
        assert result.hand_no == hand_no and result.seed_ref == ref and result.seed
        boards = [v for v in fe.boards(table) if v.hand_no == hand_no and v.phase == "turn"]
        assert boards and all(v.seed_ref == ref for v in boards)  # public from the deal on
    assert results[0].seed != results[1].seed


def test_verify_checks_the_seed_rebuilds_the_wall_and_replays_the_hand(played, capsys, tmp_path):
    path, fe, table, hands = played
    result, (hand_id, _, ref) = fe.results(table)[0], hands[0]
    code, log, _ = _cli(capsys, "ledger", "hand", str(hand_id), "--actions", "--db", str(path))
    assert code == 0 and json.loads(log)["seed_ref"] == ref
    (tmp_path / "hand.json").write_text(log)

    code, out, _ = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "hand.json"))
    assert code == 0, out
    assert "commitment: ok" in out and format_sequence(wall_from_seed(result.seed)) in out
    assert "end as the ledger recorded" in out

    code, _, err = _cli(capsys, "verify", fe.results(table)[1].seed, "--ref", ref)  # another hand's seed
    assert code == 2 and "does not match" in err
    forged = json.loads(log) | {"net": [n + (1 if i == 0 else -1 if i == 1 else 0)
                                        for i, n in enumerate(json.loads(log)["net"])]}
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    code, _, err = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "forged.json"))
    assert code == 2 and "the ledger recorded" in err

    code, out, _ = _cli(capsys, "ledger", "hand", str(hand_id), "--db", str(path))
    assert code == 0 and ref in out
    code, _, err = _cli(capsys, "ledger", "hand", "999", "--db", str(path))
    assert code == 2 and "no hand 999" in err


def test_a_seed_a_person_chose_is_salted(tmp_path):
    fe, table = asyncio.run(_play(tmp_path / "chosen.sqlite3", "my-seed", hands=1))
    result = fe.results(table)[0]
    seed, _, salt = result.seed.partition("~")
    assert salt and seed == hand_seed("my-seed", 1)
    assert result.seed_ref != commitment(seed)  # guessing "my-seed" does not confirm against the commitment
    assert result.seed_ref == commitment(seed, salt)
