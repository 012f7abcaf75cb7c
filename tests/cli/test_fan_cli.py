"""`python -m kwx fan` and `python -m kwx waits`: text, --json, --jsonl, and exit status 2 on bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kwx.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def fan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, "fan", *argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1
    return json.loads(out)


# -- text ---------------------------------------------------------------------------------------------------------
def test_text_breakdown_in_chinese_and_english(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fan", "1122334456677p", "5p")
    assert code == 0
    assert "七对" in out and "Seven Pairs" in out and "清一色" in out and "Full Flush" in out
    assert "×4" in out
    assert "Fan 番: 16" in out
    assert "11p 22p 33p 44p 55p 66p 77p" in out  # the reading that scored


def test_text_shows_melds_and_the_cap(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fan", "1s", "1s", "--meld", "pung:7z", "--meld", "pung:6z", "--meld", "pung:5z",
                       "--meld", "pung:3p", "--rules", "xiangyang-capped")
    assert code == 0
    assert "大三元" in out and "手抓一" in out and "碰碰胡" in out
    assert "Product 64, capped 封顶 at 8" in out
    assert "Fan 番: 8" in out


def test_text_explains_an_incomplete_hand_and_shows_its_waits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fan", "1122334456677p", "3p")
    assert code == 0
    assert "Not a win 不能胡" in out and "not a complete hand" in out
    assert "ready 听牌 on 5p 8p (5筒 8筒)" in out


def test_text_says_how_far_a_hand_is_from_ready(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fan", "123p456s789s5z6z12p", "9p")
    assert code == 0
    assert "not ready 未听牌: 1 tile from ready" in out


def test_text_explains_fan_below_min_fan(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fan", "123p456s789s55z12p", "3p", "--rules", "online-3d")
    assert code == 0
    assert "屁胡" in out and "Fan 番: 1" in out
    assert "below the minimum of 2" in out


# -- --json -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("melds", [("碰:7z", "peng:6z"), ("碰7z", "碰 6z"), ("PENG：7z", "pung:666z"),
                                   ("碰:7z 碰:6z",)])
def test_melds_may_be_written_in_chinese_or_pinyin(capsys: pytest.CaptureFixture[str], melds: tuple[str, ...]) -> None:
    """--meld pung:7z keeps working; 碰/杠/暗杠 and peng/gang/angang read the same, with or without the colon."""
    same = fan_json(capsys, "2233445p", "5p", "--meld", "pung:7z", "--meld", "pung:6z")
    assert fan_json(capsys, "2233445p", "5p", *[x for m in melds for x in ("--meld", m)]) == same
    kongs = fan_json(capsys, "2233445p", "5p", "--meld", "杠:7z", "--meld", "angang:6z", "--self-draw")
    assert kongs == fan_json(capsys, "2233445p", "5p", "--meld", "kong:7z", "--meld", "ankong:6z", "--self-draw")


def test_json_win(capsys: pytest.CaptureFixture[str]) -> None:
    result = fan_json(capsys, "1122334456677p", "5p")
    assert (result["win"], result["fan"], result["patterns"]) == (True, 16, ["qidui", "qingyise"])


def test_json_pinghu_and_chinese_notation(capsys: pytest.CaptureFixture[str]) -> None:
    result = fan_json(capsys, "一筒 二筒 三筒 四条 五条 六条 七条 八条 九条 白 白 一筒 二筒", "三筒")
    assert (result["win"], result["fan"], result["patterns"]) == (True, 1, ["pinghu"])


def test_json_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert fan_json(capsys, "4556p123s789s", "5p", "--meld", "ankong:7z", "--self-draw", "--kong-draw",
                    "--liangdao")["fan"] == 8
    assert fan_json(capsys, "123p456p789s12s55z", "3s", "--after-kong")["patterns"] == ["gangshangpao"]
    assert fan_json(capsys, "123p456p789s12s55z", "3s", "--rob-kong")["patterns"] == ["qiangganghu"]
    assert fan_json(capsys, "123p456p789s12s55z", "3s", "--self-draw", "--last-tile")["patterns"] == ["haidilao"]
    assert fan_json(capsys, "123p456p789s12s55z", "3s", "--last-tile")["patterns"] == ["pinghu"]


def test_json_capped_value_is_the_fan(capsys: pytest.CaptureFixture[str]) -> None:
    result = fan_json(capsys, "1133557799p224p", "4p", "--rules", "xiangyang-capped")
    assert (result["win"], result["fan"], result["raw_fan"], result["capped"]) == (True, 8, 16, True)
    assert fan_json(capsys, "1111p2222p33s44s5z", "5z", "--rules", "xiangyang-capped")["fan"] == 16
    assert fan_json(capsys, "1111p2222p3333s5z", "5z", "--rules", "xiangyang-unlimited")["fan"] == 128


def test_json_no_win(capsys: pytest.CaptureFixture[str]) -> None:
    result = fan_json(capsys, "1122334456677p", "3p")
    assert result["win"] is False
    assert "fan" not in result
    assert result["waits"] == ["5p", "8p"]


def test_json_min_fan_of_online_3d(capsys: pytest.CaptureFixture[str]) -> None:
    plain = ("123p456s789s55z12p", "3p", "--rules", "online-3d")
    assert fan_json(capsys, *plain)["win"] is False
    assert fan_json(capsys, *plain, "--self-draw")["win"] is False  # min_fan 2 holds for self-draws too
    result = fan_json(capsys, *plain, "--liangdao")
    assert (result["win"], result["fan"]) == (True, 2)
    assert fan_json(capsys, "123p456s789s55z12p", "3p")["win"] is True  # standard: 1 fan is enough


# -- --jsonl ------------------------------------------------------------------------------------------------------
def jsonl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lines: list[str],
          *argv: str) -> list[dict]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code, out, err = run(capsys, "fan", "--jsonl", *argv)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_jsonl_bad_line_in_the_middle(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    results = jsonl(capsys, monkeypatch, [
        json.dumps({"hand": "1122334456677p", "win": "5p"}),
        "{not json",
        json.dumps({"hand": "1122334456677p", "win": "8z"}),
        json.dumps({"hand": "1122334455566p", "win": "5p", "self_draw": True}),
    ])
    assert len(results) == 4
    assert (results[0]["win"], results[0]["fan"], results[0]["patterns"]) == (True, 16, ["qidui", "qingyise"])
    assert set(results[1]) == {"error"}
    assert results[2] == {"error": '"8z" is not a tile: dragons are 5z 白, 6z 发, 7z 中'}
    assert (results[3]["win"], results[3]["fan"]) == (True, 32)


def test_jsonl_keys(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    results = jsonl(capsys, monkeypatch, [
        json.dumps({"hand": "1s", "win": "1s", "melds": ["pung:7z", "pung:6z", "pung:5z", "pung:3p"]}),
        json.dumps({"hand": "4556p123s789s", "win": "5p", "melds": ["ankong:7z"], "self_draw": True,
                    "kong_draw": True, "liangdao": True}),
        json.dumps({"hand": "123p456p789s12s55z", "win": "3s", "after_kong": True}),
        json.dumps({"hand": "123p456p789s12s55z", "win": "3s", "rob_kong": True}),
        json.dumps({"hand": "123p456p789s12s55z", "win": "3s", "self_draw": True, "last_tile": True}),
        json.dumps({"hand": "1111p2222p33s44s5z", "win": "5z", "rules": "xiangyang-unlimited"}),
        json.dumps({"hand": "123p456s789s55z12p", "win": "3p", "rules": "online-3d"}),
        json.dumps({"hand": "123p456s789s55z12p", "win": "3p", "id": "a1"}),
    ])
    assert [r.get("fan") for r in results] == [64, 8, 2, 2, 2, 32, None, 1]
    assert results[6]["win"] is False and results[6]["reason"] == "below_min_fan"
    assert results[7]["id"] == "a1"


def test_jsonl_min_fan_discard_from_rule_options(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rules = {"preset": "standard", "options": {"min_fan_discard": 2}}
    results = jsonl(capsys, monkeypatch, [
        json.dumps({"hand": "123p456s789s55z12p", "win": "3p", "rules": rules}),
        json.dumps({"hand": "123p456s789s55z12p", "win": "3p", "rules": rules, "self_draw": True}),
    ])
    assert [r["win"] for r in results] == [False, True]


def test_jsonl_default_rules_from_the_command_line(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    results = jsonl(capsys, monkeypatch, [json.dumps({"hand": "1133557799p224p", "win": "4p"})],
                    "--rules", "xiangyang-capped")
    assert results[0]["fan"] == 8


def test_jsonl_errors_stay_on_their_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    results = jsonl(capsys, monkeypatch, [
        "[1, 2]",
        json.dumps({"win": "5p"}),
        json.dumps({"hand": "1122334456677p", "win": "5p", "selfdraw": True}),
        json.dumps({"hand": "1122334456677p", "win": "5p", "self_draw": "yes"}),
        json.dumps({"hand": "1122334456677p", "win": "5p", "rules": "nope"}),
        json.dumps({"hand": "1122334456677p", "win": "5p", "melds": ["pung:1s"]}),
        json.dumps({"hand": "5555p123s789s55z1s", "win": "5p"}),
        "",
        json.dumps({"hand": "1122334456677p", "win": "5p"}),
    ])
    assert len(results) == 9
    assert all(set(r) == {"error"} for r in results[:8])
    assert "unknown key 'selfdraw'" in results[2]["error"]
    assert "unknown rules preset 'nope'" in results[4]["error"]
    assert "needs 10 before the winning tile" in results[5]["error"]
    assert "appears 5 times" in results[6]["error"]
    assert results[8]["fan"] == 16


def test_jsonl_through_a_real_pipe() -> None:
    lines = [json.dumps({"hand": "一筒 一筒 二筒 二筒 三筒 三筒 四筒 四筒 五筒 六筒 六筒 七筒 七筒", "win": "五筒"},
                        ensure_ascii=False),
             "oops",
             json.dumps({"hand": "1122334456677p", "win": "3p"})]
    proc = subprocess.run([sys.executable, "-m", "kwx", "fan", "--jsonl"], input="\n".join(lines),
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0]["fan"] == 16 and "error" in out[1] and out[2]["win"] is False


# -- waits --------------------------------------------------------------------------------------------------------
def test_waits_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "waits", "1122334456677p", "--json")
    assert code == 0 and json.loads(out) == {"waits": ["5p", "8p"], "shanten": 0}
    code, out, _ = run(capsys, "waits", "1122334456677p")
    assert code == 0 and "5p 8p (5筒 8筒)" in out


def test_waits_with_melds_and_not_ready(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "waits", "4445p", "--meld", "kong:3p", "--meld", "pung:1s", "--meld", "pung:9s",
                       "--json")
    assert code == 0 and json.loads(out)["waits"] == ["5p", "6p"]
    code, out, _ = run(capsys, "waits", "1p4p7p1s4s7s5z6z7z2p5p8p3s", "--json")
    assert json.loads(out) == {"waits": [], "shanten": 4}
    code, out, _ = run(capsys, "waits", "1p4p7p1s4s7s5z6z7z2p5p8p3s")
    assert "Not ready 未听牌: 4 tiles from ready" in out


# -- bad input: exit status 2, one line, no traceback ---------------------------------------------------------------
@pytest.mark.parametrize(("argv", "message"), [
    (["fan", "1122334456677p", "8z"], 'error: "8z" is not a tile: dragons are 5z 白, 6z 发, 7z 中'),
    (["fan", "1122334456p", "5p", "--meld", "pung:5p"],
     'error: "5p" appears 5 times: there are only four of each tile (hand, melds and winning tile together)'),
    (["fan", "5555p123s789s55z1s", "5p"],
     'error: "5p" appears 5 times: there are only four of each tile (hand, melds and winning tile together)'),
    (["fan", "1122334456677p", "5p", "--meld", "pung:1s"],
     "error: the hand has 13 tiles; with 1 meld it needs 10 before the winning tile (13 − 3 per meld)"),
    (["fan", "112233445667p", "5p"],
     "error: the hand has 12 tiles; without melds it needs 13 before the winning tile (13 − 3 per meld)"),
    (["fan", "1122334p", "5p", "--meld", "chow:1s"],
     'error: unknown meld kind "chow": use pung (peng, 碰), kong (gang, 杠: exposed) or ankong (angang, 暗杠)'),
    (["fan", "1122334p", "5p", "--meld", "1s"], 'error: meld "1s" is not KIND:TILE, e.g. pung:5p, kong:7z or ankong:1s'),
    (["fan", "1122334p", "5p", "--meld", "kong:111s"], 'error: meld "kong:111s": write its tile once (pung:5p) or all 4'),
    (["fan", "1122334456677p", "5p", "--rules", "nope"], "error: unknown rules preset 'nope'"),
    (["fan", "1122334456677p"], "error: give HAND and WIN"),
    (["fan", "123p456p789s12s55z", "3s", "--kong-draw"], "error: a win on a kong replacement tile needs the kong"),
    (["fan", "123p456p789s12s55z", "3s", "--self-draw", "--rob-kong"], "error: a win on the discard after a kong"),
    (["fan", "1122334456677p", "5p", "--jsonl"], "error: --jsonl reads every hand from standard input"),
    (["waits", "112233445566p"], "error: the hand has 12 tiles; without melds it needs 13 to wait"),
    (["waits", "1122334456677x"], 'error: "1x" is not a tile'),
])
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(message)


def test_real_process_exit_status_and_no_traceback() -> None:
    for argv in (["fan", "11111p", "5p"], ["fan", "1122334456677p", "5p", "--meld", "bad"], ["waits", "garbage"],
                 ["fan", "1122334456677p", "5p", "--bogus-flag"]):
        proc = subprocess.run([sys.executable, "-m", "kwx", *argv], capture_output=True, text=True, cwd=ROOT,
                              timeout=60)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
