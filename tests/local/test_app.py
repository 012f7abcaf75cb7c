"""The game screen, driven by Textual's headless pilot: key presses in, screen text out, on the real table
service and store (you against two AI players that move at once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Static

from kwx.engine.tiles import Tile, parse_tiles
from kwx.local.app import KwxApp
from kwx.local.commands import Command
from kwx.local.tables import YOU_ID
from kwx.local.widgets import ConfirmScreen, ResultScreen, RulesScreen
from kwx.table.views import MeldView, PaymentView, ResultView, RevealedHand, WinnerView
from tests.support.polling import eventually
from tests.support.terminal import AI1, AI2, YOU, board


def screen_text(app: KwxApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def until(pilot: Any, cond, timeout: float = 10.0) -> None:
    await eventually(cond, timeout=timeout, between=lambda: pilot.pause(0.02), what="the screen")


def my_turn(app: KwxApp) -> bool:
    hand = app.fe.hand if app.fe is not None else None
    return hand is not None and any(c.verb == "discard" for c in hand.choices)


def discards(app: KwxApp) -> tuple:
    assert app.fe is not None and app.fe.board is not None
    return next(s.discards for s in app.fe.board.seats if s.player.player_id == YOU_ID)


def make_app(tmp_path: Path, **kw: Any) -> KwxApp:
    kw.setdefault("seed", "screen")
    kw.setdefault("ai_delay", 0)
    return KwxApp(tmp_path / "kwx.sqlite3", lang=kw.pop("lang", "en"), **kw)


async def test_the_board_fits_80x24_and_a_tile_is_discarded_by_its_key(tmp_path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app))
        await pilot.pause(0.05)
        text = screen_text(app)
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        assert "Hand 1" in text and "tiles left in the wall" in text  # status line
        assert "Seat" in text and "AI 1" in text and "AI 2" in text  # the seats
        assert "Your turn" in text and "a   b   c" in text  # your hand with a key per tile
        held = app.held()
        await pilot.press("b")
        assert app.selected == 1 and not discards(app)  # selected, not yet played
        await pilot.press("b")  # the same key again plays it
        await until(pilot, lambda: discards(app)[:1] == (held[1],))
        await app.shutdown()


async def test_a_typed_tile_name_with_editing_and_history(tmp_path) -> None:
    app = make_app(tmp_path, seed="typed")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app))
        tile = app.held()[-1]
        await pilot.press("colon")
        await pilot.press("x", "backspace", *tile.compact, "enter")  # a typo, erased
        await until(pilot, lambda: discards(app)[:1] == (tile,))
        await pilot.press("up")
        assert app.query_one("#cmd").value == tile.compact  # the history brings the line back
        await pilot.press("ctrl+a", "delete", "delete", *"help", "enter")
        await pilot.pause(0.05)
        assert "back / 回来" in screen_text(app) or "Commands" in "".join(
            str(line) for line in app.query_one("#log").lines)
        await pilot.press("escape")
        assert app.focused is None  # back on the hand keys
        await app.shutdown()


async def test_the_result_waits_for_a_key(tmp_path) -> None:
    app = make_app(tmp_path, seed="result")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.fe is not None and app.fe.board is not None)
        result = ResultView(
            table_id=app.table_id, hand_no=1, outcome="win",
            winners=(WinnerView(1, AI1, fan=8, patterns=(("qingyise", 4), ("kawuxing", 2)), win_tile=Tile.P5,
                                self_draw=False, from_seat=0),),
            payments=(PaymentView(YOU, AI1, 8, "hu"), PaymentView(AI2, AI1, 2, "zhigang")),
            net=(-8, 10, -2), scores=(-8, 10, -2),
            hands=(RevealedHand(1, tuple(parse_tiles("4677p")), (MeldView("pung", Tile.GREEN, 0),)),), next_dealer=1)
        await app.fe.hand_finished(result, board(table_id=app.table_id, phase="finished"))
        await pilot.pause(0.05)
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Result of hand 1" in text and "Full Flush" in text and "8 fan" in text
        assert "Payments" in text and "Table total" in text and "Press any key" in text
        await pilot.pause(0.3)
        assert isinstance(app.screen, ResultScreen)  # still there: it waits
        await pilot.press("space")
        assert not isinstance(app.screen, ResultScreen)
        await app.shutdown()


async def test_the_rules_screen_and_a_wide_terminal(tmp_path) -> None:
    app = make_app(tmp_path, seed="rules")
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        assert app.query_one("#main").has_class("wide")  # the log sits beside the seats
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        assert isinstance(app.screen, RulesScreen)
        text = screen_text(app)
        assert "Patterns and multipliers" in text and "Seven Pairs" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, RulesScreen)
        await app.shutdown()


async def test_autoplay_is_shown_and_any_key_takes_the_seat_back(tmp_path) -> None:
    app = make_app(tmp_path, seed="auto", turn_seconds=60, ai_delay=0.5)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        await app.service.set_autoplay(app.table_id, YOU_ID, True)
        await until(pilot, lambda: "Autoplay" in screen_text(app))
        assert "take your seat back" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: not app.fe.in_autoplay())
        await pilot.pause(0.05)
        assert "Autoplay:" not in screen_text(app)
        await app.shutdown()


async def test_resuming_between_hands_shows_the_last_result(tmp_path) -> None:
    from kwx.table.service import TableService

    class Between(TableService):  # a table resumed between hands: the service has the hand that ended
        def last_result(self, table_id: int) -> ResultView | None:
            return ResultView(table_id=table_id, hand_no=1, outcome="draw", winners=(), payments=(),
                              net=(0, 0, 0), scores=(0, 0, 0), hands=())

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        await app.shutdown()
    again = make_app(tmp_path, service_factory=Between)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, ResultScreen))
        await pilot.pause(0.05)
        assert "Result of hand 1" in screen_text(again) and "Press any key" in screen_text(again)
        await again.shutdown()


async def test_a_tile_that_wins_for_a_liangdao_hand_is_marked_and_asks_first(tmp_path) -> None:
    from dataclasses import replace

    from kwx.local.widgets import ConfirmScreen
    from kwx.table.advice import FEED_WIN, Gain, MoveWarning
    from kwx.table.press import Press, PressOutcome, Question
    from kwx.table.service import TableService

    class LaidDown(TableService):  # as if AI 2 had declared 亮倒 waiting on whatever you drew
        def private_view_as_shown(self, table_id: int, player_id: str):
            view = super().private_view_as_shown(table_id, player_id)
            if view.drawn is None:
                return view
            return replace(view, danger={view.drawn: (2,)}, warnings=(self.feed(view.drawn),))

        @staticmethod
        def feed(tile: Tile) -> MoveWarning:
            return MoveWarning("discard", tile, FEED_WIN, (Gain(2, 8),), baohu=True)

        async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome:
            drawn = super().private_view_as_shown(table_id, player_id).drawn
            if press.verb == "discard" and press.tile == drawn and not press.confirmed:  # the service asks first
                return PressOutcome(ask=Question("discard", press.tile, self.feed(press.tile)),
                                    view=self.private_view_as_shown(table_id, player_id))
            return await super().press(table_id, player_id, press)

    app = make_app(tmp_path, seed="danger", service_factory=LaidDown)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app))

        def warned() -> bool:
            app._refresh_views()
            app.redraw(hand=True)
            text = screen_text(app)
            return "wins for a laid-down hand" in " ".join(text.split()) and "⚠" in text

        await until(pilot, warned)
        n = len(app.held())
        key = "abcdefghijklmn"[n - 1]  # the drawn tile, last
        drawn = app.held()[-1]
        await pilot.press(key, key)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause(0.05)
        assert "win: sole payer" in screen_text(app) and "pay 8 (double)" in screen_text(app)
        await pilot.press("n")
        await pilot.pause(0.1)
        assert not discards(app)  # cancelled: nothing played
        await pilot.press(key, key)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: discards(app)[:1] == (drawn,))
        await app.shutdown()


async def test_the_footer_and_the_command_palette_speak_the_games_language(tmp_path) -> None:
    app = make_app(tmp_path, seed="palette", lang="zh-CN")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready.is_set() and screen_text(app).splitlines()[-1].strip() != "")
        footer = screen_text(app).splitlines()[-1]
        assert "离开" in footer and "规则" in footer and "命令" in footer
        assert "Quit" not in footer and "Rules" not in footer and "palette" not in footer
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        palette = screen_text(app)
        assert "搜索命令" in palette and "规则与番型" in palette and "离开" in palette
        assert "Theme" not in palette and "Screenshot" not in palette and "Search for commands" not in palette
        await pilot.press("escape")
        await app.shutdown()


async def play_until_result(app: KwxApp, pilot: Any) -> None:
    """You play fast (win when you can, else pass, else discard the drawn tile) until a result shows."""
    from kwx.local.commands import Command

    await app.submit(Command("confirm_off"))  # no question about a 胡口牌 waits for an answer
    answered = None
    for _ in range(3000):
        if isinstance(app.screen, ResultScreen):
            return
        view = app.fe.hand if app.fe is not None else None
        if view is not None and view.choices and (view.hand_no, view.step) != answered:
            answered = (view.hand_no, view.step)
            verbs = {c.verb for c in view.choices}
            verb = "hu" if "hu" in verbs else "pass" if "discard" not in verbs else "discard"
            await app.submit(Command(verb, (view.drawn or view.concealed[-1]) if verb == "discard" else None))
        await pilot.pause(0.01)
    raise AssertionError("the hand never ended")


def quick_service(store: Any, fe: Any, **kw: Any) -> Any:
    from kwx.table.service import TableService

    return TableService(store, fe, **{**kw, "claim_pause": 0})


async def test_the_commitment_shows_from_the_deal_and_the_seed_stays_in_the_log(tmp_path) -> None:
    app = make_app(tmp_path, seed="proof", service_factory=quick_service)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready.is_set() and app.fe.board is not None and app.fe.board.seed_ref)
        ref = app.fe.board.seed_ref.removeprefix("sha256:")
        log = "\n".join(strip.text for strip in app.base.query_one("#log").lines)
        assert f"commitment {ref[:12]}" in log  # from the deal on
        await play_until_result(app, pilot)
        await pilot.press("space")  # the result closes
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ResultScreen)
        log = "\n".join(strip.text for strip in app.base.query_one("#log").lines)
        words = " ".join(log.split())  # the log wraps lines at its width
        assert "Hand 1 is over · seed" in words and "python -m kwx ledger hand 1" in words and "`" not in words
        await app.shutdown()



async def test_a_hand_resumed_in_play_shows_its_commitment(tmp_path) -> None:
    """The line mode prints the hand's header (with its commitment) when it resumes a hand; the game screen
    only said "Resuming table 1, hand 1", so a resumed hand never showed what its seed is checked against."""
    app = make_app(tmp_path, seed="proof", service_factory=quick_service)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready.is_set() and app.fe.board is not None and app.fe.board.seed_ref)
        ref = app.fe.board.seed_ref.removeprefix("sha256:")
        await app.shutdown()
    again = make_app(tmp_path, seed="proof", service_factory=quick_service)
    async with again.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: again.ready.is_set())
        await pilot.pause(0.1)
        log = "\n".join(strip.text for strip in again.base.query_one("#log").lines)
        assert "Resuming table" in log and f"commitment {ref[:12]}" in log
        await again.shutdown()


def long_result(table_id: int) -> ResultView:
    """A result longer than an 80×24 dialog: a big win, every hand shown, many payments."""
    return ResultView(
        table_id=table_id, hand_no=1, outcome="win",
        winners=(WinnerView(1, AI1, fan=64, patterns=tuple((p, 2) for p in (
            "qingyise", "kawuxing", "pengpenghu", "gangshangkaihua", "mingsigui", "liangdao", "haidilao")),
            win_tile=Tile.P5, self_draw=True, from_seat=None),),
        payments=tuple(PaymentView(YOU if i % 2 else AI2, AI1, 8, "hu") for i in range(8)),
        net=(-32, 64, -32), scores=(-32, 64, -32),
        hands=tuple(RevealedHand(s, tuple(parse_tiles("1234567p12345s")), ()) for s in range(3)), next_dealer=1)


async def test_the_result_says_how_to_close_it_at_80x24_however_long_it_is(tmp_path) -> None:
    app = make_app(tmp_path, seed="long")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        await app.fe.hand_finished(long_result(app.table_id), board(table_id=app.table_id, phase="finished"))
        await pilot.pause(0.1)
        assert isinstance(app.screen, ResultScreen)
        assert "Press any key to continue" in screen_text(app)  # in sight, not below the fold
        await pilot.press("space")
        await app.shutdown()


async def test_below_80x24_the_screen_says_it_is_too_small_and_plays_on_when_enlarged(tmp_path) -> None:
    app = make_app(tmp_path, seed="small")
    async with app.run_test(size=(70, 20)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "The terminal is 70×20: the game needs at least 80×24" in text
        assert "Seat" not in text  # not a cut-off board
        await pilot.press("a")  # keys do not reach the hand under the notice
        assert app.selected is None
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "too small" not in text and "needs at least" not in text and "Seat" in text
        await app.shutdown()


async def test_every_hint_line_shows_at_120x40(tmp_path) -> None:
    from dataclasses import replace

    from tests.support.terminal import my_turn

    app = make_app(tmp_path, seed="hints")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        assert app.fe is not None and app.fe.board is not None
        view = replace(my_turn(), table_id=app.table_id, hand_no=app.fe.board.hand_no, deadline=None,
                       waits=(Tile.S5, Tile.S8), danger={Tile.S9: (2,)},
                       discard_waits={Tile.RED: (Tile.S5, Tile.S8), Tile.P1: (Tile.S6, Tile.S9),
                                      Tile.P6: (Tile.S4, Tile.S7), Tile.S7: (Tile.P2, Tile.P5, Tile.P8)})
        app.fe.hand = view
        app.redraw(hand=True)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "Red → 5s 8s" in text and "7s → 2p 5p 8p" in text  # every ready discard
        assert "Waiting on 5s 8s" in text  # and what you wait on, below them
        await app.shutdown()


async def test_log_lines_wrap_again_when_the_log_moves_beside_the_seats(tmp_path) -> None:
    app = make_app(tmp_path, seed="rewrap")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ready.is_set())
        app.log_line("★ AI 1 laid down: 3p 4p 5p 7p 3s 3s 4s 4s 5s 5s 6s 7s 8s  Waiting on 7p and a little more")
        await pilot.pause(0.05)
        await pilot.resize_terminal(120, 40)  # wide: the log is now a narrow pane beside the seats
        await pilot.pause(0.3)
        log = app.base.query_one("#log")
        width = log.scrollable_content_region.width
        assert width < 60
        assert all(strip.cell_length <= width for strip in log.lines), [s.text for s in log.lines]
        assert "Waiting on 7p and a little more" in " ".join(strip.text.strip() for strip in log.lines)
        await app.shutdown()


async def test_two_keys_at_once_close_the_result_and_the_confirmation_once(tmp_path) -> None:
    """Keys typed fast (a tile name and Enter meant for the command line) reach a result or a question in one
    batch: the first closes it, the rest must not close the game screen under it (that stopped the game)."""
    app = make_app(tmp_path, seed="result")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.fe is not None and app.fe.board is not None)
        game = app.screen
        result = ResultView(
            table_id=app.table_id, hand_no=1, outcome="draw", winners=(), payments=(), net=(0, 0, 0),
            scores=(0, 0, 0), hands=(), next_dealer=0)
        await app.fe.hand_finished(result, board(table_id=app.table_id, phase="finished"))
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        for key in ("5", "s", "enter"):
            app.screen.post_message(events.Key(key, None))
        await until(pilot, lambda: app.screen is game)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("?", "en"), callback=answers.append)
        await pilot.pause(0.05)
        for key in ("y", "enter"):
            app.screen.post_message(events.Key(key, None))
        await until(pilot, lambda: answers == [True] and app.screen is game)
        await pilot.pause(0.05)
        assert app.screen is game and answers == [True]
        await app.shutdown()



async def test_the_log_keeps_its_newest_line_in_sight_when_it_gets_shorter() -> None:
    """A warning under the hand (胡口牌, a 亮倒 hint) takes lines from the log: what was just written (the next
    hand's header, a 亮倒) must stay in sight, not slip below the log's fold. The log alone, as the game lays it
    out, with nothing else that could scroll it."""
    from textual.app import App

    from kwx.local.widgets import GameLog

    class LogAndInfo(App[None]):
        def compose(self):
            yield GameLog(id="log", markup=True, wrap=True, max_lines=500, min_width=20)
            yield Static("", id="info")

    app = LogAndInfo()
    async with app.run_test(size=(80, 14)) as pilot:
        log = app.query_one(GameLog)
        for n in range(30):
            log.write(f"line {n} of the log")
        await until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_offset.y == log.max_scroll_y)
        height = log.size.height
        app.query_one("#info", Static).update("a warning\nthat takes\nthree lines")
        await until(pilot, lambda: log.size.height < height)
        await until(pilot, lambda: log.scroll_offset.y == log.max_scroll_y, timeout=2)
        assert log.max_scroll_y > 0


async def test_ctrl_c_leaves_the_game_screen_from_the_hand_and_the_command_line(tmp_path) -> None:
    for focus in ("hand", "command line"):
        app = make_app(tmp_path, seed="ctrlc")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda app=app: my_turn(app))
            if focus == "command line":
                await pilot.press("colon")
            await pilot.press("ctrl+c")
            await pilot.pause(0.2)
            assert app.return_code == 0, focus
        await app.shutdown()


async def test_a_hand_resumed_after_a_restart_shows_its_log_so_far(tmp_path) -> None:
    """After a restart the log held only "Resuming table 1": what had happened in the hand was in the ponds
    alone. The hand's events so far are logged again, in order, under its header."""
    app = make_app(tmp_path, seed="danger", service_factory=quick_service)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: my_turn(app))
        drawn = app.held()[-1]
        await app.submit(Command("discard", drawn))
        await until(pilot, lambda: len(discards(app)) == 1)
        await pilot.pause(0.1)
        before = log_lines(app)
        await app.shutdown()
    played = [line for line in before if line.startswith("→")]
    assert len(played) >= 2, before  # AI 2's discard and yours at least
    again = make_app(tmp_path, seed="danger", service_factory=quick_service)
    async with again.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: again.ready.is_set())
        await pilot.pause(0.1)
        after = log_lines(again)
        assert any(line.startswith("Resuming table") for line in after)
        resumed = [line for line in after if line.startswith("→")]
        assert resumed[:len(played)] == played, (played, resumed)
        await again.shutdown()


