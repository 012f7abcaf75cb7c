"""Button presses that must not do what they say: closed DMs, stale, foreign, doubled, after the hand."""

from __future__ import annotations

import asyncio

from cogs.fake_discord.kit import ACT, Kit, bot_kit, seat_table


def _table_state(kit: Kit, table: int) -> tuple[int, int]:
    live = kit.service.context.tables[table]
    return live.step, live.seq


async def _started(kit: Kit, humans, ais: int = 0) -> int:
    table = await seat_table(kit, humans, ais=ais)
    await kit.slash(humans[0], "kwx start")
    return table


async def test_closed_dms_are_said_once_and_my_hand_keeps_the_player_playing(tmp_path) -> None:
    async with bot_kit(tmp_path, closed_dms=("bob",)) as kit:
        table = await _started(kit, kit.members)
        notices = [m for m in kit.table_messages() if "私信已关闭" in m.content]
        assert len(notices) == 1 and f"<@{kit.bob.id}>" in notices[0].content and "「我的手牌」" in notices[0].content
        assert kit.fake.log.refused(user_id=kit.bob.id) and kit.fake.log.dms(kit.bob.id) == []

        board = kit.board(1)
        opened = await kit.press_id(kit.bob, board, f"kwx:tbl:{table}:hand")
        panel = opened.first("response")
        assert panel.ephemeral and panel.embeds[0].title == "你的手牌 · 第 1 局"
        assert "你的私信已关闭" in panel.content
        ephemeral_id = panel.message_id

        await kit.play_hand(kit.members, ephemeral_for=[kit.bob])
        # bob opened the panel once; every later prompt was an edit of that same ephemeral message
        bob_panels = [m for m in kit.fake.messages.values()
                      if m.ephemeral_to == kit.bob.id and m.embeds and "你的手牌" in (m.embeds[0].title or "")]
        assert [m.id for m in bob_panels] == [ephemeral_id]
        assert len(kit.fake.log.of("edit", message_id=ephemeral_id)) >= 3
        assert len([m for m in kit.table_messages() if "私信已关闭" in m.content]) == 1  # still only once
        assert kit.fake.log.dms(kit.bob.id) == []


async def test_a_double_press_acts_once_and_the_second_is_told_it_is_stale(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        table = await _started(kit, kit.members)
        dealer = next(m for m in kit.members if kit.live_panel(m) is not None)
        prompt = kit.live_panel(dealer)
        tile = next(a for v, a, _ in kit.acts(prompt) if v == "discard")
        cid = f"kwx:act:{table}:1:{kit.service.context.tables[table].step}:discard:{tile}"
        before = _table_state(kit, table)
        first, second = await asyncio.gather(kit.fake.press(dealer, prompt, cid), kit.fake.press(dealer, prompt, cid))
        await kit.settle()
        step, seq = _table_state(kit, table)
        assert seq == before[1] + 1  # one action in the event log
        answers = sorted([kit.reply(first), kit.reply(second)])
        assert answers[0] == "" and answers[1] == "这个按钮已过期，请用最新的消息。"


async def test_a_press_on_a_past_step_is_refused_and_changes_nothing(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        table = await _started(kit, kit.members)
        dealer = next(m for m in kit.members if kit.live_panel(m) is not None)
        dm_prompt = kit.live_panel(dealer)
        first = await kit.slash(dealer, "kwx hand")  # the same prompt as an ephemeral panel, twice: the bot
        old = kit.fake.message(first.first("response").message_id)  # keeps only the newest one up to date
        mine = await kit.slash(dealer, "kwx hand")
        ephemeral = kit.fake.message(mine.first("response").message_id)
        tile = next(a for v, a, _ in kit.acts(ephemeral) if v == "discard")
        await kit.press(dealer, ephemeral, "discard", tile)
        # the DM panel now shows the hand without buttons
        assert not [c for c in kit.fake.message(dm_prompt.id).components if ACT.fullmatch(c.custom_id or "")]
        before = _table_state(kit, table)
        late = await kit.press_id(dealer, old, old.components[0].custom_id, check=False)  # an old panel's button
        assert kit.reply(late) == "这个按钮已过期，请用最新的消息。"
        assert late.first("response").ephemeral
        assert _table_state(kit, table) == before


async def test_a_press_by_someone_else_is_refused(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice", "bob", "carol", "dave")) as kit:
        table = await _started(kit, kit.members[:3])
        dealer = next(m for m in kit.members if kit.live_panel(m) is not None)
        other = next(m for m in kit.members[:3] if m is not dealer)
        prompt = kit.live_panel(dealer)
        cid = next(c.custom_id for v, _, c in kit.acts(prompt) if v == "discard")
        before = _table_state(kit, table)
        foreign = await kit.press_id(other, prompt, cid, check=False)  # a seated player, someone else's DM
        assert kit.reply(foreign) == "这个按钮不是给你的。"
        stranger = await kit.press_id(kit.members[3], prompt, cid, check=False)
        assert kit.reply(stranger) == "这个按钮不是给你的。"
        hand = await kit.press_id(kit.members[3], kit.board(1), f"kwx:tbl:{table}:hand")
        assert kit.reply(hand) == "你不在这张牌桌上。"
        assert _table_state(kit, table) == before
        assert kit.live_panel(dealer).id == prompt.id  # the real owner's prompt is untouched and still live


async def test_a_press_after_the_hand_ended_is_refused(tmp_path) -> None:
    async with bot_kit(tmp_path, between_hands=60.0) as kit:
        table = await _started(kit, [kit.alice], ais=2)
        await kit.until_asked(kit.alice)
        opened = await kit.slash(kit.alice, "kwx hand")  # an ephemeral panel with this prompt's buttons
        old = kit.fake.message(opened.first("response").message_id)
        newer = await kit.slash(kit.alice, "kwx hand")  # a newer one: the bot keeps only that one up to date
        await kit.play_hand([kit.alice])
        assert not [c for c in kit.fake.message(newer.first("response").message_id).components
                    if ACT.fullmatch(c.custom_id or "")]  # its buttons are gone
        greyed = [c for c in old.components if ACT.fullmatch(c.custom_id or "")]
        before = _table_state(kit, table)
        late = await kit.press_id(kit.alice, old, greyed[0].custom_id, check=False)
        assert kit.reply(late) == "这一局已经结束了。"
        assert _table_state(kit, table) == before
