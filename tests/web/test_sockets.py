"""The table page's socket, as a page speaks it (no browser): who gets which view, links that do not check out,
a press sent again after a reconnect, the press limit."""

from __future__ import annotations

import asyncio
import json

import pytest

from kwx.web.seats import LinkRefused, SeatLinks
from tests.support.web import ANN, BOB, CAT, SECRET, Page, served, three_humans


def concealed_tiles_of_others(message: dict, me: int | None) -> list[str]:
    """Every concealed tile of a seat other than `me` that a message carries (a 亮倒 hand is public)."""
    leaks: list[str] = []
    if message["t"] == "hand" and message["view"]["seat"] != me:
        leaks += message["view"]["concealed"]
    if message["t"] == "board":
        for seat in message["view"]["seats"]:
            if seat["seat"] != me and not seat["liangdao"]:
                leaks += seat["revealed"]
                leaks += [m["tile"] for m in seat["melds"] if m["kind"] == "ankong" and m["tile"]]
    return leaks


async def turn_of(pages: list[Page]) -> tuple[Page, dict]:
    """The page whose seat must discard now, and its view."""
    async def first(page: Page) -> tuple[Page, dict]:
        return page, await page.hand(lambda v: any(c["verb"] == "discard" for c in v["choices"]))

    done, pending = await asyncio.wait([asyncio.ensure_future(first(p)) for p in pages],
                                       return_when=asyncio.FIRST_COMPLETED, timeout=10)
    for task in pending:
        task.cancel()
    return done.pop().result()


async def test_each_seat_gets_its_own_hand_and_nobody_elses(tmp_path):
    async with served(tmp_path) as s:
        await three_humans(s)
        pages = [await s.page({"link": s.link(p.player_id)}) for p in (ANN, BOB, CAT)]
        welcomes = [await p.next("welcome") for p in pages]
        assert [w["player"] for w in welcomes] == ["101", "102", "103"]
        page, view = await turn_of(pages)
        discard = next(c for c in view["choices"] if c["verb"] == "discard")
        await page.act("p1", "discard", discard["tile"], view["step"])
        assert (await page.next("answer"))["ok"] is True
        await s.service.flush()
        for p in pages:  # every page has read all it was sent for the discard and the next draw
            await p.drain()
        seats = {w["player"]: None for w in welcomes}
        for p, w in zip(pages, welcomes, strict=True):
            mine = {m["view"]["seat"] for m in p.got if m["t"] == "hand"}
            assert len(mine) == 1, f"{w['player']} was sent the hands of seats {mine}"
            seats[w["player"]] = mine.pop()
            assert not any(concealed_tiles_of_others(m, seats[w["player"]]) for m in p.got)
        assert sorted(seats.values()) == [0, 1, 2]


async def test_a_spectator_link_gets_the_board_and_never_a_hand(tmp_path):
    async with served(tmp_path) as s:
        await three_humans(s)
        watcher = await s.page({"link": s.link("999")})  # a player with no seat here
        welcome = await watcher.next("welcome")
        assert welcome["player"] is None
        board = await watcher.next("board")
        assert board["view"]["phase"] == "turn"
        await watcher.ws.send_json({"t": "act", "id": "x", "verb": "pass", "step": board["view"]["step"]})
        answer = await watcher.next("answer")
        assert answer["ok"] is False and answer["text"] == "You're not seated at this table."
        assert not any(m["t"] == "hand" for m in watcher.got)


@pytest.mark.parametrize("how", ["forged", "expired", "other_seat", "other_secret", "garbage"])
async def test_a_link_that_does_not_check_out_is_refused(tmp_path, how):
    async with served(tmp_path) as s:
        await three_humans(s)
        token = s.link(BOB.player_id)
        table, who, expires, signature = token.split(".")
        bad = {
            "forged": f"{table}.{who}.{expires}.{signature[:-2]}AA",
            "expired": s.link(BOB.player_id, ttl=-1),
            # Bob's signature on Ann's name: a link names its player, and another seat's is not his to take
            "other_seat": f"{table}.{s.link(ANN.player_id).split('.')[1]}.{expires}.{signature}",
            "other_secret": SeatLinks(b"another server's secret!").issue(s.table_id, BOB.player_id),
            "garbage": "not-a-link",
        }[how]
        page = await s.page({"link": bad})
        refused = await page.next()
        assert refused["t"] == "refused"
        assert refused["text"] == {"expired": "This table link has expired: press \"Open in a browser\" in your "
                                              "DM panel for a new one.",
                                   "garbage": "This is not a table link: open the link from your DM panel."}.get(
            how, "This table link is not valid: open the link from your DM panel again.")
        with pytest.raises(ConnectionError):
            await page.next()


def test_links_name_one_player_at_one_table_until_they_expire():
    now = [1000.0]
    links = SeatLinks(SECRET, clock=lambda: now[0])
    token = links.issue(7, "local:you", ttl=60)
    assert (links.check(token).table_id, links.check(token).player_id) == (7, "local:you")
    now[0] += 61
    with pytest.raises(LinkRefused) as refused:
        links.check(token)
    assert refused.value.code == "expired"


