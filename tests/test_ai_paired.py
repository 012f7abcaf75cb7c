"""The paired A/B benchmark of `strong` (benchmarks.ai_paired): how changes to the AI are measured."""

import pytest

from benchmarks.ai_paired import compare, main, parse_settings, strong_nets
from kwx.engine import ai_strong
from kwx.engine.rules import RuleSet
from kwx.engine.simulate import simulate


def test_unchanged_strong_ends_every_hand_the_same():
    out = compare(6, ["paired-a"], {}, jobs=1)
    seed = out["seeds"][0]
    assert seed["hands_same_net"] == 6
    assert out["diff"] == 0.0
    assert seed["landed"] == seed["changed"]


def test_a_changed_constant_changes_play_in_its_run_only():
    before = ai_strong.LOOSE_WEIGHT
    out = compare(12, ["paired-b"], {"LOOSE_WEIGHT": 5.0}, jobs=1)
    assert out["set"] == {"LOOSE_WEIGHT": 5.0}
    assert out["seeds"][0]["hands_same_net"] < 12
    assert before == ai_strong.LOOSE_WEIGHT


def test_settings_name_only_the_models_numeric_constants():
    settings = parse_settings(["PUNG_SPEED=0", "EXACT_CANDIDATES=6"])
    assert settings == {"PUNG_SPEED": 0.0, "EXACT_CANDIDATES": 6}
    assert type(settings["EXACT_CANDIDATES"]) is int  # it counts discards: stays an integer
    for bad in ("NEVER=1", "DISCARD_SHAPE=1", "_MAX_CACHE=5", "NUM_KINDS=3", "PUNG_SPEED", "PUNG_SPEED=fast", "math=1"):
        with pytest.raises(ValueError, match="--set"):
            parse_settings([bad])


def test_plays_the_rule_preset_it_is_given():
    rules = RuleSet.preset("online-3d")
    expected = simulate(5, "paired-c", ("strong", "standard", "standard"), rules=rules, keep_per_hand=True)
    assert strong_nets(5, "paired-c", "standard", {}, "online-3d") == [row[0] for row in expected.per_hand_net]
    assert compare(2, ["paired-c"], {}, jobs=1, preset="online-3d")["rules"] == "online-3d"


@pytest.mark.parametrize("argv", [["--seeds", ","], ["--hands", "0"], ["--set", "PUNG_SPEED"]])
def test_bad_arguments_get_a_clear_error(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert "error: --" in capsys.readouterr().err
