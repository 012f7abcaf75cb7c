"""The ledger commands on the fake Discord against a real SQLite store: what members see equals the ledger, and
money moves only with the consent of whoever pays."""

from __future__ import annotations

import asyncio
import gzip
import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import discord
import pytest
from PIL import Image

from cogs.confirm import CONFIRM_TTL
from cogs.fake_discord import Sent
from cogs.ledger_requests import LedgerRequests
from kwx.present.i18n import tr
from kwx.present.ledger_text import display_width, signed_money, table
from kwx.store import LedgerHand, LedgerPayment, SeatResult, parse_csv
from tests.support.ledger_kit import LedgerKit, block_rows, close_kit, ledger_kit, no_pings, play

GREEN, RED = discord.Colour.green().value, discord.Colour.red().value


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[LedgerKit]:
    k = await ledger_kit(tmp_path)
    yield k
    await close_kit(k)


def reply(out) -> Sent:
    return next(r for r in out.records if r.kind in ("response", "followup"))


# -- reading ---------------------------------------------------------------------------------------------------
async def test_balance_sheet_shows_the_ledgers_balances_with_signs_and_no_pings(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, kit.carol, fan=4, self_draw=True)  # alice +8, bob -4, carol -4
    await play(kit, kit.carol, kit.alice, fan=3)  # carol +3, alice -3
    await kit.store.record_settlement(kit.guild, kit.id(kit.bob), kit.id(kit.alice), 2, by="test")
    out = await kit.slash(kit.alice, "kwx balance")
    sent = reply(out)
    shown = {row[1]: row[2] for row in block_rows(sent.embeds[0].description)}
    ledger = {r.name: signed_money(r.balance) for r in (await kit.store.balances(kit.guild)).rows}
    assert shown == ledger == {"alice": "+3", "bob": "\u22122", "carol": "\u22121"}
    rows = block_rows(sent.embeds[0].description)
    assert [r[0] for r in rows] == ["+", "-", "-"]  # diff colouring: green winners, red losers
    assert sent.embeds[0].colour.value == GREEN  # alice is up
    assert no_pings(sent) and sent.ephemeral  # only the asker sees it (📤 Share posts it)


async def test_member_balance_is_green_when_up_and_red_when_down(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, fan=5)
    up = reply(await kit.slash(kit.carol, "kwx balance", member=kit.alice))
    down = reply(await kit.slash(kit.carol, "kwx balance", member=kit.bob))
    assert "+5" in up.embeds[0].description and up.embeds[0].colour.value == GREEN
    assert "\u22125" in down.embeds[0].description and down.embeds[0].colour.value == RED
    assert f"<@{kit.bob.id}>" in down.embeds[0].description and no_pings(down)


async def test_leaderboard_pages_through_every_player_and_only_the_asker_turns_pages(tmp_path) -> None:
    names = tuple(f"p{i:02d}" for i in range(13))
    kit = await ledger_kit(tmp_path, names=names)
    try:
        members = kit.world.members
        for i, member in enumerate(members[1:], start=1):
            await play(kit, member, members[0], fan=i)
        out = await kit.slash(members[0], "kwx leaderboard")
        first = reply(out)
        board = await kit.store.leaderboard(kit.guild)
        page1 = block_rows(first.embeds[0].description)
        assert [(r[1], r[2], r[3]) for r in page1] == [(str(b.rank), b.name, signed_money(b.net)) for b in board[:10]]
        assert first.button("▶").disabled is False and first.button("◀").disabled is True

        assert first.ephemeral and not first.visible_to(members[5].id)  # only the asker has these pages

        turned = await kit.press(members[0], first, "▶")
        page2 = block_rows(turned.records[0].embeds[0].description)
        assert [r[2] for r in page2] == [b.name for b in board[10:]]
        assert kit.fake.message(first).components[2].disabled  # ▶ off on the last page
    finally:
        await close_kit(kit)


