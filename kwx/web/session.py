"""One open table page on its socket: who it is for, what it is sent first, and the presses it makes.

The page's first message says who it is: `{"t": "hello", "link": TOKEN}` (a personal link, kwx.web.seats) or
`{"t": "hello", "access_token": T, "guild": G, "channel": C}` (the Activity: the user is whoever Discord says
owns the token, the table the one in that channel), with its language. Anything else, a link that does not
check out or a table not run here, is answered `{"t": "refused", "text": …}` and the socket closes.

Then the page is sent the table as it stands (the board, its own hand if it holds a seat, the last result
between hands) and every change after it; a frame is one message, or an array of the messages queued for the
page at once (kwx.web.hub). A press is `{"t": "act", "id": …, "verb": …, "tile": …, "step": …}`
and is answered `{"t": "answer", "id": …, "ok": …, "text": …}`. A page that lost its socket sends its unanswered
press again with the same id when it is back: the answer it missed is sent again and the press is not made
twice (and a press of a step that has passed is refused by the service as stale, so a stale page cannot act).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from kwx.engine.tiles import Tile, TileError, parse_tile
from kwx.present.i18n import LANGUAGES, catalog, resolve_lang, tile_label, tr
from kwx.table.errors import TableError, refusal_text
from kwx.table.press import PRESS_VERBS, Press
from kwx.web.hub import Viewer, WebFrontEnd, message
from kwx.web.oauth import DiscordOAuth, OAuthRefused
from kwx.web.seats import LinkRefused, SeatLinks
from kwx.web.wire import Words, page_strings, question

logger = logging.getLogger(__name__)

PRESS_RATE = 4.0  # presses a second one player may make, on average …
PRESS_BURST = 8  # … and at once: more than any turn needs, far fewer than a script would send
REMEMBERED_ANSWERS = 64  # per player: a press sent again after a reconnect finds its answer here


@dataclass
class Identity:
    table_id: int
    player_id: str | None  # None: a spectator
    name: str


class PressBucket:
    """A token bucket per player (PRESS_RATE a second, PRESS_BURST at once)."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._clock = clock
        self._state: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> bool:
        now = self._clock()
        tokens, then = self._state.get(key, (float(PRESS_BURST), now))
        tokens = min(float(PRESS_BURST), tokens + (now - then) * PRESS_RATE)
        if tokens < 1.0:
            self._state[key] = (tokens, now)
            return False
        self._state[key] = (tokens - 1.0, now)
        return True


