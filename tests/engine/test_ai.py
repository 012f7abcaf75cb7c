"""AI players: legal, deterministic, defensive, and the standard level beats the simple one."""

import math
import random

import pytest

from kwx.engine.actions import Action
from kwx.engine.ai import Observation, choose, decide, observe
from kwx.engine.hand import HandState
from kwx.engine.simulate import simulate
from kwx.engine.tiles import parse_tile, parse_tiles, to_counts
from kwx.engine.wall import wall_from_seed


def _obs(hand: str, legal: list[Action], **kw) -> Observation:
    counts = to_counts(parse_tiles(hand))
    visible = list(counts)
    return Observation(seat=0, legal=legal, counts=counts, visible=visible, **kw)


def _discards(hand: str) -> list[Action]:
    return [Action(0, "discard", t) for t in sorted(set(parse_tiles(hand)))]


@pytest.mark.parametrize("level", ["simple", "standard"])
def test_every_choice_is_legal_over_whole_hands(level):
    for seed in range(15):
        hand = HandState(dealer=seed % 3, wall=wall_from_seed(f"ai-{seed}"))
        while not hand.finished:
            seat = min(hand.to_act())
            action = decide(hand, seat, level)
            assert action in hand.legal_actions(seat)
            hand.apply(action)


def test_ai_takes_the_win_when_offered():
    legal = [Action(0, "hu"), Action(0, "pass")]
    for level in ("simple", "standard"):
        assert choose(_obs("1122334456677p5p", legal, claim_tile=parse_tile("5p")), level).verb == "hu"


def test_discard_keeps_the_hand_closest_to_ready():
    # 123p 456p 789p 11s + 2s 5s 9s 7z: the lonely 中 goes first for both levels
    hand = "123456789p1125s7z"
    for level in ("simple", "standard"):
        assert choose(_obs(hand, _discards(hand)), level).tile == parse_tile("7z")


def test_standard_will_not_feed_a_declared_hand():
    # Discarding 5s would be the most efficient, but 5s is what the 亮倒 player waits on (包胡 = double pay).
    hand = "123456789p11s5s7z7z"
    obs = _obs(hand, _discards(hand), liangdao_waits={1: (parse_tile("5s"),)})
    assert choose(obs, "standard").tile != parse_tile("5s")


def test_standard_feeds_only_when_every_tile_is_dangerous():
    hand = "5s"
    obs = _obs(hand, _discards(hand), liangdao_waits={1: (parse_tile("5s"),)})
    assert choose(obs, "standard").tile == parse_tile("5s")


def test_simple_never_declares_liangdao():
    hand = "123456789p1123s"
    legal = _discards(hand) + [Action(0, "liangdao", t) for t in sorted(set(parse_tiles(hand)))]
    assert choose(_obs(hand, legal), "simple").verb == "discard"


def test_standard_declares_liangdao_on_live_waits():
    # after discarding 9s: 123456789p 11s 23s waits on 1s/4s, five live tiles
    hand = "123456789p1123s9s"
    legal = _discards(hand) + [Action(0, "liangdao", parse_tile("9s"))]
    action = choose(_obs(hand, legal, wall_remaining=30), "standard")
    assert action == Action(0, "liangdao", parse_tile("9s"))


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="unknown AI level"):
        choose(_obs("1p", _discards("1p")), "genius")


def test_simulation_is_reproducible():
    a = simulate(40, seed="same", ai=("standard", "simple", "simple")).to_json()
    b = simulate(40, seed="same", ai=("standard", "simple", "simple")).to_json()
    a.pop("seconds"), b.pop("seconds"), a.pop("hands_per_second"), b.pop("hands_per_second")
    assert a == b
    assert a["checks"] == {"zero_sum": True, "tiles_conserved": True, "errors": 0}


def test_standard_beats_two_simple_players_at_95_percent_confidence():
    report = simulate(2000, seed="strength", ai=("standard", "simple", "simple"), keep_per_hand=True)
    assert report.errors == 0 and report.zero_sum and report.tiles_conserved
    mine = [row[0] for row in report.per_hand_net]
    n = len(mine)
    mean = sum(mine) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in mine) / (n - 1))
    z = mean / (sd / math.sqrt(n))
    assert report.net[0] > 0
    assert z > 1.645, f"standard's edge is not significant: mean {mean:.3f} per hand, z = {z:.2f}"


def test_random_seeds_play_clean_books():
    rng = random.Random(7)
    for _ in range(3):
        report = simulate(30, seed=str(rng.random()), ai=("simple", "standard", "simple"))
        assert report.to_json()["checks"] == {"zero_sum": True, "tiles_conserved": True, "errors": 0}


def test_a_claimed_discard_is_seen_once():
    """At every claim window of 40 hands, the seat asked counts the tile under claim exactly as often as it
    shows: in its own hand, among the unclaimed discards, in melds (another's 暗杠 hidden) and in declared hands."""
    windows = 0
    for seed in range(40):
        hand = HandState(dealer=0, wall=wall_from_seed(f"seen-{seed}"))
        while not hand.finished:
            seat = min(hand.to_act())
            if hand.phase == "claim":
                obs = observe(hand, seat)
                assert all(v <= 4 for v in obs.visible), obs.visible
                _, tile = hand.pending
                mine = hand.counts(seat)[tile]
                public = sum(1 for s in range(3) for t, c in hand.discards(s) if t == tile and not c)
                public += sum(m.size for s in range(3) for m in hand.melds(s) if m.tile == tile
                              and (s == seat or m.kind != "ankong"))
                public += sum(hand.counts(s)[tile] for s in range(3) if s != seat and hand.declared(s))
                assert obs.visible[tile] == mine + public
                windows += 1
            hand.apply(decide(hand, seat, "simple"))
    assert windows >= 100  # 150 with these seeds
