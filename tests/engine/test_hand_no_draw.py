"""A turn without a drawn tile (docs/rules.md §3): after a 碰 the player must discard (亮倒 allowed, no kong) and may
not win until their next draw; only the dealer's first turn (天胡) wins without one. A 碰 that completes a
winning hand is no way to turn a 2-fan 点炮 into a 自摸 paid by both other players."""

from __future__ import annotations

import random

import pytest

from kwx.cli.replay import replay
from kwx.engine.actions import Action, IllegalAction
from kwx.engine.ai import decide
from kwx.engine.analysis import is_win
from kwx.engine.hand import HandState
from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.tiles import Tile
from kwx.engine.wall import wall_from_seed
from tests.support.hands import census, deal, of_kind, payments_json, play, wall_text

# Seat 1 pungs 1p, 9p and 1s and ends with 5s5s6z6z concealed, waiting on 5s or 6z; seat 2 then discards 5s.
PENG_DEALER = "123578p234689s5z6z"
PENG_SEAT1 = "11p99p11s55s66z4p7s7z"
PENG_SEAT2 = "9p1s5s2p4p6p3s4s6s8s5z7z8p"
PENG_STEPS = ("0 discard 1p", "1 peng", "1 discard 4p", "2 discard 9p", "1 peng", "1 discard 7s",
              "2 discard 1s", "1 peng", "1 discard 7z", "2 discard 5s")


def three_pungs_and_5s_discarded(draws: str = "3p 4s 2p") -> HandState:
    hand = deal(PENG_DEALER, PENG_SEAT1, PENG_SEAT2, draws=draws)
    play(hand, *PENG_STEPS)
    assert hand.phase == "claim" and hand.pending == (2, Tile.S5)
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "peng"), Action(1, "pass")]
    return hand


def assert_refused(hand: HandState, action: Action, match: str) -> None:
    before = (hand.step, census(hand), hand.counts(action.seat), hand.melds(action.seat), len(hand.events))
    with pytest.raises(IllegalAction, match=match):
        hand.apply(action)
    assert (hand.step, census(hand), hand.counts(action.seat), hand.melds(action.seat),
            len(hand.events)) == before


def test_peng_on_a_winning_discard_offers_no_hu_and_apply_refuses_it() -> None:
    hand = three_pungs_and_5s_discarded()
    play(hand, "1 peng")
    assert hand.phase == "turn" and hand.turn == 1 and hand.drawn is None
    assert hand.concealed(1) == [Tile.GREEN, Tile.GREEN] and len(hand.melds(1)) == 4
    # the 14 tiles would read as 碰碰胡 × 手抓一, but nothing was drawn: discard (or 亮倒 with it), nothing else
    assert hand.legal_actions(1) == [Action(1, "discard", Tile.GREEN), Action(1, "liangdao", Tile.GREEN)]
    assert_refused(hand, Action(1, "hu"), "drawn no tile since its 碰")
    events = play(hand, "1 discard 6z")
    assert not of_kind(events, "hu") and hand.payments == ()


def test_hu_on_the_discard_instead_pays_the_discarder_alone() -> None:
    hand = three_pungs_and_5s_discarded()
    play(hand, "1 hu")
    assert hand.result.winners == (1,) and not hand.result.self_draw and hand.result.from_seat == 2
    assert hand.result.patterns[1] == ("pengpenghu",) and hand.result.fan[1] == 2
    assert payments_json(hand) == [(2, 1, 2, "hu")]


def test_after_the_peng_the_next_draw_may_win() -> None:
    # after the 碰 seat 1 discards 6z, keeping 6z; seat 2 draws 7p and discards it, the dealer draws 8p and
    # discards it, and seat 1 draws the last 6z: a real 自摸 (碰碰胡 × 手抓一) paid by both others
    hand = three_pungs_and_5s_discarded(draws="3p 4s 2p 7p 8p 6z")
    play(hand, "1 peng", "1 discard 6z", "2 discard 7p", "0 discard 8p")
    assert hand.turn == 1 and hand.drawn == Tile.GREEN
    assert Action(1, "hu") in hand.legal_actions(1)
    play(hand, "1 hu")
    assert hand.result.self_draw and hand.result.patterns[1] == ("pengpenghu", "shouzhuayi")
    assert payments_json(hand) == [(0, 1, 8, "hu"), (2, 1, 8, "hu")]


def test_a_replay_file_cannot_force_the_win_after_a_peng() -> None:
    actions = [[int(seat), verb, *rest] for seat, verb, *rest in (x.split() for x in PENG_STEPS)]
    spec = {"rules": "standard", "dealer": 0, "wall": wall_text(PENG_DEALER, PENG_SEAT1, PENG_SEAT2, draws="3p 4s 2p"),
            "actions": [*actions, [1, "peng"], [1, "hu"]]}
    output, error = replay(spec)
    assert error is not None and error["action_index"] == len(actions) + 1
    assert "drawn no tile since its 碰" in error["error"]
    assert output["result"]["outcome"] == "incomplete" and output["result"]["net"] == [0, 0, 0]


