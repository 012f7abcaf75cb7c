"""The DM panel as a 雀魂 player expects it: the table in one line on every prompt, live waits counted, 摸切,
auto-pass, a warned 直杠 feed, and one line at the end of the hand."""

from __future__ import annotations

import gc

import discord
import pytest

from cogs.buttons import ActButton
from cogs.fake_discord.kit import Kit, bot_kit, seat_table
from cogs.panels import CONFIRM, LIANGDAO, hand_over_line, panel_buttons, panel_embed
from kwx.engine.tiles import Tile, parse_tiles
from kwx.store.settings import AUTO_PASS_CLAIMS
from kwx.table.advice import FEED_KONG, Gain, MoveWarning
from kwx.table.deal import Deal
from kwx.table.views import (
    ActionChoice,
    PlayerRef,
    PrivateView,
    PublicView,
    ResultView,
    SeatView,
    WinnerView,
)
from tests.support.hands import build_wall
from tests.support.panels import EMOJIS

PLAYERS = (PlayerRef("1", "alice"), PlayerRef("2", "bob"), PlayerRef("3", "carol"))


def _board(**kw) -> PublicView:
    seats = tuple(SeatView(i, p, 0, 13) for i, p in enumerate(PLAYERS))
    return PublicView(**({"table_id": 7, "hand_no": 3, "step": 40, "phase": "claim", "seats": seats,
                          "wall_remaining": 31} | kw))


def _view(**kw) -> PrivateView:
    base = dict(table_id=7, hand_no=3, step=40, seat=0, player_id="1", concealed=tuple(parse_tiles("1123456789p5s7z")),
                drawn=None, melds=(), choices=(), wall_remaining=31)
    return PrivateView(**(base | kw))


def test_a_claim_offer_says_who_discarded_it_the_wall_and_each_declared_hands_waits() -> None:
    seats = list(_board().seats)
    seats[2] = SeatView(2, PLAYERS[2], 0, 10, liangdao=True, waits=(Tile.P4, Tile.P7))
    board = _board(seats=tuple(seats), turn_seat=1, claim_tile=Tile.P2, claim_kind="discard")
    view = _view(claim_tile=Tile.P2, last_discard=(1, Tile.P2), choices=(ActionChoice("peng"), ActionChoice("pass")))
    first = panel_embed(view, "zh-CN", EMOJIS, board=board).description.splitlines()[0]
    assert first.startswith("bob 打出 <:kwx_2p:")
    assert "牌墙剩 31" in first and "carol 亮倒听 <:kwx_4p:" in first
    en = panel_embed(view, "en", EMOJIS, board=board).description.splitlines()[0]
    assert en.startswith("bob discards <:kwx_2p:") and "wall 31" in en and "carol laid down, waiting on" in en


def test_waits_hints_count_the_copies_still_unseen_and_the_livest_discard_comes_first() -> None:
    view = _view(drawn=Tile.S9, choices=(ActionChoice("discard", Tile.S5), ActionChoice("discard", Tile.S9)),
                 discard_waits={Tile.S5: (Tile.P3,), Tile.S9: (Tile.P1, Tile.P4)},
                 unseen={Tile.P3: 3, Tile.P1: 0, Tile.P4: 1})
    lines = panel_embed(view, "zh-CN", EMOJIS).description.splitlines()
    hints = [x for x in lines if x.startswith("打 ")]
    assert hints[0].startswith("打 <:kwx_5s:") and hints[0].endswith("(3)")  # 3 live beats 1 live over two kinds
    assert "<:kwx_1p:1234567890123456789>(0)" in hints[1] and hints[1].endswith("(1)")


