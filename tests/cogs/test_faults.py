"""Discord's faults as Discord means them: only 50007/50278 are closed DMs, a 5xx or a timeout is tried again,
the board is posted anew only when it was deleted (10008), and a post that failed for a passing reason is not
lost. (The real bot process against the loopback Discord: tests/e2e.)"""

from __future__ import annotations

import pytest

import cogs.board_delivery
import cogs.operations
from cogs.fake_discord import discord_error
from cogs.fake_discord.kit import Kit, alice_asked, bot_kit, seat_table

MESSAGES = "/channels/{channel_id}/messages"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch) -> None:
    monkeypatch.setattr(cogs.operations, "RETRY_DELAYS", (0.0, 0.0))
    monkeypatch.setattr(cogs.board_delivery, "RETRY_LATER", 0.01)


def server_error() -> Exception:
    return discord_error(503, 0, "Service Unavailable")


def closed_notices(kit: Kit) -> list[str]:
    return [m.content for m in kit.table_messages() if "私信" in (m.content or "")]


async def test_a_dm_that_fails_with_5xx_is_tried_again_and_never_called_closed(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        await seat_table(kit, [kit.alice], ais=2)
        kit.fake.inject("POST", "/users/@me/channels", server_error(), times=4)  # beyond the in-call retries
        await kit.slash(kit.alice, "kwx start")
        await kit.until(lambda: kit.dm_messages(kit.alice))
        assert kit.dm_messages(kit.alice)  # the hand reached her once Discord was back
        assert closed_notices(kit) == [] and not kit.rt.frontend.dms_closed(str(kit.alice.id))


async def test_a_board_edit_that_fails_is_retried_in_place_and_not_posted_again(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        await kit.slash(kit.alice, "kwx new")
        (lobby,) = kit.table_messages()
        kit.fake.inject("PATCH", MESSAGES + "/{message_id}", server_error(), times=3)
        await kit.press_id(kit.bob, lobby, "kwx:tbl:1:join")
        await kit.until(lambda: "2/3" in (kit.fake.message(lobby.id).embeds[0].description or ""))
        assert [m.id for m in kit.table_messages()] == [lobby.id]  # the same message, not a second lobby
        assert "2/3" in kit.fake.message(lobby.id).embeds[0].description  # now showing bob seated

        kit.fake.delete_message(lobby.id)  # a moderator deleted it (10008): now it is posted again
        await kit.press_id(kit.carol, lobby, "kwx:tbl:1:join", check=False)
        (again,) = kit.table_messages()
        assert again.id != lobby.id


async def test_a_post_that_fails_for_a_passing_reason_goes_out_later(tmp_path) -> None:
    async with bot_kit(tmp_path) as kit:
        table = await seat_table(kit, [kit.alice], ais=2)
        frontend = kit.rt.frontend
        kit.fake.inject("POST", MESSAGES, server_error(), times=5)
        tc = frontend.tables.get(table)
        tc.queue.append(("text", "出错了 (a test post)"))
        frontend.board.kick(tc)
        await kit.until(lambda: not kit.fake.faults)
        await kit.settle()
        texts = [m.content for m in kit.table_messages()]
        assert not kit.fake.faults  # Discord refused it five times (more than the in-call retries)
        assert "出错了 (a test post)" in texts


async def test_closed_dms_are_said_once_per_table_even_across_a_restart(tmp_path) -> None:
    async with bot_kit(tmp_path, closed_dms=("bob",)) as kit:
        await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await kit.slash(kit.alice, "kwx start")
        assert len(closed_notices(kit)) == 1
        await kit.settle()
        await kit.restart()
        await kit.settle()
        assert len(closed_notices(kit)) == 1
        assert kit.rt.frontend.dms_closed(str(kit.bob.id))  # remembered: his panel is the My-hand one


def test_what_each_failure_means() -> None:
    from cogs.operations import channel_lost, dms_closed, message_gone, transient

    assert dms_closed(discord_error(403, 50007, "Cannot send messages to this user"))
    assert dms_closed(discord_error(403, 50278, "no mutual guilds"))
    assert not dms_closed(discord_error(403, 50013, "Missing Permissions"))
    assert not dms_closed(server_error()) and transient(server_error()) and transient(TimeoutError())
    assert message_gone(discord_error(404, 10008, "Unknown Message"))
    assert not message_gone(discord_error(404, 10003, "Unknown Channel"))
    assert all(channel_lost(discord_error(s, c, "x")) for s, c in ((404, 10003), (403, 50001), (403, 50013)))
    assert not channel_lost(server_error()) and not transient(discord_error(403, 50013, "x"))


async def test_a_decision_whose_panel_edit_fails_is_sent_as_a_new_prompt(tmp_path) -> None:
    from dataclasses import replace

    async with bot_kit(tmp_path, names=("alice",)) as kit:
        _, old, latest, seat = await alice_asked(kit)
        frontend = kit.rt.frontend
        kit.fake.inject("PATCH", MESSAGES + "/{message_id}", server_error(), times=6)  # beyond every retry
        asked = replace(latest, step=latest.step + 1)  # a new decision shown by editing the live panel
        await frontend.hand_changed(seat.player, asked, prompt=False)
        await kit.until(lambda: kit.live_panel(kit.alice) is not None and kit.live_panel(kit.alice).id != old.id)
        panel = kit.live_panel(kit.alice)
        assert panel is not None and panel.id != old.id  # not left without the buttons she must press
        assert any(f":{asked.step}:" in c for c in kit.fake.log.last("dm").custom_ids)


async def test_a_prompt_whose_token_edit_gets_a_5xx_is_edited_by_the_bot_at_once(tmp_path) -> None:
    """discord.py tries an interaction webhook that answers 5xx five times (about 25 s), past a 12 s claim
    window: the panel falls back to the bot's own edit after the first failure."""
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        table, panel, latest, _ = await alice_asked(kit)
        panels = kit.rt.frontend.panels.get(table, str(kit.alice.id))
        tries: list[str] = []
        kit.fake.on_exchange(lambda ex: tries.append(ex.route) if ex.route.startswith("PATCH /webhooks") else None)
        kit.fake.inject("PATCH", "/webhooks/{application_id}/{interaction_token}/messages/@original", server_error(),
                        times=5)
        mark = kit.fake.log.mark()
        await kit.play_turn(kit.alice, panel)  # answered by the press's response; her next prompt: its token
        await kit.until(lambda: panels.dm is not None and panels.dm.step > latest.step and panels.dm.live)
        assert len(tries) == 1  # one try through the token, not discord.py's five
        assert panels.dm is not None and panels.dm.token is None  # the bot's own edits from now on
        assert any(r.kind == "edit" and r.message_id == panels.dm.message_id for r in kit.fake.log.since(mark))
        assert kit.live_panel(kit.alice) is not None  # she has her buttons


async def test_a_refused_followup_leaves_the_next_hands_panel_its_buttons(tmp_path) -> None:
    """The next hand's panel goes as a followup of her last press; when Discord refuses that followup (a 404
    while the token still looks alive), the panel she gets instead, by DM, still carries the 漂 choice."""
    async with bot_kit(tmp_path, names=("alice",)) as kit:
        table = await seat_table(kit, [kit.alice], ais=2, rules="shiyan")  # every hand opens with a 漂 choice
        await kit.slash(kit.alice, "kwx start")
        kit.fake.inject("POST", "/webhooks/{application_id}/{interaction_token}",
                        discord_error(404, 10015, "Unknown Webhook"))
        await kit.play_hand([kit.alice])
        await kit.until(lambda: len(kit.dm_messages(kit.alice)) == 2)
        second = kit.dm_messages(kit.alice)[1]
        assert kit.rt.service.public_view_as_shown(table).hand_no == 2
        assert second.embeds and second.embeds[0].title.endswith("第 2 局")
        assert kit.live_panel(kit.alice) is second  # her 漂 buttons, not a panel the front end thinks live
        assert [r.kind for r in kit.fake.log.of(("dm", "followup"), user_id=kit.alice.id)] == ["dm", "dm"]
