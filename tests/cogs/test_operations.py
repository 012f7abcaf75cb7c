"""The safe wrappers swallow what Discord answers (Forbidden, NotFound, 5xx) and report it: the bot token's calls
(`Rest`) as a `Failed` carrying the error, the interaction wrappers as None/False."""

from __future__ import annotations

import logging

import discord
import pytest

from cogs import operations as ops
from cogs.fake_discord import World, discord_error, make_world

rest = ops.Rest()


def failed(answer: object) -> bool:
    return isinstance(answer, ops.Failed)


@pytest.fixture
async def world() -> World:
    w = await make_world(names=("alice", "bob", "carol"), closed_dms=("bob",))
    yield w
    await w.fake.close()


async def test_a_dm_is_delivered_to_open_dms_and_fails_as_dms_closed_for_closed(world: World, caplog) -> None:
    alice, bob = world.members[0], world.members[1]
    msg = await rest.send_dm(alice, content="手牌")
    assert not failed(msg) and world.fake.log.dms(alice.id)[0].content == "手牌"
    with caplog.at_level(logging.INFO, logger="cogs.operations"):
        assert ops.dms_closed(await rest.send_dm(bob, content="手牌"))
    assert world.fake.log.refused(user_id=bob.id)[0].error == 50007
    assert any("does not accept DMs" in r.message and r.levelno == logging.INFO for r in caplog.records)


async def test_a_channel_post_fails_as_channel_lost_when_the_bot_may_not_post(world: World) -> None:
    assert not failed(await rest.send_channel(world.channel, content="board"))
    world.fake.forbid_channel(world.channel.id)
    assert ops.channel_lost(await rest.send_channel(world.channel, content="board"))


async def test_server_errors_are_retried_then_swallowed(world: World, monkeypatch) -> None:
    monkeypatch.setattr(ops, "RETRY_DELAYS", (0.0, 0.0))
    world.fake.inject("POST", "/channels/{channel_id}/messages", discord_error(503, 0, "Service Unavailable"))
    assert not failed(await rest.send_channel(world.channel, content="board"))  # the retry went through
    world.fake.inject("POST", "/channels/{channel_id}/messages", discord_error(503, 0, "Service Unavailable"),
                      times=3)
    assert ops.transient(await rest.send_channel(world.channel, content="board"))  # three tries, all refused
    assert not failed(await rest.send_channel(world.channel, content="board"))  # next one goes through


async def test_a_429_that_outlasts_discord_py_is_tried_again_not_lost(world: World, monkeypatch) -> None:
    # discord.py gives up after five 429s in a row and raises; the prompt to a player must still arrive.
    monkeypatch.setattr(ops, "RETRY_DELAYS", (0.0, 0.0))
    world.fake.inject("POST", "/channels/{channel_id}/messages", discord_error(429, 0, "You are being rate limited."),
                      times=5)
    assert not failed(await rest.send_channel(world.channel, content="your turn"))


async def test_bugs_in_our_arguments_still_raise(world: World) -> None:
    with pytest.raises(TypeError):
        await rest.send_channel(
            world.channel, content="x", embed=discord.Embed(), embeds=[discord.Embed()]
        )


async def test_safe_edit_of_a_deleted_message(world: World) -> None:
    msg = await world.channel.send("board")
    edited = await rest.edit(msg, content="board 2")
    assert not failed(edited) and world.fake.message(msg.id).content == "board 2"
    world.fake.delete_message(msg.id)
    assert ops.message_gone(await rest.edit(msg, content="board 3"))


async def test_safe_fetches(world: World) -> None:
    msg = await world.channel.send("board")
    assert (await rest.fetch_message(world.channel, msg.id)).content == "board"
    world.fake.delete_message(msg.id)
    assert await rest.fetch_message(world.channel, msg.id) is None
    assert await rest.fetch_channel(world.fake.client, world.channel.id) is world.channel
    assert (await rest.fetch_user(world.fake.client, world.members[0].id)).name == "alice"
    assert await rest.fetch_user(world.fake.client, 424242) is None


async def test_safe_defer_answers_once_and_never_raises(world: World) -> None:
    inter = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    assert await ops.safe_defer(inter, ephemeral=True) is True
    assert await ops.safe_defer(inter) is False
    assert [r.kind for r in world.fake.log] == ["defer"]
    late = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    world.fake.expire(late)
    assert await ops.safe_defer(late) is False


async def test_safe_respond_uses_the_response_then_followups_and_stays_ephemeral(world: World) -> None:
    alice = world.members[0]
    inter = world.fake.slash_interaction(alice, world.channel, "kwx")
    assert await ops.safe_respond(inter, content="还没轮到你。", ephemeral=True)
    assert await ops.safe_respond(inter, content="again", ephemeral=True)
    assert [(r.kind, r.content) for r in world.fake.log.ephemerals(alice.id)] == [
        ("response", "还没轮到你。"),
        ("followup", "again"),
    ]
    assert world.fake.log.public(world.channel.id) == []
    world.fake.expire(inter)
    assert await ops.safe_respond(inter, content="late") is False


async def test_safe_followup_before_any_response_is_none(world: World) -> None:
    inter = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    assert await ops.safe_followup(inter, content="x") is None
    await inter.response.defer()
    assert (await ops.safe_followup(inter, content="x")).content == "x"


async def test_safe_update_message_edits_the_pressed_message(world: World) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="碰", custom_id="t:pung"))
    msg = await world.channel.send("claim?", view=view)
    inter = world.fake.button_interaction(world.members[0], msg, "t:pung")
    assert await ops.safe_update_message(inter, content="pung!", view=None)
    assert world.fake.message(msg.id).content == "pung!" and world.fake.message(msg.id).components == []
    # answered already: the wrapper edits the original response instead
    assert await ops.safe_update_message(inter, content="pung!!")
    assert world.fake.message(msg.id).content == "pung!!"


async def test_safe_original_response_and_edit_original(world: World) -> None:
    inter = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    assert await ops.safe_original_response(inter) is None  # nothing sent yet
    await inter.response.defer(thinking=True)
    edited = await ops.safe_edit_original(inter, content="ready")
    assert edited is not None and (await ops.safe_original_response(inter)).content == "ready"
    other = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    await other.response.send_message("hi")
    world.fake.expire(other)  # (discord.py caches a fetched original response, so use a fresh interaction)
    assert await ops.safe_original_response(other) is None
