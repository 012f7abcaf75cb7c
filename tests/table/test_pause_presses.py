"""A button that is shown works. At a table with a human the board holds every discard and 补杠 for a pause;
the decision that follows is offered to nobody until the pause ends — not as a prompt, and not in the view a
button answer, "My hand" or the terminal reads (TableService.private_view_as_shown) — and from that moment a press
works, with the whole deadline still to run. After a discard, a 亮倒 and each kind of kong (three human
seats, every move scripted)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kwx.engine.tiles import parse_tile
from kwx.table import PlayerRef, TableService
from kwx.table.views import ActionChoice
from tests.support.clock import FakeClock
from tests.support.frontends import StampedFrontEnd
from tests.support.players import ANN, BOB, CY
from tests.support.tables import refused, table_with

PAUSE = 1.5
TURN = 30.0

# Ann deals (seat 0), then Bob (seat 1), then Cy (seat 2). Nobody holds a pair of 7z: a discard of it is
# claimed by nobody. Ann may 亮倒 by discarding 7z (waiting on 5s).
ANN_READY = ("123p456p789p123s5s7z", "44668877s5566z3p", "1133456789p117s")


async def three_humans(make_service, script, hands: tuple[str, str, str], draws: str = "", back: str = ""
                       ) -> tuple[TableService, StampedFrontEnd, FakeClock, int]:
    clock = FakeClock()
    fe = StampedFrontEnd(clock)
    script(*hands, draws=draws, back=back, dealer=0)
    svc = make_service(frontend=fe, clock=clock, claim_pause=PAUSE)
    table = await table_with(svc, ANN, ais=0, turn_seconds=TURN, claim_seconds=12)
    await svc.join(table, BOB)
    await svc.join(table, CY)
    await svc.start_game(table, by=ANN.player_id)
    await svc.flush()
    return svc, fe, clock, table


async def later(svc: TableService, clock: FakeClock, seconds: float) -> None:
    clock.advance(seconds)
    await svc.idle()


async def play(svc: TableService, clock: FakeClock, table: int, player: PlayerRef, verb: str,
               tile: str | None = None) -> None:
    """Once the pause before it is over, `player` makes this move."""
    await later(svc, clock, PAUSE)
    view = svc.private_view_as_shown(table, player.player_id)
    await svc.act(table, player.player_id, verb, tile, step=view.step)
    await svc.flush()


async def press_shown(svc: TableService, table: int, player: PlayerRef) -> ActionChoice | None:
    """Press the first button the player's panel shows now (None when it shows none): it must work."""
    view = svc.private_view_as_shown(table, player.player_id)
    if not view.choices:
        return None
    choice = view.choices[0]
    await svc.act(table, player.player_id, choice.verb, choice.tile, step=view.step)
    return choice


async def the_next_decision_waits_for_the_pause(svc: TableService, fe: StampedFrontEnd, clock: FakeClock,
                                                table: int, player: PlayerRef,
                                                blind: tuple[str, str]) -> None:
    """The move just made starts a pause, after which `player` must decide: within the pause their panel
    offers nothing (the board still shows the move), and `blind`, a move they will be offered, is refused; at
    its end they are prompted, and the prompt works."""
    start = clock.now
    board = fe.boards(table)[-1]
    await later(svc, clock, PAUSE / 2)
    assert await press_shown(svc, table, player) is None  # no button while the board holds the move …
    await refused("not_your_turn", svc.act(table, player.player_id, *blind))  # … nor typed blind
    held = svc.private_view_as_shown(table, player.player_id)
    assert parse_tile(blind[1]) not in (*held.concealed, held.drawn)  # the draw it follows is not shown
    assert [at for at, _ in fe.prompts(player.player_id) if at > start] == []  # … in no prompt either
    assert svc.public_view_as_shown(table) == fe.boards(table)[-1] == board  # the board as it stands
    live = svc.private_view_live(table, player.player_id)  # what the pause still hides, read by its name
    assert ActionChoice(blind[0], parse_tile(blind[1])) in live.choices and not held.choices
    assert svc.public_view_live(table) != board

    await later(svc, clock, PAUSE / 2)
    (shown, prompt), *more = [(at, view) for at, view in fe.prompts(player.player_id) if at > start]
    assert shown == start + PAUSE and not more
    assert prompt == svc.private_view_as_shown(table, player.player_id) and prompt.choices
    assert prompt.deadline == start + PAUSE + TURN  # the whole turn runs from when it showed
    assert await press_shown(svc, table, player) is not None  # and it works at once


@dataclass(frozen=True)
class Scenario:
    hands: tuple[str, str, str]  # Ann deals (seat 0), then Bob (seat 1), then Cy (seat 2)
    draws: str
    back: str  # the replacement draws of kongs
    moves: tuple[tuple[PlayerRef, str, str | None], ...]  # the last one starts the pause
    melds: tuple[int, tuple[str, ...]] | None  # then this seat's melds are of these kinds
    next: PlayerRef  # who decides after the pause …
    blind: tuple[str, str]  # … and a move they will be offered then


