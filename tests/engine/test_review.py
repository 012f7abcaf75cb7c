"""复盘: a finished hand replays step by step with every tile shown, and strong values each of one seat's
decisions on what that seat could see, agreeing with what strong plays."""

from __future__ import annotations

import pytest

from kwx.engine.actions import Action
from kwx.engine.ai import decide, observe
from kwx.engine.ai_strong import choose_strong, evaluate
from kwx.engine.analysis import shanten_after_discards
from kwx.engine.hand import HandState
from kwx.engine.review import TIE, HandLog, ReplayMismatch, review
from kwx.engine.rules import STANDARD
from kwx.engine.wall import wall_from_seed
from tests.support.reviews import level, play

MIXED = (level("standard"), level("strong"), level("simple"))


def test_evaluate_ranks_every_legal_action_and_plays_its_first():
    seen = 0
    for i in range(12):
        log = play(f"eval{i}", MIXED)
        hand = HandState(STANDARD, 0, log.wall)
        for action in log.actions:
            for seat in sorted(hand.to_act()):
                obs = observe(hand, seat)
                if len(obs.legal) < 2:
                    continue
                ranked = evaluate(obs)
                assert sorted(map(tuple, (v.action for v in ranked))) == sorted(map(tuple, obs.legal))
                assert ranked[0].action == choose_strong(observe(hand, seat))
                seen += 1
            hand.apply(action)
    assert seen > 100


def test_a_strong_seat_agrees_with_the_review_of_its_play_but_where_its_time_budget_hid_a_better_discard():
    """In play strong values its few most promising discards in full; the review values every discard as fast
    as those, so it may find a better one strong did not look at. Nowhere else does it differ."""
    decisions, differ = 0, 0
    for i in range(10):
        done = review(play(f"agree{i}", MIXED), 1)
        decisions += len(done.decisions)
        for d in done.decisions:
            if d.agrees:
                assert d.loss == 0.0
                continue
            differ += 1
            assert d.taken.verb == d.ai.action.verb == "discard"
            assert d.ai.value is not None and d.taken_value is not None and d.ai.value > d.taken_value
    assert decisions > 50 and differ * 20 <= decisions


def test_every_listed_value_is_on_one_scale_and_the_ais_choice_is_the_best_listed():
    """The player's choice is valued like the options it is listed beside: it is never worth more than the AI's
    choice, "agrees" means worth as much, and no listed option outranks the AI's (a review once printed
    "the AI agrees: 1p" beside "1p +0.64 … *7s +1.59")."""
    checked = 0
    for i in range(20):
        done = review(play(f"contra{i}", MIXED), 0)  # seat 0 plays standard
        for d in done.decisions:
            if d.ai.value is None:
                continue
            checked += 1
            assert all(o.value is None or o.value <= d.ai.value for o in d.options)
            if d.taken.verb in ("discard", "liangdao", "pass"):
                assert d.taken_value is not None and d.taken_value <= d.ai.value
            if d.agrees and d.taken_value is not None:
                assert d.ai.value - d.taken_value < TIE
    assert checked > 60


def test_frames_show_every_hand_face_up_before_each_action_and_the_end():
    log = play("frames", MIXED)
    done = review(log, 0)
    assert len(done.frames) == len(log.actions) + 1
    hand = HandState(STANDARD, 0, log.wall)
    for k, action in enumerate(log.actions):
        frame = done.frames[k]
        assert frame.action == action and frame.wall == hand.wall_remaining
        for s in range(3):
            assert list(frame.seats[s].concealed) == hand.concealed(s)
            assert frame.seats[s].discards == hand.discards(s)
        hand.apply(action)
    end = done.frames[-1]
    assert end.action is None and done.result == hand.result
    assert [list(s.concealed) for s in end.seats] == [hand.concealed(s) for s in range(3)]
    assert done.summary.net == hand.result.net and sum(p.amount for p in done.summary.payments if p.to_seat == 0) >= 0


def test_the_ai_values_each_decision_on_what_the_seat_saw():
    """The evaluator is handed exactly `observe(hand, seat, reads)` at that moment: the seat's own tiles and
    what is public, never another hand or the wall."""
    log = play("sees", MIXED)
    seen = []

    def spy(obs, also):
        seen.append(obs)
        return evaluate(obs, also)

    done = review(log, 2, spy)
    hand = HandState(STANDARD, 0, log.wall)
    expected = []
    for action in log.actions:
        if action.seat == 2 and len(hand.legal_actions(2)) > 1:
            expected.append(observe(hand, 2))
        hand.apply(action)
    assert seen == expected and len(seen) == len(done.decisions) > 0


def test_the_action_taken_is_valued_in_full_and_its_loss_is_against_strongs_choice():
    worst = []
    for i in range(8):
        done = review(play(f"loss{i}", MIXED), 0)  # seat 0 plays standard
        for d in done.decisions:
            assert d.taken_value is not None or d.ai.value is None or d.taken.verb not in ("discard", "pass")
            if not d.agrees and d.ai.value is not None and d.taken_value is not None:
                assert d.loss == pytest.approx(max(0.0, d.ai.value - d.taken_value))
                worst.append(d.loss)
        costliest = [done.decisions[i].loss for i in done.summary.costliest]
        assert costliest == sorted(costliest, reverse=True) and len(costliest) <= 3
        assert all(loss > 0 for loss in costliest)
    assert worst and max(worst) > 0


