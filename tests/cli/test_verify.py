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
from kwx.engine.wall import dice_from_seed, format_sequence, wall_from_seed
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


def _cli(capsys, *argv: str, lang: str | None = "en") -> tuple[int, str, str]:
    """`verify` in `lang` (None: as $KWX_LANG says)."""
    code = main([*argv, *(("--lang", lang) if lang and argv[0] == "verify" else ())])
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


WORDS = {  # what each language says, with the catalog's punctuation
    "zh-CN": {"ok": "承诺：相符（{ref}）\n牌墙：{wall}\n骰子：{a} 和 {b}\n"
                    "重放：这副牌墙上的 {n} 个动作打完，结局与账本记录的一致（{outcome}，各座输赢 {net}）\n",
              "outcome": {"win": "胡牌", "draw": "荒庄"}, "sep": "、",
              "mismatch": "错误：种子与承诺不符：这不是这一局的种子\n",
              "forged": "错误：重放的结局是各座输赢 {net}，账本记的是 {forged}\n",
              "illegal": "错误：第 1 个动作 {action} 在这副牌墙上不合规则：「",
              "not_json": "错误：出牌记录不是有效的 JSON（第 1 行第 2 列）\n",
              "missing": "错误：读不了 {path}：没有这个文件\n"},
    "en": {"ok": "commitment: ok ({ref})\nwall: {wall}\ndice: {a} {b}\n"
                 "replay: {n} actions on this wall end as the ledger recorded ({outcome}, net [{net}])\n",
           "outcome": {"win": "win", "draw": "draw"}, "sep": ", ",
           "mismatch": "error: the seed does not match the commitment: this is not the hand's seed\n",
           "forged": "error: the replay ends with net [{net}], the ledger recorded [{forged}]\n",
           "illegal": "error: action 1 ({action}) is not legal on this wall: ",
           "not_json": "error: the action log is not valid JSON (line 1, column 2)\n",
           "missing": "error: cannot read {path}: no such file\n"},
}


def _signed(net: list[int], sep: str) -> str:
    return sep.join(f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "0" for n in net)


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_verify_says_what_it_checked_and_what_does_not_match_in_the_chosen_language(played, capsys, tmp_path,
                                                                                    monkeypatch, lang):
    """$KWX_LANG (Chinese when unset) or --lang: every line, a loss with a minus sign."""
    path, fe, table, hands = played
    result, (hand_id, _, ref) = fe.results(table)[0], hands[0]
    _, text, _ = _cli(capsys, "ledger", "hand", str(hand_id), "--actions", "--db", str(path))
    log = json.loads(text)
    (tmp_path / "hand.json").write_text(text)
    words = WORDS[lang]
    monkeypatch.delenv("KWX_LANG", raising=False)
    choose = None if lang == "zh-CN" else lang  # Chinese is the default

    code, out, _ = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "hand.json"), lang=choose)
    a, b = dice_from_seed(result.seed)
    assert code == 0 and out == words["ok"].format(
        ref=ref, wall=format_sequence(wall_from_seed(result.seed)), a=a, b=b, n=len(log["actions"]),
        outcome=words["outcome"][log["outcome"]], net=_signed(log["net"], words["sep"]))

    code, _, err = _cli(capsys, "verify", fe.results(table)[1].seed, "--ref", ref, lang=choose)
    assert code == 2 and err == words["mismatch"]
    forged = [log["net"][0] + 1, log["net"][1] - 1, log["net"][2]]
    (tmp_path / "forged.json").write_text(json.dumps(log | {"net": forged}))
    code, _, err = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "forged.json"), lang=choose)
    assert code == 2 and err == words["forged"].format(net=_signed(log["net"], words["sep"]),
                                                        forged=_signed(forged, words["sep"]))
    out_of_turn = [(log["dealer"] + 1) % 3, "discard", "5p"]
    (tmp_path / "illegal.json").write_text(json.dumps(log | {"actions": [out_of_turn, *log["actions"][1:]]}))
    code, _, err = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "illegal.json"),
                        lang=choose)
    assert code == 2 and err.startswith(words["illegal"].format(action=json.dumps(out_of_turn)))
    (tmp_path / "broken.json").write_text("{")
    code, _, err = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(tmp_path / "broken.json"), lang=choose)
    assert code == 2 and err == words["not_json"]
    missing = tmp_path / "missing.json"
    code, _, err = _cli(capsys, "verify", result.seed, "--ref", ref, "--actions", str(missing), lang=choose)
    assert code == 2 and err == words["missing"].format(path=missing)
