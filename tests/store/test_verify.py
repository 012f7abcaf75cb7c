"""`verify` finds what is wrong with a store, on SQLite and PostgreSQL: money that does not add up, summaries
that disagree with the ledger, a hand or a reversal recorded twice, an append-only trigger gone."""

from __future__ import annotations

import re

import pytest

from kwx.cli import problem_text
from kwx.present.i18n import LANGUAGES, catalog
from kwx.store.verify import PROBLEMS, verify_store
from tests.support import backends
from tests.support.ledger import NAMES, make_hand
from tests.support.players import GUILD


@pytest.fixture
def database(backend, tmp_path):
    """Tests here damage the schema (a trigger, an index dropped): on PostgreSQL each has a schema of its own, not
    the run's shared one, where the next test would find them still missing."""
    return tmp_path / "kwx.sqlite3" if backend == "sqlite" else backends.fresh_postgres_url()


@pytest.fixture
async def played(store):
    """Two hands (the first reversed), a settlement: every kind of row verify reads."""
    seats = [{"player_id": p, "name": NAMES[p]} for p in "abc"]
    table = await store.create_table(GUILD, rules={"preset": "standard"}, seed="s", seats=seats)
    await store.finish_hand(make_hand(table, 1, [("b", "a", 8, "hu"), ("c", "a", 8, "hu")], winners={"a": 8}))
    await store.finish_hand(make_hand(table, 2, [("a", "c", 4, "hu")], winners={"c": 4}))
    await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="a", why="misdeal")
    settlement = await store.record_settlement(GUILD, "a", "c", 4, by="a")
    await store.record_manual_hand(make_hand(None, 0, [("b", "c", 2, "hu")], winners={"c": 2}, created_by="b"))
    return {"table": table, "hand": await store.hand_id(table, 2), "settlement": settlement}


async def _tamper(store, *statements: str) -> None:
    async with store._write() as db:
        for sql in statements:
            await db.execute(sql)


async def test_a_sound_store_verifies(store, played):
    report = await verify_store(store.path)
    assert report.ok, report.problems
    assert (report.servers, report.hands, report.entries) == (1, 3, 7)


async def test_summaries_that_disagree_with_the_ledger_are_named(store, played):
    await _tamper(store, "UPDATE balances SET balance = balance + 1 WHERE player_id = 'c'",
                  "UPDATE daily_net SET flow = flow - 2 WHERE player_id = 'a'",
                  "UPDATE guilds SET hands = hands + 1")
    problems = (await verify_store(store.path)).problems
    assert "server g1, player c: the balances table says balance 3, the ledger gives 2" in problems
    assert "server g1, 2025-03-05, player a: the daily_net table says flow -2, the ledger gives 0" in problems
    assert "server g1: the guilds table says hands 3, the ledger gives 2" in problems
    assert len(problems) == 3


async def test_a_hand_whose_money_does_not_add_up_is_named(store, played):
    hand = played["hand"]
    await _tamper(store, "INSERT INTO hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in,"
                         f" fan, liangdao) VALUES ({hand}, 3, '{GUILD}', 'd', 5, 0, 0, 0, 0, 0)",
                  "INSERT INTO ledger_entries(guild, hand_id, from_player, to_player, amount, reason, created_at,"
                  f" period_day) VALUES ('{GUILD}', {hand}, 'b', 'c', 3, 'hu', '2025-03-05T12:00:00.000000Z',"
                  " '2025-03-05')")
    problems = (await verify_store(store.path)).problems
    assert f"hand {hand}: its seats' nets sum to +5, not 0" in problems
    assert f"hand {hand}: its ledger entries do not pay each player the net its seat records" in problems
    assert "server g1, player b: the balances table says balance -2, the ledger gives -5" in problems


async def test_a_missing_append_only_trigger_and_a_second_reversal_are_named(store, played, backend):
    entry = played["settlement"]
    if backend == "sqlite":
        drops = ("DROP TRIGGER ledger_no_update", "DROP TRIGGER ledger_reversed_once", "DROP INDEX ledger_reversal")
    else:
        drops = ("DROP TRIGGER ledger_no_update ON ledger_entries", "DROP INDEX ledger_reversal")
    reversal = ("INSERT INTO ledger_entries(guild, from_player, to_player, amount, reason, created_at, period_day,"
                f" reverses_id) VALUES ('{GUILD}', 'a', 'c', 4, 'settlement', '2025-03-05T12:00:00.000000Z',"
                f" '2025-03-05', {entry})")
    await _tamper(store, *drops, reversal, reversal)
    problems = (await verify_store(store.path)).problems
    assert "append-only: trigger ledger_no_update is missing" in problems
    assert f"ledger entry {entry} is reversed 2 times" in problems


def test_every_kind_of_problem_has_words_in_both_languages():
    for code in PROBLEMS:
        for lang in LANGUAGES:
            assert catalog().template(f"store.verify.{code}", lang) is not None, (code, lang)


async def test_each_problem_is_said_as_its_english_line_says_it(store, played, backend):
    """What `ledger verify` prints in English is the line --json lists (a loss with a minus sign, no plus), and
    the Chinese says it in Chinese; the line keeps its code and fields for that."""
    hand = played["hand"]
    drop = "DROP TRIGGER ledger_no_update" + ("" if backend == "sqlite" else " ON ledger_entries")
    await _tamper(store, drop, "UPDATE balances SET balance = -7 WHERE player_id = 'c'",
                  "UPDATE daily_net SET flow = flow - 2 WHERE player_id = 'a'", "UPDATE guilds SET entries = 0",
                  "INSERT INTO hand_seats(hand_id, seat, guild, player_id, net, won, self_draw, dealt_in, fan,"
                  f" liangdao) VALUES ({hand}, 3, '{GUILD}', 'd', -5, 0, 0, 0, 0, 0)")
    problems = (await verify_store(store.path)).problems
    assert {p.code for p in problems} >= {"trigger_missing", "nets_sum", "entries_differ", "balances_differ",
                                          "daily_differs", "guild_differs"}, problems
    for problem in problems:
        assert problem_text(problem, "en").replace("\u2212", "-") == problem.replace("+", "")
        chinese = problem_text(problem, "zh-CN")
        assert re.search("[\u4e00-\u9fff]", chinese) and not re.search(r"\b(the|is|table|says)\b", chinese), chinese
    assert f"牌局 {hand}：各座位的输赢合计 \u22125，不是 0" in [problem_text(p, "zh-CN") for p in problems]
