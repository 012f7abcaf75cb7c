"""Where an AI player's money comes from (benchmarks.ai_outcomes): the breakdown adds up to what simulate says."""

import pytest

from benchmarks.ai_outcomes import main, measure
from kwx.engine.simulate import simulate


def test_each_players_outcomes_and_reasons_add_up_to_its_net():
    out = measure(40, "outcomes-a", ("strong", "standard", "standard"))
    report = simulate(40, "outcomes-a", ("strong", "standard", "standard"))
    assert out["hands"] == 40
    for player, stats in zip(out["players"], report.players):
        assert player["net_per_hand"] == pytest.approx(stats.net / 40)
        assert sum(c["net_per_hand"] for c in player["by_outcome"].values()) == pytest.approx(stats.net / 40, abs=1e-3)
        assert sum(player["by_reason"].values()) == pytest.approx(stats.net / 40, abs=1e-3)
        assert sum(c["share"] for c in player["by_outcome"].values()) == pytest.approx(1.0, abs=1e-3)
        cases = player["by_outcome"]
        def share(prefix, cases=cases):
            return sum(c["share"] for k, c in cases.items() if k.startswith(prefix))
        assert share("won_") == pytest.approx(stats.wins / 40, abs=1e-3)
        assert share("won_self_draw_") == pytest.approx(stats.self_draws / 40, abs=1e-3)
        assert share("dealt_in_") == pytest.approx(stats.deal_ins / 40, abs=1e-3)
        # a won hand ended ready: a concealed win shows in the concealed share, a declared one keeps it below 1
        if share("won_self_draw_concealed") + share("won_on_discard_concealed"):
            assert player["ready_concealed_share"] > 0
        if share("won_self_draw_declared") + share("won_on_discard_declared"):
            assert player["ready_concealed_share"] < 1


def test_a_winners_case_says_how_it_won():
    out = measure(40, "outcomes-b", ("standard", "standard", "standard"))
    cases = {k for p in out["players"] for k in p["by_outcome"]}
    assert cases & {"won_self_draw_declared", "won_on_discard_declared"}
    assert cases <= {f"won_{how}_{mine}" for how in ("self_draw", "on_discard") for mine in ("declared", "concealed")} | {
        f"dealt_in_{me}_to_{to}" for me in ("locked", "concealed") for to in ("declared", "concealed")} | {
        "opponent_self_draw", "another_dealt_in", "draw_declared", "draw_concealed"}


@pytest.mark.parametrize("argv", [["--ai", "strong,standard"], ["--ai", "strong,expert,simple"], ["--hands", "0"]])
def test_bad_arguments_get_a_clear_error(argv, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert "error: --" in capsys.readouterr().err
