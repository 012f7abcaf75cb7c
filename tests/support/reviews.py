"""Hands played to the end by AI players, for the 复盘 tests: the log a table would keep, and its review."""

from __future__ import annotations

from collections.abc import Callable

from kwx.engine.actions import Action
from kwx.engine.ai import decide
from kwx.engine.hand import HandState
from kwx.engine.review import HandLog, Review, review
from kwx.engine.rules import STANDARD
from kwx.engine.wall import wall_from_seed

Policy = Callable[[HandState, int], Action]


def level(name: str) -> Policy:
    return lambda hand, seat: decide(hand, seat, name)


def play(seed: str, policies: tuple[Policy, Policy, Policy], dealer: int = 0) -> HandLog:
    """Deal the wall of `seed` and let each seat's policy play until the hand is over."""
    wall = wall_from_seed(seed)
    hand = HandState(STANDARD, dealer, wall)
    actions = []
    while not hand.finished:
        seat = min(hand.to_act())
        action = policies[seat](hand, seat)
        actions.append(action)
        hand.apply(action)
    assert hand.result is not None
    return HandLog(STANDARD, dealer, wall, actions=actions, net=hand.result.net, outcome=hand.result.outcome)


def reviewed(seed: str, levels: tuple[str, str, str] = ("standard", "strong", "simple"), seat: int = 0) -> Review:
    return review(play(seed, (level(levels[0]), level(levels[1]), level(levels[2]))), seat)