def test_a_tile_that_feeds_a_declared_hands_kong_is_marked_and_the_question_names_the_cost() -> None:
    choices = (ActionChoice("discard", Tile.P1), ActionChoice("discard", Tile.S9))
    kong = MoveWarning("discard", Tile.P1, FEED_KONG, (Gain(2, 4),))  # the service's fact (kwx.table.advice)
    view = _view(drawn=Tile.P1, choices=choices, kong_feed={Tile.P1: (2, 4)}, warnings=(kong,))
    shown = panel_buttons(view, "zh-CN", EMOJIS)
    assert shown is not None
    buttons = {b.act.verb + b.act.arg: b.item for b in shown.children if isinstance(b, ActButton)}
    assert buttons["discard1p"].style == discord.ButtonStyle.danger and buttons["discard1p"].label == "⚠"
    assert buttons["mq1p"].style == discord.ButtonStyle.danger  # 摸切 of that tile is the same discard
    assert buttons["discard9s"].style != discord.ButtonStyle.danger
    assert "杠口牌" in panel_embed(view, "zh-CN", EMOJIS).description
    asked = panel_embed(view, "zh-CN", EMOJIS, mode=CONFIRM, confirm=ActionChoice("discard", Tile.P1),
                        board=_board(phase="turn")).description
    assert "会让亮倒的 carol 直杠：你付 4，carol 再摸一张。" in asked


def test_the_end_of_hand_line_names_the_winner_the_way_and_the_players_net() -> None:
    board = _board(phase="finished")
    won = ResultView(table_id=7, hand_no=3, outcome="win", payments=(), scores=(0, 0, 0), hands=(),
                     winners=(WinnerView(1, PLAYERS[1], 2, (), Tile.S5, True, None),), net=(-2, 4, -2))
    assert hand_over_line(won, board, 0, "zh-CN", EMOJIS).startswith("牌桌 7 · 第 3 局 · 本局结束：bob 自摸 <:kwx_5s:")
    assert hand_over_line(won, board, 0, "zh-CN", EMOJIS).endswith(" · 你 −2")
    assert hand_over_line(won, board, 1, "en", EMOJIS).startswith("Table 7 · hand 3 · over: you won by self-draw on")
    assert hand_over_line(won, board, 1, "en", EMOJIS).endswith(" · you +4")
    on = ResultView(table_id=7, hand_no=3, outcome="win", payments=(), scores=(0, 0, 0), hands=(), net=(-4, 4, 0),
                    winners=(WinnerView(1, PLAYERS[1], 2, (), Tile.S5, False, 0),))
    assert "bob 胡你打出的 <:kwx_5s:" in hand_over_line(on, board, 0, "zh-CN", EMOJIS)
    draw = ResultView(table_id=7, hand_no=3, outcome="draw", payments=(), scores=(0, 0, 0), hands=(), winners=(),
                      net=(0, 0, 0))
    # a drawn hand goes by the word the board and the result post use (荒庄), not a second one (流局)
    assert "本局结束：荒庄 · 你 0" in hand_over_line(draw, board, 2, "zh-CN", EMOJIS)
    assert "over: exhaustive draw · you 0" in hand_over_line(draw, board, 2, "en", EMOJIS)


# -- through Discord: alice deals (seat 0) and may 碰 bob's 5p; carol draws 9p after it -------------------------
HANDS = ("12355p12345678s7z", "44668877s5566z3p", "113346789p179s5z")


@pytest.fixture
async def kit(tmp_path, monkeypatch) -> Kit:
    async with bot_kit(tmp_path, deal=Deal.scripted(build_wall(*HANDS, draws="5p 9p 1p 5p", back="9s"))) as k:
        yield k


