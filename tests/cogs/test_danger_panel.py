"""The DM panel before costly moves: a tile that wins for another seat's 亮倒 hand is a red ⚠ button with its
cost said (包胡), pressing it asks once (unless the player turned that off), and 亮倒 shows the hand it reveals
and its waits before it is declared."""

from __future__ import annotations

from dataclasses import replace

import discord

from cogs.panels import CONFIRM, panel_buttons, panel_embed
from kwx.engine.tiles import Tile, parse_tiles
from kwx.store.settings import CONFIRM_DANGER
from kwx.table.views import ActionChoice
from tests.cogs.kit import start_kit, stop_kit
from tests.cogs.test_rendering import EMOJIS, _ids, _private

TILES = set(parse_tiles("1123456789p5s7z")) | {Tile.S9}
TURN = tuple(ActionChoice("discard", t) for t in sorted(TILES)) + (ActionChoice("liangdao", Tile.S5),)


def test_a_danger_tile_is_a_red_flagged_button_and_the_panel_says_what_it_costs() -> None:
    view = _private(choices=TURN, danger={Tile.RED: (1,)}, discard_waits={Tile.RED: (Tile.P1,)})
    buttons = panel_buttons(view, "en", EMOJIS)
    red = next(b for b in buttons.children if b.act.verb == "discard" and b.act.arg == "7z")  # type: ignore[attr-defined]
    assert red.item.style == discord.ButtonStyle.danger and "⚠" in (red.item.label or "")
    plain = next(b for b in buttons.children if b.act.arg == "5s")  # type: ignore[attr-defined]
    assert plain.item.style != discord.ButtonStyle.danger
    text = panel_embed(view, "en", EMOJIS).description
    assert "Red buttons win for a laid-down hand" in text and "Sole payer: you alone pay, double" in text
    assert "feeds a laid-down hand" in text  # the ready hint for 7z is not silent about it


def test_the_confirm_panels_for_a_danger_discard_and_for_liangdao() -> None:
    view = _private(choices=TURN, danger={Tile.RED: (1,)}, discard_waits={Tile.S5: (Tile.P1, Tile.P4)})
    ask = panel_buttons(view, "en", EMOJIS, mode=CONFIRM, confirm=ActionChoice("discard", Tile.RED))
    assert [(a.verb, a.arg) for a in _ids(ask)] == [("dok", "7z"), ("dnc", "7z"), ("back", "-")]
    ld = ActionChoice("liangdao", Tile.S5)
    assert [(a.verb, a.arg) for a in _ids(panel_buttons(view, "en", EMOJIS, mode=CONFIRM, confirm=ld))] == [
        ("lok", "5s"), ("back", "-")]
    text = panel_embed(view, "en", EMOJIS, mode=CONFIRM, confirm=ld).description
    assert "Lay down and discard" in text and "waiting on" in text and "<:kwx_9s:" in text  # what is revealed


async def test_pressing_a_danger_tile_asks_first_and_dont_ask_again_is_remembered(tmp_path) -> None:
    kit = await start_kit(tmp_path)
    try:
        await kit.slash(kit.alice, "kwx new")
        for m in (kit.bob, kit.carol):
            await kit.slash(m, "kwx join")
        await kit.slash(kit.alice, "kwx start")
        await kit.settle()
        dealer = next(m for m in kit.members if kit.live_panel(m) is not None)
        panel = kit.live_panel(dealer)
        table = next(iter(kit.service.context.tables))
        real = kit.service.private_view
        held = real(table, str(dealer.id))
        tile = held.drawn or held.concealed[-1]
        kit.service.private_view = lambda t, p: replace(real(t, p), danger={tile: (1,)})  # as if seat 1 laid down
        seq = kit.service.context.tables[table].seq
        await kit.press(dealer, panel, "discard", tile.compact)
        await kit.settle()
        assert kit.service.context.tables[table].seq == seq  # nothing played yet
        asked = kit.fake.message(panel.id)
        assert {v for v, _, _ in kit.acts(asked)} == {"dok", "dnc", "back"}
        assert "包胡" in asked.embeds[0].description
        await kit.press(dealer, asked, "dnc")  # discard, and don't ask again
        await kit.settle()
        assert kit.service.context.tables[table].seq == seq + 1
        assert await kit.rt.store.player_setting(kit.rt.frontend.table_guild(table), str(dealer.id),
                                                 CONFIRM_DANGER) == "off"
    finally:
        await stop_kit(kit)