async def test_history_lists_hands_newest_first_with_fan_and_net_and_pages(kit: LedgerKit) -> None:
    ids = [await play(kit, kit.alice, kit.bob, kit.carol, fan=f, self_draw=True) for f in range(1, 13)]
    await play(kit, kit.bob, kit.alice, fan=7)
    out = await kit.slash(kit.carol, "kwx history", member=kit.alice)
    first = reply(out)
    rows = block_rows(first.embeds[0].description)
    history = await kit.store.history(kit.guild, kit.id(kit.alice), limit=10)
    assert [r[1] for r in rows] == [f"#{h.hand_id}" for h in history]
    assert rows[0][-1] == "\u22127" and rows[0][0] == "-"  # the diff marker stays ASCII
    assert rows[1][-1] == f"+{2 * 12}" and tr("term.zimo") in rows[1]
    turned = await kit.press(kit.carol, first, "▶")
    rest = block_rows(turned.records[0].embeds[0].description)
    assert [r[1] for r in rest] == [f"#{i}" for i in reversed(ids[:3])]


async def test_stats_show_only_this_servers_hands(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, kit.carol, fan=4, self_draw=True)
    await play(kit, kit.bob, kit.alice, fan=2)
    other, channel, (erin,) = kit.add_guild()
    alice_there = kit.join(other, kit.alice)
    for _ in range(5):  # alice wins a lot on another server
        await play(kit, alice_there, erin, fan=64, guild=str(other.id))
    out = await kit.slash(kit.alice, "kwx stats")
    text = reply(out).embeds[0].description
    stats = await kit.store.player_stats(kit.guild, kit.id(kit.alice))
    assert (stats.hands, stats.wins, stats.net) == (2, 1, 6)
    rows = {r[1]: r[2:] for r in block_rows(text, header=False)}
    assert rows[tr("ledger.stats.hands")] == ["2"]
    assert rows[tr("ledger.stats.wins")][0] == "1" and tr("ledger.stats.of_hands", rate="50%") in text
    assert rows[tr("ledger.stats.net")] == ["+6"]
    balance = reply(await kit.slash(kit.alice, "kwx balance", member=kit.alice)).embeds[0].description
    assert "+6" in balance and "+320" not in balance  # (a mention's id may contain 320)
    there = reply(await kit.fake.slash(alice_there, channel, "kwx stats")).embeds[0].description
    there_rows = {r[1]: r[2:] for r in block_rows(there, header=False)}
    assert there_rows[tr("ledger.stats.hands")] == ["5"] and there_rows[tr("ledger.stats.net")] == ["+320"]


async def test_settleup_transfers_bring_every_balance_to_zero_in_at_most_n_minus_1(kit: LedgerKit) -> None:
    a, b, c, d = kit.alice, kit.bob, kit.carol, kit.dave
    await play(kit, a, b, c, fan=8, self_draw=True)
    await play(kit, d, a, fan=5)
    await play(kit, c, b, fan=3)
    await play(kit, b, d, c, fan=2, self_draw=True)
    out = await kit.slash(kit.dave, "kwx settleup")
    rows = block_rows(reply(out).embeds[0].description, header=False, marker=False)
    by_name = {m.display_name: kit.id(m) for m in (a, b, c, d)}
    balances = {r.player: r.balance for r in (await kit.store.balances(kit.guild)).rows if r.balance}
    assert len(rows) <= len(balances) - 1
    for payer, arrow, payee, amount in rows:  # everyone pays in cash as shown
        assert arrow == "→"
        await kit.store.record_settlement(kit.guild, by_name[payer], by_name[payee], int(amount.replace(",", "")),
                                          by="test")
    assert all(r.balance == 0 for r in (await kit.store.balances(kit.guild)).rows)
    square = reply(await kit.slash(kit.dave, "kwx settleup"))
    assert tr("ledger.settle.square") in square.text


# -- pay: the recipient confirms ------------------------------------------------------------------------------
async def test_pay_is_recorded_when_the_recipient_confirms(kit: LedgerKit) -> None:
    await play(kit, kit.bob, kit.alice, fan=10)  # alice owes bob 10
    out = await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=10, note="现金")
    request = reply(out)
    assert f"<@{kit.bob.id}>" in (request.content or "")
    assert [int(u) for u in request.raw["allowed_mentions"]["users"]] == [kit.bob.id]  # only bob is pinged
    assert (await kit.store.balance(kit.guild, kit.id(kit.alice))).balance == -10  # nothing yet

    done = await kit.press(kit.bob, request, tr("confirm.yes"))
    assert tr("ledger.pay.done", payer=f"<@{kit.alice.id}>", payee=f"<@{kit.bob.id}>", amount="10") in done.text
    assert kit.fake.message(request).components == []
    assert (await kit.store.balance(kit.guild, kit.id(kit.alice))).balance == 0
    assert (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == 0
    (entry, *_) = await kit.store.entries(kit.guild)
    assert (entry.reason, entry.amount, entry.created_by) == ("settlement", 10, kit.id(kit.alice))
    assert "confirmed by" in entry.note and "现金" in entry.note


async def test_nobody_can_confirm_for_the_recipient(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=50))
    for intruder in (kit.alice, kit.carol):
        out = await kit.press(intruder, request, tr("confirm.yes"))
        assert out.records[0].ephemeral and out.records[0].user_id == intruder.id
        assert tr("confirm.not_yours") in out.text
    out = await kit.press(kit.carol, request, tr("confirm.no"))  # nor cancel it
    assert tr("confirm.not_yours") in out.text
    assert await kit.store.entries(kit.guild) == []
    assert kit.fake.message(request).components  # still open for bob


