"""Tables through Discord: slash commands, the lobby, the board, DM panels, full hands (fake Discord, real service)."""

from __future__ import annotations

import re

import pytest

from cogs.fake_discord.kit import Kit, bot_kit, seat_table

EMOJI_TILE = re.compile(r"<:kwx_([1-9][psz])_[0-9a-f]+:\d+>")


@pytest.fixture
async def kit(tmp_path) -> Kit:
    async with bot_kit(tmp_path) as k:
        yield k


async def test_new_opens_a_lobby_whose_buttons_seat_players_and_start_the_game(kit: Kit) -> None:
    out = await kit.slash(kit.alice, "kwx new", rules="xiangyang-capped", base=2)
    assert out.first("response").ephemeral and "第 1 桌" in kit.reply(out)
    (lobby,) = kit.table_messages()
    assert [c.label for c in lobby.components] == ["加入", "离开", "加电脑", "开始"]
    assert "房主：alice" in lobby.embeds[0].description and "(xiangyang-capped) · 底 2" in lobby.embeds[0].description

    join = await kit.press_id(kit.bob, lobby, "kwx:tbl:1:join")
    assert join.answered and not kit.fake.log.ephemerals(kit.bob.id)  # a silent ack: the lobby shows it
    again = await kit.press_id(kit.bob, lobby, "kwx:tbl:1:join")
    assert "你已经在这张牌桌上了" in kit.reply(again)
    refused = await kit.press_id(kit.bob, lobby, "kwx:tbl:1:start")
    assert "只有房主" in kit.reply(refused)
    await kit.slash(kit.carol, "kwx join")
    full = await kit.slash(kit.members[0], "kwx addbot")
    assert "牌桌已满" in kit.reply(full)
    seats = kit.fake.message(lobby.id).embeds[0].fields[0].value
    assert seats.splitlines() == ["1. alice", "2. bob", "3. carol"]

    await kit.press_id(kit.alice, lobby, "kwx:tbl:1:start")
    board = kit.fake.message(lobby.id)  # the lobby message became the board of hand 1
    assert board.embeds[0].title.startswith("第 1 局 · 庄家")
    assert [c.label for c in board.components] == ["我的手牌"]
    for member in kit.members:  # everyone got their hand by DM
        (dm,) = kit.dm_messages(member)
        assert dm.embeds[0].title == "你的手牌 · 第 1 局"


async def test_commands_outside_a_table_and_leaving_the_lobby(kit: Kit) -> None:
    for command in ("kwx join", "kwx start", "kwx hand", "kwx stop", "kwx spectate", "kwx leave"):
        out = await kit.slash(kit.alice, command)
        assert kit.reply(out) == "这个频道没有牌桌。", command
    await kit.slash(kit.alice, "kwx new")
    again = await kit.slash(kit.bob, "kwx new")
    assert kit.reply(again) == "这个频道已经有一张牌桌了。"
    await kit.slash(kit.bob, "kwx join")
    left = await kit.slash(kit.bob, "kwx leave")
    assert "离开了第 1 桌" in kit.reply(left)
    watch = await kit.slash(kit.carol, "kwx spectate")
    assert "旁观牌桌 1" in kit.reply(watch)
    lobby = kit.fake.message(kit.table_messages()[0].id)
    assert "旁观：carol" in "\n".join(f.value for f in lobby.embeds[0].fields)
    assert "bob 离开了牌桌" in lobby.embeds[0].fields[-1].value
    not_yet = await kit.slash(kit.alice, "kwx hand")
    assert kit.reply(not_yet) == "你不在这张牌桌上。"  # no hand before the game starts