async def test_a_press_sent_again_after_a_reconnect_is_made_once(tmp_path):
    async with served(tmp_path) as s:
        await three_humans(s)
        pages = [await s.page({"link": s.link(p.player_id)}) for p in (ANN, BOB, CAT)]
        page, view = await turn_of(pages)
        me = next(m for m in page.got if m["t"] == "welcome")["player"]
        tile = next(c for c in view["choices"] if c["verb"] == "discard")["tile"]
        await page.act("once", "discard", tile, view["step"])
        await page.close()  # the socket drops before the page reads the answer
        again = await s.page({"link": s.link(me)})
        await again.next("welcome")
        await again.act("once", "discard", tile, view["step"])  # table.js sends its unanswered presses again
        answer = await again.next("answer")
        assert answer == {"t": "answer", "id": "once", "ok": True}
        await s.service.flush()
        board = s.service.public_view_as_shown(s.table_id)
        seat = next(x for x in board.seats if x.player.player_id == me)
        assert [t.compact for t, _ in seat.pond] == [tile]  # discarded once, not twice


async def test_presses_are_limited(tmp_path):
    async with served(tmp_path) as s:
        await three_humans(s)
        page = await s.page({"link": s.link(ANN.player_id)})
        await page.next("welcome")
        for n in range(12):
            await page.ws.send_json({"t": "act", "id": f"spam{n}", "verb": "peng", "step": 0})
        answers = [await page.next("answer") for _ in range(12)]
        slow = [a for a in answers if a["text"] == "Too many presses at once: wait a moment."]
        assert len(slow) >= 3 and all(not a["ok"] for a in answers)


async def test_auto_pass_is_a_press_the_service_keeps_and_the_panel_shows(tmp_path):
    async with served(tmp_path) as s:
        await three_humans(s)
        page = await s.page({"link": s.link(ANN.player_id)})
        await page.next("welcome")
        view = await page.hand()
        assert view["auto_pass"] is False
        await page.ws.send_json({"t": "act", "id": "ap", "verb": "auto_pass", "step": view["step"]})
        shown = await page.hand()  # the press's answer carries the panel as it now stands
        assert shown["auto_pass"] is True
        assert (await page.next("answer"))["ok"] is True
        assert await s.service.player_setting(s.table_id, ANN.player_id, "auto_pass") is True


async def test_a_press_is_answered_without_sending_the_seat_a_view_it_already_has(tmp_path):
    """The press's answer carries the seat's view as it stands, which the service has usually just pushed: the
    page gets each view once (a busy server encodes and sends it once), and never an older one after a newer."""
    async with served(tmp_path) as s:
        await three_humans(s)
        pages = [await s.page({"link": s.link(p.player_id)}) for p in (ANN, BOB, CAT)]
        for p in pages:
            await p.next("welcome")
        page, view = await turn_of(pages)
        before = len(page.got)
        discard = next(c for c in view["choices"] if c["verb"] == "discard")
        await page.act("p1", "discard", discard["tile"], view["step"])
        assert (await page.next("answer"))["ok"] is True
        await s.service.flush()
        await page.drain()
        views = [m["view"] for m in page.got[before:] if m["t"] == "hand"]
        steps = [(v["hand"], v["step"]) for v in views]
        assert views and steps == sorted(steps)
        assert len({json.dumps(v, sort_keys=True) for v in views}) == len(views), steps


async def test_what_a_change_brings_a_page_goes_in_one_frame(tmp_path):
    """A discard changes the board and every seat's view: each page gets them in one send (a JSON array), not
    one send per message; the page reads the array's messages in order."""
    async with served(tmp_path) as s:
        await three_humans(s)
        pages = [await s.page({"link": s.link(p.player_id)}) for p in (ANN, BOB, CAT)]
        for p in pages:
            await p.next("welcome")
            await p.drain()
        hands = [[m["view"] for m in p.got if m["t"] == "hand"][-1] for p in pages]
        page, view = next((p, v) for p, v in zip(pages, hands, strict=True)
                          if any(c["verb"] == "discard" for c in v["choices"]))
        others = [p for p in pages if p is not page]
        before = [(len(p.frames), len(p.got)) for p in others]
        discard = next(c for c in view["choices"] if c["verb"] == "discard")
        await page.act("p1", "discard", discard["tile"], view["step"])
        await s.service.flush()
        both = 0
        for p, (frames, got) in zip(others, before, strict=True):
            await p.drain()
            kinds = [m["t"] for m in p.got[got:]]
            if "board" in kinds and "hand" in kinds:  # the next seat's draw (a seat not asked may get the board only)
                both += 1
                assert len(p.frames) - frames < len(kinds), (p.frames[frames:], kinds)
        assert both