async def test_a_cancelled_pay_changes_nothing(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=50))
    out = await kit.press(kit.bob, request, tr("confirm.no"))
    assert tr("ledger.confirm.cancelled", member=f"<@{kit.bob.id}>") in out.text
    assert kit.fake.message(request).components == []
    assert await kit.store.entries(kit.guild) == []
    assert await kit.store.guild_settings("pending.index") == {}


async def test_an_expired_pay_changes_nothing_even_if_confirmed_late(kit: LedgerKit) -> None:
    flow = kit.bot.get_cog("LedgerRequests").confirm_flow
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=50))
    real = flow.clock
    flow.clock = lambda: real() + CONFIRM_TTL + 1
    out = await kit.press(kit.bob, request, tr("confirm.yes"))
    assert tr("confirm.expired_note") in out.text and tr("ledger.confirm.expired") in kit.fake.message(request).embeds[
        0].description
    assert await kit.store.entries(kit.guild) == []


async def test_the_expiry_timer_closes_the_request_by_itself(kit: LedgerKit) -> None:
    flow = kit.bot.get_cog("LedgerRequests").confirm_flow
    flow.ttl = 0.05
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=50))
    for _ in range(100):
        if not kit.fake.message(request).components:
            break
        await asyncio.sleep(0.01)
    message = kit.fake.message(request)
    assert message.components == [] and tr("ledger.confirm.expired") in message.embeds[0].description
    assert await kit.store.entries(kit.guild) == []
    assert await kit.store.guild_settings("pending.index") == {}


async def test_a_press_on_a_request_the_store_no_longer_holds_is_answered_and_changes_nothing(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=50))
    flow = kit.bot.get_cog("LedgerRequests").confirm_flow
    (pending,) = await flow.pending.all()
    await flow.pending.drop(pending.guild, pending.id)  # closed elsewhere; its message edit was lost
    out = await kit.press(kit.bob, request, tr("confirm.yes"))
    assert out.records[0].ephemeral and tr("confirm.gone") in out.text
    assert await kit.store.entries(kit.guild) == []


async def test_pay_refuses_bad_amounts_oneself_and_bots(kit: LedgerKit) -> None:
    robot = kit.fake.add_member(kit.world.guild, name="robot", bot=True)
    cases = [({"member": kit.bob, "amount": 0}, tr("ledger.error.amount", max="1,000,000")),
             ({"member": kit.bob, "amount": 1_000_001}, tr("ledger.error.amount", max="1,000,000")),
             ({"member": kit.alice, "amount": 5}, tr("ledger.error.self_pay")),
             ({"member": robot, "amount": 5}, tr("ledger.error.bot_member", member="robot"))]
    for options, expected in cases:
        out = await kit.slash(kit.alice, "kwx pay", **options)
        assert out.records[0].ephemeral and expected in out.text, options
    assert await kit.store.entries(kit.guild) == [] and await kit.store.guild_settings("pending.index") == {}


async def test_an_open_request_survives_a_restart_of_the_cog(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=7))
    await kit.bot.remove_cog("LedgerRequests")
    kit.fake.state._view_store._views.clear()  # nothing in memory, as after a restart
    await kit.bot.add_cog(LedgerRequests(kit.bot))
    out = await kit.press(kit.bob, request, tr("confirm.yes"))
    assert tr("ledger.pay.done", payer=f"<@{kit.alice.id}>", payee=f"<@{kit.bob.id}>", amount="7") in out.text
    assert (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == -7


async def test_a_request_that_ran_out_while_the_bot_was_down_is_expired_at_start(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=7))
    await kit.bot.remove_cog("LedgerRequests")
    cog = LedgerRequests(kit.bot)
    real = cog.confirm_flow.clock
    cog.confirm_flow.clock = lambda: real() + CONFIRM_TTL + 5
    await kit.bot.add_cog(cog)
    for _ in range(100):
        if not kit.fake.message(request).components:
            break
        await asyncio.sleep(0.01)
    assert tr("ledger.confirm.expired") in kit.fake.message(request).embeds[0].description
    assert await kit.store.guild_settings("pending.index") == {} and await kit.store.entries(kit.guild) == []