async def test_a_full_hand_between_three_humans_pressing_their_dm_buttons(tmp_path) -> None:
    # the finished hand stays on the table to compare
    async with bot_kit(tmp_path, between_hands=60.0) as kit:
        table = await seat_table(kit, kit.members)
        lobby = kit.table_messages()[0]
        await kit.press_id(kit.alice, lobby, f"kwx:tbl:{table}:start")
        presses = await kit.play_hand(kit.members)
        assert presses > 10

        board = kit.board(1)
        assert board.id == lobby.id  # one message for the hand, edited in place
        assert len(kit.fake.log.of("edit", message_id=board.id)) >= presses // 2
        final = board.embeds[0]
        assert final.description.startswith("本局结束")
        hand = kit.service.context.tables[table].hand
        for seat in range(3):  # each seat's discards, in order, as the engine has them
            lines = final.fields[seat].value.splitlines()
            shown = next(line for line in lines if line.startswith("弃牌"))
            expected = [t.compact for t, claimed in hand.discards(seat) if not claimed]
            assert EMOJI_TILE.findall(shown) == expected

        (result,) = kit.results()
        text = "\n".join([result.embeds[0].description] + [f.name + f.value for f in result.embeds[0].fields])
        assert result.embeds[0].title == "第 1 局结果"
        assert "本桌累计" in text and "结算" in text
        for seat in range(3):  # every hand revealed: the reveal's tiles, in order
            revealed = [str(t) for t in hand.concealed(seat)]
            field = result.embeds[0].fields[1 + seat].value
            assert EMOJI_TILE.findall(field)[: len(revealed)] == revealed
        if hand.result.winners:  # a win carries the picture of the winning hand
            assert result.payload["attachments"][0]["filename"].startswith("hand-1-")
            assert result.embeds[0].image.url.startswith("attachment://hand-1-")
            assert kit.fake.log.last("send", message_id=result.id).files[0].data.startswith(b"\x89PNG")
        # every player had one DM panel for the hand, edited in place, that now says how the hand ended
        for member in kit.members:
            (dm,) = kit.dm_messages(member)
            assert len(kit.fake.log.of("edit", message_id=dm.id)) >= 3
            assert not dm.components and not dm.embeds  # the hand is over: one line, no buttons
            assert dm.content.startswith(f"牌桌 {table} · 第 1 局 · 本局结束：") and result.id and \
                f"/{result.id})" in dm.content


async def test_a_hand_against_two_ai_seats(kit: Kit) -> None:
    await seat_table(kit, [kit.alice], ais=2)
    start = await kit.slash(kit.alice, "kwx start")
    assert kit.reply(start) == "牌局开始！"
    await kit.play_hand([kit.alice])
    board = kit.board(1)
    names = [f.name for f in board.embeds[0].fields[:3]]
    assert sum(n.removeprefix("▶ ").startswith("AI ") for n in names) == 2  # an AI seat's name says so itself
    assert not any("（电脑）" in n for n in names)
    assert kit.results()  # the result was posted
    assert kit.board(2).embeds[0].title.startswith("第 2 局")  # and the next hand began by itself


async def test_hand_command_shows_the_panel_privately_and_its_buttons_act(kit: Kit) -> None:
    table = await seat_table(kit, kit.members)
    await kit.slash(kit.alice, "kwx start")
    dealer = next(m for m in kit.members if kit.live_panel(m) is not None)
    out = await kit.slash(dealer, "kwx hand")
    panel = out.first("response")
    assert panel.ephemeral and panel.embeds[0].title == "你的手牌 · 第 1 局"
    ephemeral = kit.fake.message(panel.message_id)
    acts = kit.acts(ephemeral)
    assert {v for v, _, _ in acts} >= {"discard"}
    tile = next(a for v, a, _ in acts if v == "discard")
    pressed = await kit.press(dealer, ephemeral, "discard", tile)
    panel_edits = [r for r in pressed.records if r.kind == "edit" and r.message_id == ephemeral.id]
    assert [r.interaction_id for r in panel_edits] == [pressed.interaction.id]  # the answer replaced it in place
    assert kit.service.public_view_as_shown(table).seats[kit.service.context.tables[table].seat_of(str(dealer.id))].discards


async def test_stop_needs_the_host_or_a_manager_and_closes_the_board(kit: Kit, monkeypatch) -> None:
    await seat_table(kit, kit.members)
    await kit.slash(kit.alice, "kwx start")
    monkeypatch.setattr(type(kit.bot.get_cog("Tables")), "is_manager", staticmethod(lambda interaction: False))
    refused = await kit.slash(kit.bob, "kwx stop")
    assert "只有房主" in kit.reply(refused)
    monkeypatch.setattr(type(kit.bot.get_cog("Tables")), "is_manager", staticmethod(lambda interaction: True))
    stopped = await kit.slash(kit.bob, "kwx stop")
    assert kit.reply(stopped) == "第 1 桌已结束。"
    board = kit.board(1)
    assert board.embeds[0].description.startswith("牌桌已关闭") and board.components == []
    for member in kit.members:  # nobody keeps a live prompt of a closed table
        assert kit.live_panel(member) is None
    assert kit.reply(await kit.slash(kit.alice, "kwx hand")) == "这个频道没有牌桌。"


