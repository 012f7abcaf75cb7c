"""The paired A/B benchmark of `strong` (benchmarks.ai_paired): how changes to the AI are measured."""

import ast
import inspect
from dataclasses import fields, replace

import pytest

from benchmarks.ai_paired import compare, main, strong_nets
from benchmarks.tuning import parse_settings
from kwx.engine import ai_strong
from kwx.engine.ai_strong import DEFAULT_PARAMS, StrongParams
from kwx.engine.rules import RuleSet
from kwx.engine.simulate import simulate


def test_unchanged_strong_ends_every_hand_the_same():
    out = compare(6, ["paired-a"], DEFAULT_PARAMS, jobs=1)
    seed = out["seeds"][0]
    assert seed["hands_same_net"] == 6
    assert out["diff"] == 0.0 and out["set"] == {}
    assert seed["landed"] == seed["changed"]


@pytest.mark.parametrize(("setting", "changed"), [("LOOSE_WEIGHT=5", {"loose_weight": 5.0}),
                                                  ("typical_live=20", {"typical_live": 20.0})])
def test_a_changed_constant_changes_play_in_its_run_only(setting, changed):
    # typical_live was once a default argument bound when the module loaded, so setting it changed nothing
    out = compare(12, ["paired-b"], parse_settings([setting]), jobs=1)
    assert out["set"] == changed
    assert out["seeds"][0]["hands_same_net"] < 12
    assert out["seeds"][0]["landed"] == compare(12, ["paired-b"], DEFAULT_PARAMS, jobs=1)["seeds"][0]["landed"]


def test_settings_name_only_the_models_tuned_constants():
    params = parse_settings(["PUNG_SPEED=0", "exact_candidates=6"])
    assert params == replace(DEFAULT_PARAMS, pung_speed=0.0, exact_candidates=6)
    assert type(params.exact_candidates) is int  # it counts discards: stays an integer
    for bad in ("NEVER=1", "DISCARD_SHAPE=1", "_MAX_CACHE=5", "NUM_KINDS=3", "PUNG_SPEED", "PUNG_SPEED=fast", "math=1",
                "EXACT_CANDIDATES=4.5", "params=1"):
        with pytest.raises(ValueError, match="--set"):
            parse_settings([bad])


def test_every_tuned_constant_is_read_by_the_model_at_decision_time():
    """A field the model never reads, or reads only through DEFAULT_PARAMS (bound when the module loads), would
    make `--set` of it silently change nothing."""
    tree = ast.parse(inspect.getsource(ai_strong))
    read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert [f.name for f in fields(StrongParams) if f.name not in read] == []
    bound_early = [node.attr for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                   and node.value.id == "DEFAULT_PARAMS"]
    assert bound_early == []


def test_plays_the_rule_preset_it_is_given():
    rules = RuleSet.preset("online-3d")
    expected = simulate(5, "paired-c", ("strong", "standard", "standard"), rules=rules, keep_per_hand=True)
    assert strong_nets(5, "paired-c", "standard", DEFAULT_PARAMS, "online-3d") == [row[0] for row in expected.per_hand_net]
    assert compare(2, ["paired-c"], DEFAULT_PARAMS, jobs=1, preset="online-3d")["rules"] == "online-3d"


@pytest.mark.parametrize("argv", [["--seeds", ","], ["--hands", "0"], ["--set", "PUNG_SPEED"], ["--set", "NEVER=1"]])
def test_bad_arguments_get_a_clear_error(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert "error: --" in capsys.readouterr().err