# -- record: everyone who pays confirms -------------------------------------------------------------------------
async def test_record_from_tiles_scores_with_the_calculator_and_waits_for_the_discarder(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, third=kit.carol,
                          hand="1122334456677p", win="5p", base=2)
    request = reply(out)
    assert "16" in request.text and tr("payment.hu") in request.text  # 清一色 × 七对 = 16 fan
    assert await kit.store.entries(kit.guild) == []
    wrong = await kit.press(kit.carol, request, tr("confirm.yes"))  # carol pays nothing on a discard win
    assert tr("confirm.not_yours") in wrong.text
    await kit.press(kit.bob, request, tr("confirm.yes"))
    assert (await kit.store.balance(kit.guild, kit.id(kit.alice))).balance == 32
    assert (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == -32
    (h,) = await kit.store.history(kit.guild, kit.id(kit.alice))
    assert (h.fan[kit.id(kit.alice)], h.won, h.self_draw) == (16, True, False)
    assert sorted(h.patterns[kit.id(kit.alice)]) == ["qidui", "qingyise"]
    assert tr("ledger.record.done", hand=h.hand_id) in kit.fake.message(request).embeds[0].description


async def test_a_self_draw_is_recorded_only_when_both_payers_confirm(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.dave, "kwx record", winner=kit.alice, payer=kit.bob, third=kit.carol,
                                    self_draw=True, fan=4))
    await kit.press(kit.bob, request, tr("confirm.yes"))
    assert await kit.store.entries(kit.guild) == []
    again = await kit.press(kit.bob, request, tr("confirm.yes"))
    assert tr("confirm.already") in again.text
    await kit.press(kit.carol, request, tr("confirm.yes"))
    balances = {r.player: r.balance for r in (await kit.store.balances(kit.guild)).rows}
    assert balances == {kit.id(kit.alice): 8, kit.id(kit.bob): -4, kit.id(kit.carol): -4}
    (hand,) = await kit.store.history(kit.guild, kit.id(kit.bob))
    assert hand.net == -4
    entries = await kit.store.entries(kit.guild)
    assert {e.created_by for e in entries} == {kit.id(kit.dave)}  # the write names who made it


async def test_a_record_cancelled_by_a_payer_changes_nothing(kit: LedgerKit) -> None:
    request = reply(await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, third=kit.carol,
                                    self_draw=True, fan=4))
    await kit.press(kit.bob, request, tr("confirm.yes"))
    await kit.press(kit.carol, request, tr("confirm.no"))
    assert await kit.store.entries(kit.guild) == [] and await kit.store.history(kit.guild, kit.id(kit.alice)) == []


async def test_a_payer_who_records_their_own_loss_needs_nobody_else(kit: LedgerKit) -> None:
    out = await kit.slash(kit.bob, "kwx record", winner=kit.alice, payer=kit.bob, fan=3, liangdao=True)
    assert tr("ledger.record.done", hand=1) in out.text and not out.records[0].buttons
    (entry,) = await kit.store.entries(kit.guild)
    assert (entry.reason, entry.amount) == ("baohu", 6)  # a 亮倒 winner fed by a player who had not declared


async def test_record_refuses_what_cannot_be_scored(kit: LedgerKit) -> None:
    cases = [({"fan": 2, "self_draw": True}, tr("ledger.record.error.need_third")),
             ({"hand": "1122334456677p", "win": "9s"}, tr("ledger.record.error.not_win")),
             ({"hand": "11p", "win": "1p"}, tr("ledger.record.error.bad_hand", detail="")),
             ({}, tr("ledger.record.error.need_fan")),
             ({"hand": "1122334456677p", "win": "5p", "fan": 8},
              tr("ledger.record.error.fan_mismatch", computed=16, given=8))]
    for options, expected in cases:
        out = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, **options)
        assert out.records[0].ephemeral and expected in out.text, (options, out.text)
    same = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.alice, fan=2)
    assert tr("ledger.record.error.same_player") in same.text
    assert await kit.store.entries(kit.guild) == []


