"""What the front ends read: leaderboards by period, statistics, history, series; one server at a time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support.players import GUILD

WED = datetime(2025, 3, 5, 12, tzinfo=UTC)  # ISO week Mon 3 Mar .. Sun 9 Mar 2025


def _nets(board):
    return {row.player: row.net for row in board}


async def _play(store, clock, table, hand, hand_no, when, payments, winners):
    clock.when = when
    await store.finish_hand(hand(table, hand_no, payments, winners=winners))


async def test_leaderboard_periods_follow_the_utc_calendar(store, table, hand, clock):
    await _play(store, clock, table, hand, 1, datetime(2025, 2, 28, 23, 59, tzinfo=UTC), [("b", "a", 8, "hu")], {"a": 8})
    await _play(store, clock, table, hand, 2, datetime(2025, 3, 2, 23, 0, tzinfo=UTC), [("c", "b", 4, "hu")], {"b": 4})
    await _play(store, clock, table, hand, 3, datetime(2025, 3, 3, 0, 0, tzinfo=UTC), [("a", "c", 2, "hu")], {"c": 2})
    assert _nets(await store.leaderboard(GUILD, "all", now=WED)) == {"a": 6, "b": -4, "c": -2}
    assert _nets(await store.leaderboard(GUILD, "month", now=WED)) == {"a": -2, "b": 4, "c": -2}
    assert _nets(await store.leaderboard(GUILD, "week", now=WED)) == {"a": -2, "b": 0, "c": 2}
    # On the Sunday the week is the previous one; in April the month is empty.
    assert _nets(await store.leaderboard(GUILD, "week", now=datetime(2025, 3, 9, 23, 59, tzinfo=UTC))) == {
        "a": -2, "b": 0, "c": 2}
    assert _nets(await store.leaderboard(GUILD, "week", now=datetime(2025, 3, 2, 12, tzinfo=UTC))) == {
        "a": 8, "b": -4, "c": -4}
    assert await store.leaderboard(GUILD, "month", now=datetime(2025, 4, 1, tzinfo=UTC)) == []
    with pytest.raises(ValueError):
        await store.leaderboard(GUILD, "year", now=WED)


async def test_a_week_can_span_two_months(store, table, hand, clock):
    await _play(store, clock, table, hand, 1, datetime(2025, 3, 31, 10, tzinfo=UTC), [("b", "a", 8, "hu")], {"a": 8})
    april_2 = datetime(2025, 4, 2, tzinfo=UTC)
    assert _nets(await store.leaderboard(GUILD, "week", now=april_2)) == {"a": 8, "b": -8, "c": 0}
    assert await store.leaderboard(GUILD, "month", now=april_2) == []


async def test_a_late_correction_counts_in_the_hands_own_period(store, table, hand, clock):
    await _play(store, clock, table, hand, 1, datetime(2025, 2, 10, tzinfo=UTC), [("b", "a", 8, "hu")], {"a": 8})
    clock.when = WED
    await store.reverse_hand(GUILD, await store.hand_id(table, 1), by="m", why="x")
    assert await store.leaderboard(GUILD, "month", now=WED) == []  # March is untouched
    assert await store.leaderboard(GUILD, "month", now=datetime(2025, 2, 11, tzinfo=UTC)) == []
    assert await store.leaderboard(GUILD, "all", now=WED) == []


async def test_equal_nets_share_a_rank(store, table, hand):
    await store.finish_hand(hand(table, 1, [("a", "b", 3, "hu"), ("a", "c", 3, "hu")], winners={"b": 3, "c": 3}))
    board = await store.leaderboard(GUILD)
    assert [(r.rank, r.player, r.net, r.name) for r in board] == [
        (1, "b", 3, "Bob"), (1, "c", 3, "Cy"), (3, "a", -6, "Ann")]
    assert [r.player for r in await store.leaderboard(GUILD, limit=1)] == ["b"]


async def test_statistics_of_a_scripted_session(store, table, hand):
    # 1: a self-draws 4 fan.  2: b (亮倒) wins 2 fan on a's discard, 包胡.  3: draw, a had declared 亮倒.
    # 4: c wins 8 fan on b's discard; a's concealed kong earlier that hand.
    await store.finish_hand(hand(table, 1, [("b", "a", 4, "hu"), ("c", "a", 4, "hu")], winners={"a": 4},
                                 self_draw="a", patterns={"a": ["qingyise"]}))
    await store.finish_hand(hand(table, 2, [("a", "b", 4, "baohu")], winners={"b": 2}, liangdao="b"))
    await store.finish_hand(hand(table, 3, [("a", "b", 1, "draw_liangdao"), ("a", "c", 1, "draw_liangdao")],
                                 liangdao="a"))
    await store.finish_hand(hand(table, 4, [("b", "a", 2, "angang"), ("c", "a", 2, "angang"), ("b", "c", 8, "hu")],
                                 winners={"c": 8}, patterns={"c": ["qidui", "haidipao"]}))
    a, b, c = [await store.player_stats(GUILD, p) for p in "abc"]
    assert (a.hands, a.wins, a.self_draws, a.self_draw_rate, a.deal_ins, a.deal_in_rate) == (4, 1, 1, 1.0, 1, 0.25)
    assert (a.avg_fan, a.max_fan, a.liangdao, a.liangdao_wins, a.liangdao_win_rate) == (4.0, 4, 1, 0, 0.0)
    assert a.net == 8 - 4 - 2 + 4
    assert (b.wins, b.self_draws, b.self_draw_rate, b.deal_ins, b.liangdao, b.liangdao_win_rate) == (
        1, 0, 0.0, 1, 1, 1.0)
    assert (c.wins, c.avg_fan, c.max_fan, c.deal_ins, c.win_rate) == (1, 8.0, 8, 0, 0.25)
    assert [s.player for s in await store.stats(GUILD)] == ["a", "b", "c"]
    assert (await store.player_stats(GUILD, "nobody")).hands == 0


async def test_history_is_newest_first_and_paginated(store, table, hand):
    for n in range(1, 6):
        await store.finish_hand(hand(table, n, [("b", "a", n, "hu")], winners={"a": 2}, patterns={"a": ["kawuxing"]},
                                     summary={"n": n}))
    page = await store.history(GUILD, "b", limit=2, offset=1)
    assert [h.hand_no for h in page] == [4, 3]
    assert [h.net for h in page] == [-4, -3]
    assert page[0].winners == ["a"] and page[0].fan == {"a": 2} and page[0].patterns == {"a": ["kawuxing"]}
    assert page[0].summary == {"n": 4} and page[0].dealt_in and not page[0].won
    assert [h.hand_no for h in await store.history(GUILD, "a", limit=10)] == [5, 4, 3, 2, 1]


async def test_servers_never_see_each_other(store, hand):
    t1 = await store.create_table("g1", rules={}, seed="1", seats=[])
    t2 = await store.create_table("g2", rules={}, seed="2", seats=[])
    await store.finish_hand(hand(t1, 1, [("b", "a", 5, "hu")], winners={"a": 5}, guild="g1"))
    await store.finish_hand(hand(t2, 1, [("a", "b", 7, "hu")], winners={"b": 7}, guild="g2"))
    await store.finish_hand(hand(t2, 2, [("a", "b", 1, "hu")], winners={"b": 1}, guild="g2"))
    one = await store.balances("g1")
    assert one.hands == 1 and {r.player: r.balance for r in one.rows} == {"a": 5, "b": -5, "c": 0}
    assert (await store.balance("g2", "b")).balance == 8
    assert _nets(await store.leaderboard("g1")) == {"a": 5, "b": -5, "c": 0}
    assert len(await store.history("g1", "a")) == 1 and (await store.player_stats("g2", "a")).hands == 2
    assert [(t.from_player, t.to_player, t.amount) for t in await store.settle_up("g1")] == [("b", "a", 5)]
    assert {e.guild for e in await store.entries("g1")} == {"g1"}
    assert await store.has_guild("g2") and not await store.has_guild("g3")


async def test_unknown_player_has_a_zero_balance(store):
    row = await store.balance(GUILD, "ghost")
    assert (row.player, row.name, row.balance, row.hands) == ("ghost", "ghost", 0, 0)


async def test_a_chart_counts_the_players_hands_and_leaves_out_an_undone_one(store, table, hand, clock):
    """x is hands played: a hand where the player's money did not move still counts, cash moves the line at the
    same count, and an undone hand neither counts nor moves it."""
    await _play(store, clock, table, hand, 1, WED, [("b", "a", 4, "hu")], {"a": 4})
    await _play(store, clock, table, hand, 2, WED.replace(hour=13), [("c", "b", 2, "hu")], {"b": 2})  # a: 0
    clock.when = WED.replace(hour=14)
    await store.record_settlement(GUILD, payer="b", payee="a", amount=3, by="b")
    await _play(store, clock, table, hand, 3, WED.replace(hour=15), [("a", "c", 8, "hu")], {"c": 8})
    await store.reverse_hand(GUILD, await store.hand_id(table, 3), by="admin", why="misdeal")
    series = await store.chart_series(GUILD, "a")
    assert [(hands, balance) for hands, _, balance in series] == [(1, 4), (2, 4), (2, 1)]
    assert series[-1][2] == (await store.balance(GUILD, "a")).balance
    assert (await store.chart_series(GUILD, "a", max_points=2))[-1][0::2] == (2, 1)  # by day: the same end


async def test_hand_money_splits_a_hand_by_reason_for_one_player(store, table, hand, clock):
    await _play(store, clock, table, hand, 1, WED, [("b", "a", 1, "bugang"), ("c", "a", 1, "bugang"),
                                                    ("a", "b", 2, "hu"), ("c", "b", 2, "hu")], {"b": 2})
    hand_id = await store.hand_id(table, 1)
    assert await store.hand_money(GUILD, "a", [hand_id]) == {hand_id: {"bugang": 2, "hu": -2}}
    assert await store.hand_money(GUILD, "b", [hand_id]) == {hand_id: {"bugang": -1, "hu": 4}}
    assert await store.hand_money("elsewhere", "a", [hand_id]) == {} and await store.hand_money(GUILD, "a", []) == {}
    await store.reverse_hand(GUILD, hand_id, by="admin", why="misdeal")
    assert await store.hand_money(GUILD, "a", [hand_id]) == {hand_id: {"bugang": 2, "hu": -2}}  # what it moved then


async def test_balance_series_by_entry_and_by_day(store, clock):
    clock.when = datetime(2025, 3, 1, 10, tzinfo=UTC)
    await store.transfer(GUILD, "b", "a", 5, by="b")
    clock.when = datetime(2025, 3, 1, 18, tzinfo=UTC)
    await store.transfer(GUILD, "a", "c", 2, by="a")
    clock.when = datetime(2025, 3, 4, 9, tzinfo=UTC)
    await store.record_settlement(GUILD, payer="b", payee="a", amount=3, by="a")
    by_entry = await store.balance_series(GUILD, "a")
    assert [v for _, v in by_entry] == [5, 3, 0]
    assert by_entry[0][0] == datetime(2025, 3, 1, 10, tzinfo=UTC)
    assert await store.balance_series(GUILD, "a", by="day") == [
        (datetime(2025, 3, 1, tzinfo=UTC), 3), (datetime(2025, 3, 4, tzinfo=UTC), 0)]
