"""The view filter (kwx/table/viewbuild.py) field by field, on a scripted hand replayed into a table record (no
service): what the board shows of a 亮倒 hand (not the tile it has just drawn), what each panel shows (its own
tiles without the draw, its waits, the tiles that would feed a declared hand), a claim window, 漂, and the
result with every hand revealed."""

from __future__ import annotations

from kwx.engine.actions import Action
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import Tile, parse_tiles
from kwx.table.record import TableRecord
from kwx.table.viewbuild import PIAO_CHOICE, private_view, public_view, result_view
from kwx.table.views import ActionChoice, MeldView, PlayerRef
from tests.support.players import ANN, GUILD

AI1, AI2 = PlayerRef("ai:simple:1", "AI 1", "simple"), PlayerRef("ai:simple:2", "AI 2", "simple")
# Ann deals, ready after discarding 7z (waiting on 5s); AI 1 draws 9p, AI 2 draws 3s, then Ann's draw (a 亮倒
# hand throws it at once unless it wins), then AI 1's.
HANDS = ("123p456p789p123s5s7z", "44668899s5566z3p", "1122456789p117s")
DRAWS = "9p 3s 7z 5s"
AT = 1_750_000_000.0


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(parse_tiles(text))


def dealt(script, rules: RuleSet = STANDARD, draws: str = DRAWS, hands: tuple[str, str, str] = HANDS,
          back: str = "") -> TableRecord:
    script(*hands, draws=draws, back=back, dealer=0)
    t = TableRecord(7, GUILD, "c1", rules, "views-seed", ANN.player_id, [ANN, AI1, AI2], turn_seconds=30,
                    claim_seconds=12, claim_pause=0, deal=script.deal)
    t.apply(t.start_record(ANN.player_id, AT))
    t.apply(t.next_hand_record(AT))
    return t


def act(t: TableRecord, seat: int, verb: str, tile: str | None = None) -> None:
    action = Action(seat, verb, tiles(tile)[0] if tile else None)
    assert action in t.legal(seat), (action, t.legal(seat))
    t.apply(t.action_record(action, "player", AT + t.step))


def test_the_deal_the_board_and_the_dealers_panel(script):
    t = dealt(script)
    board = public_view(t)
    assert (board.table_id, board.hand_no, board.phase, board.turn_seat) == (7, 1, "turn", 0)
    assert [s.concealed_count for s in board.seats] == [14, 13, 13]
    assert [s.is_dealer for s in board.seats] == [True, False, False]
    assert [s.player for s in board.seats] == [ANN, AI1, AI2]
    assert board.claim_tile is None and board.claim_kind is None and board.deadline == AT + 30
    assert board.wall_remaining == 84 - 40 and board.base == STANDARD.base and board.rules_name == "standard"
    assert board.seed_ref == t.seed_ref and board.seed_ref and board.waiting_player is None
    assert all(s.revealed == () and s.waits == () and s.discards == () and not s.liangdao for s in board.seats)
    mine = private_view(t, 0)
    assert (mine.seat, mine.player_id, mine.hand_no, mine.step) == (0, ANN.player_id, 1, t.step)
    assert mine.concealed == tuple(sorted(tiles(HANDS[0]))) and mine.drawn is None  # the dealer's first turn
    assert mine.discard_waits == {Tile.S5: (Tile.RED,), Tile.RED: (Tile.S5,)} and mine.waits == ()
    assert mine.unseen == {Tile.S5: 3, Tile.RED: 3}  # of each tile she could wait on, the copies not in her hand
    assert mine.deadline == AT + 30 and mine.claim_tile is None and mine.danger == {}
    assert mine.liangdao is False and mine.autoplay is False and mine.timed_out is False
    other = private_view(t, 1)
    assert other.concealed == tuple(sorted(tiles(HANDS[1]))) and other.choices == () and other.deadline is None


def test_a_declared_hand_on_the_board_and_in_the_panels(script):
    t = dealt(script, draws="9p 3s 5s")
    act(t, 0, "liangdao", "7z")  # nobody may claim the 7z: AI 1 draws 9p
    board = public_view(t)
    ann = board.seats[0]
    assert ann.liangdao and ann.waits == (Tile.S5,) and ann.discards == (Tile.RED,)
    assert ann.revealed == tiles("123p456p789p123s5s") and ann.concealed_count == 13
    assert board.turn_seat == 1 and board.seats[1].concealed_count == 14
    mine = private_view(t, 0)
    assert mine.liangdao is True and mine.waits == (Tile.S5,) and mine.choices == ()
    assert mine.unseen == {Tile.S5: 3}
    assert mine.concealed == tiles("123p456p789p123s5s") and mine.drawn is None
    feeding = private_view(t, 1)  # AI 1, on turn: what would feed Ann
    assert feeding.danger == {Tile.S5: (0,)} and feeding.drawn == Tile.P9
    assert feeding.concealed == tuple(sorted(tiles(HANDS[1]))) and Tile.P9 not in feeding.concealed
    assert private_view(t, 2).danger == {Tile.S5: (0,)}

    act(t, 1, "discard", "9p")
    act(t, 2, "discard", "3s")  # Ann draws 5s, her win: her draw stays off the board while she decides
    mine = private_view(t, 0)
    assert mine.drawn == Tile.S5 and mine.concealed == tiles("123p456p789p123s5s")
    assert {c.verb for c in mine.choices} == {"hu", "pass"}
    assert public_view(t).seats[0].revealed == tiles("123p456p789p123s5s")  # not the 5s she holds
    assert public_view(t).seats[0].concealed_count == 14 and public_view(t).turn_seat == 0