AFTER = {
    "discard": Scenario(ANN_READY, "9p", "", ((ANN, "discard", "7z"),), None, BOB, ("discard", "9p")),
    "liangdao": Scenario(ANN_READY, "9p", "", ((ANN, "liangdao", "7z"),), None, BOB, ("discard", "9p")),
    # Ann, declared, makes a concealed kong of her draw; her replacement draw does not win and is discarded for
    # her (a 亮倒 hand is locked): that discard is held, and Bob's turn waits for it.
    "angang": Scenario(("222p456p789p123s5s7z", "44668877s5566z3p", "1133456789p117s"), "3s 9p 2p 4p", "9s",
                       ((ANN, "liangdao", "7z"), (BOB, "discard", "3s"), (CY, "discard", "9p"),
                        (ANN, "gang", "2p")), (0, ("ankong",)), BOB, ("discard", "4p")),
    # Ann adds her drawn 5p to her 碰 of 5p (补杠): nobody may rob it, and her replacement draw waits for the
    # pause a rob would have had.
    "bugang": Scenario(("12355p12345678s7z", "44668877s5566z3p", "113346789p179s5z"), "5p 9p 1p 5p", "9s",
                       ((ANN, "discard", "7z"), (BOB, "discard", "5p"), (ANN, "peng", None), (ANN, "discard", "1s"),
                        (BOB, "discard", "9p"), (CY, "discard", "1p"), (ANN, "gang", "5p")), (0, ("kong",)), ANN,
                       ("discard", "9s")),
    # Bob, declared, makes a kong of Ann's 7s (直杠); his replacement draw does not win and is discarded for him:
    # Cy's turn waits for the pause on that discard.
    "zhigang": Scenario(("12345678p2345s79s", "777s456p789p123s5z", "11223344p5566z6s"), "7z 9p 1s 8p", "9s",
                        ((ANN, "discard", "9s"), (BOB, "liangdao", "7z"), (CY, "discard", "9p"),
                         (ANN, "discard", "7s"), (BOB, "gang", None)), (1, ("kong",)), CY, ("discard", "8p")),
}


@pytest.mark.parametrize("after", AFTER)
async def test_a_press_within_the_pause(make_service, script, after):
    s = AFTER[after]
    svc, fe, clock, table = await three_humans(make_service, script, s.hands, draws=s.draws, back=s.back)
    for player, verb, tile in s.moves:
        await play(svc, clock, table, player, verb, tile)
    if after == "liangdao":
        assert fe.of("liangdao_revealed")
    await the_next_decision_waits_for_the_pause(svc, fe, clock, table, s.next, blind=s.blind)
    if s.melds is not None:  # the kong was made
        seat, kinds = s.melds
        assert tuple(m.kind for m in fe.boards(table)[-1].seats[seat].melds) == kinds


async def test_after_a_discard_the_whole_turn_is_left(make_service, script):
    """The deadline counts from when the turn showed: a press just before it works, and nobody timed out."""
    svc, fe, clock, table = await three_humans(make_service, script, ANN_READY)
    await play(svc, clock, table, ANN, "discard", "7z")
    start = clock.now
    await later(svc, clock, PAUSE / 2)
    assert await press_shown(svc, table, BOB) is None
    await later(svc, clock, PAUSE / 2 + TURN - 0.25)  # a quarter of a second left
    assert await press_shown(svc, table, BOB) is not None
    await svc.flush()
    assert fe.notices("event.timeout") == []
    assert fe.boards(table)[-1].seats[1].discards  # Bob's own discard
    assert clock.now == start + PAUSE + TURN - 0.25


async def test_a_claim_within_the_pause_shows_the_claimer_s_turn_when_the_board_shows_the_claim(
        make_service, script):
    """Bob takes Ann's 8s within the pause (his 碰 closes the window at once): the board shows the window until
    the pause ends, and his turn after the 碰 is offered then, not before."""
    svc, fe, clock, table = await three_humans(make_service, script,
                                               ("12355p12345678s7z", "44668877s5566z3p", "113346789p179s5z"))
    await play(svc, clock, table, ANN, "discard", "8s")
    start = clock.now
    await later(svc, clock, PAUSE / 3)
    claim = svc.private_view_as_shown(table, BOB.player_id)
    assert {c.verb for c in claim.choices} == {"peng", "pass"}  # the claim window shows at once
    await svc.act(table, BOB.player_id, "peng", step=claim.step)
    await svc.flush()
    assert await press_shown(svc, table, BOB) is None  # his 碰 is made; the board still shows the window
    await refused("not_your_turn", svc.act(table, BOB.player_id, "discard", "3p"))  # nor typed blind
    assert svc.public_view_as_shown(table) == fe.boards(table)[-1] and fe.boards(table)[-1].phase == "claim"

    await later(svc, clock, PAUSE * 2 / 3)
    (shown, prompt), *more = [(at, view) for at, view in fe.prompts(BOB.player_id) if at > start]
    assert shown == start + PAUSE and not more
    assert prompt.deadline == start + PAUSE + TURN
    assert await press_shown(svc, table, BOB) is not None