# -- chart, export, undo -----------------------------------------------------------------------------------------
async def test_chart_is_a_png_attachment_of_the_members_balance(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, fan=3)
    await play(kit, kit.bob, kit.alice, fan=1)
    out = await kit.slash(kit.carol, "kwx chart", member=kit.alice)
    sent = reply(out)
    (file,) = sent.files
    image = Image.open(io.BytesIO(file.data))
    assert (image.format, image.size) == ("PNG", (800, 450))
    assert sent.embeds[0].image.url == "attachment://balances.png"
    assert "+2" in sent.embeds[0].description and sent.embeds[0].colour.value == GREEN
    everyone = reply(await kit.slash(kit.carol, "kwx chart"))
    assert Image.open(io.BytesIO(everyone.files[0].data)).size == (800, 450)


async def test_export_needs_manage_server_and_its_csv_round_trips(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, kit.carol, fan=4, self_draw=True)
    await kit.store.record_settlement(kit.guild, kit.id(kit.bob), kit.id(kit.alice), 3, by="test", note="a, \"b\"")
    out = await kit.slash(kit.alice, "kwx-admin export")
    sent = reply(out)
    assert sent.ephemeral and sent.files[0].filename.endswith(".csv.gz")
    parsed = parse_csv(gzip.decompress(sent.files[0].data).decode("utf-8"), kit.guild)
    stored = list(reversed(await kit.store.entries(kit.guild)))
    assert parsed == stored and tr("ledger.export.done", count=3) in sent.text

    kit.no_manage_server()
    refused = await kit.slash(kit.bob, "kwx-admin export")
    assert refused.records[0].ephemeral and tr("ledger.error.manage_server") in refused.text
    assert not refused.records[0].files


