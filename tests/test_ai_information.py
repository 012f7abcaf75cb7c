"""The information ceiling of `strong` (benchmarks.ai_information): what it would win seeing where the tiles are."""

from collections import Counter

import pytest

from benchmarks.ai_information import compare, deal, main, play, told_where_tiles_are
from kwx.engine.ai import decide, observe
from kwx.engine.tiles import COPIES, NUM_KINDS


def _hands(seed, n):
    return (deal(seed, number) for number in range(1, n + 1))


def test_without_an_oracle_strong_plays_as_it_does_at_a_table():
    expected = []
    for hand in _hands("info-a", 6):
        while not hand.finished:
            seat = min(hand.to_act())
            hand.apply(decide(hand, seat, "strong" if seat == 0 else "standard"))
        expected.append(hand.result.net[0])
    assert play(6, "info-a", "none")["nets"] == expected


def test_the_oracle_leaves_strong_seeing_exactly_the_wall_as_unseen():
    checked = 0
    for hand in _hands("info-b", 3):
        while not hand.finished:
            seat = min(hand.to_act())
            if seat == 0 and len(hand.legal_actions(0)) > 1:
                plain = observe(hand, 0)
                told = told_where_tiles_are(hand, observe(hand, 0))
                left = Counter(hand.remaining_wall())
                assert [COPIES - v for v in told.visible] == [left[t] for t in range(NUM_KINDS)]
                # it only ever learns more: nothing strong saw is forgotten
                assert all(a >= b for a, b in zip(told.visible, plain.visible))
                checked += 1
            hand.apply(decide(hand, seat, "strong" if seat == 0 else "standard"))
    assert checked > 10


def test_the_report_pairs_every_oracle_with_strong_as_it_plays():
    out = compare(25, ["info-c"], jobs=1)
    assert list(out["oracles"]) == ["none", "tiles_at_ready", "tiles"]
    told = play(25, "info-c", "tiles")
    plain = play(25, "info-c", "none")
    assert out["oracles"]["none"]["net_per_hand"] == round(sum(plain["nets"]) / 25, 4)
    assert told["nets"] != plain["nets"]  # knowing where the tiles are changes play
    row = out["oracles"]["tiles"]
    assert row["diff"] == round((sum(told["nets"]) - sum(plain["nets"])) / 25, 4)
    assert row["declared_wait_wall_copies"] == round(told["wall_copies"] / told["declared"], 3)


@pytest.mark.parametrize("argv", [["--seeds", ","], ["--hands", "0"], ["--oracles", "mind_reading"]])
def test_bad_arguments_get_a_clear_error(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert "error: --" in capsys.readouterr().err
