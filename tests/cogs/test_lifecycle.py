"""Tables that end, through Discord: a table nobody plays pauses (Resume button), no DM per move made for a
player in 托管, leaving a running game, /kwx tables and /kwx stop <id>, caps, and channels, threads and servers
that go away (fake Discord, real service and store, a fake clock for the table timers)."""

from __future__ import annotations

import pytest

from cogs.fake_discord import discord_error
from cogs.fake_discord.kit import (
    Kit,
    bot_kit,
    count_failures,
    dispatch,
    seat_table,
)
from tests.support.clock import FakeClock


@pytest.fixture
async def kit(tmp_path) -> Kit:
    async with bot_kit(tmp_path, clock=FakeClock()) as k:  # the table timers run on a clock the test moves
        yield k


async def until_paused(kit: Kit, table: int, rounds: int = 200) -> None:
    """Nobody answers: move the clock past every deadline until the table pauses."""
    for _ in range(rounds):
        await kit.settle()
        view = kit.service.public_view_as_shown(table)
        if view.paused is not None:
            await kit.settle()  # the pause is written before the hand's result is sent: let that go out too
            return
        kit.clock.advance(31)
        await kit.service.idle()
    raise AssertionError("the table never paused")


async def test_an_abandoned_table_pauses_after_one_hand_and_resumes_by_its_button(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await until_paused(kit, table)
    assert len(kit.results()) == 1 and await kit.rt.store.hand_numbers(table) == [1]
    dms = len(kit.fake.log.dms(kit.alice.id))
    assert dms == 1  # the deal: her prompts after a timeout edit it, and none per move the AI made for her
    board = kit.board(1)
    assert "已暂停" in board.embeds[0].description or "已暂停" in (board.embeds[0].fields[0].value
                                                                   if board.embeds[0].fields else "")
    resume = next(c for c in board.components if c.custom_id == f"kwx:tbl:{table}:resume")
    kit.clock.advance(3600 * 0.2)
    await kit.service.idle()
    await kit.settle()
    assert len(kit.results()) == 1  # paused: nothing moves
    refused = await kit.press_id(kit.bob, board, resume.custom_id)  # not a player of this table
    assert "不在" in kit.reply(refused) or "你" in kit.reply(refused)
    assert kit.service.public_view_as_shown(table).paused == "nobody"
    await kit.press_id(kit.alice, board, resume.custom_id)
    assert kit.service.public_view_as_shown(table).paused is None
    assert not kit.service.public_view_as_shown(table).seats[0].autoplay  # she is back


async def test_a_player_who_lets_her_turn_time_out_keeps_one_panel_for_the_hand(kit: Kit) -> None:
    """Her prompt timed out: the next ones edit that DM (its buttons work; no new DM, no ping). Once she acts
    again, her next prompt edits the same panel too: one DM per hand."""
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.settle()
    live = kit.service.context.tables[table]
    alice = str(kit.alice.id)
    (deal,) = kit.fake.log.dms(kit.alice.id)
    for _ in range(20):  # her first prompt times out
        if live.timeouts[alice] and kit.live_panel(kit.alice) is not None:
            break
        kit.clock.advance(31)
        await kit.service.idle()
        await kit.settle()
    assert live.timeouts[alice] == 1 and alice not in live.autoplay
    assert len(kit.fake.log.dms(kit.alice.id)) == 1  # the deal's DM only: her new prompt edited it
    panel = kit.live_panel(kit.alice)
    assert panel.id == deal.message_id
    await kit.play_smart(kit.alice, panel)  # she is back
    assert live.timeouts[alice] == 0
    for _ in range(20):  # the AI seats play on to her next prompt
        if kit.live_panel(kit.alice) is not None or kit.results():
            break
        kit.clock.advance(31)
        await kit.service.idle()
        await kit.settle()
    assert not kit.results()
    dms = kit.fake.log.dms(kit.alice.id)
    assert len(dms) == 1 and kit.live_panel(kit.alice).id == deal.message_id  # the hand's one panel, edited


async def test_my_hand_ends_autoplay_and_resumes_a_table_paused_for_her(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await until_paused(kit, table)
    seat = kit.service.context.tables[table].seat_of(str(kit.alice.id))
    assert kit.service.public_view_as_shown(table).seats[seat].autoplay
    await kit.slash(kit.alice, "kwx hand")
    view = kit.service.public_view_as_shown(table)
    assert not view.seats[seat].autoplay and view.paused is None


def test_the_board_offers_unautoplay_while_a_seat_is_in_autoplay() -> None:
    from dataclasses import replace

    from cogs.board import board_buttons
    from kwx.table.views import PlayerRef, PublicView, SeatView

    seats = tuple(SeatView(i, PlayerRef(str(i), f"p{i}"), 0, 13, autoplay=i == 1) for i in range(3))
    view = PublicView(7, 1, 5, "turn", seats, turn_seat=0)
    ids = [c.custom_id for c in board_buttons(view, "zh-CN").children]
    assert ids == ["kwx:tbl:7:hand", "kwx:tbl:7:unauto"]
    ids = [c.custom_id for c in board_buttons(replace(view, phase="finished", paused="nobody"), "en").children]
    assert ids == ["kwx:tbl:7:resume"]


async def test_a_seated_player_leaves_at_the_end_of_the_hand_and_someone_takes_the_seat(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
    await kit.slash(kit.alice, "kwx start")
    out = await kit.slash(kit.bob, "kwx leave")
    assert "本局结束后离开" in kit.reply(out)
    await kit.play_hand([kit.alice])  # the AI plays Bob's seat meanwhile
    await kit.settle()
    assert kit.service.public_view_as_shown(table).paused == "seat_empty"
    await kit.slash(kit.carol, "kwx join")
    await kit.settle()
    view = kit.service.public_view_as_shown(table)
    assert view.paused is None
    assert str(kit.carol.id) in {s.player.player_id for s in view.seats} | {
        p.player_id for p in kit.service.context.tables[table].players.values() if p.player_id == str(kit.carol.id)}


async def test_tables_lists_them_and_stop_takes_an_id(kit: Kit, monkeypatch) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    listing = await kit.fake.slash(kit.bob, kit.channel, "kwx tables")
    embed = listing.first("response").embeds[0]
    assert f"#{table}" in embed.description and "alice" in embed.description
    monkeypatch.setattr(type(kit.bot.get_cog("Tables")), "is_manager", staticmethod(lambda interaction: False))
    refused = await kit.slash(kit.bob, "kwx stop", table_id=table)
    assert "只有房主" in kit.reply(refused)
    assert "没有" in kit.reply(await kit.slash(kit.alice, "kwx stop", table_id=table + 50))
    stopped = await kit.slash(kit.alice, "kwx stop", table_id=table)
    assert kit.reply(stopped) == f"第 {table} 桌已结束。"
    summary = [m for m in kit.table_messages() if m.embeds and "已关闭" in (m.embeds[0].title or "")]
    assert summary, "the close summary is posted in the channel"


async def test_caps_refuse_a_third_hosted_table(kit: Kit) -> None:
    channels = [kit.channel] + [kit.fake.add_text_channel(kit.world.guild) for _ in range(2)]
    for channel in channels[:2]:
        await kit.fake.slash(kit.alice, channel, "kwx new")
    third = await kit.fake.slash(kit.alice, channels[2], "kwx new")
    assert "上限" in kit.reply(third)
    assert len(kit.service.table_infos(str(kit.world.guild.id))) == 2


async def test_a_deleted_channel_closes_its_table_and_the_host_gets_the_summary(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.settle()
    cid = kit.channel.id
    kit.fake.delete_channel(cid)
    kit.fake.inject("PATCH", "/channels/{channel_id}/messages/{message_id}",
                    discord_error(404, 10003, "Unknown Channel"), times=1000)
    failed = count_failures(kit, cid)
    await dispatch(kit, "guild_channel_delete", kit.channel)
    assert table not in kit.service.tables()
    assert await kit.rt.store.hand_numbers(table) == []  # the hand in play is abandoned
    assert failed[0] <= 3
    summary = [m for m in kit.dm_messages(kit.alice) if m.embeds and "已关闭" in (m.embeds[0].title or "")]
    assert summary


async def test_revoked_permissions_pause_the_table_and_tell_the_host_once(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.settle()
    cid = kit.channel.id
    kit.fake.forbid_channel(cid)
    kit.fake.inject("PATCH", "/channels/{channel_id}/messages/{message_id}",
                    discord_error(403, 50013, "Missing Permissions"), times=1000)
    failed = count_failures(kit, cid)
    dms = len(kit.fake.log.dms(kit.alice.id))
    for _ in range(40):  # the table goes on (timeouts, AI) until a board update fails
        kit.clock.advance(31)
        await kit.service.idle()
        await kit.settle()
        if kit.service.public_view_as_shown(table).paused is not None:
            break
    assert kit.service.public_view_as_shown(table).paused == "channel_lost"
    for _ in range(10):
        kit.clock.advance(31)
        await kit.service.idle()
        await kit.settle()
    assert 1 <= failed[0] <= 3
    told = [m for m in kit.fake.log.dms(kit.alice.id)[dms:] if "已暂停" in (m.text or "")]
    assert len(told) == 1


async def test_the_bot_removed_from_a_server_closes_its_tables(kit: Kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await dispatch(kit, "guild_remove", kit.world.guild)
    assert table not in kit.service.tables()