def log_lines(app: KwxApp) -> list[str]:
    return [strip.text.strip() for strip in app.base.query_one("#log").lines if strip.text.strip()]


async def test_every_liangdao_choice_shows_with_its_key_at_80x24_and_the_last_one_is_pressed(tmp_path) -> None:
    """Four 亮倒 choices cut the fourth tile at 80 columns and a fifth never showed: the action bar wraps onto a
    second row, so each choice is in sight with its key, and its key plays it."""
    from dataclasses import replace

    from kwx.present.i18n import tile_label
    from kwx.table.press import Press, PressOutcome
    from kwx.table.service import TableService
    from kwx.table.views import ActionChoice

    pressed: list[Press] = []

    class Recording(TableService):  # a hand that may win, kong, or lay down five ways; presses recorded
        def private_view_as_shown(self, table_id: int, player_id: str):
            view = super().private_view_as_shown(table_id, player_id)
            if not view.choices:
                return view
            held = sorted(set(view.concealed))
            declare[:] = held[:2] + held[-3:]  # five tiles you hold: each discard of them "leaves you ready"
            return replace(view, choices=(ActionChoice("hu"), ActionChoice("gang", Tile.S9),
                                          *(ActionChoice("liangdao", t) for t in declare), *view.choices))

        async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome:
            pressed.append(press)
            return PressOutcome(view=self.private_view_as_shown(table_id, player_id))

    declare: list[Tile] = []
    for lang, word in (("zh-CN", "亮倒"), ("en", "liangdao")):
        pressed.clear()
        app = make_app(tmp_path / lang, seed="bar", lang=lang, service_factory=Recording)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda app=app: my_turn(app))
            app._refresh_views()
            app.redraw(hand=True)
            await pilot.pause(0.1)
            text = screen_text(app)
            lines = text.splitlines()
            assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
            bar = "\n".join(line for line in lines if word in line or " 7 " in line)
            for key, tile in zip("34567", declare, strict=True):
                assert f" {key} " in bar and f"{word}" in bar and tile_label(tile, lang) in bar, (key, bar)
            assert lines[-2].strip().startswith(("输入", "type"))  # the command line still in sight
            await pilot.press("7")
            await until(pilot, lambda: bool(pressed))
            assert pressed[0].verb == "liangdao" and pressed[0].tile == declare[-1]
            await app.shutdown()


