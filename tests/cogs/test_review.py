"""/kwx review on the fake Discord: a finished hand, privately, stepped through with buttons answered by
interaction responses; refused for a hand in play, and for a member who did not sit there without Manage Server."""

from __future__ import annotations

import logging
import re

import discord
import pytest

from cogs import fake_discord as fakes
from cogs.fake_discord import MEMBER_PERMISSIONS
from cogs.fake_discord.kit import Kit, bot_kit, seat_table

REST_ROUTES = ("POST /channels", "PATCH /channels", "DELETE /channels")


@pytest.fixture
async def kit(tmp_path):
    async with bot_kit(tmp_path) as k:
        yield k


async def alice_plays_a_hand(kit: Kit) -> int:
    """Alice and two AI seats play hand 1 to the end; hand 2 is then dealt and in play. Returns hand 1's id."""
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.play_hand([kit.alice])
    hand_id = await kit.rt.store.hand_id(table, 1)
    assert hand_id is not None
    return hand_id


def answer(out) -> fakes.Sent:
    found = [r for r in out.records if r.kind in ("response", "followup", "edit")]
    assert found, out.records
    return found[-1]


async def test_a_player_steps_through_their_last_hand_privately(kit: Kit):
    hand_id = await alice_plays_a_hand(kit)
    kit.fake.members_without(manage_guild=False)
    out = await kit.slash(kit.alice, "kwx review")
    reply = answer(out)
    assert reply.ephemeral and f"#{hand_id}" in reply.text and "第 1/" in reply.text
    assert "与电脑一致" in reply.text and "暗牌它一概不看" in reply.text
    steps = int(re.search(r"第 1/(\d+) 步", reply.text).group(1))
    message = kit.fake.message(reply.message_id)
    mark = kit.fake.log.mark()

    out = await kit.press_id(kit.alice, message, message.components[2].custom_id)  # ▶
    assert "第 2/" in kit.fake.message(message.id).embeds[0].description
    last = next(c for c in kit.fake.message(message.id).components if c.custom_id and ":last:" in c.custom_id)
    await kit.press_id(kit.alice, kit.fake.message(message.id), last.custom_id)
    shown = kit.fake.message(message.id).embeds[0].description
    assert f"第 {steps}/{steps} 步" in shown and "结束：" in shown
    picture = next(c for c in kit.fake.message(message.id).components if c.custom_id and ":png:" in c.custom_id)
    out = await kit.press_id(kit.alice, kit.fake.message(message.id), picture.custom_id)
    assert any(f.filename == "review.png" and f.data[:4] == b"\x89PNG" for r in out.records for f in r.files)
    # every press was answered on the interaction, never by a bot-token REST call
    assert not [r for r in kit.fake.log.since(mark) if r.route.startswith(REST_ROUTES) and r.user_id == kit.alice.id
                and r.kind not in ("dm",)]


async def test_a_hand_in_play_cannot_be_reviewed(kit: Kit):
    table = await seat_table(kit, [kit.alice], ais=2)
    await kit.slash(kit.alice, "kwx start")
    await kit.until_asked(kit.alice)
    kit.fake.members_without(manage_guild=False)
    out = await kit.slash(kit.alice, "kwx review")
    reply = answer(out)
    # the refusal alone: no step, no tile, no button
    assert reply.text == "你在本服务器还没有打完的牌局：一手牌打完后才能复盘。" and not reply.embeds
    assert not reply.components and kit.service.public_view_as_shown(table).phase != "finished"


async def test_only_the_players_of_a_hand_or_a_manager_may_review_it(kit: Kit):
    hand_id = await alice_plays_a_hand(kit)
    kit.fake.members_without(manage_guild=False)
    refused = answer(await kit.slash(kit.bob, "kwx review", hand=hand_id))
    assert "只有当局的玩家" in refused.text and not refused.embeds
    kit.fake.member_permissions = MEMBER_PERMISSIONS  # Manage Server again
    allowed = answer(await kit.fake.slash(kit.bob, kit.channel, "kwx review", hand=hand_id, member=kit.alice))
    assert f"#{hand_id}" in allowed.text and "alice 的每个决定" in allowed.text
    missing = answer(await kit.slash(kit.bob, "kwx review", hand=hand_id + 1000))
    assert f"第 #{hand_id + 1000} 手牌" in missing.text


async def test_someone_elses_review_buttons_do_nothing_for_you(kit: Kit):
    await alice_plays_a_hand(kit)
    reply = answer(await kit.slash(kit.alice, "kwx review"))
    message = kit.fake.message(reply.message_id)
    before = message.embeds[0].description
    out = await kit.fake.press(kit.bob, message, message.components[2].custom_id, check=False)
    assert "这是别人的复盘" in out.text
    assert kit.fake.message(message.id).embeds[0].description == before


@pytest.mark.parametrize("hand", [2**63, 2**64 + 5, 10**30])
async def test_a_forged_review_button_for_a_hand_past_any_id_is_answered_privately(kit: Kit, caplog, hand):
    """Nobody sent this button: its hand number is past what the store holds (SQLite's 2^63), and reading it
    raised an OverflowError traceback while the presser waited for nothing."""
    caplog.set_level(logging.WARNING)
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="▶", custom_id=f"kwx:rv:{hand}:0:0:next:{kit.alice.id}"))
    message = kit.fake.message((await kit.channel.send("…", view=view)).id)
    out = await kit.fake.press(kit.alice, message, message.components[0].custom_id, check=False,
                               raise_errors=False)
    reply = answer(out)
    assert reply.ephemeral and "没有在牌桌上打过" in reply.text and not reply.embeds
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