def _passes_wins(hand: HandState, seat: int) -> Action:
    legal = hand.legal_actions(seat)
    if Action(seat, "hu") in legal and hand.pending is not None:
        return Action(seat, "pass")
    return decide(hand, seat, "standard")


def test_a_win_passed_up_is_a_missed_win():
    for i in range(200):
        log = play(f"louhu{i}", (_passes_wins, level("standard"), level("standard")))
        done = review(log, 0)
        if done.summary.louhu:
            d = done.decisions[done.summary.louhu[0]]
            assert d.taken.verb == "pass" and d.louhu and d.big and not d.agrees
            assert d.ai.action.verb == "hu"
            return
    pytest.fail("no seed offered seat 0 a win on a discard")


def _throws_first(hand: HandState, seat: int) -> Action:
    """A careless player: passes every claim, throws its first tile, never declares."""
    legal = hand.legal_actions(seat)
    for verb in ("hu", "pass"):
        if Action(seat, verb) in legal:
            return Action(seat, verb)
    return next(a for a in legal if a.verb == "discard")


def test_feeding_a_declared_wait_and_dealing_in_while_not_ready_are_counted():
    fed = dealt_in = False
    for i in range(300):
        log = play(f"feed{i}", (_throws_first, level("standard"), level("standard")))
        done = review(log, 0)
        for j in done.summary.fed:
            d = done.decisions[j]
            waits = {t for s in (1, 2) for t in done.frames[d.frame].seats[s].waits}
            assert d.taken.tile in waits and d.fed
            fed = True
        for j in done.summary.deal_ins_unready:
            d = done.decisions[j]
            assert done.result.from_seat == 0 and 0 not in done.result.winners and d.deal_in_unready
            assert d.frame == max(x.frame for x in done.decisions if x.taken.verb == "discard")
            dealt_in = True
        if fed and dealt_in:
            return
    pytest.fail(f"fed {fed}, dealt in {dealt_in}")


def test_a_log_that_does_not_end_as_recorded_is_not_reviewed():
    log = play("mismatch", MIXED)
    wrong = [log.net[1], log.net[0], log.net[2]] if log.net[0] != log.net[1] else [n + 1 for n in log.net]
    with pytest.raises(ReplayMismatch) as net:
        review(HandLog(log.rules, 0, log.wall, actions=log.actions, net=wrong), 0)
    assert net.value.code == "net"
    with pytest.raises(ReplayMismatch) as short:
        review(HandLog(log.rules, 0, log.wall, actions=log.actions[:-1], net=log.net), 0)
    assert short.value.code == "unfinished"
    other = wall_from_seed("another wall")
    with pytest.raises(ReplayMismatch) as illegal:
        review(HandLog(log.rules, 0, other, actions=log.actions, net=log.net), 0)
    assert illegal.value.code == "illegal"


def test_a_discard_strong_values_the_same_as_its_own_agrees_with_it():
    """Two equally useless tiles: discarding the other one is not a mistake, and is not counted as one."""
    from kwx.engine.ai_strong import Valued
    from kwx.engine.review import Decision
    from kwx.engine.tiles import Tile

    strong, other, worse = (Action(0, "discard", t) for t in (Tile.RED, Tile.WHITE, Tile.P5))
    options = (Valued(strong, 1.97), Valued(other, 1.97), Valued(worse, 1.2))
    tie = Decision(frame=1, seat=0, taken=other, by="player", options=options, taken_value=1.97)
    assert tie.agrees and tie.loss == 0.0 and not tie.big
    mistake = Decision(frame=1, seat=0, taken=worse, by="player", options=options, taken_value=1.2)
    assert not mistake.agrees and mistake.loss == pytest.approx(0.77) and mistake.big


def test_every_discard_as_fast_to_ready_as_the_fastest_is_listed_at_its_full_value():
    """The player's own discard is always valued in full; the discards it is ranked against that are as fast to
    ready must be too (in play strong values only its few most promising in full, the rest by a cheaper
    estimate), or a player's choice could outrank a better discard that was only estimated and be told the AI
    agrees."""
    checked = 0
    for i in range(4):
        log = play(f"full{i}", MIXED)
        by_frame = {d.frame: d for d in review(log, 0).decisions}  # seat 0 plays standard
        hand = HandState(STANDARD, 0, log.wall)
        for k, action in enumerate(log.actions):
            decision = by_frame.get(k)
            if decision is not None and decision.taken.verb == "discard":
                obs = observe(hand, 0)
                discards = [a for a in obs.legal if a.verb == "discard"]
                after = shanten_after_discards(obs.counts, len(obs.melds))
                fastest = min(after[int(a.tile)] for a in discards if a.tile is not None)
                full = {v.action: v.value for v in evaluate(obs, discards)}  # every discard in full
                for option in decision.options:
                    if option.action.verb == "discard" and after[int(option.action.tile)] == fastest:
                        assert option.value == full[option.action], (k, option)
                        checked += 1
            hand.apply(action)
    assert checked > 40
