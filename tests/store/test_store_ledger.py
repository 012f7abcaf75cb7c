"""Corrections, settlements and transfers on the append-only ledger; summaries stay equal to a full recount."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kwx.store import NotFound, ReversalRefused
from tests.support.players import GUILD


async def _balances(store, guild=GUILD):
    return {row.player: row.balance for row in (await store.balances(guild)).rows}


async def _summaries(store):
    """Non-zero rows of the summary tables."""
    out = {}
    for name in ("balances", "daily_net", "guilds"):
        rows = [tuple(r) for r in await store._all(f"SELECT * FROM {name} ORDER BY 1, 2, 3")]
        out[name] = [r for r in rows if any(isinstance(v, int) and v for v in r)]
    return out


async def test_reversing_a_hand_restores_balances_and_keeps_the_originals(store, table, hand, clock):
    await store.finish_hand(hand(table, 1, [("b", "c", 2, "hu")], winners={"c": 2}))
    before = await _balances(store)
    await store.finish_hand(hand(table, 2, [("b", "a", 8, "hu"), ("c", "a", 2, "angang"), ("b", "a", 2, "angang")],
                                 winners={"a": 4}))
    hand_id = await store.hand_id(table, 2)
    originals = await store.entries(GUILD, hand_id=hand_id)
    clock.when += timedelta(hours=1)
    new_ids = await store.reverse_hand(GUILD, hand_id, by="mod", why="misclick")
    assert await _balances(store) == before
    entries = await store.entries(GUILD, hand_id=hand_id)
    assert len(entries) == 6 and set(originals) <= set(entries)  # originals untouched
    reversals = [e for e in entries if e.id in new_ids]
    assert {e.reverses_id for e in reversals} == {e.id for e in originals}
    assert all(e.created_by == "mod" and e.note == "misclick" for e in reversals)
    assert sorted((e.from_player, e.to_player, e.amount) for e in reversals) == sorted(
        (e.to_player, e.from_player, e.amount) for e in originals)
    # The hand leaves counts and stats but stays in history, marked.
    sheet = await store.balances(GUILD)
    assert sheet.hands == 1 and {r.player: r.hands for r in sheet.rows} == {"a": 1, "b": 1, "c": 1}
    assert (await store.player_stats(GUILD, "a")).wins == 0
    assert [h.reversed for h in await store.history(GUILD, "a")] == [True, False]
    with pytest.raises(ValueError, match="already"):
        await store.reverse_hand(GUILD, hand_id, by="mod", why="again")
    with pytest.raises(NotFound):
        await store.reverse_hand("g2", hand_id, by="mod", why="wrong server")
    with pytest.raises(ValueError, match="why"):
        await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="mod", why="")


async def test_reversing_entries_one_by_one(store):
    first = await store.transfer(GUILD, "a", "b", 5, by="a", note="lunch")
    undo = await store.reverse_entry(GUILD, first, by="b", why="paid back in cash")
    assert await _balances(store) == {"a": 0, "b": 0}
    with pytest.raises(ReversalRefused, match="already") as refused:
        await store.reverse_entry(GUILD, first, by="b", why="twice")
    assert refused.value.code == "already"
    with pytest.raises(ReversalRefused, match="final") as refused:  # a reversal is final
        await store.reverse_entry(GUILD, undo, by="b", why="the reversal was wrong")
    assert refused.value.code == "reversal"
    assert await _balances(store) == {"a": 0, "b": 0}
    with pytest.raises(NotFound):
        await store.reverse_entry("g2", first, by="b", why="other server")
    assert len(await store.entries(GUILD)) == 2


async def test_an_entry_of_a_hand_is_undone_only_with_its_hand(store, table, hand):
    await store.finish_hand(hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 2, "angang")], winners={"a": 4}))
    hand_id = await store.hand_id(table, 1)
    hu, _ = sorted(await store.entries(GUILD, hand_id=hand_id), key=lambda e: e.id)
    with pytest.raises(ReversalRefused, match="whole hand") as refused:
        await store.reverse_entry(GUILD, hu.id, by="m", why="wrong fan")
    assert refused.value.code == "hand" and refused.value.hand_id == hand_id
    assert await _balances(store) == {"a": 10, "b": -8, "c": -2}


async def test_undoing_a_hand_then_its_reversal_is_refused_and_everything_agrees(store, table, hand):
    """Every state the commands reach keeps balances, stats and hand records in agreement."""
    await store.finish_hand(hand(table, 1, [("b", "a", 2, "hu")], winners={"a": 1}))
    hand_id = await store.hand_id(table, 1)
    reversal_ids = await store.reverse_hand(GUILD, hand_id, by="m", why="void")
    for entry_id in reversal_ids:
        with pytest.raises(ReversalRefused):
            await store.reverse_entry(GUILD, entry_id, by="m", why="undo the undo")
    with pytest.raises(ReversalRefused):
        await store.reverse_hand(GUILD, hand_id, by="m", why="again")
    assert await _balances(store) == {"a": 0, "b": 0, "c": 0}
    for player in "abc":
        stats = await store.player_stats(GUILD, player)
        assert stats.hands == 0 and stats.net == 0
    assert {r.player: r.net for r in await store.leaderboard(GUILD, "all")} == {}
    kept = await _summaries(store)
    await store.rebuild_summaries()
    assert await _summaries(store) == kept

async def test_settlements_and_transfers_move_balances_but_not_winnings(store, table, hand):
    await store.finish_hand(hand(table, 1, [("b", "a", 10, "hu")], winners={"a": 10}))
    await store.record_settlement(GUILD, payer="b", payee="a", amount=6, by="a", note="cash")
    await store.transfer(GUILD, "c", "b", 1, by="c")
    assert await _balances(store) == {"a": 4, "b": -3, "c": -1}
    assert {r.player: r.net for r in await store.leaderboard(GUILD, "all")} == {"a": 10, "b": -10, "c": 0}
    settlement = (await store.entries(GUILD, player="a"))[0]
    assert settlement.reason == "settlement" and settlement.from_player == "a" and settlement.to_player == "b"


@pytest.mark.parametrize("amount", [0, -1, 1.5, True])
async def test_bad_amounts_are_refused(store, amount):
    with pytest.raises(ValueError):
        await store.transfer(GUILD, "a", "b", amount, by="a")
    with pytest.raises(ValueError):
        await store.record_settlement(GUILD, "a", "b", amount, by="a")
    assert await store.entries(GUILD) == []


async def test_summaries_always_match_a_full_recount(store, table, hand, clock):
    await store.finish_hand(hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 2, "angang")], winners={"a": 4}))
    clock.when += timedelta(days=3)
    await store.finish_hand(hand(table, 2, [("a", "c", 4, "hu")], winners={"c": 4}, liangdao="ac"))
    await store.finish_hand(hand(table, 3, []))
    await store.record_settlement(GUILD, "b", "a", 5, by="b")
    clock.when += timedelta(days=40)
    await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="m", why="x")
    await store.transfer("g2", "x", "y", 3, by="x")
    kept = await _summaries(store)
    await store.rebuild_summaries()
    assert await _summaries(store) == kept