async def test_undo_reverses_the_last_hand_and_needs_manage_server(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, fan=2)
    last = await play(kit, kit.bob, kit.alice, kit.carol, fan=5, self_draw=True)
    out = await kit.slash(kit.dave, "kwx-admin undo", reason="wrong winner")
    assert tr("ledger.undo.hand", hand=last, count=2, member=f"<@{kit.dave.id}>", reason="wrong winner") in out.text
    assert not out.records[0].ephemeral and no_pings(out.records[0])
    balances = {r.player: r.balance for r in (await kit.store.balances(kit.guild)).rows}
    assert balances[kit.id(kit.alice)] == 2 and balances[kit.id(kit.bob)] == -2 and balances[kit.id(kit.carol)] == 0
    reversal = (await kit.store.entries(kit.guild))[0]
    assert (reversal.created_by, reversal.note) == (kit.id(kit.dave), "wrong winner")
    second = await kit.slash(kit.dave, "kwx-admin undo")  # the hand before it
    assert tr("ledger.undo.hand", hand=last - 1, count=1, member=f"<@{kit.dave.id}>",
             reason=tr("ledger.undo.default_reason")) in second.text
    assert tr("ledger.undo.nothing") in (await kit.slash(kit.dave, "kwx-admin undo")).text
    assert tr("ledger.undo.already") in (await kit.slash(kit.dave, "kwx-admin undo", hand=last)).text

    kit.no_manage_server()
    await play(kit, kit.alice, kit.bob, fan=9)
    refused = await kit.slash(kit.bob, "kwx-admin undo")
    assert refused.records[0].ephemeral and tr("ledger.error.manage_server") in refused.text
    assert (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == -9


async def test_undo_of_one_entry_and_of_another_servers_entry(kit: LedgerKit) -> None:
    entry = await kit.store.record_settlement(kit.guild, kit.id(kit.bob), kit.id(kit.alice), 4, by="test")
    out = await kit.slash(kit.alice, "kwx-admin undo", entry=entry)
    assert f"#{entry}" in out.text and (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == 0
    other, _, (erin,) = kit.add_guild()
    theirs = await kit.store.record_settlement(str(other.id), str(erin.id), kit.id(kit.alice), 4, by="test")
    refused = await kit.slash(kit.alice, "kwx-admin undo", entry=theirs)
    assert tr("ledger.undo.not_found") in refused.text
    assert (await kit.store.balance(str(other.id), str(erin.id))).balance == 4


async def test_undo_refuses_a_reversal_and_a_single_entry_of_a_hand_and_everything_agrees(kit: LedgerKit) -> None:
    hand_id = await play(kit, kit.alice, kit.bob, fan=2)
    (hu,) = await kit.store.entries(kit.guild, hand_id=hand_id)
    part = await kit.slash(kit.dave, "kwx-admin undo", entry=hu.id)
    assert part.records[0].ephemeral and tr("ledger.undo.part_of_hand", entry=hu.id, hand=hand_id) in part.text
    await kit.slash(kit.dave, "kwx-admin undo", hand=hand_id, reason="void")
    reversal = (await kit.store.entries(kit.guild))[0]
    assert reversal.reverses_id == hu.id
    refused = await kit.slash(kit.dave, "kwx-admin undo", entry=reversal.id)
    assert refused.records[0].ephemeral and tr("ledger.undo.final", entry=reversal.id) in refused.text
    balances = {r.player: r.balance for r in (await kit.store.balances(kit.guild)).rows}
    assert set(balances.values()) == {0}
    assert (await kit.store.player_stats(kit.guild, kit.id(kit.alice))).hands == 0


async def test_an_undo_reason_with_a_code_fence_cannot_break_the_table_below_it(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, fan=2)
    out = await kit.slash(kit.dave, "kwx-admin undo", reason="oops ``` @everyone **bold**")
    text = reply(out).embeds[0].description
    assert "oops ```" not in text and "\\`\\`\\`" in text and "\\*\\*bold" in text
    assert text.count("```") == 2  # the one table, opened and closed
    assert len(block_rows(text, header=False, marker=False)) == 1


# -- both languages ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_every_ledger_reply_follows_the_servers_language(kit: LedgerKit, lang: str) -> None:
    await kit.set_lang(lang)
    await play(kit, kit.alice, kit.bob, kit.carol, fan=2, self_draw=True)
    expected = {
        "kwx balance": tr("ledger.balances.title", lang),
        "kwx leaderboard": tr("ledger.period.all", lang),
        "kwx history": tr("term.zimo", lang),
        "kwx stats": tr("ledger.stats.deal_ins", lang),
        "kwx settleup": tr("ledger.settle.hint", lang),
        "kwx chart": tr("ledger.chart.title", lang),
        "kwx-admin export": tr("ledger.export.done", lang, count=2),
        "kwx-admin undo": tr("ledger.undo.title", lang),
    }
    for command, text in expected.items():
        out = await kit.slash(kit.alice, command)
        assert text in out.text, (lang, command, out.text)
    pay = await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=1)
    assert tr("ledger.pay.title", lang) in pay.text
    pressed = await kit.press(kit.bob, reply(pay), tr("confirm.yes", lang))
    assert tr("ledger.pay.done", lang, payer=f"<@{kit.alice.id}>", payee=f"<@{kit.bob.id}>", amount="1") in pressed.text
    record = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, fan=2)
    assert tr("ledger.record.title", lang) in record.text
    assert tr("confirm.no", lang) in [b.label for b in reply(record).buttons]


# -- the text helpers --------------------------------------------------------------------------------------------
def test_tables_line_up_by_display_width_with_chinese_names() -> None:
    text = table([["+", "阿丽", "+1,200"], ["-", "bob", "-3"]], "llr", [" ", "玩家", "余额"])
    widths = {display_width(line) for line in text.split("\n")}
    assert len(widths) == 1
    assert text.split("\n")[1].endswith("+1,200") and text.split("\n")[2].endswith("    -3")


# -- limits ----------------------------------------------------------------------------------------------------
async def test_a_burst_of_pay_requests_opens_at_most_five_pings_once_and_is_then_slowed_down(kit: LedgerKit) -> None:
    flow = kit.bot.get_cog("LedgerRequests").confirm_flow
    outs = [await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=1) for _ in range(40)]
    opened = [out for out in outs if not out.records[0].ephemeral]
    assert len(opened) == 5 and len(flow._timers) == 5
    pinged = [out for out in opened if (reply(out).raw.get("allowed_mentions") or {}).get("users")]
    assert len(pinged) == 1  # the same member is pinged once, not once per request
    assert all(f"<@{kit.bob.id}>" in reply(out).text for out in opened)  # but every request names who it waits on
    capped = [out for out in outs[5:10]]
    assert all(out.records[0].ephemeral and tr("confirm.too_many", count=5, max=5) in out.text for out in capped)
    slowed = outs[10:]
    assert all(out.records[0].ephemeral and "/kwx pay" in out.text for out in slowed)
    assert tr("input.cooldown", command="kwx pay", seconds=1).split("1")[0] in slowed[0].text
    assert len(await kit.store.guild_settings("pending.index")) == 1  # one server's index, five ids
    assert await kit.store.entries(kit.guild) == []
    # Another member still pays bob with a ping of their own; bob confirming one of alice's frees a place.
    carol = reply(await kit.slash(kit.carol, "kwx pay", member=kit.bob, amount=2))
    assert [int(u) for u in carol.raw["allowed_mentions"]["users"]] == [kit.bob.id]
    await kit.press(kit.bob, reply(opened[0]), tr("confirm.yes"))
    assert (await kit.store.balance(kit.guild, kit.id(kit.bob))).balance == -1