class Sessions:
    """What every page's session shares: the service, the hub, the link checker, the Activity's OAuth2."""

    def __init__(self, service: Any, hub: WebFrontEnd, links: SeatLinks, *, oauth: DiscordOAuth | None = None,
                 default_lang: str = "zh-CN") -> None:
        self.service = service
        self.hub = hub
        self.links = links
        self.oauth = oauth
        self.default_lang = resolve_lang(default_lang)
        self.buckets = PressBucket()
        self.answers: dict[str, OrderedDict[str, str]] = {}
        self._strings = {lang: page_strings(lang, catalog().keys(lang)) for lang in LANGUAGES}
        self._tiles = {lang: {t.compact: tile_label(t, lang) for t in Tile} for lang in LANGUAGES}

    async def identify(self, hello: dict[str, Any]) -> Identity:
        """The table and player a hello names; LinkRefused / OAuthRefused / TableError when it names none."""
        if isinstance(hello.get("link"), str):
            seat_pass = self.links.check(hello["link"])
            return self._at(seat_pass.table_id, seat_pass.player_id)
        token, guild, channel = hello.get("access_token"), hello.get("guild"), hello.get("channel")
        if isinstance(token, str) and isinstance(channel, str) and self.oauth is not None:
            user = await self.oauth.user(token)
            instance = hello.get("instance")
            if self.oauth.checks_instances and isinstance(instance, str):
                # Discord says where the Activity runs and who is in it: the page's word is not needed
                where = await self.oauth.instance(instance)
                if user.id not in where.users:
                    raise OAuthRefused("token", "not in this activity instance")
                guild, channel = where.guild, where.channel
            table_id = self.service.table_in_channel(str(guild or ""), str(channel))
            if table_id is None:
                raise TableError("no_table", "no table in this channel")
            return self._at(table_id, user.id, user.name)
        raise LinkRefused("malformed")

    def _at(self, table_id: int, player_id: str, name: str = "") -> Identity:
        if self.service.table_of(table_id) is None:
            raise TableError("no_table", "the table is closed or not run here")
        view = self.service.public_view_as_shown(table_id)
        seated = next((s.player for s in view.seats if s.player.player_id == player_id), None)
        if seated is None:
            return Identity(table_id, None, name)
        return Identity(table_id, player_id, seated.name)

    def first_messages(self, who: Identity, lang: str) -> list[str]:
        """The table as it stands, for a page that just (re)connected."""
        service, hub = self.service, self.hub
        board = service.public_view_as_shown(who.table_id)
        # The seat's own link, signed here: the page opens a finished hand's review with it (an Activity page
        # has no link of its own).
        link = self.links.issue(who.table_id, who.player_id) if who.player_id is not None else None
        out = [message("welcome", table=who.table_id, player=who.player_id, name=who.name, lang=lang, link=link,
                       strings=self._strings[lang], tiles=self._tiles[lang], now=time.time()),
               hub.board_message(board, lang)]
        if who.player_id is not None and board.phase != "lobby":
            with contextlib.suppress(TableError):  # seated in the lobby, or the seat was left this hand
                out.append(hub.hand_message(service.private_view_as_shown(who.table_id, who.player_id), lang))
        result = service.last_result(who.table_id)
        if result is not None:
            out.append(hub.result_message(result, board, lang))
        return out

    def refused_text(self, exc: Exception, lang: str) -> str:
        if isinstance(exc, LinkRefused):
            return tr(f"web.link.{exc.code}", lang)
        if isinstance(exc, OAuthRefused):
            return tr(f"web.auth.{exc.code}", lang)
        if isinstance(exc, TableError):
            return refusal_text(exc, lang)
        return tr("error.generic", lang)

    async def handle(self, who: Identity, viewer: Viewer, data: dict[str, Any]) -> str | None:
        """One message from a page; the answer to send back (None: nothing to answer)."""
        kind = data.get("t")
        if kind not in ("act", "autoplay", "resume"):
            return None
        press_id = str(data.get("id", ""))[:40]
        if who.player_id is None:
            return message("answer", id=press_id, ok=False, text=tr("error.not_seated", viewer.lang))
        key = f"{who.table_id}:{who.player_id}"
        answered = self.answers.setdefault(key, OrderedDict())
        if press_id and press_id in answered:
            return answered[press_id]  # sent before the socket dropped: the same answer, not a second press
        if not self.buckets.take(key):
            return message("answer", id=press_id, ok=False, text=tr("web.slow_down", viewer.lang))
        try:
            answer = await self._press(who, kind, data, press_id, viewer)
        except TableError as exc:
            answer = message("answer", id=press_id, ok=False, text=refusal_text(exc, viewer.lang))
        except (TileError, ValueError, TypeError):
            answer = message("answer", id=press_id, ok=False, text=tr("error.bad_tile", viewer.lang))
        if press_id:
            answered[press_id] = answer
            while len(answered) > REMEMBERED_ANSWERS:
                answered.popitem(last=False)
        return answer

    async def _press(self, who: Identity, kind: Any, data: dict[str, Any], press_id: str, viewer: Viewer) -> str:
        """The press made (one service call: TableService.press) and its answer; the seat's panel as it now
        stands goes to the page with it."""
        service, table_id, pid, lang = self.service, who.table_id, who.player_id, viewer.lang
        if kind == "autoplay":
            await service.set_autoplay(table_id, pid, bool(data.get("on")))
            return message("answer", id=press_id, ok=True)
        if kind == "resume":
            await service.resume(table_id, pid)
            return message("answer", id=press_id, ok=True)
        verb = data.get("verb")
        if verb not in PRESS_VERBS:
            raise TableError("illegal", f"unknown verb {verb!r}")
        raw_tile, step, hand, amount = data.get("tile"), data.get("step"), data.get("hand"), data.get("amount")
        press = Press(verb, parse_tile(raw_tile) if isinstance(raw_tile, str) and raw_tile else None,
                      step=step if isinstance(step, int) else None, hand=hand if isinstance(hand, int) else None,
                      amount=amount if isinstance(amount, int) else None, confirmed=data.get("confirmed") is True)
        outcome = await service.press(table_id, pid, press)
        if outcome.view is not None:
            self.hub.put_hand(viewer, outcome.view)
        if outcome.refusal is not None:
            return message("answer", id=press_id, ok=False, text=refusal_text(outcome.refusal, lang))
        if outcome.ask is not None:
            board = self.hub.board(table_id)
            names = Words(lang, board, pid) if board is not None else None
            return message("answer", id=press_id, ok=True, ask=question(outcome.ask, outcome.view, lang, names))
        return message("answer", id=press_id, ok=True)

    def language(self, hello: dict[str, Any]) -> str:
        lang = hello.get("lang")
        return resolve_lang(lang) if isinstance(lang, str) and lang else self.default_lang
