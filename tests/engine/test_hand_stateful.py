"""Random hands under every preset: after every step all 84 tiles are accounted for, every offered action
applies, offered 亮倒 discards match a brute-force check, illegal actions change nothing, and finished hands
sum to zero."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kwx.engine.actions import Action, IllegalAction
from kwx.engine.analysis import waits
from kwx.engine.fan import WinContext, score_counts
from kwx.engine.hand import HandState
from kwx.engine.payments import net
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.wall import wall_from_seed
from tests.support.hands import census, choose

PRESET_RULES = [RuleSet.preset(name) for name in PRESETS] + [
    RuleSet.preset("standard", forbid_feeding=True, louhu_bigger_ok=True, draw_liangdao_penalty="first",
                   draw_dealer="first_liangdao", liangdao_min_wall=20, min_fan_discard=2, zhigang_pay=1),
    RuleSet.preset("online-3d", min_fan=4),
]


def expected_liangdao(hand: HandState, seat: int) -> set[int]:
    """Brute force: discards after which the hand waits on a tile reaching min_fan by 自摸 as a 亮倒 hand."""
    if hand.declared(seat) or hand.wall_remaining < hand.rules.liangdao_min_wall:
        return set()
    counts = list(hand.counts(seat))
    melds = hand.melds(seat)
    out = set()
    for t in range(21):
        if not counts[t]:
            continue
        counts[t] -= 1
        for w in waits(counts, melds):
            r = score_counts(counts, w, melds, WinContext(self_draw=True, liangdao=True), hand.rules)
            if r is not None and r.fan >= hand.rules.min_fan:
                out.add(t)
                break
        counts[t] += 1
    return out - feeding_tiles(hand, seat)


def feeding_tiles(hand: HandState, seat: int) -> set[int]:
    """Brute force, under forbid_feeding: the shown waits of the other declared hands that would win on a
    discard at the table's minimum fan."""
    rules = hand.rules
    if not rules.forbid_feeding or hand.declared(seat):
        return set()
    out = set()
    for s in range(3):
        if s == seat or not hand.declared(s):
            continue
        for w in hand.liangdao_waits(s):
            r = score_counts(hand.counts(s), w, hand.melds(s), WinContext(liangdao=True), rules)
            if r is not None and r.fan >= max(rules.min_fan, rules.min_fan_discard):
                out.add(int(w))
    return out


def check_state(hand: HandState) -> None:
    assert census(hand) == [4] * 21
    to_act = hand.to_act()
    if hand.finished:
        assert not to_act
        assert hand.result is not None
        assert sum(hand.result.net) == 0
        assert list(hand.result.net) == net(hand.result.payments)
        return
    assert to_act, "an unfinished hand always waits for someone"
    for seat in range(3):
        legal = hand.legal_actions(seat)
        assert bool(legal) == (seat in to_act)
        if hand.phase == "turn" and seat == hand.turn and not hand.declared(seat):
            sizes = sum(hand.counts(seat)) + 3 * len(hand.melds(seat))
            assert sizes == 14
            got = {a.tile for a in legal if a.verb == "liangdao"}
            assert got == expected_liangdao(hand, seat)


def play_random(rules: RuleSet, seed: int, try_all_every: int = 0) -> HandState:
    rng = random.Random(seed)
    hand = HandState(rules, seed % 3, wall_from_seed(str(seed)),
                     [rng.randint(0, rules.piao or 0) for _ in range(3)])
    check_state(hand)
    steps = 0
    while not hand.finished:
        seat = min(hand.to_act())
        legal = hand.legal_actions(seat)
        if try_all_every and steps % try_all_every == 0:
            for a in legal:  # every offered action applies without raising
                hand.clone().apply(a)
        # an action out of turn is refused and changes nothing
        idle = next((s for s in range(3) if s not in hand.to_act()), None)
        if idle is not None:
            before = (hand.step, census(hand), hand.to_act())
            with pytest.raises(IllegalAction):
                hand.apply(Action(idle, "pass"))
            assert (hand.step, census(hand), hand.to_act()) == before
        hand.apply(choose(rng, legal))
        steps += 1
        check_state(hand)
    return hand


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32), rules_index=st.integers(0, len(PRESET_RULES) - 1))
def test_random_hands_keep_every_invariant(seed: int, rules_index: int) -> None:
    play_random(PRESET_RULES[rules_index], seed)


def test_every_offered_action_applies() -> None:
    for seed in range(12):
        play_random(PRESET_RULES[seed % len(PRESET_RULES)], seed, try_all_every=3)


def test_many_hands_reach_every_ending() -> None:
    ends: dict[str, int] = {}
    reasons: set[str] = set()
    for seed in range(800):
        hand = play_random(PRESET_RULES[seed % len(PRESET_RULES)], 1000 + seed)
        assert hand.result is not None
        ends[hand.result.end] = ends.get(hand.result.end, 0) + 1
        reasons |= {p.reason for p in hand.result.payments}
    assert ends.get("hu", 0) > 50 and ends.get("huangzhuang", 0) > 20
    assert {"hu", "angang", "zhigang", "bugang", "draw_liangdao", "piao", "maima"} <= reasons
