"""Actions and events as JSON, and what each seat may see of them."""

from __future__ import annotations

import json

import pytest

from kwx.engine.actions import EVENT_TYPES, Action, ActionFormatError
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile
from tests.support.hands import deal, drain, of_kind, play

DEALER = "57899p23s555z666z7z"
WAIT_5P_A = "12346p789s111s77z"
WAIT_5P_B = "46p234s567s888s99s"
JUNK = "35p347s258s69s5z6z7z"


def test_action_json_round_trip() -> None:
    for action in (Action(0, "discard", Tile.P5), Action(2, "gang"), Action(1, "liangdao", Tile.RED)):
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert Action.from_json([1, "discard", "五筒"]) == Action(1, "discard", Tile.P5)
    for bad in ([3, "pass"], [0, "chi"], [0, "discard"], [0, "peng", "5p"], "0 pass", [0, "discard", "0p"]):
        with pytest.raises(ActionFormatError):
            Action.from_json(bad)


def test_every_event_is_json_and_tells_its_kind() -> None:
    hand = deal(DEALER, WAIT_5P_A, JUNK, draws="3s 2p")
    play(hand, "0 discard 7p", "1 liangdao 3s", "2 discard 5p", "1 hu")
    for event in hand.events:
        data = json.loads(json.dumps(event.to_json()))
        assert data["kind"] == event.kind and EVENT_TYPES[event.kind] is type(event)
    assert [e.kind for e in hand.events] == ["deal", "discard", "draw", "discard", "liangdao", "draw", "discard",
                                             "hu", "reveal", "settlement"]


def test_pass_is_seen_only_by_the_passer() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    events = play(hand, "0 discard 5p", "1 pass")
    passed = of_kind(events, "pass")[0]
    assert passed.louhu and passed.for_viewer(1) == {"kind": "pass", "seat": 1, "louhu": True}
    assert passed.for_viewer(0) is None and passed.public_json() is None


def test_reveal_and_settlement_are_public() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    events = play(hand, "0 discard 5p", "1 hu", "2 pass")
    reveal = of_kind(events, "reveal")[0].public_json()
    assert reveal["hands"][2] == "46p23456788899s"
    settlement = of_kind(events, "settlement")[0].public_json()
    assert settlement["net"] == [-2, 2, 0] and settlement["next_dealer"] == 1


def test_no_maima_when_the_wall_is_empty() -> None:
    hand = deal(DEALER, "1358p1368s2456s6z", WAIT_5P_B, back="5p", rules=RuleSet.preset("standard", maima=True))
    drain(hand, until=lambda h: h.wall_remaining == 0)
    play(hand, "2 hu")
    assert not of_kind(hand.events, "maima")
    assert [p.reason for p in hand.result.payments] == ["hu", "hu"]


def test_step_counts_applied_actions_only() -> None:
    hand = deal(DEALER, WAIT_5P_A, WAIT_5P_B)
    assert hand.step == 0
    play(hand, "0 discard 5p", "1 pass")
    assert hand.step == 2
    clone = hand.clone()
    play(clone, "2 hu")
    assert clone.finished and not hand.finished and hand.step == 2
