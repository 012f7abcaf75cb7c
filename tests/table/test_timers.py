"""Deadlines: a timeout passes a claim or discards the drawn tile; two in a row put the player in 托管 (the AI
plays for them) until they act again. Deadlines in the views are unix times of the injected clock."""

from __future__ import annotations

import asyncio

from kwx.engine.tiles import Tile
from tests.support.frontends import notice_keys
from tests.support.players import ANN
from tests.support.tables import (
    AI_DEALS_7Z,
    advance_until,
    ai_table,
    finished_hands,
    refused,
    table_with,
    wait_prompt,
)


async def test_timeouts_then_autoplay_then_back(make_service, frontend, script, clock):
    script(*AI_DEALS_7Z, draws="9s 4s", dealer=1)  # AI 2 draws 9s (throws 3p), Ann draws 4s
    svc = make_service(ai_delay=0.3, clock=clock)
    table = await table_with(svc, ANN, level="simple", turn_seconds=30, claim_seconds=12)
    await svc.start_game(table, by=ANN.player_id)
    await svc.idle()
    assert svc.public_view_as_shown(table).seats[1].discards == ()  # the AI dealer waits its ai_delay …
    clock.advance(0.3)  # … on the table's clock: then it throws 7z
    await svc.idle()

    # 1. a claim window on the AI dealer's 7z: the deadline is 12 s after it opened; time runs out → pass
    claim = svc.private_view_as_shown(table, ANN.player_id)
    assert claim.claim_tile == Tile.RED and claim.deadline == clock.now + 12
    assert svc.public_view_as_shown(table).deadline is None  # the claim deadline is the claimant's business
    clock.advance(11)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices == claim.choices  # not yet
    clock.advance(2)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices != claim.choices  # she passed
    assert notice_keys(frontend) == []  # silently: that she had a claim is nobody's business
    assert svc.public_view_as_shown(table).seats[0].melds == ()  # she did not 碰

    # 2. her own turn with a drawn tile: time runs out → that tile is discarded; second timeout → 托管
    clock.advance(0.3)  # AI 2 draws 9s and throws 3p
    await svc.idle()
    turn = svc.private_view_as_shown(table, ANN.player_id)
    assert turn.drawn == Tile.S4 and turn.deadline == clock.now + 30
    # a lapsed claim offer is not a missed turn: front ends still tell her of her turn as of any other
    assert not turn.timed_out and not claim.timed_out
    clock.advance(31)
    await svc.idle()
    assert notice_keys(frontend) == ["event.timeout", "event.autoplay_on"]  # her second timeout in a row
    board = frontend.boards(table)[-1]
    assert board.seats[0].discards[-1] == turn.drawn and board.seats[0].autoplay

    # 3. in 托管 the AI plays for her, ai_delay after her decision shows; when she acts herself first she is back
    await advance_until(svc, clock, lambda: bool(svc.private_view_as_shown(table, ANN.player_id).choices), step=0.1)
    view = svc.private_view_as_shown(table, ANN.player_id)
    assert view.autoplay and view.step > turn.step
    clock.advance(0.2)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id) == view  # the AI has not played it yet …
    choice = next(c for c in view.choices if c.verb in ("discard", "pass"))
    await svc.act(table, ANN.player_id, choice.verb, choice.tile, step=view.step)  # … and she beats it
    await svc.idle()
    assert notice_keys(frontend)[-1] == "event.autoplay_off"
    assert not svc.public_view_as_shown(table).seats[0].autoplay
    mine = svc.private_view_as_shown(table, ANN.player_id)
    assert not mine.autoplay and not mine.timed_out  # she acted: she is told of her next turn again


async def test_autoplay_switch_and_real_timers_finish_a_hand(make_service, frontend):
    svc = make_service(ai_delay=0)
    table = await table_with(svc, ANN, seed="timer-seed", turn_seconds=0.15, claim_seconds=0.1)
    await svc.start_game(table, by=ANN.player_id)
    await finished_hands(frontend, table, 1, timeout=20)
    keys = notice_keys(frontend)
    assert "event.autoplay_on" in keys and keys.count("event.timeout") <= 2
    # after 托管 began the AI played her seat without more timeouts
    assert "event.timeout" not in keys[keys.index("event.autoplay_on"):]
    assert frontend.boards(table)[-1].seats[0].autoplay
    # she switches 托管 off herself
    await svc.set_autoplay(table, ANN.player_id, False)
    await svc.flush()
    assert notice_keys(frontend)[-1] == "event.autoplay_off"
    await svc.set_autoplay(table, ANN.player_id, True)
    await svc.flush()
    assert notice_keys(frontend)[-1] == "event.autoplay_on"


async def test_piao_timeout_picks_zero(make_service, frontend, clock):
    from kwx.engine.rules import RuleSet

    svc = make_service(ai_delay=0, clock=clock)
    table = await table_with(svc, ANN, seed="piao", rules=RuleSet.preset("shiyan"), turn_seconds=20)
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert [c.verb for c in view.choices] == ["piao"] and view.deadline == clock.now + 20
    maximum = RuleSet.preset("shiyan").piao
    assert maximum and view.piao_max == maximum  # the panel offers 0 … max from its own view
    assert svc.public_view_as_shown(table).phase == "piao" and svc.public_view_as_shown(table).piao_max == maximum
    clock.advance(21)
    await svc.idle()
    board = svc.public_view_as_shown(table)
    assert board.phase in ("turn", "claim") and board.seats[0].piao == 0
    assert frontend.notices("event.timeout")[0].kwargs["action"] == "piao"


async def test_piao_choice(make_service, frontend):
    from kwx.engine.rules import RuleSet

    svc = make_service(ai_delay=0)
    table = await table_with(svc, ANN, seed="piao", rules=RuleSet.preset("shiyan"))
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    for bad in (4, -1, None):
        await refused("illegal", svc.act(table, ANN.player_id, "piao", amount=bad, step=view.step))
    await refused("illegal", svc.act(table, ANN.player_id, "discard", "1p", step=view.step))
    await svc.act(table, ANN.player_id, "piao", amount=2, step=view.step)
    await frontend.wait_for(lambda: svc.public_view_as_shown(table).phase != "piao")
    assert svc.public_view_as_shown(table).seats[0].piao == 2


async def test_the_tables_timers_wait_on_its_clock(make_service, frontend, clock):
    """An AI seat's move waits its ai_delay on the table's clock, not the loop's: however long the loop runs,
    nothing moves until the clock does. What is due already (the next hand, between_hands=0) comes at once."""
    svc = make_service(ai_delay=5, between_hands=0, clock=clock)
    table = await ai_table(svc, seed="clocked")
    await svc.idle()
    dealt = svc.live_table(table).seq
    await asyncio.sleep(0.05)  # real time passes: nothing is due by the table's clock
    assert svc.live_table(table).seq == dealt and clock.pending == [clock.now + 5]
    clock.advance(4.9)
    await svc.idle()
    assert svc.live_table(table).seq == dealt
    clock.advance(0.1)  # the dealer's move is due
    await svc.idle()
    assert svc.live_table(table).seq == dealt + 1 and clock.pending == [clock.now + 5]  # the next waits 5 s too
    await advance_until(svc, clock, lambda: bool(frontend.results(table)), step=5)
    await svc.idle()  # the next hand is due at once: it is dealt without the clock moving
    assert svc.live_table(table).hand_no == 2