async def test_a_server_chooses_its_language(kit: Kit, monkeypatch) -> None:
    monkeypatch.setattr(type(kit.bot.get_cog("Tables")), "is_manager", staticmethod(lambda interaction: False))
    out = await kit.slash(kit.alice, "kwx language", language="en")
    assert kit.reply(out) == "只有服务器管理员可以这样做。"
    monkeypatch.setattr(type(kit.bot.get_cog("Tables")), "is_manager", staticmethod(lambda interaction: True))
    out = await kit.slash(kit.alice, "kwx language", language="en")
    assert kit.reply(out) == "This server's language: English"
    await seat_table(kit, [kit.alice], ais=2)
    lobby = kit.table_messages()[0]
    assert [c.label for c in lobby.components] == ["Join", "Leave", "Add AI", "Start"]
    await kit.slash(kit.alice, "kwx start")
    assert kit.board(1).embeds[0].title.startswith("Hand 1 · Dealer")
    assert kit.dm_messages(kit.alice)[0].embeds[0].title == "Your hand · hand 1"
    assert await kit.rt.store.guild_setting(str(kit.world.guild.id), "lang") == "en"


async def test_piao_rules_ask_each_player_for_their_piao_before_the_deal(kit: Kit) -> None:
    await seat_table(kit, [kit.alice, kit.bob], ais=1, rules="xiaogan")
    await kit.slash(kit.alice, "kwx start")
    board = kit.board(1)
    assert board.embeds[0].description.startswith("各家正在选漂")
    for member in (kit.alice, kit.bob):
        panel = kit.live_panel(member)
        assert [a for v, a, _ in kit.acts(panel)] == ["0", "1", "2", "3"]
        assert "选择漂（0–3）" in panel.embeds[0].description
        await kit.press(member, panel, "piao", "2")
    dealt = kit.board(1).embeds[0]
    assert dealt.description.startswith("▶ 轮到")
    assert sum("漂 2" in f.name for f in dealt.fields) == 2  # both picks shown once the hand is dealt
    await kit.play_hand([kit.alice, kit.bob])
    assert kit.results()


async def test_each_channel_or_thread_has_its_own_table(kit: Kit) -> None:
    other = kit.fake.add_text_channel(kit.world.guild, name="mahjong-2")
    await kit.slash(kit.alice, "kwx new")
    out = await kit.fake.slash(kit.bob, other, "kwx new")
    await kit.settle()
    assert "第 2 桌" in kit.reply(out)
    joined = await kit.fake.slash(kit.carol, other, "kwx join")
    assert kit.reply(joined) == "你已在第 2 桌入座。"
    (lobby1,) = kit.fake.channel_messages(kit.channel.id)
    (lobby2,) = kit.fake.channel_messages(other.id)
    assert lobby1.embeds[0].title == "卡五星 · 牌桌 1" and lobby2.embeds[0].title == "卡五星 · 牌桌 2"
    await kit.settle()
    seats2 = kit.fake.message(lobby2.id).embeds[0].fields[0].value.splitlines()
    assert seats2[:2] == ["1. bob", "2. carol"]


async def test_new_takes_the_server_defaults_for_what_it_is_not_given(kit: Kit) -> None:
    guild = str(kit.world.guild.id)
    for key, value in (("rules", "xiangyang-capped"), ("base", "5"), ("turn_seconds", "45")):
        await kit.rt.store.set_guild_setting(guild, key, value)
    await kit.slash(kit.alice, "kwx new", base=2)
    lobby = kit.table_messages()[0]
    assert "(xiangyang-capped) · 底 2" in lobby.embeds[0].description  # the server's rules, the given base
    table = kit.service.context.tables[kit.service.table_in_channel(guild, str(kit.channel.id))]
    assert table.turn_seconds == 45
