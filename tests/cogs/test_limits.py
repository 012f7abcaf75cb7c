"""Discord's payload limits (kwx.devtools.limits), enforced by the in-process fake as Discord enforces them."""

from __future__ import annotations

import discord
import pytest

from kwx.devtools import limits
from tests.cogs.fakes import make_world


def test_the_limits_say_which_field_is_over_and_by_what_rule() -> None:
    assert limits.message_errors({"content": "x" * 2000}) == {}
    errors = limits.message_errors({"content": "x" * 2001})
    assert limits.flatten(errors) == ["content: Must be 2000 or fewer in length."]
    big = {"embeds": [{"title": "t" * 257, "description": "d" * 4000, "fields": [{"name": "n", "value": "v" * 1025}]},
                      {"description": "d" * 1000}]}
    lines = limits.flatten(limits.message_errors(big))
    assert "embeds.0.title: Must be 256 or fewer in length." in lines
    assert "embeds.0.fields.0.value: Must be 1024 or fewer in length." in lines
    assert any("6000" in line for line in lines)  # 6,283 characters in the two embeds
    rows = [{"type": 1, "components": [{"type": 2, "style": 1, "custom_id": f"b{i}{j}", "label": "x"}
                                       for j in range(5)]} for i in range(6)]
    assert "components: Must be 5 or fewer in length." in limits.flatten(limits.message_errors({"components": rows}))
    button = {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "c" * 101, "label": "l" * 81}]}
    assert len(limits.flatten(limits.message_errors({"components": [button]}))) == 2
    body = limits.invalid_form_body(errors)
    assert body["code"] == 50035 and body["message"] == "Invalid Form Body"


def test_command_names_and_localizations_are_checked() -> None:
    good = [{"name": "kwx", "description": "d", "type": 1, "options": [
        {"name": "new", "description": "d", "type": 1, "name_localizations": {"zh-CN": "新桌"}}]}]
    assert limits.commands_errors(good) == {}
    bad = [{"name": "Kwx Game", "description": "d" * 101, "type": 1}]
    assert len(limits.flatten(limits.commands_errors(bad))) == 2
    assert limits.commands_errors(good + good)  # one name, twice


async def test_the_fake_refuses_an_over_limit_message_with_50035_and_the_test_fails() -> None:
    world = await make_world()
    fake = world.fake
    with pytest.raises(discord.HTTPException) as refused:
        await world.channel.send(content="牌" * 2001)
    assert refused.value.status == 400 and refused.value.code == 50035
    assert "content" in refused.value.text
    assert fake.log.refused()[-1].error == 50035
    with pytest.raises(AssertionError, match="over Discord's limits"):
        await fake.close()
    fake.allow_off_spec = True
    await fake.close()
