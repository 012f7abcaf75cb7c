"""The board and the hand panel as a player reads them: layout, limits, the 亮倒 mode, text fallback."""

from __future__ import annotations

import discord

from cogs.board import board_embeds, fits
from cogs.emoji import TileFormatter
from cogs.panels import LIANGDAO, panel_buttons, panel_embed
from cogs.result_post import result_embeds
from kwx.engine.tiles import Tile, parse_tiles
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PaymentView,
    PlayerRef,
    PublicView,
    ResultView,
    RevealedHand,
    SeatView,
    WinnerView,
)
from tests.support.panels import EMOJIS, PLAYERS, act_ids, panel_view


def test_a_turn_panel_has_one_button_per_distinct_tile_then_the_actions_on_their_own_rows() -> None:
    tiles = set(parse_tiles("1123456789p5s7z")) | {Tile.S9}
    choices = tuple(ActionChoice("discard", t) for t in sorted(tiles)) + (
        ActionChoice("liangdao", Tile.S5), ActionChoice("liangdao", Tile.RED), ActionChoice("hu"),
        ActionChoice("gang", Tile.P1))
    view = panel_view(choices=choices, discard_waits={Tile.S5: (Tile.P1, Tile.P4)})
    buttons = panel_buttons(view, "zh-CN", EMOJIS)
    acts = act_ids(buttons)
    assert [a.arg for a in acts if a.verb == "discard"] == [t.compact for t in sorted(tiles)]
    assert [a.verb for a in acts if a.verb != "discard"] == ["mq", "hu", "gang", "ld", "ap"]
    assert next(a for a in acts if a.verb == "mq").arg == "9s"  # 摸切 names the drawn tile
    assert all((a.table, a.hand, a.step) == (7, 2, 31) for a in acts)
    rows = [item.row for item in buttons.children]
    assert len(acts) <= 25 and max(rows) <= 4
    assert rows[: len(tiles)] == [i // 5 for i in range(len(tiles))] and min(rows[len(tiles):]) == 3
    drawn = next(i for i in buttons.children if i.act.arg == "9s")  # type: ignore[attr-defined]
    assert drawn.item.style == discord.ButtonStyle.primary  # the drawn tile stands out
    text = panel_embed(view, "zh-CN", EMOJIS).description
    assert "你摸到 <:kwx_9s:" in text and "轮到你出牌" in text and "<t:1700000000:R>" in text
    assert "打 <:kwx_5s:" in text  # which discard keeps the hand ready

    picks = act_ids(panel_buttons(view, "zh-CN", EMOJIS, mode=LIANGDAO))  # 亮倒 mode: only the tiles that allow it
    assert [(a.verb, a.arg) for a in picks] == [("liangdao", "5s"), ("liangdao", "7z"), ("back", "-")]


def test_a_claim_panel_and_the_text_fallback_when_there_are_no_emojis() -> None:
    view = panel_view(drawn=None, concealed=tuple(parse_tiles("1123456789p5s7z")), claim_tile=Tile.P1,
                    choices=(ActionChoice("hu"), ActionChoice("gang"), ActionChoice("peng"), ActionChoice("pass")))
    buttons = panel_buttons(view, "zh-CN", TileFormatter())
    assert [(b.item.label, b.act.verb) for b in buttons.children] == [  # type: ignore[attr-defined]
        ("胡", "hu"), ("杠", "gang"), ("碰", "peng"), ("过", "pass"), ("自动过：关", "ap")]
    text = panel_embed(view, "zh-CN", TileFormatter()).description
    assert "1筒：你可以胡、杠、碰" in text and "1筒 1筒 2筒" in text
    assert panel_buttons(panel_view(), "zh-CN", EMOJIS) is None  # nothing asked: no buttons


def test_piao_buttons_offer_every_amount() -> None:
    view = panel_view(concealed=(), drawn=None, choices=(ActionChoice("piao"),))
    acts = act_ids(panel_buttons(view, "en", EMOJIS, piao_max=3))
    assert [(a.verb, a.amount) for a in acts] == [("piao", 0), ("piao", 1), ("piao", 2), ("piao", 3)]


def _crowded_board() -> PublicView:
    many = tuple(Tile(i % 21) for i in range(24))
    seats = tuple(
        SeatView(s, PLAYERS[s], score=-5 + s, concealed_count=4, discards=many,
                 melds=(MeldView("kong", Tile.P1, 1), MeldView("pung", Tile.S3, 2), MeldView("ankong", None)),
                 liangdao=s == 1, revealed=tuple(parse_tiles("2345678p")) if s == 1 else (),
                 waits=(Tile.P1, Tile.P4) if s == 1 else (), is_dealer=s == 0)
        for s in range(3))
    return PublicView(7, 3, 99, "turn", seats, wall_remaining=5, turn_seat=2, deadline=1_700_000_030.0, base=2)


def test_the_board_shows_every_seat_and_falls_back_to_text_tiles_when_emojis_would_not_fit() -> None:
    board = _crowded_board()
    long_emojis = TileFormatter({int(t): f"<:kwx_{t.compact}:{'9' * 60}>" for t in Tile})
    embeds = board_embeds(board, "zh-CN", long_emojis, ["alice 打出 5筒"] * 4)
    assert fits(embeds)
    text = "\n".join(f.name + "\n" + f.value for f in embeds[0].fields)
    assert "kwx_" not in text and "弃牌 1筒 2筒 3筒" in text  # text tiles instead of overflowing emojis
    assert embeds[0].fields[2].name.startswith("▶ AI 1 ") and "[庄]" in embeds[0].fields[0].name
    assert "亮倒 2筒 3筒" in text and "听 1筒 4筒" in text and "手牌 4 张" in text
    normal = board_embeds(board, "zh-CN", EMOJIS, [])
    assert fits(normal) and "<:kwx_1p:" in normal[0].fields[0].value  # real emojis fit
    assert "<t:1700000030:R>" in normal[0].description and "牌墙剩余 5 张 · 底 2" in normal[0].description


def test_a_result_lists_the_win_the_payments_every_hand_and_the_balances() -> None:
    board = _crowded_board()
    win = WinnerView(1, PLAYERS[1], 8, (("qidui", 4), ("liangdao", 2)), Tile.P9, False, 0)
    hands = tuple(RevealedHand(s, tuple(parse_tiles("1122334455669p")) if s == 1 else tuple(parse_tiles("123s")),
                               ()) for s in range(3))
    result = ResultView(7, 3, "win", (win,), (PaymentView(PLAYERS[0], PLAYERS[1], 16, "hu"),), (-16, 16, 0),
                        (-20, 30, -10), hands, next_dealer=1)
    (embed,) = result_embeds(result, board, "en", EMOJIS, ["hand-3-1.png"])
    assert "bob wins on alice's discard" in embed.description
    assert "8 fan · Patterns: Seven Pairs ×4, Laid-Down Hand ×2" in embed.description
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Payments"] == "alice → bob: base 2 × 8 fan = **16**"  # the board's base is 2
    assert fields["Table total"].splitlines() == ["alice: −20", "bob: +30", "AI 1: −10"]
    assert "bob · this hand +16" in fields and "AI 1 · this hand 0" in fields
    assert embed.image.url == "attachment://hand-3-1.png"
    winning = embed.description.split("Winning hand: ")[1]
    assert winning.count("<:kwx_9p:") == 1 + 1  # the hand without the winning tile, then ＋ the winning tile


def test_a_bugang_reads_the_same_whether_or_not_anyone_may_rob_it() -> None:
    """A held 补杠 (a rob window, or the same pause when nobody can rob) says "⏳ … · X 补杠 T" on the status line,
    and the rob window adds no line of its own: the kong's line comes when it completes, in both cases."""
    from cogs.board import event_line, status_line
    from kwx.present.i18n import tr

    seats = tuple(SeatView(s, PlayerRef(f"p{s}", f"P{s}"), 0, 13) for s in range(3))
    view = PublicView(table_id=1, hand_no=1, step=5, phase="claim", seats=seats, turn_seat=1,
                      claim_tile=Tile.P7, claim_kind="bugang")
    for lang in ("zh-CN", "en"):
        fmt = TileFormatter()
        assert status_line(view, lang, fmt) == tr("board.claims_weighed", lang) + " · " + tr(
            "event.bugang", lang, player="P1", tile=fmt.tile(Tile.P7))
        assert event_line({"kind": "rob_window", "seat": 1, "tile": "7p"}, view, lang, fmt) is None
        assert "P1" in event_line({"kind": "gang", "gang": "bugang", "seat": 1, "tile": "7p"}, view, lang, fmt)
