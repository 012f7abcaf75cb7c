"""A finished hand's 复盘 from the table page: `GET /review?hand=N&link=TOKEN` answers the review page
(kwx.present.review_html) of hand N at the link's table, from the seat of the link's player.

The same checks as `/kwx review` (kwx.table.reviews): only a player who sat in the hand, the seed against the
ledger's commitment, the log against the recorded result. The replay is CPU work and runs in a thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from kwx.present.i18n import resolve_lang, tr
from kwx.present.review_html import review_page
from kwx.table.reviews import ReviewRefused, load_ledger_hand, review_hand
from kwx.web.seats import LinkRefused, SeatLinks

HAND_DIGITS = 6  # a table's hand number: far fewer than a million


async def answer_review(request: web.Request, store: Any, links: SeatLinks) -> web.Response:
    lang = resolve_lang(request.query.get("lang") or "zh-CN")
    hand_text = request.query.get("hand", "")
    if not hand_text.isdigit() or len(hand_text) > HAND_DIGITS:
        raise web.HTTPNotFound()
    try:
        seat_pass = links.check(request.query.get("link", ""))
    except LinkRefused as exc:
        return _refused(tr(f"web.link.{exc.code}", lang))
    row = await store.get_table(seat_pass.table_id)
    found = await store.hand_commitment(row.guild, seat_pass.table_id, int(hand_text))
    if found is None:
        return _refused(tr("review.refused.not_found", lang, hand=hand_text))
    hand_id = int(found[0])
    try:
        source = await load_ledger_hand(store, row.guild, hand_id, viewer=seat_pass.player_id)
        seat = source.seat_of(seat_pass.player_id)
        assert seat is not None  # load_ledger_hand refused a viewer who did not sit in it
        review = await asyncio.to_thread(review_hand, source, seat)
    except ReviewRefused as exc:
        return _refused(tr(f"review.refused.{exc.code}", lang, **{"hand": hand_id, **exc.fmt}))
    html = review_page(review, source.names, lang, hand_id=hand_id)
    return web.Response(text=html, content_type="text/html", headers={"Referrer-Policy": "no-referrer"})


def _refused(text: str) -> web.Response:
    return web.Response(text=text, status=403, content_type="text/plain")
