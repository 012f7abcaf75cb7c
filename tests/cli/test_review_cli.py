"""`python -m kwx review`: a ledger hand or an exported log, checked first, as text, JSON, a picture, a page."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from PIL import Image

from kwx.cli import main
from kwx.engine.ai import decide
from kwx.engine.hand import HandState
from kwx.engine.rules import STANDARD
from kwx.engine.seeds import commitment
from kwx.engine.wall import wall_from_seed
from kwx.local.autoplay import autoplay
from kwx.store import Store

SEED = "c0ffee" * 10


@pytest.fixture
def exported(tmp_path):
    """An action log as `ledger hand ID --actions` writes it, of a hand played from SEED."""
    hand = HandState(STANDARD, 1, wall_from_seed(SEED))
    actions = []
    while not hand.finished:
        seat = min(hand.to_act())
        action = decide(hand, seat, ("strong", "standard", "simple")[seat])
        actions.append(action.to_json())
        hand.apply(action)
    log = {"hand_id": 3, "seed_ref": commitment(SEED), "rules": "standard", "dealer": 1, "piao": [0, 0, 0],
           "actions": actions, "outcome": hand.result.outcome, "net": list(hand.result.net),
           "players": ["p0", "p1", "p2"]}
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path, log


def test_plain_and_json_of_an_exported_log(exported, capsys):
    path, log = exported
    assert main(["review", str(path), "--seed", SEED, "--seat", "1", "--plain", "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Review of hand #3: p1's decisions") and "Agreement with the AI:" in text
    assert text.count("Step ") == len(log["actions"]) + 1
    assert "Red" in text and not re.search(r"\b[567]z\b", text)  # dragons by name, as the terminal shows them
    assert main(["review", str(path), "--seed", SEED, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seat"] == 0 and data["summary"]["agreed"] == data["summary"]["decisions"]  # seat 0 is strong
    assert data["summary"]["net"] == log["net"] and data["summary"]["spread"].startswith("none")
    assert len(data["frames"]) == len(log["actions"]) + 1


def test_a_log_that_does_not_check_out_is_reported_not_reviewed(exported, tmp_path, capsys):
    path, log = exported
    assert main(["review", str(path), "--seed", "f" * 64, "--plain", "--lang", "en"]) == 2
    assert "commitment" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(log, net=[log["net"][0] + 1, log["net"][1] - 1, log["net"][2]])))
    assert main(["review", str(bad), "--seed", SEED, "--plain", "--lang", "en"]) == 2
    assert "ledger recorded" in capsys.readouterr().err
    assert main(["review", str(path), "--plain", "--lang", "en"]) == 2
    assert "--seed" in capsys.readouterr().err



def test_a_mistyped_hand_is_named_as_what_it_is_not(tmp_path, capsys):
    """`review 12a` (a typo for a hand id) is neither a hand nor a file: say that, not that a log needs --seed."""
    assert main(["review", str(tmp_path / "12a"), "--plain", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "12a" in err and "--seed" not in err


def test_a_picture_and_a_page(exported, tmp_path, capsys):
    path, log = exported
    png, page = tmp_path / "end.png", tmp_path / "hand.html"
    assert main(["review", str(path), "--seed", SEED, "--png", str(png), "--html", str(page)]) == 0
    with Image.open(png) as image:
        assert image.width > 600 and image.height > 400
    assert "<script" in page.read_text(encoding="utf-8")
    assert main(["review", str(path), "--seed", SEED, "--png", str(png), "--step", "999", "--lang", "en"]) == 2
    assert "--step" in capsys.readouterr().err


def test_a_ledger_hand_by_its_id(tmp_path, capsys):
    db = tmp_path / "kwx.sqlite3"

    async def newest() -> int:
        await autoplay(db, 2, seed="cli-review")
        async with await Store.open(db) as store:
            return (await store.history("local", "ai:standard:1", limit=1))[0].hand_id

    hand_id = asyncio.run(newest())
    capsys.readouterr()
    assert main(["review", str(hand_id), "--db", str(db), "--plain", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Review of hand #{hand_id}: AI 1's decisions")
    assert main(["review", "999", "--db", str(db), "--plain", "--lang", "en"]) == 2
    assert "no hand #999" in capsys.readouterr().err
    assert main(["review", "999", "--db", str(db), "--plain", "--lang", "zh-CN"]) == 2  # said in the language chosen
    assert capsys.readouterr().err == "错误：本服务器没有在牌桌上打过的第 #999 手牌。\n"
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    assert main(["review", "1", "--db", str(junk), "--plain", "--lang", "zh-CN"]) == 2
    assert capsys.readouterr().err.startswith(f"错误：{junk} 不是可读的 SQLite 数据库")
