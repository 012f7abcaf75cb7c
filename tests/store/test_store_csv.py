"""CSV export of a server's ledger, and reading it back."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import timedelta

import pytest

from kwx.store import Store, StoreError, entries_to_csv, parse_csv
from tests.support.players import GUILD


async def _fill(store, table, hand, clock):
    await store.finish_hand(hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 2, "angang")], winners={"a": 4}))
    clock.when += timedelta(days=35)
    await store.record_settlement(GUILD, "b", "a", 5, by="a", note='cash, "exact"\nsecond line; 谢谢')
    await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="mod", why="wrong seat")
    await store.transfer(GUILD, "c", "b", 1, by="c")
    await store.transfer("other", "x", "y", 99, by="x")


async def _export(store, guild=GUILD):
    out = io.StringIO()
    count = await store.export_csv(guild, out)
    return count, out.getvalue()


async def test_export_then_parse_gives_back_the_same_entries(store, table, hand, clock):
    await _fill(store, table, hand, clock)
    count, text = await _export(store)
    entries = sorted(await store.entries(GUILD, limit=None), key=lambda e: e.id)
    assert count == len(entries) == 6
    assert text.splitlines()[0] == "id,created_at,from_player,to_player,amount,reason,hand_id,reverses_id,created_by,note"
    assert parse_csv(text, GUILD) == entries
    assert entries_to_csv(entries) == text
    assert "x" not in {e.from_player for e in parse_csv(text, GUILD)}  # other servers stay out


async def test_importing_an_export_reproduces_balances_and_leaderboards(store, table, hand, clock, tmp_path):
    await _fill(store, table, hand, clock)
    _, text = await _export(store)
    async with await Store.open(tmp_path / "copy.sqlite3", clock=clock.utc) as copy:
        assert await copy.import_entries(GUILD, parse_csv(text, GUILD)) == 6
        for period in ("all", "month", "week"):
            original = [(r.player, r.net) for r in await store.leaderboard(GUILD, period) if r.net]
            assert [(r.player, r.net) for r in await copy.leaderboard(GUILD, period) if r.net] == original
        assert [(r.player, r.balance) for r in (await copy.balances(GUILD)).rows] == [
            (r.player, r.balance) for r in (await store.balances(GUILD)).rows]
        # Everything but the hand ids (hands are not in an export) survives, reversal links included.
        assert parse_csv((await _export(copy))[1], GUILD) == [replace(e, hand_id=None) for e in parse_csv(text, GUILD)]
        with pytest.raises(StoreError):  # the same ids again
            await copy.import_entries(GUILD, parse_csv(text, GUILD))
        assert len(await copy.entries(GUILD, limit=None)) == 6


@pytest.mark.parametrize(("text", "message"), [
    ("", "header"),
    ("id,when\n1,2\n", "header"),
    ("id,created_at,from_player,to_player,amount,reason,hand_id,reverses_id,created_by,note\n"
     "1,2025-01-01T00:00:00Z,a,b,ten,hu,,,,\n", "line 2"),
    ("id,created_at,from_player,to_player,amount,reason,hand_id,reverses_id,created_by,note\n"
     "1,2025-01-01T00:00:00Z,a,b,3,gift,,,,\n", "reason"),
])
def test_malformed_files_are_refused_with_a_reason(text, message):
    with pytest.raises(StoreError, match=message):
        parse_csv(text, GUILD)


async def test_formula_cells_are_neutralised_and_still_read_back(store):
    notes = ["=HYPERLINK(\"http://x\",\"click\")", "+SUM(A1:A9)", "-2+3", "@cmd|' /C calc'!A0", "\tfoo", "\rbar",
             "'=already quoted", "plain, fine"]
    for note in notes:
        await store.transfer(GUILD, "a", "b", 1, by="=evil", note=note)
    _, text = await _export(store)
    rows = list(csv.reader(io.StringIO(text)))[1:]
    assert len(rows) == len(notes)
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row
    parsed = parse_csv(text, GUILD)
    assert sorted(e.note for e in parsed) == sorted(notes)
    assert {e.created_by for e in parsed} == {"=evil"}


async def test_an_export_read_in_batches_is_the_whole_ledger_once(store, table, hand, clock):
    await _fill(store, table, hand, clock)
    _, whole = await _export(store)
    for batch in (2, 5, 6):  # 6 entries: batches that end exactly at the last one, and one that does not
        out = io.StringIO()
        assert await store.export_csv(GUILD, out, batch=batch) == 6
        assert out.getvalue() == whole


async def test_the_gzip_export_is_the_same_csv_and_reads_never_wait_for_the_writer(store, table, hand, clock,
                                                                                  tmp_path):
    import asyncio
    import gzip

    await _fill(store, table, hand, clock)
    for note in ['=1+1', 'a,"b"\r\nc', "'quoted", "", "tab\there", "末尾,中文"]:
        await store.transfer(GUILD, "a", "b", 1, by="@me", note=note)
    _, text = await _export(store)
    export = await store.export_files(GUILD, tmp_path, "out", max_bytes=1 << 20)
    assert [p.name for p in export.files] == ["out.csv.gz"] and export.entries == 12
    assert gzip.decompress(export.files[0].read_bytes()).decode("utf-8") == text
    async with store._write():  # a writer inside a long transaction does not hold up any reader
        done = await asyncio.wait_for(asyncio.gather(
            store.leaderboard(GUILD), store.history(GUILD, "a"), store.player_stats(GUILD, "a"),
            store.chart_series(GUILD, "a"), store.entries(GUILD)), timeout=5)
    assert len(done) == 5
