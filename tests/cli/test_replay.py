"""`python -m kwx replay`: scripted hands in, events and result out; illegal actions and bad walls exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kwx.cli import main
from kwx.engine.wall import format_sequence, parse_wall
from tests.support.hands import wall_text

SCRIPTS = Path(__file__).resolve().parents[1] / "engine" / "scripts"
WALL = wall_text("57899p23s555z666z7z", "12346p789s111s77z", "35p347s258s69s5z6z7z", draws="3s 2p")


def run_replay(spec: dict, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[int, list[str], str]:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.json")), ids=lambda p: p.stem)
def test_scripts_give_their_expected_result(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = json.loads(script.read_text(encoding="utf-8"))
    assert main(["replay", str(script)]) == 0
    out = json.loads(capsys.readouterr().out)
    for key, value in spec["expect"].items():
        assert out["result"][key] == value, key
    assert out["events"][0]["kind"] == "deal" and out["events"][-1]["kind"] == "settlement"


def test_incomplete_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, _ = run_replay({"rules": "standard", "dealer": 0, "wall": WALL, "actions": [[0, "discard", "7p"]]},
                                capsys, tmp_path)
    assert code == 0
    out = json.loads("\n".join(lines))
    assert out["result"]["outcome"] == "incomplete" and out["result"]["net"] == [0, 0, 0]
    assert [e["kind"] for e in out["events"]] == ["deal", "discard", "draw"]
    assert out["events"][2] == {"kind": "draw", "seat": 1, "tile": "3s", "from_back": False, "wall": 43}


@pytest.mark.parametrize(("actions", "index", "words"), [
    ([[1, "discard", "1p"]], 0, "seat 0's turn"),
    ([[0, "discard", "7p"], [2, "pass"]], 1, "it is seat 1's turn"),
    ([[0, "discard", "5p"], [2, "pass"]], 1, "no claim"),
    ([[0, "discard", "1s"]], 0, "holds no 1s"),
    ([[0, "discard"]], 0, "needs a tile"),
    ([[0, "fly", "1p"]], 0, "unknown verb"),
])
def test_illegal_action_exits_2_with_the_error_last(actions: list, index: int, words: str,
                                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, _ = run_replay({"rules": "standard", "dealer": 0, "wall": WALL, "actions": actions}, capsys, tmp_path)
    assert code == 2
    error = json.loads(lines[-1])
    assert error["action_index"] == index and words in error["error"]


@pytest.mark.parametrize(("wall", "words"), [
    (format_sequence(parse_wall(WALL)[:-1]), "84 tiles"),
    (WALL.replace("7z", "6z", 1), "four of each"),
    ("hello", "not a tile"),
])
def test_bad_wall_exits_2(wall: str, words: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, err = run_replay({"wall": wall, "actions": []}, capsys, tmp_path)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_bad_rules_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_replay({"rules": "nope", "wall": WALL}, capsys, tmp_path)
    assert code == 2 and "preset" in err
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "JSON" in capsys.readouterr().err


def test_standard_input_through_the_module(tmp_path: Path) -> None:
    spec = json.loads((SCRIPTS / "baohu.json").read_text(encoding="utf-8"))
    proc = subprocess.run([sys.executable, "-m", "kwx", "replay", "-"], input=json.dumps(spec), text=True,
                          capture_output=True, cwd=Path(__file__).resolve().parents[2], check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["winners"] == [1]


def test_a_utf8_bom_is_fine_but_other_encodings_and_absurd_nesting_are_one_line_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KWX_LANG", "en")
    spec = json.dumps({"rules": "standard", "dealer": 0, "wall": WALL, "actions": []})
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + spec.encode("utf-8"))
    assert main(["replay", str(bom)]) == 0
    capsys.readouterr()
    utf16 = tmp_path / "utf16.json"
    utf16.write_text(spec, encoding="utf-16")
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, words in ((utf16, "not UTF-8"), (nested, "nests deeper than")):
        assert main(["replay", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
