"""Through Discord: a button a panel shows works. After alice's 补杠 the board holds the kong for the pause a
rob would have had; her panel offers her replacement draw only when that pause ends (a new prompt), and a
press on it then works (fake Discord, real service and store, a fake clock for the table timers)."""

from __future__ import annotations

import pytest

from cogs.fake_discord.kit import Kit, bot_kit, seat_table
from kwx.table.deal import Deal
from tests.support.clock import FakeClock
from tests.support.hands import build_wall
from tests.support.panels import BACK, DRAWS, HANDS, PAUSE, later, move


@pytest.fixture
async def kit(tmp_path, monkeypatch) -> Kit:
    async with bot_kit(tmp_path, claim_pause=PAUSE, deal=Deal.scripted(build_wall(*HANDS, draws=DRAWS, back=BACK)),
                       clock=FakeClock()) as k:  # the pause runs on a clock the test moves
        yield k


async def test_after_a_bugang_the_replacement_draw_is_offered_when_the_pause_ends_and_works(kit: Kit) -> None:
    alice, bob, carol = kit.members
    table = await seat_table(kit, kit.members)
    await kit.slash(alice, "kwx start")
    replies = [await move(kit, alice, "discard", "7z"), await move(kit, bob, "discard", "5p"),
               await move(kit, alice, "peng"), await move(kit, alice, "discard", "1s"),
               await move(kit, bob, "discard", "9p"), await move(kit, carol, "discard", "1p"),
               await move(kit, alice, "gang", "5p")]
    dms = len(kit.dm_messages(alice))

    await later(kit, PAUSE / 2)  # within the pause: the board shows the 补杠, her panel offers nothing
    assert kit.live_panel(alice) is None
    assert kit.service.public_view_as_shown(table).claim_kind == "bugang"

    await later(kit, PAUSE / 2)  # the pause is over: her panel asks again, with the replacement draw
    panel = kit.live_panel(alice)
    assert panel is not None and len(kit.dm_messages(alice)) == dms
    assert ("discard", "9s") in [(verb, arg) for verb, arg, _ in kit.acts(panel)]
    replies.append(kit.reply(await kit.press(alice, panel, "discard", "9s")))
    assert not any(replies), replies  # no press was refused (a press that works gets no words)
    seat = kit.service.public_view_as_shown(table).seats[0]
    assert [m.kind for m in seat.melds] == ["kong"] and seat.discards[-1].compact == "9s"