async def test_auto_pass_passes_a_claim_at_once_and_mo_qie_discards_the_draw(kit: Kit) -> None:
    alice, bob, carol = kit.members
    table = await seat_table(kit, kit.members)
    await kit.slash(alice, "kwx start")
    await kit.settle()
    panel = kit.live_panel(alice)
    await kit.press(alice, panel, "ap")  # auto-pass on: the panel says so and the store keeps it
    assert any(c.label == "自动过：开" for c in kit.fake.message(panel.id).components)
    assert await kit.rt.store.player_setting(str(kit.world.guild.id), str(alice.id), AUTO_PASS_CLAIMS) == "on"
    await kit.press(alice, kit.live_panel(alice), "discard", "7z")
    await kit.settle()
    await kit.press(bob, kit.live_panel(bob), "discard", "5p")  # alice could 碰 it
    await kit.settle()
    assert kit.live_panel(alice) is None  # passed for her, never shown
    assert [m.kind for m in kit.service.public_view_as_shown(table).seats[0].melds] == []
    turn = kit.live_panel(carol)
    assert turn is not None  # carol drew: her prompt says who discarded what
    assert kit.fake.message(turn.id).embeds[0].description.startswith("bob 打出 <:kwx_5p")
    await kit.press(carol, turn, "mq", "9p")  # 摸切
    await kit.settle()
    assert kit.service.public_view_as_shown(table).seats[2].discards[-1] == Tile.P9


def test_the_liangdao_picks_say_what_each_would_wait_on_and_declared_waits_have_their_counts() -> None:
    from dataclasses import replace

    choices = (ActionChoice("discard", Tile.P1), ActionChoice("liangdao", Tile.P1), ActionChoice("liangdao", Tile.S5))
    view = _view(drawn=Tile.S9, choices=choices, discard_waits={Tile.P1: (Tile.S5,), Tile.S5: (Tile.P1, Tile.P4)},
                 unseen={Tile.S5: 2, Tile.P1: 0, Tile.P4: 3, Tile.S8: 1}, last_discard=(1, Tile.P2))
    picks = panel_embed(view, "zh-CN", EMOJIS, mode=LIANGDAO).description
    assert "打 <:kwx_5s:" in picks and "听 <:kwx_1p:1234567890123456789>(0) <:kwx_4p:" in picks
    seats = list(_board(phase="turn").seats)
    seats[2] = replace(seats[2], liangdao=True, waits=(Tile.S8,))
    text = panel_embed(view, "zh-CN", EMOJIS, board=_board(phase="turn", seats=tuple(seats))).description
    assert "carol 亮倒听 <:kwx_8s:" in text and ">(1)" in text.split("carol 亮倒听")[1].split("\n")[0]


async def test_a_press_the_panel_no_longer_edits_through_is_freed_at_once_not_left_to_the_collector(kit: Kit) -> None:
    """discord.py's Interaction and its response point at each other: a dropped press would wait for a full
    garbage-collector pass (a stall of every table) unless the panel releases it."""
    alice = kit.members[0]
    await seat_table(kit, kit.members)
    await kit.slash(alice, "kwx start")
    await kit.settle()
    gc.disable()
    try:
        first = (await kit.press(alice, kit.live_panel(alice), "ap")).interaction.token
        await kit.settle()
        assert _interactions(first), "still the panel's token: kept"
        await kit.press(alice, kit.live_panel(alice), "discard", "7z")  # its token edits the panel now
        await kit.settle()
        assert not _interactions(first)
    finally:
        gc.enable()


async def test_a_press_whose_token_still_edits_the_panel_is_kept_until_it_does_no_more(kit: Kit) -> None:
    """Three people play rounds: each panel is edited through its owner's last press long after that press was
    answered. Released too early, the press would forget it was answered and answer again: Discord refuses that
    (40060, an invalid request) and the edit falls back to the bot's own token."""
    await seat_table(kit, kit.members)
    await kit.slash(kit.alice, "kwx start")
    await kit.settle()
    for _ in range(9):
        for member in kit.members:
            panel = kit.live_panel(member)
            if panel is not None:
                await kit.play_turn(member, panel)
                await kit.settle()
    assert [(r.kind, r.error) for r in kit.fake.log if r.kind == "refused"] == []


def _interactions(token: str) -> list[discord.Interaction]:
    return [o for o in gc.get_objects() if isinstance(o, discord.Interaction) and o.token == token]
