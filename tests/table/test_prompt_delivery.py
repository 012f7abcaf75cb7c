"""Nobody loses a turn to the bot's lag: with a front end that confirms its prompts, a decision's time runs from
when its prompt reached the player, and a timeout whose prompt never reached them does not count toward 托管."""

from __future__ import annotations

from tests.support.frontends import notice_keys
from tests.support.players import ANN
from tests.support.tables import AI_DEALS_7Z, table_with, wait_prompt


async def test_a_late_prompt_gets_its_whole_time_and_one_that_never_came_does_not_count(make_service, frontend,
                                                                                       script, clock):
    script(*AI_DEALS_7Z, draws="9s 4s", dealer=1)  # a claim window on the AI dealer's 7z, then Ann's turn
    svc = make_service(ai_delay=0.3, clock=clock, confirms_prompts=True)
    table = await table_with(svc, ANN, level="simple", turn_seconds=30, claim_seconds=12)
    await svc.start_game(table, by=ANN.player_id)
    clock.advance(0.3)  # the AI dealer throws 7z

    # 1. The claim's prompt reached her 8 s after the window opened: she has her 12 s from then.
    claim = await wait_prompt(frontend, svc, table, ANN.player_id)
    clock.advance(8)
    svc.prompt_delivered(table, ANN.player_id, claim.step)
    clock.advance(11)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices == claim.choices  # 19 s: the plain deadline is past
    clock.advance(2)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices != claim.choices  # 12 s after it arrived: passed
    clock.advance(0.3)  # AI 2 draws and throws

    # 2. Her turn's prompt never reached her (the bot was behind): the turn waits up to one more turn's time,
    # then the timeout move is made, but as the bot's lapse, not hers: with the claim's, that would have been
    # her second timeout in a row, and 托管.
    turn = await wait_prompt(frontend, svc, table, ANN.player_id, after=claim.step)
    clock.advance(31)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices == turn.choices
    clock.advance(30)
    await svc.idle()
    assert notice_keys(frontend) == ["event.timeout"]
    assert not svc.public_view_as_shown(table).seats[0].autoplay
    assert svc.public_view_as_shown(table).seats[0].discards[-1] == turn.drawn
    assert svc.stats.timeouts == {"timeout": 1, "late": 1}


async def test_without_confirmations_the_plain_deadline_holds(make_service, frontend, script, clock):
    script(*AI_DEALS_7Z, draws="9s 4s", dealer=1)
    svc = make_service(ai_delay=0.3, clock=clock)  # the terminal: it shows a prompt the moment it is told
    table = await table_with(svc, ANN, level="simple", turn_seconds=30, claim_seconds=12)
    await svc.start_game(table, by=ANN.player_id)
    clock.advance(0.3)  # the AI dealer throws 7z
    claim = await wait_prompt(frontend, svc, table, ANN.player_id)
    clock.advance(13)
    await svc.idle()
    assert svc.private_view_as_shown(table, ANN.player_id).choices != claim.choices
    clock.advance(0.3)  # AI 2 draws and throws
    await wait_prompt(frontend, svc, table, ANN.player_id, after=claim.step)
    clock.advance(31)
    await svc.idle()
    assert notice_keys(frontend) == ["event.timeout", "event.autoplay_on"]
