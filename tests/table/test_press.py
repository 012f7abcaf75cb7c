"""One press, one call (TableService.press): accepted, asked first with the move's exact cost, or refused with
its catalog code — and the player's panel as it now stands, in one answer for every front end."""

from __future__ import annotations

from kwx.engine.tiles import Tile
from kwx.table.advice import FEED_KONG, FEED_WIN, Gain
from kwx.table.press import Press
from tests.support.players import ANN, BOB
from tests.support.tables import wait_prompt

# Ann deals (seat 0) and declares 亮倒 on 7z, revealing 123p 456p 789p 123s 5s: she waits on 5s. Bob (seat 1)
# draws 9p holding a 5s (胡口牌) and six pairs.
FEED = ("123p456p789p123s5s7z", "44668899s5566z5s", "1122456789p117s")
# Ann reveals 111p: Bob's 1p would let her 直杠 (2 × base).
KONG = ("111p456p789p123s5s7z", "44668899s5566z1p", "2245678p11789s3s")


async def declared_table(svc, frontend, script, deal):
    script(*deal, draws="9p", dealer=0)
    table = await svc.open_table("g1", "c1", ANN)
    await svc.join(table, BOB)
    await svc.add_ai(table, "simple", by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert (await svc.press(table, ANN.player_id, Press("liangdao", Tile.RED, step=view.step))).ask is not None
    done = await svc.press(table, ANN.player_id, Press("liangdao", Tile.RED, step=view.step, confirmed=True))
    assert done.accepted, done.refusal
    return table, await wait_prompt(frontend, svc, table, BOB.player_id)


async def test_a_discard_that_feeds_a_declared_hand_is_asked_first_with_what_the_ledger_then_charges(
        make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, FEED)
    assert [s.player for s in svc.public_view_as_shown(table).seats][:2] == [ANN, BOB]
    asked = await svc.press(table, BOB.player_id, Press("discard", Tile.S5, step=view.step))
    assert not asked.accepted and asked.refusal is None and asked.ask is not None
    warning = asked.ask.warning
    assert warning is not None and warning.kind == FEED_WIN and warning.baohu and warning.seats == (0,)
    assert asked.view is not None and asked.view.step == view.step  # nothing was played
    done = await svc.press(table, BOB.player_id, Press("discard", Tile.S5, step=view.step, confirmed=True))
    assert done.accepted
    offer = await wait_prompt(frontend, svc, table, ANN.player_id, after=view.step)
    assert (await svc.press(table, ANN.player_id, Press("hu", step=offer.step))).accepted
    await svc.flush()
    result = frontend.results(table)[-1]
    paid = sum(p.amount for p in result.payments if p.from_player == BOB and p.to_player == ANN)
    assert paid == warning.cost and result.net[1] == -warning.cost


async def test_the_panel_answered_to_a_win_on_a_discard_still_counts_the_winning_tile_seen(
        make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, FEED)
    await svc.press(table, BOB.player_id, Press("discard", Tile.S5, step=view.step, confirmed=True))
    offer = await wait_prompt(frontend, svc, table, ANN.player_id, after=view.step)
    assert offer.unseen == {Tile.S5: 2}  # her own 5s and Bob's on the table
    won = await svc.press(table, ANN.player_id, Press("hu", step=offer.step))
    assert won.accepted and won.view is not None
    assert won.view.unseen == {Tile.S5: 2}  # the winning tile is still one she has seen (not 3 again)
    bob = svc.private_view_as_shown(table, BOB.player_id)
    assert bob.unseen[Tile.S5] == 2  # his discard (the winning tile) and Ann's revealed 5s


async def test_a_discard_a_declared_hand_may_kong_states_the_kong_money(make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, KONG)
    asked = await svc.press(table, BOB.player_id, Press("discard", Tile.P1, step=view.step))
    assert asked.ask is not None and asked.ask.warning is not None
    assert asked.ask.warning.kind == FEED_KONG and asked.ask.warning.gains == (Gain(0, 2),)


async def test_dont_ask_again_holds_for_the_next_costly_discard(make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, KONG)
    done = await svc.press(table, BOB.player_id, Press("discard", Tile.P1, step=view.step, confirmed=True,
                                                        never_ask=True))
    assert done.accepted
    assert not await svc.player_setting(table, BOB.player_id, "ask_first")


async def test_a_refused_press_says_why_and_changes_nothing(make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, FEED)
    refused = await svc.press(table, ANN.player_id, Press("discard", Tile.S5, step=view.step))
    assert refused.refusal is not None and refused.refusal.code == "not_your_turn"
    old = await svc.press(table, BOB.player_id, Press("pass", step=view.step, hand=view.hand_no - 1))
    assert old.refusal is not None and old.refusal.reason == "hand_over"
    assert svc.private_view_as_shown(table, BOB.player_id).step == view.step


async def test_a_declared_hands_waits_are_counted_for_the_other_seats(make_service, frontend, script):
    svc = make_service(ai_delay=60)
    table, view = await declared_table(svc, frontend, script, FEED)
    assert view.unseen[Tile.S5] == 2  # Ann's revealed 5s and Bob's own are seen


async def test_auto_pass_is_the_services_a_claim_offer_without_a_win_is_passed_for_the_player(
        make_service, frontend, script):
    """Bob may 碰 Ann's 9s (he holds 99s); with auto-pass on the service passes it at once, in any front end."""
    script("123p456p789p123s9s7z", "44668899s5566z1p", "1122456789p117s", draws="9p", dealer=0)
    svc = make_service(ai_delay=60)
    table = await svc.open_table("g1", "c1", ANN)
    await svc.join(table, BOB)
    await svc.add_ai(table, "simple", by=ANN.player_id)
    await svc.start_game(table, by=ANN.player_id)
    bob = svc.private_view_as_shown(table, BOB.player_id)
    toggled = await svc.press(table, BOB.player_id, Press("auto_pass", step=bob.step))
    assert toggled.accepted and toggled.auto_pass and toggled.view is not None and toggled.view.auto_pass
    view = await wait_prompt(frontend, svc, table, ANN.player_id)
    assert (await svc.press(table, ANN.player_id, Press("discard", Tile.S9, step=view.step))).accepted
    await svc.flush()
    assert svc.private_view_as_shown(table, BOB.player_id).choices == () or svc.private_view_as_shown(table, BOB.player_id).drawn
    assert svc.stats.auto_passes == 1
