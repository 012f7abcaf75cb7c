"""Warnings before costly moves at the terminal: 胡口牌 marked with what feeding one costs (包胡), a discard of
one asks once (a per-player setting turns that off), and 亮倒 shows what it reveals and its waits, then asks."""

from __future__ import annotations

from dataclasses import replace

from kwx.engine.tiles import Tile
from kwx.table.advice import FEED_KONG, FEED_WIN, Gain, MoveWarning
from kwx.table.views import ActionChoice
from tests.support.terminal import YOU, my_turn, table_for

DANGER = {Tile.S9: (2,), Tile.RED: (2,)}  # AI 2 laid down waiting on 9s and 7z
# ...and the service's facts about feeding it (kwx.table.advice): 包胡, 8 each
FEEDS = tuple(MoveWarning("discard", x, FEED_WIN, (Gain(2, 8),), baohu=True) for x in DANGER)


def danger_turn(**kw: object):
    return my_turn(danger=DANGER, warnings=FEEDS, **kw)


async def test_the_board_marks_tiles_that_win_for_a_liangdao_hand_and_the_hint_says_the_cost() -> None:
    table, _, console = table_for(danger_turn(), lang="en")
    table.show()
    text = console.export_text()
    # one line, each tile with who it wins for and what you pay (not "4p 3s … for AI 1 and AI 2" lumped together)
    assert "⚠ wins for a laid-down hand: 9s for 电脑2, you pay 8; Red for 电脑2, you pay 8" in text
    assert "9s⚠" in text and "Red⚠" in text  # marked by a character, not only a style: a pipe keeps it
    assert "Red → 5s 8s ⚠ feeds a laid-down hand: you pay 8" in text  # the ready hint says what it costs


async def test_discarding_a_danger_tile_asks_once_and_y_plays_it() -> None:
    table, service, console = table_for(danger_turn(), lang="en")
    await table.handle_line("9s")
    assert service.acts == []
    shown = console.export_text()
    assert "Discarding 9s lets 电脑2 (laid down) win: sole payer, you alone pay 8 (double)" in shown
    assert "Type y" in shown
    await table.handle_line("y")
    assert service.acts == [("discard", Tile.S9, 7)]
    await table.handle_line("5p")  # a safe tile: no question
    assert service.acts[-1] == ("discard", Tile.P5, 7)


async def test_anything_else_cancels_and_is_acted_on() -> None:
    table, service, console = table_for(danger_turn(), lang="en")
    await table.handle_line("7z")
    await table.handle_line("5p")
    assert service.acts == [("discard", Tile.P5, 7)] and "Cancelled" in console.export_text()


async def test_the_confirmation_can_be_turned_off_per_player() -> None:
    """The setting is the service's (kwx.table.player_settings), so the service that asks honours it."""
    table, service, console = table_for(danger_turn(), lang="en")
    await table.handle_line("confirm off")
    assert service.settings["ask_first"] is False
    assert "No more question before discarding" in console.export_text()
    await table.handle_line("9s")
    assert service.acts == [("discard", Tile.S9, 7)]
    await table.handle_line("confirm on")
    assert service.settings["ask_first"] is True


async def test_liangdao_shows_the_hand_and_waits_and_asks_once() -> None:
    view = my_turn(choices=(*my_turn().choices, ActionChoice("liangdao", Tile.RED)))
    table, service, console = table_for(view, lang="en")
    await table.handle_line("liangdao 7z")
    assert service.acts == []
    shown = console.export_text()
    assert "Lay down and discard Red" in shown and "waiting on 5s 8s" in shown
    assert "1p 1p 2p 3p 4p 5p 6p 5s 7s 7s 8s 9s 9s" in shown  # what everybody will see
    await table.handle_line("liangdao 7z")  # the same command again goes ahead
    assert service.acts == [("liangdao", Tile.RED, 7)]


async def test_a_confirmation_for_a_passed_decision_plays_nothing() -> None:
    table, service, console = table_for(danger_turn(), lang="en")
    await table.handle_line("9s")
    service.hand = replace(service.hand, step=9)  # the decision moved on meanwhile
    await table.handle_line("y")
    assert service.acts == [] and "Cancelled" in console.export_text()


async def test_the_result_shows_the_hand_seed_when_the_result_carries_it() -> None:
    from dataclasses import dataclass

    from kwx.local.plain import ConsoleFrontEnd
    from kwx.table.views import ResultView
    from tests.support.terminal import board, make_console

    @dataclass(frozen=True)
    class WithSeed(ResultView):
        seed: str = ""

    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en")
    result = WithSeed(table_id=1, hand_no=3, outcome="draw", winners=(), payments=(), net=(0, 0, 0),
                      scores=(0, 0, 0), hands=(), seed="c0ffee")
    await fe.hand_finished(result, board(phase="finished"))
    assert "This hand's shuffle seed: c0ffee" in console.export_text()


async def test_a_closed_table_shows_its_sitting() -> None:
    from kwx.local.plain import ConsoleFrontEnd
    from kwx.table.views import TableSummary
    from tests.support.terminal import AI1, make_console

    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", table_id=4)
    await fe.table_closed(TableSummary(table_id=4, guild="local", channel="terminal", host=YOU, hands=5,
                                       net=((YOU, 12), (AI1, -12)), biggest=(3, YOU, 16), transfers=()))
    text = console.export_text()
    assert "The table closed after 5 hands" in text and "+12" in text and "−12" in text
    assert "Biggest hand: hand 3, You won 16" in text


async def test_discarding_the_fourth_tile_of_a_declared_triplet_asks_once_with_its_cost() -> None:
    """A 亮倒 seat's revealed triplet of 5p: discarding the fourth pays its 直杠 and gives it a free draw."""
    kong = MoveWarning("discard", Tile.P5, FEED_KONG, (Gain(2, 2),))
    table, service, console = table_for(my_turn(kong_feed={Tile.P5: (2, 2)}, warnings=(kong,)), lang="en")
    table.show()
    board = console.export_text()
    assert "5p⚠" in board and "⚠ a laid-down hand may kong it: 5p by 电脑2, you pay 2" in board  # before any press
    await table.handle_line("5p")
    assert service.acts == []
    shown = console.export_text()
    assert "Discarding 5p lets 电脑2 (laid down) kong it: you pay 2" in shown and "Type y" in shown
    await table.handle_line("y")
    assert service.acts == [("discard", Tile.P5, 7)]
