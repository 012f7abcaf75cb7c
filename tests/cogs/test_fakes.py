"""The fake Discord behaves like Discord where our cogs will notice: DMs, edits, responses, buttons."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from cogs.fake_discord import FakeDiscord, World, make_world


@pytest.fixture
async def world() -> World:
    w = await make_world(names=("alice", "bob", "carol"), closed_dms=("bob",))
    yield w
    await w.fake.close()


async def test_dm_to_open_user_is_recorded_with_recipient(world: World) -> None:
    alice = world.members[0]
    msg = await alice.send("你的手牌")
    dm = world.fake.log.last("dm")
    assert (dm.user_id, dm.content, dm.message_id) == (alice.id, "你的手牌", msg.id)
    assert world.fake.log.dms(alice.id) == [dm]


async def test_dm_to_closed_user_raises_forbidden_and_is_recorded_as_refused(world: World) -> None:
    bob = world.members[1]
    with pytest.raises(discord.Forbidden) as err:
        await bob.send("你的手牌")
    assert err.value.code == 50007
    refused = world.fake.log.refused(user_id=bob.id)
    assert [(r.error, r.content) for r in refused] == [(50007, "你的手牌")]
    assert world.fake.log.dms(bob.id) == []


async def test_channel_send_edit_and_delete_are_recorded_and_deleted_messages_are_gone(world: World) -> None:
    fake, channel = world.fake, world.channel
    msg = await channel.send("board v1", view=_two_buttons())
    assert fake.log.last("send").buttons[0].label == "碰"
    await msg.edit(content="board v2", view=_two_buttons(disabled=True))
    edit = fake.log.last("edit")
    assert (edit.content, edit.message_id, [b.disabled for b in edit.buttons]) == (
        "board v2",
        msg.id,
        [True, True],
    )
    assert fake.message(msg.id).content == "board v2"

    fake.delete_message(msg.id)  # a moderator removed the board
    with pytest.raises(discord.NotFound):
        await msg.edit(content="board v3")
    assert fake.log.last("refused").error == 10008
    assert fake.channel_messages(channel.id) == []


async def test_forbidden_channel_refuses_sends(world: World) -> None:
    world.fake.forbid_channel(world.channel.id)
    with pytest.raises(discord.Forbidden):
        await world.channel.send("hi")
    assert world.fake.log.refused(channel_id=world.channel.id)[0].error == 50013


async def test_files_are_recorded_with_their_bytes(world: World) -> None:
    import io

    await world.channel.send(file=discord.File(io.BytesIO(b"\x89PNG fake"), filename="hand.png"))
    sent = world.fake.log.last("send")
    assert [(f.filename, f.data) for f in sent.files] == [("hand.png", b"\x89PNG fake")]


def _two_buttons(disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="碰", custom_id="t:pung", disabled=disabled))
    view.add_item(discord.ui.Button(label="过", custom_id="t:pass", disabled=disabled))
    return view


def _client_with_command(handler) -> tuple[discord.Client, app_commands.CommandTree]:
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)
    group = app_commands.Group(name="kwx", description="Ka Wu Xing")
    group.command(name="join", description="join a table")(handler)
    tree.add_command(group)
    return client, tree


async def test_slash_command_runs_through_the_real_tree_with_typed_options() -> None:
    seen = {}

    async def join(
        interaction: discord.Interaction, table: str, seats: int = 3, who: discord.Member | None = None
    ):
        seen.update(table=table, seats=seats, who=who and who.id, locale=str(interaction.locale))
        await interaction.response.send_message(f"joined {table}", ephemeral=True)

    client, _ = _client_with_command(join)
    w = await make_world(client)
    alice, bob = w.members[0], w.members[1]
    out = await w.fake.slash(alice, w.channel, "kwx join", table="t1", seats=2, who=bob)
    assert seen == {"table": "t1", "seats": 2, "who": bob.id, "locale": "zh-CN"}
    reply = out.first("response")
    assert (reply.content, reply.ephemeral, reply.user_id, reply.channel_id) == (
        "joined t1",
        True,
        alice.id,
        w.channel.id,
    )
    assert w.fake.log.ephemerals(alice.id) == [reply]
    assert w.fake.log.public(w.channel.id) == []


async def test_an_exception_in_a_command_fails_the_test_with_the_real_error() -> None:
    async def join(interaction: discord.Interaction, table: str):
        raise ValueError("boom")

    client, _ = _client_with_command(join)
    w = await make_world(client)
    with pytest.raises(ValueError, match="boom"):
        await w.fake.slash(w.members[0], w.channel, "kwx join", table="x")


async def test_second_response_raises_and_followup_after_response_is_recorded(world: World) -> None:
    alice = world.members[0]
    inter = world.fake.slash_interaction(alice, world.channel, "kwx")
    with pytest.raises(discord.NotFound):  # Discord has no webhook before the first response
        await inter.followup.send("too early")
    await inter.response.send_message("first")
    with pytest.raises(discord.InteractionResponded):
        await inter.response.send_message("second")
    await inter.followup.send("later", ephemeral=True)
    kinds = [(r.kind, r.content, r.ephemeral) for r in world.fake.log]
    assert kinds == [("refused", None, False), ("response", "first", False), ("followup", "later", True)]


async def test_thinking_defer_is_filled_by_the_first_followup_and_keeps_its_ephemeral_flag(
    world: World,
) -> None:
    alice = world.members[0]
    inter = world.fake.slash_interaction(alice, world.channel, "kwx")
    await inter.response.defer(ephemeral=True, thinking=True)
    defer = world.fake.log.last("defer")
    assert defer.thinking and defer.ephemeral
    msg = await inter.followup.send("done", wait=True)
    followup = world.fake.log.last("followup")
    assert (followup.message_id, followup.ephemeral, followup.content) == (defer.message_id, True, "done")
    assert msg.id == defer.message_id
    original = await inter.original_response()
    assert original.content == "done"


async def test_expired_interaction_is_refused(world: World) -> None:
    inter = world.fake.slash_interaction(world.members[0], world.channel, "kwx")
    world.fake.expire(inter)
    with pytest.raises(discord.NotFound) as err:
        await inter.response.send_message("late")
    assert err.value.code == 10062


async def test_button_press_dispatches_to_the_view_and_answers_only_the_presser(world: World) -> None:
    pressed = []

    class Claim(discord.ui.View):
        @discord.ui.button(label="碰", custom_id="t:pung")
        async def pung(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
            pressed.append(interaction.user.id)
            await interaction.response.send_message("碰了", ephemeral=True)

    msg = await world.channel.send("discard 5筒", view=Claim(timeout=None))
    alice, carol = world.members[0], world.members[2]
    out = await world.fake.press(carol, msg, label="碰")
    assert pressed == [carol.id]
    assert out.first().visible_to(carol.id) and not out.first().visible_to(alice.id)


async def test_press_checks_what_a_real_client_could_press(world: World) -> None:
    msg = await world.channel.send("x", view=_two_buttons(disabled=True))
    with pytest.raises(AssertionError, match="disabled"):
        await world.fake.press(world.members[0], msg, label="碰")
    alice, carol = world.members[0], world.members[2]
    inter = world.fake.slash_interaction(alice, world.channel, "kwx")
    await inter.response.send_message("only alice", view=_two_buttons(), ephemeral=True)
    private = world.fake.log.last("response")
    with pytest.raises(AssertionError, match="cannot see"):
        await world.fake.press(carol, private, custom_id="t:pung")


class ActButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"kwx:act:(?P<table>\d+):(?P<step>\d+):(?P<verb>\w+)"
):
    calls: list[tuple[int, int, str, int]] = []

    def __init__(self, table: int, step: int, verb: str) -> None:
        super().__init__(discord.ui.Button(label=verb, custom_id=f"kwx:act:{table}:{step}:{verb}"))
        self.table, self.step, self.verb = table, step, verb

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]), int(match["step"]), match["verb"])

    async def callback(self, interaction: discord.Interaction) -> None:
        ActButton.calls.append((self.table, self.step, self.verb, interaction.user.id))
        await interaction.response.edit_message(view=None)


async def test_dynamic_items_survive_without_a_stored_view_and_stale_ids_are_dropped() -> None:
    client = discord.Client(intents=discord.Intents.default())
    client.add_dynamic_items(ActButton)
    w = await make_world(client)
    ActButton.calls.clear()
    view = discord.ui.View(timeout=None)
    view.add_item(ActButton(7, 12, "pung"))
    msg = await w.channel.send("claim?", view=view)
    w.fake.state._view_store._views.clear()  # as after a restart: only the dynamic item templates are known

    await w.fake.press(w.members[0], msg, "kwx:act:7:12:pung")
    assert ActButton.calls == [(7, 12, "pung", w.members[0].id)]
    assert w.fake.message(msg.id).components == []  # the callback removed the buttons

    # a press racing that edit carries an id the message no longer has: discord.py drops it silently
    out = await w.fake.press(w.members[1], msg, "kwx:act:7:12:pung", check=False)
    assert out.records == [] and len(ActButton.calls) == 1
    assert not out.answered  # the player sees "This interaction failed"


class _Zh(app_commands.Translator):
    async def translate(self, string, locale, context):  # type: ignore[override]
        if (
            locale is discord.Locale.chinese
            and context.location is app_commands.TranslationContextLocation.command_name
        ):
            return {"join": "加入"}.get(string.message)
        return None


async def test_tree_sync_sends_localized_names_from_a_translator() -> None:
    async def join(interaction: discord.Interaction, table: str):
        pass

    client, tree = _client_with_command(join)
    fake = await FakeDiscord.create(client)
    await tree.set_translator(_Zh())
    await tree.sync()
    (kwx,) = fake.synced_commands[None]
    (sub,) = kwx["options"]
    assert (sub["name"], sub["name_localizations"]) == ("join", {"zh-CN": "加入"})


class _TableCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="kwx", description="open a table")
    async def kwx(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(ActButton(1, 0, "join"))
        await interaction.response.send_message("table 1", view=view)


class _Bot(commands.Bot):
    async def setup_hook(self) -> None:
        self.add_dynamic_items(ActButton)
        await self.add_cog(_TableCog(self))


async def test_a_commands_bot_with_cogs_and_setup_hook_runs_end_to_end() -> None:
    bot = _Bot(command_prefix="!", intents=discord.Intents.default())
    w = await make_world(bot, run_setup_hook=True)
    ActButton.calls.clear()
    out = await w.fake.slash(w.members[0], w.channel, "kwx")
    board = out.first("response")
    assert board.custom_ids == ["kwx:act:1:0:join"]
    await w.fake.press(w.members[2], board, label="join")
    assert ActButton.calls == [(1, 0, "join", w.members[2].id)]


async def test_buttons_in_a_dm_can_be_pressed_by_their_recipient_only(world: World) -> None:
    pressed = []

    class Hand(discord.ui.View):
        @discord.ui.button(label="打5筒", custom_id="t:discard:5p")
        async def discard(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
            pressed.append((interaction.user.id, interaction.guild_id))
            await interaction.response.edit_message(content="打出 5筒", view=None)

    alice, carol = world.members[0], world.members[2]
    msg = await alice.send("你的手牌", view=Hand(timeout=None))
    with pytest.raises(AssertionError, match="cannot see"):
        await world.fake.press(carol, msg, label="打5筒")
    out = await world.fake.press(alice, msg, label="打5筒")
    assert pressed == [(alice.id, None)]
    assert (out.first("edit").content, world.fake.message(msg.id).components) == ("打出 5筒", [])


# -- the fake is the loopback Discord, reached through discord.py's own HTTP code ------------------------------
async def test_answers_go_through_discord_pys_own_handling_of_429s(world: World) -> None:
    messages = "/channels/{channel_id}/messages"
    world.fake.inject("POST", messages, discord.HTTPException(_Status(429), "slow down"), times=4)
    sent = await world.channel.send("after four 429s")  # discord.py waited each out and tried again
    assert world.fake.message(sent.id).content == "after four 429s" and not world.fake.faults
    world.fake.inject("POST", messages, discord.HTTPException(_Status(429), "slow down"), times=5)
    with pytest.raises(discord.HTTPException) as gave_up:  # five in a row: discord.py gives up
        await world.channel.send("lost")
    assert gave_up.value.status == 429


async def test_a_dropped_connection_reaches_discord_py_as_aiohttp_reports_it(world: World) -> None:
    import aiohttp

    world.fake.rest.inject("POST", "/channels/{channel_id}/messages", "drop")
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await world.channel.send("into the void")
    assert world.fake.channel_messages(world.channel.id) == []


async def test_a_multipart_body_is_checked_like_a_json_one(world: World, off_spec_expected) -> None:
    import io

    with pytest.raises(discord.HTTPException) as refused:
        await world.channel.send(embed=discord.Embed(title="t" * 257),
                                 file=discord.File(io.BytesIO(b"png"), filename="hand.png"))
    assert refused.value.code == 50035 and "embeds.0.title" in refused.value.text
    assert world.fake.off_spec == ["POST /channels/{channel_id}/messages: embeds.0.title: Must be 256 or fewer in "
                                   "length."]
    world.fake.allow_off_spec = True


async def test_every_request_and_its_answer_can_be_watched(world: World) -> None:
    seen = []
    world.fake.on_exchange(lambda ex: seen.append((ex.route, ex.answer.status)))
    msg = await world.channel.send("x")
    world.fake.delete_message(msg.id)
    with pytest.raises(discord.NotFound):
        await msg.edit(content="y")
    assert seen == [("POST /channels/{channel_id}/messages", 200),
                    ("PATCH /channels/{channel_id}/messages/{message_id}", 404)]


class _Status:
    status, reason = 0, "test"

    def __init__(self, status: int) -> None:
        self.status = status