async def test_f2_on_the_game_screen_turns_autopass_on_and_the_next_run_shows_it(tmp_path) -> None:
    app = make_app(tmp_path, seed="f2")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app))
        assert "Auto-pass" in screen_text(app).splitlines()[-1]  # the footer names the key
        await pilot.press("f2")
        await until(pilot, lambda: "Auto-pass: on" in screen_text(app).splitlines()[0])
        assert await app.service.player_setting(app.table_id, YOU_ID, "auto_pass") is True
        await pilot.press("colon", *"confirm off", "enter")  # the question before a 胡口牌: the service's too
        await until(pilot, lambda: "No more question" in log_text(app))
        assert await app.service.player_setting(app.table_id, YOU_ID, "ask_first") is False
        await app.shutdown()
    again = make_app(tmp_path, seed="f2")
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(again))
        await until(pilot, lambda: "Auto-pass: on" in screen_text(again).splitlines()[0])
        await pilot.press("f2")
        await until(pilot, lambda: "Auto-pass: on" not in screen_text(again).splitlines()[0])
        assert "Auto-pass off" in log_text(again)
        await again.shutdown()


async def test_the_game_screens_command_line_takes_the_line_modes_commands(tmp_path) -> None:
    app = make_app(tmp_path, seed="danger")  # AI 2 deals: your first turn has a drawn tile
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn(app) and app.fe.hand.drawn is not None)
        drawn = app.fe.hand.drawn
        await pilot.press("colon", *"moqie", "enter")
        await until(pilot, lambda: discards(app)[:1] == (drawn,))
        await app.shutdown()


def log_text(app: Any) -> str:
    return " ".join(" ".join(strip.text for strip in app.base.query_one("#log").lines).split())
