"""The DM panel before costly moves: a tile that wins for another seat's 亮倒 hand is a red ⚠ button with its
cost said (who wins, what you pay, from the engine's payments), pressing it asks once (unless the player turned that off), and 亮倒 shows the hand it reveals
and its waits before it is declared."""

from __future__ import annotations

import discord

from cogs.fake_discord.kit import bot_kit, seat_table
from cogs.panels import CONFIRM, panel_buttons, panel_embed
from kwx.engine.tiles import Tile
from kwx.store.settings import CONFIRM_DANGER
from kwx.table.advice import FEED_WIN, Gain, MoveWarning
from kwx.table.deal import Deal
from kwx.table.views import ActionChoice
from tests.support.hands import build_wall
from tests.support.panels import EMOJIS, TURN, act_ids, panel_view

FEEDS_RED = (MoveWarning("discard", Tile.RED, FEED_WIN, (Gain(1, 8),), baohu=True),)  # the service's fact


def test_a_danger_tile_is_a_red_flagged_button_and_the_panel_says_what_it_costs() -> None:
    view = panel_view(choices=TURN, danger={Tile.RED: (1,)}, discard_waits={Tile.RED: (Tile.P1,)}, warnings=FEEDS_RED)
    buttons = panel_buttons(view, "en", EMOJIS)
    red = next(b for b in buttons.children if b.act.verb == "discard" and b.act.arg == "7z")  # type: ignore[attr-defined]
    assert red.item.style == discord.ButtonStyle.danger and "⚠" in (red.item.label or "")
    plain = next(b for b in buttons.children if b.act.arg == "5s")  # type: ignore[attr-defined]
    assert plain.item.style != discord.ButtonStyle.danger
    text = panel_embed(view, "en", EMOJIS).description
    assert "Red buttons win for a laid-down hand" in text
    assert "feeds a laid-down hand" in text  # the ready hint for 7z is not silent about it
    asked = panel_embed(view, "en", EMOJIS, mode=CONFIRM, confirm=ActionChoice("discard", Tile.RED)).description
    assert "win: sole payer, you alone pay 8 (double)" in asked


def test_the_confirm_panels_for_a_danger_discard_and_for_liangdao() -> None:
    view = panel_view(choices=TURN, danger={Tile.RED: (1,)}, discard_waits={Tile.S5: (Tile.P1, Tile.P4)},
                    warnings=FEEDS_RED)
    ask = panel_buttons(view, "en", EMOJIS, mode=CONFIRM, confirm=ActionChoice("discard", Tile.RED))
    assert [(a.verb, a.arg) for a in act_ids(ask)] == [("dok", "7z"), ("dnc", "7z"), ("back", "-")]
    ld = ActionChoice("liangdao", Tile.S5)
    assert [(a.verb, a.arg) for a in act_ids(panel_buttons(view, "en", EMOJIS, mode=CONFIRM, confirm=ld))] == [
        ("lok", "5s"), ("back", "-")]
    text = panel_embed(view, "en", EMOJIS, mode=CONFIRM, confirm=ld).description
    assert "Lay down and discard" in text and "waiting on" in text and "<:kwx_9s:" in text  # what is revealed


# alice deals (seat 0) and lays down on 7z, waiting on 5s; bob (seat 1) draws 9p holding a 5s (胡口牌)
FEED = ("123p456p789p123s5s7z", "44668899s5566z5s", "1122456789p117s")


async def test_pressing_a_danger_tile_asks_first_with_its_cost_and_dont_ask_again_is_remembered(
        tmp_path, monkeypatch) -> None:
    async with bot_kit(tmp_path, deal=Deal.scripted(build_wall(*FEED, draws="9p"))) as kit:
        alice, bob, _ = kit.members
        table = await seat_table(kit, kit.members)
        await kit.slash(alice, "kwx start")
        await kit.settle()
        await kit.press(alice, kit.live_panel(alice), "ld")
        await kit.press(alice, kit.live_panel(alice), "liangdao", "7z")
        await kit.press(alice, kit.live_panel(alice), "lok", "7z")
        panel = await kit.until_asked(bob)
        assert "⚠" in next(c.label or "" for c in panel.components if (c.custom_id or "").endswith(":discard:5s"))
        seq = kit.service.context.tables[table].seq
        await kit.press(bob, panel, "discard", "5s")
        assert kit.service.context.tables[table].seq == seq  # nothing played yet
        asked = kit.fake.message(panel.id)
        assert {v for v, _, _ in kit.acts(asked)} == {"dok", "dnc", "back"}
        cost = kit.service.private_view_as_shown(table, str(bob.id)).warnings[0].cost
        # who wins and what it costs, as the engine will charge it: 包胡, alice's win twice over
        assert f"会让亮倒的 alice 胡牌：包胡，你一个人付 {cost}（翻倍）" in asked.embeds[0].description
        await kit.press(bob, asked, "dnc")  # discard, and don't ask again
        assert kit.service.context.tables[table].seq == seq + 1
        assert await kit.rt.store.player_setting(str(kit.world.guild.id), str(bob.id), CONFIRM_DANGER) == "off"


def test_a_winning_draw_is_named_with_what_it_wins() -> None:
    view = panel_view(choices=(*TURN, ActionChoice("hu")), drawn=Tile.S9, zimo_gain=8)
    text = panel_embed(view, "zh-CN", EMOJIS).description
    assert "你摸到 <:kwx_9s:" in text and "可以自摸：赢 8。" in text and "轮到你出牌" not in text


# alice deals and discards 7p; bob lays down on 3s waiting on 5p; carol draws 5p and may lay down discarding it
LAY_DOWN_FEEDS = ("57899p23s555z666z7z", "12346p789s111s77z", "123p678p234s567s9s")


async def test_a_liangdao_discard_that_feeds_a_declared_hand_is_asked_as_an_ordinary_win_at_its_price(
        tmp_path) -> None:
    """A 亮倒 discard counts as declared: the declared hand it feeds wins an ordinary win on a discard (no 包胡),
    and the question says so, with what the result then charges."""
    async with bot_kit(tmp_path, deal=Deal.scripted(build_wall(*LAY_DOWN_FEEDS, draws="3s 5p"))) as kit:
        alice, bob, carol = kit.members
        await seat_table(kit, kit.members)
        await kit.slash(alice, "kwx start")
        await kit.settle()
        await kit.press(alice, kit.live_panel(alice), "discard", "7p")
        await kit.press(bob, kit.live_panel(bob), "ld")
        await kit.press(bob, kit.live_panel(bob), "liangdao", "3s")
        await kit.press(bob, kit.live_panel(bob), "lok", "3s")
        panel = await kit.until_asked(carol)
        await kit.press(carol, panel, "ld")
        await kit.press(carol, kit.fake.message(panel.id), "liangdao", "5p")
        asked = kit.fake.message(panel.id).embeds[0].description or ""
        assert "打出 <:kwx_5p" in asked and "会让亮倒的 bob 胡牌：你付 4。" in asked and "包胡" not in asked
        await kit.press(carol, kit.fake.message(panel.id), "lok", "5p")
        await kit.press(bob, await kit.until_asked(bob), "hu")
        await kit.until(lambda: kit.results())
        payments = next(f.value for f in kit.results()[-1].embeds[0].fields if f.name == "结算")
        assert payments == "carol → bob：底 1 × 4 番 = **4**"  # what the question said, and no 包胡
