"""Nothing reaches the public that the rules keep hidden. Over many random AI hands under every preset, no
board (PublicView) and no public event shows another seat's concealed tile — except a 亮倒 seat's revealed
hand (never the tile it has just drawn) and, once the hand is over, the final reveal — and each private panel
goes only to its own player."""

from __future__ import annotations

from collections import Counter

from kwx.engine.rules import PRESETS, RuleSet
from kwx.engine.tiles import parse_tile, parse_tiles
from kwx.table import PlayerRef
from tests.support.players import GUILD
from tests.support.tables import finished_hands

HANDS_PER_TABLE = 6
END_KINDS = {"hu", "reveal", "settlement", "forbid_feeding", "maima", "huangzhuang"}


def check_board(view, liangdao_hands: dict[tuple[int, int], Counter]) -> None:
    playing = view.phase in ("turn", "claim")
    for e in view.last_events:
        kind = e["kind"]
        assert kind != "pass", e  # a pass (and a 漏胡) is the passer's own business
        if kind == "deal":
            assert e["hands"] == [None, None, None], e
        elif kind == "draw" or kind == "gang" and e["gang"] == "angang":
            assert e["tile"] is None, e
        elif kind == "liangdao":
            liangdao_hands[view.hand_no, e["seat"]] = Counter(parse_tiles(e["hand"], check_copies=False))
        elif kind in END_KINDS:
            assert view.phase == "finished", (view.phase, e)
    for seat in view.seats:
        if not seat.liangdao:
            assert seat.revealed == () and seat.waits == (), seat
            if playing:
                assert all(m.tile is None for m in seat.melds if m.kind == "ankong"), seat
            continue
        if not playing:
            continue  # the hand is over: everything may be shown
        shown = Counter(seat.revealed)
        declared = liangdao_hands[view.hand_no, seat.seat]
        assert not shown - declared, (shown, declared)  # only tiles the 亮倒 reveal showed
        assert len(seat.revealed) in (seat.concealed_count, seat.concealed_count - 1), seat


async def test_no_public_view_shows_a_hidden_tile(make_service, frontend):
    svc = make_service(ai_delay=0, between_hands=0)
    tables: dict[int, PlayerRef] = {}
    for i, preset in enumerate(PRESETS):
        human = PlayerRef(f"h{i}", f"Human {i}")
        rules = RuleSet.preset(preset, rotation=(i == 1))
        table = await svc.open_table(GUILD, f"c{i}", human, rules=rules, seed=f"privacy-{preset}")
        for _ in range(3 if rules.rotation else 2):
            await svc.add_ai(table, "standard" if i % 2 == 0 else "simple", by=human.player_id)
        await svc.start_game(table, by=human.player_id)
        await svc.set_autoplay(table, human.player_id, True)  # the AI plays the human seat: private views flow
        tables[table] = human
    for table in tables:
        # Nobody plays the human seats, so each table pauses after every hand: an onlooker resumes it.
        await finished_hands(frontend, table, HANDS_PER_TABLE, timeout=30, resume=svc)
    for table, human in tables.items():
        await svc.stop(table, human.player_id)
    await svc.flush()

    liangdao_hands: dict[tuple[int, int], Counter] = {}
    declared = 0
    for table in tables:
        liangdao_hands.clear()
        for view in frontend.boards(table):
            check_board(view, liangdao_hands)
            declared += sum(s.liangdao for s in view.seats)
    assert declared, "no 亮倒 in all these hands: the reveal was not exercised"

    # private panels: only ever to their own player, for the seat that player holds in that hand
    seat_of: dict[tuple[int, int], dict[str, int]] = {}
    for view in frontend.boards():
        if view.phase in ("turn", "claim"):
            seat_of[view.table_id, view.hand_no] = {s.player.player_id: s.seat for s in view.seats}
    privates = frontend.of("hand_changed")
    assert privates
    for call in privates:
        player, view = call.args
        assert view.player_id == player.player_id and not player.is_ai
        seats = seat_of.get((view.table_id, view.hand_no))
        if seats is not None:
            assert seats[player.player_id] == view.seat

    # the results show everything, and only once the hand is over
    for result in frontend.results():
        assert len(result.hands) == 3 and sum(result.net) == 0
        for w in result.winners:
            assert parse_tile(w.win_tile.compact) == w.win_tile
