import json

from kwx.cli import main


def test_simulate_json_has_the_documented_keys(capsys):
    assert main(["simulate", "--hands", "20", "--seed", "s", "--ai", "standard,simple,simple", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"hands", "seconds", "hands_per_second", "wins", "self_draws", "double_rons", "draws",
                         "liangdao", "net", "checks"}
    assert data["hands"] == 20 and len(data["net"]) == 3 and sum(data["net"]) == 0
    assert data["checks"] == {"zero_sum": True, "tiles_conserved": True, "errors": 0}


def test_same_seed_same_result(capsys):
    outs = []
    for _ in range(2):
        main(["simulate", "--hands", "15", "--seed", "abc", "--json"])
        data = json.loads(capsys.readouterr().out)
        outs.append((data["net"], data["wins"], data["liangdao"]))
    assert outs[0] == outs[1]


def test_readable_output_and_bad_levels(capsys):
    assert main(["simulate", "--hands", "5", "--rules", "xiaogan"]) == 0
    assert "checks: zero-sum ok" in capsys.readouterr().out
    assert main(["simulate", "--hands", "5", "--ai", "simple,genius,simple"]) == 2
    assert "--ai takes three levels" in capsys.readouterr().err


def test_simulate_reports_each_player(capsys):
    assert main(["simulate", "--hands", "30", "--seed", "p", "--ai", "standard,simple,simple", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    players = data["players"]
    assert [p["level"] for p in players] == ["standard", "simple", "simple"]
    assert [p["net"] for p in players] == data["net"]
    for p in players:
        assert set(p) >= {"net", "net_per_hand", "net_per_hand_ci95", "win_rate", "self_draw_rate",
                          "deal_in_rate", "fed_liangdao", "liangdao_rate", "mean_fan"}
        lo, hi = p["net_per_hand_ci95"]
        assert lo <= p["net_per_hand"] <= hi
        assert 0 <= p["win_rate"] <= 1 and 0 <= p["deal_in_rate"] <= 1
    # every win is someone's: the players' wins add up to the table's
    assert round(sum(p["win_rate"] for p in players) * 30) == data["wins"]
    assert players[1]["liangdao_rate"] == 0 == players[2]["liangdao_rate"]  # simple never declares
