"""apply(pause=True) stops at every discard and 补杠 as if a claim window were open, and resuming reaches the
very state a plain apply reaches (the table service shows a hand this way so that the board never tells
whether anyone could claim)."""

from __future__ import annotations

import random

import pytest

from kwx.engine.actions import Action
from kwx.engine.hand import CLAIM, ROB, HandState
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.wall import wall_from_seed
from tests.engine.test_hand_stateful import choose


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_pausing_reaches_the_same_state_and_stops_at_every_discard(preset: str) -> None:
    rules = RuleSet.preset(preset)
    held_discards = held_bugang = 0
    for n in range(12):
        rng = random.Random(f"{preset}-{n}")
        hand = HandState(rules, dealer=n % 3, wall=wall_from_seed(f"pause-{preset}-{n}"))
        while not hand.finished:
            action = choose(rng, hand.legal_actions(min(hand.to_act())))
            shadow = hand.clone()
            events = hand.apply(action)
            paused = shadow.apply(action, pause=True)
            stops = 0
            while shadow.held:
                assert shadow.to_act() == set() and shadow.phase in (CLAIM, ROB)
                assert shadow.pending is not None
                if shadow.phase == CLAIM:
                    assert paused[-1].kind in ("discard", "liangdao")
                    held_discards += 1
                else:
                    assert paused[-1].kind == "rob_window"
                    held_bugang += 1
                stops += 1
                paused = shadow.resume()
            for s in (None, 0, 1, 2):
                assert shadow.view(s) == hand.view(s)
            # every discard in a plain apply is one stop, except one that opened a real window
            discards = sum(e.kind == "discard" for e in events)
            assert stops <= discards + sum(e.kind == "gang" and e.gang == "bugang" for e in events)
    assert held_discards > 50 and held_bugang >= 0


def test_resume_refuses_when_nothing_is_held() -> None:
    hand = HandState(RuleSet.preset("standard"), wall=wall_from_seed("x"))
    with pytest.raises(Exception, match="nothing is held"):
        hand.resume()
    assert isinstance(hand.legal_actions(hand.turn)[0], Action)