# A plain hand: seat 1 holds 99s 11s 234789p 77z + 6p, pungs 9s (discarding 6p), then 1s off seat 2, after
# which its 14 tiles read 234p 789p 77z + two pungs (屁胡) — still no 胡 before a draw.
PLAIN_DEALER = "9s2p5p6p8p3s4s5s6s8s5z6z6z7z"
PLAIN_SEAT1 = "99s11s234789p77z6p"
PLAIN_SEAT2 = "1s1p3p5p7p2s4s7s5z5z6z8p3s"


def test_plain_hand_completed_by_a_peng_waits_for_the_draw() -> None:
    hand = deal(PLAIN_DEALER, PLAIN_SEAT1, PLAIN_SEAT2, draws="9p")
    play(hand, "0 discard 9s", "1 peng", "1 discard 6p", "2 discard 1s")
    assert hand.legal_actions(1) == [Action(1, "hu"), Action(1, "peng"), Action(1, "pass")]
    play(hand, "1 peng")
    assert {a.verb for a in hand.legal_actions(1)} <= {"discard", "liangdao"}
    assert_refused(hand, Action(1, "hu"), "drawn no tile since its 碰")
    assert hand.louhu(1)  # answering 碰 to a winning discard is 漏胡 as well


def test_dealer_first_turn_still_wins_without_a_draw() -> None:
    hand = deal("123p456p789s111s77z", "57899p23s555z666z", "46p234s567s888s9s7z")
    assert hand.step == 0 and hand.drawn is None and Action(0, "hu") in hand.legal_actions(0)


# -- the property: over many seeded hands played from the legal actions -----------------------------------
RULES = [RuleSet.preset(name) for name in PRESETS] + [
    RuleSet.preset("standard", forbid_feeding=True, louhu_bigger_ok=True, min_fan_discard=2)]


def pick(rng: random.Random, hand: HandState, seat: int) -> Action:
    """Mostly the simple AI (it heads for wins, so 碰 often completes a hand), but a 碰 over a 胡 on the same
    discard half the time, and now and then any legal action."""
    legal = hand.legal_actions(seat)
    verbs = {a.verb for a in legal}
    if "hu" in verbs and "peng" in verbs and rng.random() < 0.5:
        return Action(seat, "peng")
    if rng.random() < 0.1:
        return rng.choice(legal)
    return decide(hand, seat, "simple")


def audit_no_draw_turn(hand: HandState, seat: int, legal: list[Action]) -> int:
    """A turn with no drawn tile: the dealer's first turn may win, 暗杠 a four and discard; after a 碰 only
    discard or 亮倒, and apply refuses 胡 and every kong. Returns how many refusals it checked."""
    counts = hand.counts(seat)
    if hand.step == 0:
        assert seat == hand.dealer
        for a in legal:
            assert a.verb in ("hu", "gang", "discard", "liangdao"), a
            if a.verb == "gang":
                assert counts[a.tile] == 4
        return 0
    assert hand.melds(seat) and hand.melds(seat)[-1].kind == "pung"  # only a 碰 leaves a turn undrawn
    assert {a.verb for a in legal} <= {"discard", "liangdao"}, legal
    tries = [Action(seat, "hu"), Action(seat, "pass")] + [Action(seat, "gang", Tile(t)) for t in range(21)
                                                           if counts[t] == 4 or (counts[t] and any(
                                                               m.tile == t for m in hand.melds(seat)))]
    for a in tries:
        trial = hand.clone()
        with pytest.raises(IllegalAction):
            trial.apply(a)
        assert trial.step == hand.step
    return len(tries)


def test_no_win_without_a_draw_over_many_random_hands() -> None:
    hands = checked = no_draw = after_peng_wins = zimo = ron = 0
    for seed in range(600):
        rng = random.Random(seed)
        hand = HandState(RULES[seed % len(RULES)], seed % 3, wall_from_seed(f"no-draw-{seed}"))
        while not hand.finished:
            seat = min(hand.to_act())
            legal = hand.legal_actions(seat)
            checked += len(legal)
            if hand.phase == "turn" and hand.drawn is None:
                no_draw += 1
                checked += audit_no_draw_turn(hand, seat, legal)
                if hand.step and is_win(list(hand.counts(seat)), len(hand.melds(seat))):
                    after_peng_wins += 1
            action = pick(rng, hand, seat)
            drawn, step, pending, phase = hand.drawn, hand.step, hand.pending, hand.phase
            events = hand.apply(action)
            for hu in of_kind(events, "hu"):
                if hu.self_draw:
                    zimo += 1
                    assert phase == "turn" and action.verb == "hu"
                    assert drawn is not None or step == 0, "自摸 with no drawn tile after the first turn"
                    if drawn is not None:
                        assert hu.tile == drawn
                else:
                    ron += 1
                    assert phase in ("claim", "rob") and pending is not None
                    assert (hu.from_seat, hu.tile) == pending
        hands += 1
    print(f"hands={hands} actions_checked={checked} no_draw_turns={no_draw} "
          f"winning_shapes_after_peng={after_peng_wins} zimo={zimo} ron={ron}")
    assert no_draw > 200 and zimo > 20 and ron > 20
    assert after_peng_wins > 0  # the property reaches the state of the bug, not only ordinary hands