def test_a_claim_window_and_the_result(script):
    t = dealt(script)
    act(t, 0, "liangdao", "7z")
    act(t, 1, "discard", "9p")
    act(t, 2, "discard", "3s")  # Ann's 7z goes at once; AI 1 draws 5s
    act(t, 1, "discard", "5s")  # it feeds Ann
    board = public_view(t)
    assert (board.phase, board.claim_tile, board.claim_kind, board.turn_seat) == ("claim", Tile.S5, "discard", 1)
    assert board.deadline is None  # the claim deadline is the claimant's business
    mine = private_view(t, 0)
    assert mine.claim_tile == Tile.S5 and mine.deadline == t.deadline and mine.deadline is not None
    assert mine.unseen == {Tile.S5: 2}  # hers and the one on the table
    assert set(mine.choices) == {ActionChoice("hu"), ActionChoice("pass")}
    assert private_view(t, 1).claim_tile is None  # his own discard is nothing for him to claim
    act(t, 0, "hu")
    result = result_view(t)
    assert (result.table_id, result.hand_no, result.outcome) == (7, 1, "win")
    (win,) = result.winners
    assert (win.seat, win.player, win.win_tile, win.self_draw, win.from_seat) == (0, ANN, Tile.S5, False, 1)
    assert win.fan > 0 and win.patterns
    assert sum(result.net) == 0 and result.net[0] > 0 and result.net == tuple(t.hand.result.net)
    assert result.scores == result.net  # the table's first hand
    assert {p.from_player for p in result.payments} == {AI1} and {p.to_player for p in result.payments} == {ANN}
    assert all(p.amount > 0 for p in result.payments) and "baohu" in {p.reason for p in result.payments}
    assert [h.concealed for h in result.hands] == [tiles("123p456p789p123s5s"), tuple(sorted(tiles(HANDS[1]))),
                                                   tuple(sorted(tiles(HANDS[2])))]  # every hand, face up
    assert [h.seat for h in result.hands] == [0, 1, 2] and all(h.melds == () for h in result.hands)
    assert result.seed_ref == t.seed_ref and result.seed and result.next_dealer == 0
    assert public_view(t).phase == "finished" and public_view(t).seats[0].revealed  # revealed at the end


def test_piao_offers_a_choice_until_picked_and_hides_the_picks(script):
    rules = RuleSet.preset("shiyan")
    assert rules.piao
    t = dealt(script, rules)
    assert t.status == "piao"
    mine = private_view(t, 0)
    assert mine.choices == (PIAO_CHOICE,) and mine.piao_max == rules.piao and mine.concealed == ()
    assert mine.drawn is None and mine.melds == () and mine.autoplay is False and mine.deadline == AT + 30
    board = public_view(t)
    assert board.phase == "piao" and board.piao_max == rules.piao and board.wall_remaining == 0
    assert [s.is_dealer for s in board.seats] == [True, False, False]  # the hand's seats, before its tiles
    t.apply(t.piao_record(0, 2, "player", AT + 1))
    assert private_view(t, 0).choices == () and private_view(t, 1).choices == (PIAO_CHOICE,)
    assert [s.piao for s in public_view(t).seats] == [0, 0, 0]  # picks stay hidden until the deal
    t.apply(t.piao_record(1, 0, "ai", AT + 2))
    t.apply(t.piao_record(2, 1, "ai", AT + 3))
    t.apply(t.deal_record(AT + 4))
    assert [s.piao for s in public_view(t).seats] == [2, 0, 1]


def test_a_concealed_kong_is_face_up_in_its_owners_panel_only(script):
    script("1111p456p789p123s7z", "44668899s5566z3p", "2233456789p117s", dealer=0)
    t = TableRecord(7, GUILD, "c1", STANDARD, "views-seed", ANN.player_id, [ANN, AI1, AI2], claim_pause=0,
                    deal=script.deal)
    t.apply(t.start_record(ANN.player_id, AT))
    t.apply(t.next_hand_record(AT))
    act(t, 0, "gang", "1p")
    assert private_view(t, 0).melds == (MeldView("ankong", Tile.P1, None),)
    assert private_view(t, 0).drawn is not None  # the replacement draw
    assert public_view(t).seats[0].melds == (MeldView("ankong", None, None),)  # face down to everyone else
    assert private_view(t, 1).melds == () and private_view(t, 0).piao_max == 0


def test_a_concealed_kong_stays_unseen_to_the_others(script):
    # Ann deals holding four 2p and makes a 暗杠 of them; AI 1 waits on 2p (13p): the face-down kong tells him
    # nothing, so his count of 2p left stays 4, while Ann's panel shows her kong.
    t = dealt(script, draws="9p", hands=("2222p456s789s667z5z", "13456789p12355s", "7799p1446688s55z"), back="9s")
    assert Tile.P2 in private_view(t, 1).waits and private_view(t, 1).unseen[Tile.P2] == 4
    act(t, 0, "gang", "2p")
    assert public_view(t).seats[0].melds == (MeldView("ankong", None, None),)
    assert private_view(t, 0).melds == (MeldView("ankong", Tile.P2, None),)
    assert private_view(t, 1).unseen[Tile.P2] == 4
