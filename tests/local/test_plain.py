"""The terminal table: commands typed in either notation reach the service as the right action, mistakes are
explained (never fatal), the board and the result block show what a player needs. A whole hand is played against
two AI players on the real service and store."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Any

import pytest
from rich.text import Text

from kwx.engine.tiles import Tile, parse_tiles
from kwx.local.commands import Command, CommandError, parse_command
from kwx.local.lines import ScriptedLines
from kwx.local.plain import ConsoleFrontEnd, play_terminal
from kwx.table.errors import TableError
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PaymentView,
    ResultView,
    RevealedHand,
    WinnerView,
)
from tests.support.terminal import (
    AI1,
    AI2,
    NOW,
    YOU,
    board,
    claim_on,
    make_console,
    my_turn,
    output,
    table_for,
)


# -- the parser -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("5p", Command("discard", Tile.P5)),
    ("五筒", Command("discard", Tile.P5)),
    ("5饼", Command("discard", Tile.P5)),
    ("红中", Command("discard", Tile.RED)),
    ("打 7z", Command("discard", Tile.RED)),
    ("打白板", Command("discard", Tile.WHITE)),
    ("discard 3s", Command("discard", Tile.S3)),
    ("胡", Command("hu")), ("hu", Command("hu")), ("WIN", Command("hu")),
    ("杠", Command("gang")), ("kong 5p", Command("gang", Tile.P5)), ("杠5p", Command("gang", Tile.P5)),
    ("碰", Command("peng")), ("pung", Command("peng")),
    ("过", Command("pass")), ("pass", Command("pass")),
    ("亮倒 5p", Command("liangdao", Tile.P5)), ("亮倒五筒", Command("liangdao", Tile.P5)),
    ("liangdao 7z", Command("liangdao", Tile.RED)),
    ("Red", Command("discard", Tile.RED)), ("grn", Command("discard", Tile.GREEN)),  # as the English screen shows
    ("liangdao white", Command("liangdao", Tile.WHITE)), ("kong Wht", Command("gang", Tile.WHITE)),
    ("help", Command("help")), ("手牌", Command("hand")), ("quit", Command("quit")), ("退出", Command("quit")),
])
def test_parse_command_accepts_both_notations_and_both_languages(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


def test_parse_command_ignores_blank_lines() -> None:
    assert parse_command("   ") is None


@pytest.mark.parametrize("text, words", [
    ("8z", "the dragons are 5z (white), 6z (green) and 7z (red)"),
    ("0p", "numbered 1 to 9"),
    ("5m", "no characters"),
    ("碰 5p", "takes no tile"),
    ("打", "5p"),
    ("xyzzy", "help"),
])
def test_parse_command_explains_bad_input(text: str, words: str) -> None:
    with pytest.raises(CommandError) as err:
        parse_command(text, "en")
    assert words in err.value.text


# -- commands reach the service ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["5p", "五筒", "5饼", "打 5p"])
async def test_discard_by_tile_name_in_either_notation(text: str) -> None:
    table, service, _ = table_for(my_turn())
    assert await table.handle_line(text) is True
    assert service.acts == [("discard", Tile.P5, 7)]


async def test_discard_of_the_drawn_tile_and_a_dragon_by_name() -> None:
    table, service, _ = table_for(my_turn())
    await table.handle_line("八条")
    await table.handle_line("红中")
    assert service.acts == [("discard", Tile.S8, 7), ("discard", Tile.RED, 7)]


@pytest.mark.parametrize("text, verb", [("碰", "peng"), ("peng", "peng"), ("胡", "hu"), ("win", "hu"),
                                        ("过", "pass"), ("pass", "pass")])
async def test_claim_answers_in_chinese_and_english(text: str, verb: str) -> None:
    table, service, _ = table_for(claim_on(Tile.P7, ("hu", "peng", "pass")), phase="claim", turn_seat=1,
                                  claim_tile=Tile.P7)
    await table.handle_line(text)
    assert service.acts == [(verb, None, 7)]


async def test_kong_on_a_discard_and_a_concealed_kong_naming_its_tile() -> None:
    table, service, _ = table_for(claim_on(Tile.P1, ("gang", "peng", "pass")), phase="claim", claim_tile=Tile.P1)
    await table.handle_line("杠")
    assert service.acts == [("gang", None, 7)]
    two_kongs = my_turn(choices=(ActionChoice("gang", Tile.P1), ActionChoice("gang", Tile.S9),
                                 ActionChoice("discard", Tile.P1)))
    table, service, console = table_for(two_kongs, lang="en")
    await table.handle_line("kong")
    assert service.acts == [] and "Kong which tile?" in output(console)
    await table.handle_line("kong 9s")
    assert service.acts == [("gang", Tile.S9, 7)]


async def test_liangdao_declares_and_discards_the_named_tile() -> None:
    hand = my_turn(choices=(*my_turn().choices, ActionChoice("liangdao", Tile.RED)))
    table, service, console = table_for(hand, lang="en")
    await table.handle_line("亮倒 5p")  # 5p would not leave the hand ready
    assert service.acts == []
    assert "lay down with one of: Red" in output(console)  # a dragon by its name
    await table.handle_line("liangdao 红中")
    assert service.acts == []  # 亮倒 shows what it reveals and asks once
    await table.handle_line("y")
    assert service.acts == [("liangdao", Tile.RED, 7)]


# -- mistakes are explained -------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang, line, words", [
    ("en", "8z", '"8z" is not a tile: the dragons are 5z (white), 6z (green) and 7z (red)'),
    ("en", "3s", "You have no 3s"),
    ("zh-CN", "三条", "你没有 3条"),
    ("en", "pass", "Nothing to pass"),
    ("en", "hu", "You can't"),
    ("en", "liangdao 5p", "can't lay down now"),
    ("en", "xyzzy", 'I don\'t understand "xyzzy"'),
])
async def test_bad_input_on_your_turn_is_explained_and_nothing_is_sent(lang: str, line: str, words: str) -> None:
    table, service, console = table_for(my_turn(), lang=lang)
    assert await table.handle_line(line) is True
    text = output(console)
    assert words in text
    assert "57" in text  # the prompt comes back, with the time left
    assert service.acts == []


async def test_not_your_turn() -> None:
    idle = my_turn(choices=(), drawn=None)
    table, service, console = table_for(idle, lang="en", turn_seat=1)
    await table.handle_line("5p")
    assert "It's not your turn." in output(console)
    table, service, console = table_for(idle, lang="zh-CN", turn_seat=1)
    await table.handle_line("碰")
    assert "还没轮到你" in output(console)
    assert service.acts == []


async def test_discarding_during_a_claim_window_says_what_to_answer() -> None:
    table, service, console = table_for(claim_on(Tile.P7, ("peng", "pass")), lang="en", phase="claim",
                                        claim_tile=Tile.P7)
    await table.handle_line("5p")
    text = output(console)
    assert "answer the 7p" in text and "peng" in text and "pass" in text
    assert service.acts == []


async def test_a_service_refusal_is_shown_translated_and_the_loop_goes_on() -> None:
    table, service, console = table_for(my_turn(), lang="en")
    service.refuse = TableError("stale", "that action is for an older step")
    assert await table.handle_line("5p") is True
    assert "stale" in output(console).lower()
    service.refuse = TableError("illegal", "you may not discard 5p now (forbid_feeding)")
    await table.handle_line("5p")
    text = output(console)  # the catalog's words for the code: the service's English is for the logs
    assert "You can't do that now." in text and "forbid_feeding" not in text
    service.refuse = TableError("bad_tile", "you cannot discard 9s now; you may discard 5p", reason="choose",
                                tiles=(Tile.P5,))
    await table.handle_line("5p")
    assert "Not that tile: you may use 5 Dots." in output(console)


async def test_quit_and_end_of_input_leave_the_loop() -> None:
    table, _, console = table_for(my_turn())
    assert await table.handle_line("quit") is False
    await table.run(ScriptedLines(["help"]))  # runs help, then the end of input ends the loop
    text = output(console)
    assert "亮倒" in text and "quit" in text


# -- what is shown ----------------------------------------------------------------------------------------------
async def test_board_shows_hand_drawn_tile_ready_discards_discards_melds_wall_and_time() -> None:
    table, _, console = table_for(my_turn(), lang="en")
    table.show()
    text = output(console)
    assert "41 tiles left in the wall" in text
    assert "1p  1p  2p  3p  4p  5p  6p  5s  7s  7s  9s  9s  Red   drew 8s" in text  # sorted, the drawn tile apart
    assert "drew 8s" in text
    assert "Red → 5s 8s" in text  # which discard leaves you ready, and on what
    assert "[Grn Grn Grn]" in text and "Wht" in text  # AI 1's pung and discard
    assert "57s left" in text


async def test_event_log_lines_and_liangdao_reveal() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", clock=lambda: NOW)
    events = ({"kind": "draw", "seat": 1, "tile": None, "from_back": False, "wall": 40},
              {"kind": "discard", "seat": 1, "tile": "3s", "auto": False, "liangdao": False},
              {"kind": "peng", "seat": 0, "tile": "3s", "from": 1})
    await fe.board_changed(board(step=9, last_events=events))
    await fe.board_changed(board(step=9, last_events=events))  # the same view twice logs once
    text = output(console)
    assert text.count("电脑1 discards 3s") == 1
    assert "You pung 3s" in text
    assert "draws" not in text  # other players' draws are not spammed
    seats = list(board().seats)
    seats[2] = replace(seats[2], liangdao=True, revealed=tuple(parse_tiles("2345p")), waits=(Tile.P2, Tile.P5))
    declared = board(step=10, seats=tuple(seats), last_events=(
        {"kind": "discard", "seat": 2, "tile": "9s", "auto": False, "liangdao": True},
        {"kind": "liangdao", "seat": 2, "hand": "2345p", "melds": [], "waits": ["2p", "5p"]},
        {"kind": "draw", "seat": 0, "tile": None, "from_back": False, "wall": 39},
        {"kind": "discard", "seat": 0, "tile": "1p", "auto": False, "liangdao": False}))
    await fe.board_changed(declared)
    await fe.liangdao_revealed(declared, 2)
    lines = output(console).splitlines()
    assert lines == ["→ 电脑2 discards 9s", "★ 电脑2 laid down: 2p 3p 4p 5p  Waiting on 2p 5p",  # once, in place
                     "→ You discard 1p"]


RESULT = ResultView(
    table_id=1, hand_no=2, outcome="win",
    winners=(WinnerView(1, AI1, fan=8, patterns=(("qingyise", 4), ("kawuxing", 2)), win_tile=Tile.P5,
                        self_draw=False, from_seat=0),),
    payments=(PaymentView(YOU, AI1, 8, "hu"), PaymentView(AI2, AI1, 2, "zhigang"), PaymentView(AI2, AI1, 3, "odd")),
    net=(-8, 13, -5), scores=(-12, 21, -9),
    hands=(RevealedHand(1, tuple(parse_tiles("4677p")), (MeldView("pung", Tile.GREEN, 0),)),),
    next_dealer=1)


async def test_result_block_has_fan_breakdown_payments_and_balances() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", clock=lambda: NOW)
    await fe.hand_finished(RESULT, board(phase="finished"))
    text = output(console)
    assert "Result of hand 2" in text
    assert "    Full Flush  ×4" in text and "    Closed Five  ×2" in text and "清一色" not in text  # one language
    assert "8 fan" in text
    assert "电脑1 wins on your discard" in text
    # every payment says how it was reached, as the Discord result does (a reason the formula cannot read: bare)
    assert "You → 电脑1: base 1 × 8 fan = 8" in text and "电脑2 → 电脑1: base 1 × 2 (exposed kong) = 2" in text
    assert "电脑2 → 电脑1: 3 (odd)" in text and "**" not in text
    assert "−12" in text and "+21" in text and "−9" in text  # running balances at this table
    assert "+13" in text  # this hand's net


async def test_the_result_block_in_chinese_is_chinese_with_no_space_between_characters() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="zh-CN", clock=lambda: NOW)
    events = ({"kind": "discard", "seat": 0, "tile": "5p", "auto": False, "liangdao": False},)
    await fe.board_changed(board(step=9, last_events=events))
    you_won = replace(RESULT, winners=(replace(RESULT.winners[0], seat=0, player=YOU, from_seat=1),),
                      payments=(PaymentView(AI1, YOU, 8, "hu"),))
    await fe.hand_finished(you_won, board(phase="finished"))
    text = output(console)
    assert "→ 你打出 5筒" in text and "★ 你胡 电脑1 的炮" in text
    assert "    清一色  ×4" in text and "Full Flush" not in text
    assert "电脑1 → 你：底 1 × 8 番 = 8" in text
    assert not re.search(r"你 [\u4e00-\u9fff]", text), text  # 你打出, 你胡: no space after 你 before the verb


# -- a whole hand on the real service ---------------------------------------------------------------------------
class AutoPlayer:
    """Types for you: whatever the prompt allows (win, else pass on claims, else discard the drawn tile)."""

    def __init__(self, fe: ConsoleFrontEnd, stop_after_hand: int) -> None:
        self.fe = fe
        self.stop_after_hand = stop_after_hand
        self.typed: list[str] = []

    async def readline(self) -> str | None:
        for _ in range(4000):
            await asyncio.sleep(0.005)
            if (self.fe.table_id, self.stop_after_hand) in self.fe.results_shown:
                return "quit"
            hand = self.fe.hand
            if hand is None or not hand.choices:
                continue
            verbs = {c.verb: c for c in hand.choices}
            if "hu" in verbs:
                line = "胡"
            elif "discard" not in verbs:
                line = "过" if "pass" in verbs else "pass"
            else:
                tile = hand.drawn or hand.concealed[-1]
                line = tile.chinese if len(self.typed) % 2 else tile.compact  # both notations
            if self.typed and self.typed[-1] == (line, hand.step):
                continue  # already typed for this step; wait for the service
            self.typed.append((line, hand.step))  # type: ignore[arg-type]
            return line
        return None


async def test_a_whole_hand_against_two_ais_ends_with_the_result_block(tmp_path) -> None:
    console = make_console()
    holder: dict[str, Any] = {}

    def factory(store, frontend, **kw):
        from kwx.table.service import TableService

        holder["fe"] = frontend
        return TableService(store, frontend, **kw)

    class Lines:
        async def readline(self) -> str | None:
            if "player" not in holder:
                holder["player"] = AutoPlayer(holder["fe"], stop_after_hand=1)
            return await holder["player"].readline()

    status = await asyncio.wait_for(
        play_terminal(tmp_path / "kwx.sqlite3", lang="en", seed="console-test", ai_delay=0, claim_pause=0, between_hands=30,
                      console=console, lines=Lines(), service_factory=factory), timeout=60)
    assert status == 0
    text = output(console)
    assert "Result of hand 1" in text
    assert "Payments" in text or "Exhaustive draw" in text
    assert "Net" in text and "Table total" in text
    assert "You discard" in text and "You discards" not in text
    # the table stays open: a second run resumes it instead of opening a new one
    console2 = make_console()
    holder.clear()
    await asyncio.wait_for(play_terminal(tmp_path / "kwx.sqlite3", lang="en", ai_delay=0, claim_pause=0, between_hands=30,
                                         console=console2, lines=ScriptedLines(["quit"]), service_factory=factory),
                           timeout=30)
    assert "Resuming table" in output(console2)


async def test_a_reminder_is_printed_before_your_time_runs_out() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", clock=lambda: NOW)
    fe.warn_seconds = 0.9
    fe.board = board()
    await fe.hand_changed(YOU, my_turn(deadline=NOW + 1), prompt=True)
    await fe.settle()
    assert "Your turn" in output(console)
    await asyncio.sleep(0.3)
    assert "left! When time runs out a move is made for you" in output(console)


async def test_timeout_and_autoplay_notices_name_you() -> None:
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", clock=lambda: NOW)
    fe.board = board()
    await fe.notice(1, "event.timeout", player="你", player_id=YOU.player_id, action="discard")
    await fe.notice(1, "lobby.ai_added", name="AI 1", player_id="ai:standard:1")  # the terminal's own doing
    text = output(console)
    assert "You ran out of time: Discard automatically" in text
    assert "AI 1" not in text


async def test_a_resumed_table_gets_back_the_time_it_had_when_you_left(tmp_path) -> None:
    import time

    from kwx.local.tables import paused_clock
    from kwx.store import Store

    async with await Store.open(tmp_path / "kwx.sqlite3") as store:
        table_id = await store.create_table("local", rules="standard", seed="s", seats=[], channel="terminal")
        left_at = time.time() - 3600  # you quit an hour ago
        await store.append_event(table_id, 1, "action", {"seat": 0, "verb": "discard", "at": left_at})
        clock = await paused_clock(store, table_id)
        assert abs(clock() - left_at) < 5
        assert abs((await paused_clock(store, None))() - time.time()) < 5


async def test_a_resumed_timed_table_speaks_of_the_table_not_of_a_bot_restart() -> None:
    for lang, words, not_words in (("en", "The table resumed where you left it", "bot"), ("zh-CN", "牌桌从你离开的地方继续", "机器人")):
        console = make_console()
        fe = ConsoleFrontEnd(console, lang=lang, clock=lambda: NOW, table_id=1)
        fe.board, fe.hand = board(deadline=None), my_turn()  # your turn has a deadline
        await fe.notice(1, "table.restarted")
        text = output(console)
        assert words in text and not_words not in text
    console = make_console()
    fe = ConsoleFrontEnd(console, lang="en", clock=lambda: NOW, table_id=1)
    fe.board, fe.hand = board(deadline=None), replace(my_turn(), deadline=None)
    await fe.notice(1, "table.restarted")
    assert output(console) == ""  # no timer: nothing has its full time again


def test_two_concealed_kongs_are_both_offered_by_name_even_of_1_dots() -> None:
    """Tile.P1 is the value 0: a check by truth instead of `is None` dropped 1筒 from the kongs the player is asked
    to choose between, so "gang" named only the other one."""
    from kwx.local.commands import resolve_command

    view = my_turn(choices=(ActionChoice("gang", Tile.P1), ActionChoice("gang", Tile.S5),
                            ActionChoice("discard", Tile.S8)))
    with pytest.raises(CommandError) as refused:
        resolve_command(Command("gang"), view, "en")
    said = Text.from_markup(str(refused.value)).plain
    assert "1p" in said and "5s" in said
    assert resolve_command(Command("gang", Tile.P1), view, "en") == ActionChoice("gang", Tile.P1)


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_the_commands_in_help_have_their_words_in_one_column(lang: str) -> None:
    """As the terminal prints it (no code marks; a Chinese character two columns wide)."""
    from rich.cells import cell_len

    from kwx.local.text import say

    rows = [re.match(r"(  \S.*?)( {2,})\S", line) for line in say("help", lang).splitlines()]
    columns = {cell_len(row[1] + row[2]) for row in rows if row is not None}
    assert len(columns) == 1 and len([r for r in rows if r]) >= 12, columns