async def test_a_chart_has_a_per_member_cooldown_with_a_private_message(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, fan=3)
    first = [await kit.slash(kit.carol, "kwx chart") for _ in range(3)]
    assert [bool(reply(out).files) for out in first[:2]] == [True, True]
    assert first[2].records[0].ephemeral and not first[2].records[0].files and "/kwx chart" in first[2].text
    assert reply(await kit.slash(kit.dave, "kwx chart")).files  # someone else is not slowed down


async def test_an_export_too_big_for_one_file_comes_split_by_month_and_reads_back_whole(kit: LedgerKit,
                                                                                       monkeypatch) -> None:
    from datetime import UTC, datetime

    from kwx.store import LedgerEntry

    people = [kit.id(m) for m in (kit.alice, kit.bob, kit.carol)]
    entries = [LedgerEntry(id=None, guild=kit.guild, from_player=people[i % 3], to_player=people[(i + 1) % 3],
                           amount=1 + i % 7, reason="pay", note=f"=cmd|{i} {'x' * (i % 50)}",
                           created_at=datetime(2025, 1 + i % 3, 1 + i % 28, tzinfo=UTC)) for i in range(3000)]
    await kit.store.import_entries(kit.guild, sorted(entries, key=lambda e: e.created_at))
    payload = kit.fake._base_interaction_payload  # Discord tells each interaction its upload limit
    monkeypatch.setattr(kit.fake, "_base_interaction_payload",
                        lambda *args: payload(*args) | {"attachment_size_limit": 5_000})
    out = await kit.slash(kit.alice, "kwx-admin export")
    files = [f for r in out.records for f in r.files]
    assert len(files) > 3 and all(len(f.data) <= 5_000 for f in files)  # months, and parts of months
    assert all(r.ephemeral for r in out.records)
    assert tr("ledger.export.split", count=3000, files=len(files)) in out.text
    parsed = [e for f in files for e in parse_csv(gzip.decompress(f.data).decode("utf-8"), kit.guild)]
    stored = sorted(await kit.store.entries(kit.guild, limit=None), key=lambda e: e.id)
    assert sorted(parsed, key=lambda e: e.id) == stored
    months = {f.filename.split(".")[0].split("-")[4] + "-" + f.filename.split(".")[0].split("-")[5] for f in files}
    assert months == {"2025-01", "2025-02", "2025-03"}


async def test_a_failed_export_still_fills_its_deferred_reply(kit: LedgerKit, monkeypatch) -> None:
    async def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(kit.store, "export_files", broken)
    out = await kit.slash(kit.alice, "kwx-admin export", raise_errors=False)
    assert out.records[-1].ephemeral and tr("ledger.export.failed") in out.text


async def test_a_long_history_is_charted_with_a_bounded_number_of_points(kit: LedgerKit) -> None:
    from datetime import UTC, datetime, timedelta

    from kwx.store import LedgerEntry
    from kwx.store.queries import CHART_POINTS

    a, b = kit.id(kit.alice), kit.id(kit.bob)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    await kit.store.import_entries(kit.guild, [
        LedgerEntry(id=None, guild=kit.guild, from_player=b if i % 3 else a, to_player=a if i % 3 else b, amount=1,
                    reason="pay", created_at=start + timedelta(hours=5 * i)) for i in range(5000)])
    series = await kit.store.chart_series(kit.guild, a)
    assert 2 <= len(series) <= CHART_POINTS
    assert series[-1][2] == (await kit.store.balance(kit.guild, a)).balance and series[0][1].date() == start.date()
    assert reply(await kit.slash(kit.carol, "kwx chart", member=kit.alice)).files


