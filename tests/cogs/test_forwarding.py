"""A press another process of the cluster received (Discord sends every DM press to shard 0): the receiver defers
and forwards it; the owner answers it through the interaction's token as if it had been pressed here. (Two real
processes on PostgreSQL: tests/e2e/test_loopback_cluster.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cogs.fake_discord.kit import ACT, Kit, alice_asked, bot_kit, seat_table
from cogs.forwarding import forward_press, press_payload, rebuilt_interaction, run_forwarded_press
from kwx.present.i18n import tr


@pytest.fixture
async def kit(tmp_path) -> Kit:
    """A bot not in a cluster until a test gives it a stub one (`kit.bot.cluster`)."""
    async with bot_kit(tmp_path, names=("alice", "bob")) as k:
        yield k
        k.bot.cluster = None


class StubCluster:
    """This process ("proc-a") in a cluster whose other process ("proc-b") runs every table not run here."""

    owner = "proc-a"

    def __init__(self, acknowledged: bool = True, leased_elsewhere: bool = False) -> None:
        self.acknowledged = acknowledged
        self.leased_elsewhere = leased_elsewhere
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def claim(self, guild: str) -> bool:
        return not self.leased_elsewhere

    async def owner_of_table(self, table_id: int) -> str | None:
        return "proc-b"

    async def forward(self, owner: str, press: dict[str, Any]) -> bool:
        self.sent.append((owner, json.loads(json.dumps(press))))  # it travels as JSON
        return self.acknowledged


async def _alice_prompted(kit) -> tuple[int, Any, str]:
    """Alice's table, her live DM panel and the custom id of its first action button."""
    table, panel, _, _ = await alice_asked(kit)
    verb, arg, button = kit.acts(panel)[0]
    return table, panel, button.custom_id or ""


def _press_of_another_table(kit, panel, custom_id: str, other: int) -> tuple[Any, str]:
    """Alice's press of the same button for table `other` (one this process does not run)."""
    elsewhere = ACT.sub(lambda m: f"kwx:act:{other}:{m[2]}:{m[3]}:{m[4]}:{m[5]}", custom_id)
    return kit.fake.button_interaction(kit.alice, panel, elsewhere, check=False), elsewhere


async def test_the_owner_answers_a_forwarded_dm_press_through_its_token(kit) -> None:
    table, panel, custom_id = await _alice_prompted(kit)
    step = kit.service.private_view_as_shown(table, str(kit.alice.id)).step
    pressed = kit.fake.button_interaction(kit.alice, panel, custom_id)
    await pressed.response.defer()  # what shard 0's process did before forwarding it
    press = json.loads(json.dumps(press_payload(pressed)))
    assert len(json.dumps(press)) < 7000  # a NOTIFY payload is at most 8000 bytes
    mark = kit.fake.log.mark()
    await run_forwarded_press(kit.bot, press)
    await kit.settle()
    assert kit.service.private_view_as_shown(table, str(kit.alice.id)).step > step  # the move was made here
    edits = [r for r in kit.fake.log.since(mark) if r.kind == "edit" and r.interaction_id == pressed.id]
    assert edits and edits[0].message_id == panel.id  # the pressed panel, edited through the token
    assert not kit.fake.log.refused(user_id=kit.alice.id)


async def test_a_press_of_a_table_run_elsewhere_is_deferred_and_forwarded_to_its_owner(kit) -> None:
    table, panel, custom_id = await _alice_prompted(kit)
    kit.bot.cluster = cluster = StubCluster()
    here = kit.fake.button_interaction(kit.alice, panel, custom_id)
    assert not await forward_press(kit.bot, here, table)  # this process runs it: answered here
    pressed, elsewhere = _press_of_another_table(kit, panel, custom_id, table + 1)
    mark = kit.fake.log.mark()
    assert await forward_press(kit.bot, pressed, table + 1)
    assert [r.kind for r in kit.fake.log.since(mark)] == ["defer"]  # inside Discord's 3 s, nothing else
    [(owner, press)] = cluster.sent
    assert owner == "proc-b" and press["token"] == pressed.token and press["data"]["custom_id"] == elsewhere
    assert press["user"]["id"] == str(kit.alice.id) and press["message"]["id"] == str(panel.id)
    assert not await forward_press(kit.bot, pressed, table + 1)  # deferred: a press forwarded here stays


async def test_a_press_the_owner_does_not_acknowledge_asks_the_player_to_press_again(kit) -> None:
    table, panel, custom_id = await _alice_prompted(kit)
    kit.bot.cluster = StubCluster(acknowledged=False)
    pressed, _ = _press_of_another_table(kit, panel, custom_id, table + 1)
    mark = kit.fake.log.mark()
    assert await forward_press(kit.bot, pressed, table + 1)
    followups = [r for r in kit.fake.log.since(mark) if r.kind == "followup"]
    assert followups and followups[0].ephemeral and followups[0].text == tr("error.generic", "zh-CN")


async def test_a_server_whose_tables_another_process_runs_gets_no_second_table_here(kit) -> None:
    kit.bot.cluster = StubCluster(leased_elsewhere=True)
    out = await kit.slash(kit.alice, "kwx new")
    assert kit.reply(out) == tr("error.run_elsewhere", "zh-CN")
    assert kit.service.tables() == []
    kit.bot.cluster = StubCluster()
    await kit.slash(kit.alice, "kwx new")
    assert len(kit.service.tables()) == 1


async def test_a_server_press_keeps_who_pressed_and_their_permissions_when_rebuilt(kit) -> None:
    table = await seat_table(kit, [kit.alice], ais=2)
    lobby = kit.table_messages()[-1]
    for member in (kit.alice, kit.bob):
        pressed = kit.fake.button_interaction(member, lobby, f"kwx:tbl:{table}:join", check=False)
        rebuilt = rebuilt_interaction(kit.bot, json.loads(json.dumps(press_payload(pressed))))
        assert (rebuilt.user.id, rebuilt.guild_id, rebuilt.token) == (member.id, kit.world.guild.id, pressed.token)
        assert rebuilt.permissions.manage_guild == pressed.permissions.manage_guild
        assert rebuilt.response.is_done()  # the receiver deferred it
