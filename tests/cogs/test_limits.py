"""What Discord refuses of what the bot sends: its own OpenAPI description (kwx.devtools.loopback.spec), the
limits the description cannot express (kwx.devtools.limits), both enforced by the fake as Discord enforces them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import discord
import pytest
from discord import app_commands

from cogs.bot import CommandSync
from cogs.fake_discord import FakeDiscord, make_world
from cogs.fake_discord.kit import bot_kit
from kwx.devtools import limits
from kwx.devtools.loopback.spec import discord_spec


def _row(n: int, prefix: str = "b") -> dict:
    return {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": f"{prefix}{j}", "label": "x"}
                                      for j in range(n)]}


def test_discords_description_names_the_field_that_is_wrong_and_why() -> None:
    spec = discord_spec()
    assert spec.body_errors("create_message", {"content": "hi", "embeds": [{"title": "t" * 256}]}) == {}
    big = {"embeds": [{"title": "t" * 257, "description": "d", "fields": [{"name": "n", "value": "v" * 1025}]}]}
    assert limits.flatten(spec.body_errors("create_message", big)) == [
        "embeds.0.title: Must be 256 or fewer in length.", "embeds.0.fields.0.value: Must be 1024 or fewer in length."]
    button = {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "c" * 101, "label": "l" * 81}]}
    assert sorted(limits.flatten(spec.body_errors("create_message", {"components": [button]}))) == [
        "components.0.components.0.custom_id: Must be 100 or fewer in length.",
        "components.0.components.0.label: Must be 80 or fewer in length."]
    wrapped = spec.body_errors("create_interaction_response", {"type": 4, "data": {"components": [button]}})
    assert set(wrapped) == {"data"}  # a response's message errors sit under "data", as Discord answers


def test_the_description_is_read_with_its_own_conventions() -> None:
    spec = discord_spec()
    assert spec.body_errors("create_dm", {"recipient_id": 123456789012345678}) == {}  # a snowflake as a number
    assert spec.body_errors("create_message", {"content": "x", "nonce": "1234567890123456789"}) == {}  # fits two
    command = {"name": "kwx", "description": "d", "type": 1, "default_member_permissions": "32"}  # an int string
    assert spec.body_errors("bulk_set_application_commands", [command]) == {}
    assert spec.body_errors("bulk_set_application_commands", [command | {"default_member_permissions": "x"}])


@pytest.mark.parametrize(("bound", "accepted"), [(2**53 - 1, True), (2**53, False)])
def test_an_integer_options_bound_is_within_discords_int53(bound: int, accepted: bool) -> None:
    option = {"type": 4, "name": "table_id", "description": "d", "min_value": 1, "max_value": bound}
    stop = {"type": 1, "name": "stop", "description": "d", "options": [option]}
    errors = discord_spec().body_errors("bulk_set_application_commands",
                                        [{"name": "kwx", "description": "d", "type": 1, "options": [stop]}])
    assert (errors == {}) is accepted
    if not accepted:
        assert limits.flatten(errors) == [
            "0.options.0.options.0.max_value: int value should be less than or equal to 9007199254740991."]


def test_the_limits_the_description_cannot_express() -> None:
    assert limits.message_errors({"content": "x" * 2000}) == {}
    assert limits.flatten(limits.message_errors({"content": "x" * 2001})) == [
        "content: Must be 2000 or fewer in length."]  # a bot's limit (the description's 4,000 is Nitro's)
    big = {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]}
    assert limits.flatten(limits.message_errors(big)) == ["embeds: Embed size exceeds maximum size of 6000"]
    six = {"components": [_row(5, f"r{i}") for i in range(6)]}
    assert limits.flatten(limits.message_errors(six)) == ["components: Must be 5 or fewer in length."]
    assert limits.message_errors(six | {"flags": limits.IS_COMPONENTS_V2}) == {}  # components v2: up to 40
    body = limits.invalid_form_body({"content": {}})
    assert body["code"] == 50035 and body["message"] == "Invalid Form Body"


def test_command_names_are_unique_and_in_discords_pattern() -> None:
    good = [{"name": "kwx", "description": "d", "type": 1, "options": [
        {"name": "new", "description": "d", "type": 1, "name_localizations": {"zh-CN": "新桌"}}]}]
    assert limits.commands_errors(good) == {}
    bad = [{"name": "Kwx Game", "description": "d", "type": 1, "options": [
        {"name": "new", "description": "d", "type": 1, "name_localizations": {"en-US": "New"}}]}]
    assert limits.flatten(limits.commands_errors(bad)) == [
        "0.name: Command name is invalid", "0.options.0.name_localizations.en-US: Command name is invalid"]
    assert limits.commands_errors(good + good)  # one name, twice


async def test_the_fake_refuses_an_over_limit_message_with_50035_and_the_test_fails(off_spec_expected) -> None:
    world = await make_world()
    fake = world.fake
    with pytest.raises(discord.HTTPException) as refused:
        await world.channel.send(content="牌" * 2001)
    assert refused.value.status == 400 and refused.value.code == 50035
    assert "content" in refused.value.text
    with pytest.raises(discord.HTTPException) as refused:
        await world.channel.send(embed=discord.Embed(title="t" * 257))
    assert refused.value.code == 50035 and "embeds.0.title" in refused.value.text
    assert [r.error for r in fake.log.refused()] == [50035, 50035]
    with pytest.raises(AssertionError, match="Discord would refuse"):
        await fake.close()
    fake.allow_off_spec = True
    await fake.close()


async def test_a_command_tree_discord_would_refuse_is_refused_whole(off_spec_expected) -> None:
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)

    @tree.command(name="stop", description="stop a table")
    async def stop(interaction: discord.Interaction, table_id: app_commands.Range[int, 1, 2**53]) -> None:
        pass

    fake = await FakeDiscord.create(client)
    with pytest.raises(discord.HTTPException) as refused:
        await tree.sync()
    assert refused.value.code == 50035 and "0.options.0.max_value" in refused.value.text
    assert fake.synced_commands.get(None) in (None, [])  # no command at all was registered
    fake.allow_off_spec = True
    await fake.close()


async def test_the_bots_real_command_tree_syncs_as_discord_takes_it() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with bot_kit(Path(tmp)) as kit:
            await kit.bot.sync_app_commands(CommandSync())
            assert {c["name"] for c in kit.fake.synced_commands[None]} == {"kwx", "kwx-admin"}
            assert kit.fake.off_spec == []


_SELECT = {"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}]}


def _in_row(component: dict) -> dict:
    return {"components": [{"type": 1, "components": [component]}]}


@pytest.mark.parametrize(("operation", "body", "why"), [
    ("create_message", {"content": 5}, "content: Must be of type ['string', 'null']."),
    ("create_message", {"flags": "x"}, "flags: Must be of type ['integer', 'null']."),
    ("create_message", _in_row({"type": 2, "style": 9, "custom_id": "c", "label": "l"}),
     "components.0.components.0.style: Value does not fit any of the allowed shapes."),
    ("create_message", _in_row(_SELECT | {"options": [{"label": "a", "value": str(i)} for i in range(26)]}),
     "components.0.components.0.options: Must be 25 or fewer in length."),
    ("create_message", _in_row(_SELECT | {"options": []}),
     "components.0.components.0.options: Must be 1 or more in length."),
    ("create_message", _in_row(_SELECT | {"min_values": "-1"}),
     "components.0.components.0.min_values: int value should be greater than or equal to 0."),
    ("create_message", {"embeds": [{"fields": [{"name": "n"}]}]},
     "embeds.0.fields.0: This field is required ('value' is a required property)."),
    ("create_message", {"allowed_mentions": {"parse": ["users", "users"]}}, "allowed_mentions.parse: Items must be unique."),
    ("create_dm", {"recipient_id": -1}, "recipient_id: int value should be greater than or equal to 0."),
    ("create_interaction_response", {"type": 99}, "<body>: Value does not fit any of the allowed shapes."),
])
def test_every_kind_of_wrong_body_is_refused(operation: str, body: object, why: str) -> None:
    """The quick yes/no reading that lets almost every body through at once refuses what the description does."""
    spec = discord_spec()
    assert limits.flatten(spec.body_errors(operation, body)) == [why]
    fitting = {"create_message": _in_row(_SELECT), "create_dm": {"recipient_id": 1}, "create_interaction_response":
               {"type": 4, "data": {"content": "x"}}}
    assert spec.body_errors(operation, fitting[operation]) == {}