# -- what a history, stats and a chart say --------------------------------------------------------------------------
async def kong_then_their_self_draw(kit: LedgerKit, *, at: datetime | None = None) -> int:
    """alice makes an added kong (1 from each of the others), then bob self-draws 2 fan: alice's net is 0."""
    a, b, c = kit.id(kit.alice), kit.id(kit.bob), kit.id(kit.carol)
    seats = [SeatResult(a, 0, "alice"), SeatResult(b, 1, "bob", won=True, self_draw=True, fan=2),
             SeatResult(c, 2, "carol")]
    pays = [LedgerPayment(b, a, 1, "bugang"), LedgerPayment(c, a, 1, "bugang"), LedgerPayment(a, b, 2, "hu"), LedgerPayment(c, b, 2, "hu")]
    return await kit.store.record_manual_hand(LedgerHand(kit.guild, None, 0, seats, pays, outcome="win",
                                                         created_by="test", at=at))


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_a_history_explains_a_hand_where_kong_money_came_in_and_a_win_was_paid(kit: LedgerKit,
                                                                                     lang: str) -> None:
    await kit.set_lang(lang)
    hand = await kong_then_their_self_draw(kit)
    await play(kit, kit.bob, kit.carol, kit.alice, fan=3)  # alice sits there, neither paying nor taking
    text = reply(await kit.slash(kit.alice, "kwx history")).embeds[0].description
    header = text.split("\n")[1]
    assert tr("ledger.col.kong", lang) in header.split()
    other_win, kong_hand = (line for line in text.split("\n")[2:4])
    assert f"#{hand}" in kong_hand and tr("ledger.history.other_zimo", lang) in kong_hand
    assert kong_hand.split()[-2:] == ["+2", "0"]  # 2 kong money in, and a net of 0 that now explains itself
    assert tr("ledger.history.other_won", lang) in other_win and other_win.split()[-1] == "0"
    assert "—" not in text


async def test_stats_read_without_a_footnote(kit: LedgerKit) -> None:
    await play(kit, kit.alice, kit.bob, kit.carol, fan=4, self_draw=True)
    await play(kit, kit.bob, kit.alice, fan=2)
    embed = reply(await kit.slash(kit.alice, "kwx stats")).embeds[0]
    assert not embed.footer.text
    rows = {r[1]: r[2:] for r in block_rows(embed.description or "", header=False)}
    assert rows[tr("ledger.stats.wins")] == ["1", *tr("ledger.stats.of_hands", rate="50%").split()]
    assert rows[tr("ledger.stats.self_draws")] == ["1", *tr("ledger.stats.of_wins", rate="100%").split()]
    assert rows[tr("ledger.stats.deal_ins")] == ["1", *tr("ledger.stats.of_hands", rate="50%").split()]
    assert rows[tr("ledger.stats.avg_fan")] == ["4.0", tr("ledger.stats.per_win")]


async def test_the_chart_counts_hands_and_dates_them_in_the_servers_time_zone(kit: LedgerKit) -> None:
    late = datetime(2025, 3, 1, 2, 30, tzinfo=UTC)  # 10:30 on 1 March in China, 21:30 on 28 February in New York
    await kong_then_their_self_draw(kit, at=late)
    await kit.store.record_settlement(kit.guild, kit.id(kit.alice), kit.id(kit.bob), 2, by="test", at=late)
    series = await kit.store.chart_series(kit.guild, kit.id(kit.bob))
    assert [(hands, balance) for hands, _, balance in series] == [(1, 3), (1, 1)]  # cash moves it, not the count

    chart = reply(await kit.slash(kit.bob, "kwx chart", member=kit.bob)).embeds[0]
    assert chart.footer.text == tr("ledger.chart.footer", dates="2025-03-01", zone="Asia/Shanghai")  # by language
    assert "01" in reply(await kit.slash(kit.bob, "kwx history")).embeds[0].description.split("\n")[2]
    await kit.slash(kit.alice, "kwx-admin config", timezone="america/new_york")
    chart = reply(await kit.slash(kit.bob, "kwx chart", member=kit.bob)).embeds[0]
    assert chart.footer.text == tr("ledger.chart.footer", dates="2025-02-28", zone="America/New_York")
    assert "02-28" in reply(await kit.slash(kit.bob, "kwx history")).embeds[0].description
