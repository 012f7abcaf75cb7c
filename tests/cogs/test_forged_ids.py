"""A press of a button whose custom id we never made — a tile `zz`, a page of 10^20, a table id of 5,000
digits, a verb we never send — is ignored: nothing changes, the press gets a silent deferred update (never
"This interaction failed"), no traceback; one DEBUG line
says so. Every field of every custom id is parsed by its kind (cogs.inputs), never by int() or parse_tile()."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import discord
import pytest

from cogs.buttons import ActId
from cogs.fake_discord import StoredMessage
from cogs.fake_discord.kit import ACT, Kit, alice_asked, bot_kit
from cogs.forwarding import press_payload, run_forwarded_press
from cogs.inputs import SNOWFLAKE_MAX, id_number, id_tile
from kwx.engine.tiles import Tile


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[Kit]:
    async with bot_kit(tmp_path, names=("alice",)) as k:
        yield k


async def message_with(kit: Kit, custom_ids: list[str]) -> StoredMessage:
    """A message in the table's channel with a button for each custom id (as if we had sent it)."""
    view = discord.ui.View(timeout=None)
    for cid in custom_ids:
        view.add_item(discord.ui.Button(label="?", custom_id=cid))
    sent = await kit.channel.send("…", view=view)
    return kit.fake.message(sent.id)


def ignored(caplog: pytest.LogCaptureFixture, custom_id: str) -> bool:
    return any(r.levelno == logging.DEBUG and r.name == "cogs.buttons" and custom_id[:100] in r.getMessage()
               for r in caplog.records)


def table_state(kit: Kit, table: int) -> tuple[int, int]:
    live = kit.service.context.tables[table]
    return live.step, live.seq


async def test_forged_fields_of_every_kind_of_button_are_ignored_quietly(kit: Kit, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="cogs.buttons")
    table, panel, _, _ = await alice_asked(kit)
    hand, step = (int(x) for x in ACT.fullmatch(kit.acts(panel)[0][2].custom_id or "").group(2, 3))
    me = kit.alice.id
    act = f"kwx:act:{table}:{hand}:{step}"
    forged = [f"{act}:discard:zz", f"{act}:discard:12p", f"{act}:discard:五筒", f"{act}:piao:{10**20}",
              f"{act}:sell:-", f"{act}:hu:5p", f"{act}:pass", f"kwx:act:{'9' * 80}:{hand}:{step}:pass:-",
              f"kwx:act:{table}:{hand}:-{step}:pass:-", f"kwx:act:{table}:١:{step}:pass:-",
              f"kwx:tbl:{'1' * 80}:join", f"kwx:tbl:{table}:explode", f"kwx:tbl:{table}",
              f"kwx:pg:hist:{me}:{10**20}:{me}", f"kwx:pg:hist:{me}:1:{SNOWFLAKE_MAX + 1}", "kwx:pg:HIST:1:0:1",
              "kwx:cfm:XYZW:yes", "kwx:cfm:abcd:maybe", f"kwx:share:hist:{me}:{10**20}", "kwx:share:bal:<@1>:0",
              f"kwx:share:bal:{me}", f"kwx:vfy:{table}:{'9' * 80}", f"kwx:vfy:{table}", "kwx:vfy:١:1"]
    before = table_state(kit, table)
    wrong = []
    for chunk in (forged[i:i + 5] for i in range(0, len(forged), 5)):
        message = await message_with(kit, chunk)
        for custom_id in chunk:
            caplog.clear()
            out = await kit.fake.press(kit.alice, message, custom_id, raise_errors=False)
            await kit.settle()
            loud = [r for r in caplog.records if r.levelno >= logging.WARNING]  # a traceback, say
            answers = [r.kind for r in out.records]
            if answers != ["defer"] or loud or not ignored(caplog, custom_id):  # other than one silent answer
                wrong.append(custom_id)
    assert wrong == []
    assert table_state(kit, table) == before


async def test_a_forwarded_press_with_a_table_id_of_5000_digits_is_ignored(kit: Kit, caplog) -> None:
    """Another process sends any custom id it received: Python refuses int() of more than 4,300 digits."""
    caplog.set_level(logging.DEBUG, logger="cogs.buttons")
    await alice_asked(kit)
    message = await message_with(kit, ["kwx:tbl:1:join"])
    for custom_id in (f"kwx:tbl:{'7' * 5000}:join", f"kwx:act:{'7' * 5000}:1:1:pass:-"):
        interaction = kit.fake.button_interaction(kit.alice, message, custom_id, check=False)
        mark = kit.fake.log.mark()
        await run_forwarded_press(kit.bot, press_payload(interaction))
        assert kit.fake.log.since(mark) == [] and ignored(caplog, custom_id)


@pytest.mark.parametrize("field, hi, value", [
    ("0", 10, 0), ("10", 10, 10), ("11", 10, None), ("", 10, None), ("+1", 10, None), ("-1", 10, None),
    (" 1", 10, None), ("1_0", 10, None), ("١٢", 100, None), ("１２", 100, None), ("9" * 5000, 2**53 - 1, None),
    (str(2**53 - 1), 2**53 - 1, 2**53 - 1), (str(2**53), 2**53 - 1, None)])
def test_a_number_field_is_ascii_digits_within_its_bound(field: str, hi: int, value: int | None) -> None:
    assert id_number(field, hi) == value


def test_a_tile_field_is_the_compact_form_the_bot_writes() -> None:
    assert id_tile("5p") == Tile.P5 and id_tile("7z") == Tile.RED
    assert [id_tile(x) for x in ("zz", "12p", "0p", "5P", "五筒", "p5", "5p ", "")] == [None] * 8


def test_every_action_id_a_panel_writes_parses_back() -> None:
    for verb, arg in [("discard", "5p"), ("liangdao", "9s"), ("dok", "7z"), ("dnc", "1p"), ("lok", "2s"),
                      ("gang", "-"), ("gang", "6z"), ("peng", "-"), ("hu", "-"), ("pass", "-"), ("ld", "-"),
                      ("back", "-"), ("piao", "0"), ("piao", "3")]:
        act = ActId(12, 3, 45, verb, arg)
        assert ActId.parse(act.custom_id.removeprefix("kwx:act:")) == act
