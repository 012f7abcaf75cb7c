"""The words players read on the board, the result and the DMs: one language per message, one minus sign,
no stray spaces in Chinese, every number labelled, the prompt's context as it now stands."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from cogs.board import board_embeds, summary_embed
from cogs.emoji import TileFormatter
from cogs.panels import context_line, hand_over_line, panel_embed
from cogs.result_post import result_embeds
from kwx.engine.tiles import Tile, parse_tiles
from kwx.present.i18n import tr
from kwx.present.numbers import signed_points
from kwx.table.views import (
    MeldView,
    PaymentView,
    PlayerRef,
    PrivateView,
    PublicView,
    ResultView,
    RevealedHand,
    SeatView,
    TableSummary,
    WinnerView,
)

LOCALE = Path(__file__).resolve().parents[2] / "kwx" / "present" / "locale"
FULL_WIDTH = re.compile(r"[\u3000-\u303f\uff00-\uffef]")  # CJK punctuation, the ideographic space, ＋ （ ） ： …
PLAYERS = (PlayerRef("1", "alice"), PlayerRef("2", "bob"), PlayerRef("3", "carol"))
EMOJIS = TileFormatter({int(t): f"<:kwx_{t.compact}:{1000 + int(t)}>" for t in Tile})


def _board(**kw) -> PublicView:
    seats = tuple(SeatView(s, PLAYERS[s], score=(-2, 5, -3)[s], concealed_count=13) for s in range(3))
    return PublicView(**({"table_id": 7, "hand_no": 3, "step": 40, "phase": "turn", "seats": seats,
                          "turn_seat": 0, "wall_remaining": 30} | kw))


def _result(winner: int, from_seat: int | None) -> ResultView:
    win = WinnerView(winner, PLAYERS[winner], 2, (("pinghu", 1),), Tile.S4, from_seat is None, from_seat)
    hands = tuple(RevealedHand(s, tuple(parse_tiles("1123456789p45s")), ()) for s in range(3))
    net = [0, 0, 0]
    net[winner], net[from_seat if from_seat is not None else (winner + 1) % 3] = 2, -2
    return ResultView(7, 3, "win", (win,), (PaymentView(PLAYERS[1], PLAYERS[0], 1, "bugang"),), tuple(net),
                      (-2, 5, -3), hands, next_dealer=winner)


def test_the_english_catalog_has_no_full_width_punctuation() -> None:
    english = json.loads((LOCALE / "en.json").read_text(encoding="utf-8"))
    assert not {k: v for k, v in english.items() if FULL_WIDTH.search(v)}


def test_english_messages_carry_no_full_width_punctuation_or_ideographic_space() -> None:
    melds = (MeldView("pung", Tile.S5, 1), MeldView("kong", Tile.P9, 2))  # set apart from the tiles and each other
    seats = tuple(dataclasses.replace(s, melds=melds) for s in _board().seats)
    board = _board(seats=seats)
    won = _result(0, 1)
    won = dataclasses.replace(won, hands=tuple(dataclasses.replace(h, melds=melds) for h in won.hands))
    (result,) = result_embeds(won, board, "en", EMOJIS, [])
    view = PrivateView(table_id=7, hand_no=3, step=40, seat=0, player_id="1",
                       concealed=tuple(parse_tiles("1123456789p45s")[:8]), drawn=Tile.S9, melds=melds, choices=())
    panel = panel_embed(view, "en", EMOJIS, board=board)
    (shown,) = board_embeds(board, "en", EMOJIS, [])[:1]
    for embed in (result, panel, shown):
        text = "\n".join([embed.description or "", *(f"{f.name}\n{f.value}" for f in embed.fields)])
        assert not FULL_WIDTH.search(text), FULL_WIDTH.findall(text)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_dm_never_says_yous_and_chinese_has_no_space_between_characters(lang: str) -> None:
    board = _board()
    you_paid = hand_over_line(_result(1, 0), board, 0, lang, EMOJIS)
    you_won = hand_over_line(_result(0, 2), board, 0, lang, EMOJIS)
    assert "you's" not in you_paid.lower() and "you's" not in you_won.lower()
    assert {"en": "bob won on your", "zh-CN": "bob 胡你打出的"}[lang] in you_paid
    assert {"en": "you won on carol's", "zh-CN": "你胡 carol 打出的"}[lang] in you_won
    if lang == "zh-CN":
        assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", you_paid + you_won)


def test_one_minus_sign_on_the_board_the_result_and_the_dms() -> None:
    board = _board()
    (result,) = result_embeds(_result(1, 0), board, "zh-CN", EMOJIS, [])
    embeds = board_embeds(board, "zh-CN", EMOJIS, [])
    closed = summary_embed(TableSummary(7, "g", None, None, 4, ((PLAYERS[1], 6), (PLAYERS[0], -6)), None, ()), "zh-CN")
    shown = "\n".join([hand_over_line(_result(1, 0), board, 0, "zh-CN", EMOJIS), closed.description or "",
                       *(f"{f.name}\n{f.value}" for e in (*embeds, result) for f in e.fields)])
    assert signed_points(-2) == "\u22122" and "\u22122" in shown and "\u22123" in shown and "\u22126" in shown
    assert not re.search(r"-\d", shown.replace("<:kwx_", ""))  # no hyphen-minus before a number


def test_the_table_total_beside_each_seat_says_what_it_is() -> None:
    for lang in ("zh-CN", "en"):
        names = [f.name for f in board_embeds(_board(), lang, EMOJIS, [])[0].fields[:3]]
        assert all(tr("board.seat_total", lang, score=signed_points(n)) in name
                   for name, n in zip(names, (-2, 5, -3), strict=True)), names


def test_the_winning_hand_line_has_one_space_before_the_plus() -> None:
    (result,) = result_embeds(_result(0, 1), _board(), "zh-CN", EMOJIS, [])
    assert "  ＋" not in (result.description or "") and " ＋ <:kwx_4s:" in (result.description or "")


def test_a_kong_payment_line_shows_its_formula() -> None:
    (result,) = result_embeds(_result(0, 1), _board(base=1), "zh-CN", EMOJIS, [])
    payments = next(f.value for f in result.fields if f.name == tr("result.payments", "zh-CN"))
    assert payments == "bob → alice：底 1 × 补杠 1 = **1**"


def test_after_your_own_pung_the_prompt_no_longer_names_the_discard_you_took() -> None:
    seats = list(_board().seats)
    seats[1] = SeatView(1, PLAYERS[1], 5, 13, pond=((Tile.S9, True),))
    seats[0] = SeatView(0, PLAYERS[0], -2, 11, melds=(MeldView("pung", Tile.S9, 1),))
    board = _board(seats=tuple(seats))
    view = PrivateView(table_id=7, hand_no=3, step=41, seat=0, player_id="1",
                       concealed=tuple(parse_tiles("1123456789p45s")[:11]), drawn=None,
                       melds=(MeldView("pung", Tile.S9, 1),), choices=(), last_discard=(1, Tile.S9))
    line = context_line(view, board, "zh-CN", TileFormatter())
    assert "bob 打出" not in line and "牌墙" in line
    seats[1] = SeatView(1, PLAYERS[1], 5, 13, pond=((Tile.S9, False),))  # not taken: still named
    assert "bob 打出" in context_line(view, _board(seats=tuple(seats)), "zh-CN", TileFormatter())
