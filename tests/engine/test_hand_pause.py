"""apply(pause=True) stops at every discard and 补杠 as if a claim window were open, and resuming reaches the
very state a plain apply reaches (the table service shows a hand this way so that the board never tells
whether anyone could claim)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kwx.engine.actions import Action
from kwx.engine.hand import CLAIM, ROB, HandState
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.tiles import parse_tile
from kwx.engine.wall import wall_from_seed
from tests.support.hands import choose, deal, play


def state_of(hand: HandState) -> dict[str, Any]:
    """Everything a seat or the table can read of a hand, wall order included."""
    return {
        "step": hand.step, "phase": hand.phase, "turn": hand.turn, "drawn": hand.drawn,
        "wall": hand.remaining_wall(), "pending": hand.pending, "to_act": hand.to_act(),
        "declare_order": hand.declare_order, "result": hand.result.to_json() if hand.result else None,
        "seats": [(hand.counts(s), hand.melds(s), hand.discards(s), hand.declared(s), hand.liangdao_waits(s),
                   hand.louhu(s), hand.legal_actions(s)) for s in range(3)],
    }


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_pausing_reaches_the_same_state_and_stops_at_every_discard(preset: str) -> None:
    rules = RuleSet.preset(preset)
    held_discards = 0
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
                stops += 1
                paused = shadow.resume()
            assert state_of(shadow) == state_of(hand)
            # every discard in a plain apply is one stop, except one that opened a real window
            discards = sum(e.kind == "discard" for e in events)
            assert stops <= discards + sum(e.kind == "gang" and e.gang == "bugang" for e in events)
    assert held_discards > 50


def test_a_bugang_nobody_can_rob_is_held_as_if_someone_could():
    hand = deal("57899p23s555z666z7z", "123p456s11s9s77z44p", "1369p2468s1379s5p", draws="2p 8s 7z")
    play(hand, "0 discard 7z", "1 peng", "1 discard 9s", "2 discard 2p", "0 discard 8s")
    bugang = Action(1, "gang", parse_tile("7z"))
    shadow = hand.clone()
    held = shadow.apply(bugang, pause=True)
    assert [e.kind for e in held] == ["rob_window"]
    assert shadow.held and shadow.phase == ROB and shadow.to_act() == set()
    assert [e.kind for e in shadow.resume()] == [e.kind for e in hand.apply(bugang)] == ["gang", "draw"]
    assert state_of(shadow) == state_of(hand)


def test_resume_refuses_when_nothing_is_held() -> None:
    hand = HandState(RuleSet.preset("standard"), wall=wall_from_seed("x"))
    with pytest.raises(Exception, match="nothing is held"):
        hand.resume()
    assert isinstance(hand.legal_actions(hand.turn)[0], Action)
