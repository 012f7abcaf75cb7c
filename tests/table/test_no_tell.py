"""No tell on the board: after every discard at a table with a human the board holds "X 打出 T" for the same
pause whether or not anyone may claim it, so what the front end is told — and when — does not depend on
concealed tiles."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kwx.engine.tiles import Tile
from kwx.table import PlayerRef
from tests.support.clock import FakeClock
from tests.support.frontends import StampedFrontEnd
from tests.support.players import ANN
from tests.support.tables import table_with

PAUSE = 1.5
# AI 1 deals (seat 1) and throws its lone 7z first. With 77z Ann (seat 0) may 碰 it; without, nobody may.
DEALER, SECOND = "123p456p789p123s5s7z", "44668899s5566z3p"
ANN_CAN_CLAIM = "112245678p11s77z"
ANN_CANNOT = "112245678p1133s"


class ChannelFrontEnd(StampedFrontEnd):
    def public(self, since: float, until: float) -> list[tuple[float, str, tuple[Any, ...], dict[str, Any]]]:
        """What the channel is told (boards, notices, reveals, results), with times relative to `since`."""
        return [(round(at - since, 3), c.method, tuple(_untabled(a) for a in c.args), c.kwargs)
                for at, c in zip(self.stamps, self.calls) if c.method != "hand_changed" and since <= at <= until]


def _untabled(arg: Any) -> Any:
    """The two plays share a store: their table ids differ, and nothing else may."""
    if isinstance(arg, int):
        return 0
    if not hasattr(arg, "table_id"):
        return arg
    return replace(arg, table_id=0, **({"seed_ref": None} if hasattr(arg, "seed_ref") else {}))  # their seeds too


async def play_discard(make_service, script, ann_hand: str) -> tuple[ChannelFrontEnd, float]:
    clock = FakeClock()
    fe = ChannelFrontEnd(clock)
    script(DEALER, SECOND, ANN_CANNOT if ann_hand is None else ann_hand, dealer=1)
    svc = make_service(frontend=fe, clock=clock, ai_delay=0.3, claim_pause=PAUSE)
    table = await table_with(svc, ANN, level="simple")
    await svc.start_game(table, by=ANN.player_id)
    clock.advance(0.3)  # the AI dealer throws 7z (its ai_delay)
    await svc.idle()
    assert any(v.phase == "claim" for v in fe.boards(table))
    start = clock.now
    prompt = svc.private_view_as_shown(table, ANN.player_id)
    for step in (0.5, 0.5, 0.49, 0.01):
        clock.advance(step)
        if prompt.choices and clock.now - start == 0.5:  # Ann answers within the pause
            assert prompt.claim_tile == Tile.RED
            await svc.act(table, ANN.player_id, "pass", step=prompt.step)
        await svc.idle()
    return fe, start


async def test_the_board_is_the_same_whether_or_not_a_seat_may_claim(make_service, script):
    can, t_can = await play_discard(make_service, script, ANN_CAN_CLAIM)
    cannot, t_cannot = await play_discard(make_service, script, ANN_CANNOT)
    assert can.last_prompt(ANN.player_id).claim_tile == Tile.RED  # she really could claim …
    assert cannot.last_prompt(ANN.player_id) is None  # … and here she really could not

    told_can = can.public(t_can - 3600, t_can + PAUSE)
    told_cannot = cannot.public(t_cannot - 3600, t_cannot + PAUSE)
    assert [c[1:] for c in told_can] == [c[1:] for c in told_cannot]  # the same messages …
    assert [c[0] for c in told_can] == [c[0] for c in told_cannot]  # … at the same times
    during = [c for c in can.public(t_can, t_can + PAUSE) if c[1] == "board_changed"]
    view = [c for c in during if c[0] < PAUSE][-1][2][0]  # the board during the pause (the clock stood still
    # from the lobby to the discard)
    assert view.phase == "claim" and view.claim_tile == Tile.RED and view.turn_seat == 1
    assert view.claim_kind == "discard" and view.deadline is None  # no claim deadline on the board
    moved = [view for at, _, (view,), _ in during if at == PAUSE]
    assert moved and moved[-1].phase == "turn" and moved[-1].turn_seat == 2  # the turn moves on at the pause


async def test_no_pause_at_a_table_of_ai_seats_only(make_service, frontend, clock):
    """Nobody to tell: AI seats play on at once (benchmarks rely on it), even with a pause configured."""
    svc = make_service(clock=clock, claim_pause=PAUSE)  # the clock never moves: a pause would stall the table
    table = await svc.open_table("g1", "c1", PlayerRef("ai:standard:9", "AI 9", "standard"))
    await svc.add_ai(table)
    await svc.add_ai(table)
    await svc.start_game(table, by="ai:standard:9")
    await frontend.wait_for(lambda: len(frontend.results(table)) >= 1)
