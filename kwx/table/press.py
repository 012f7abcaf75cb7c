"""One press, one call: what a player pressed (any front end) becomes one `TableService.press`, answered with
everything the front end needs to answer it — accepted, asked first, or refused with its catalog code — and the
player's panel as it now stands.

    outcome = await service.press(table, player_id, Press("discard", Tile.P5, step=view.step))
    if outcome.refusal: say(refusal_text(outcome.refusal, lang))
    elif outcome.ask: show the question (outcome.ask.warning: the cost and who gains), offer Press(..., confirmed=True)
    else: show outcome.view

The table's policy lives here, once for every front end: any press of one's own panel ends 托管; 摸切 is the
discard of the drawn tile; a costly discard (kwx.table.advice) and every 亮倒 are asked about first, the former
unless the player turned that question off ("don't ask again" is a press too); the auto-pass toggle is a press
whose setting the service honours (kwx.table.play passes the claim offers). Refusals are the `Play` checks'
`TableError`s, decided once.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from kwx.engine.tiles import Tile
from kwx.table.advice import MoveWarning, warning_for
from kwx.table.context import TableContext
from kwx.table.delivery import Delivery
from kwx.table.errors import TableError
from kwx.table.live import LiveTable
from kwx.table.phases import BETWEEN, LOBBY
from kwx.table.play import Play
from kwx.table.player_settings import ASK_FIRST, AUTO_PASS, SETTINGS, PlayerSettings, Setting
from kwx.table.views import ActionChoice, PrivateView

MOQIE = "moqie"  # 摸切: discard the tile just drawn
TOGGLE_AUTO_PASS = "auto_pass"  # turn the player's auto-pass on or off
LOOK = "look"  # nothing played: a press that only changes the panel (the 亮倒 picks), while the decision stands
PRESS_VERBS = ("discard", "liangdao", "gang", "peng", "hu", "pass", "piao", MOQIE, TOGGLE_AUTO_PASS, LOOK)


@dataclass(frozen=True)
class Press:
    """What a player pressed. `step` is the step the panel showed (a press on an older panel is refused as
    stale); `confirmed`: the player saw the question and goes ahead; `never_ask`: and turns it off."""

    verb: str  # one of PRESS_VERBS
    tile: Tile | None = None
    step: int | None = None
    hand: int | None = None  # the hand the panel showed (a press on an earlier hand's panel is refused)
    amount: int | None = None  # a 漂 pick
    confirmed: bool = False
    never_ask: bool = False


@dataclass(frozen=True)
class Question:
    """The service asks before this move; nothing was done. `warning`: what it would cost and who would gain
    (None for a 亮倒 that feeds nobody: the question then shows the hand it reveals)."""

    verb: str  # discard | liangdao
    tile: Tile
    warning: MoveWarning | None


@dataclass(frozen=True)
class PressOutcome:
    """How a press was answered. `view`: the player's panel as the front end now shows it (kwx.table.delivery:
    during the pause after a discard, the one last sent; None once the player has no seat or the table closed);
    `auto_pass`: the player's auto-pass setting."""

    refusal: TableError | None = None
    ask: Question | None = None
    view: PrivateView | None = None
    auto_pass: bool = False

    @property
    def accepted(self) -> bool:
        return self.refusal is None and self.ask is None


class Presses:
    def __init__(self, ctx: TableContext, delivery: Delivery, play: Play, settings: PlayerSettings) -> None:
        self._ctx = ctx
        self._delivery = delivery
        self._play = play
        self._settings = settings

    async def press(self, table_id: int, player_id: str, press: Press) -> PressOutcome:
        try:
            t = self._ctx.table(table_id)
            ask = await self._answer(t, player_id, press)
        except TableError as err:
            return PressOutcome(refusal=err, view=self._view(table_id, player_id),
                                auto_pass=await self._auto_pass(table_id, player_id))
        return PressOutcome(ask=ask, view=self._view(table_id, player_id),
                            auto_pass=await self._auto_pass(table_id, player_id))

    async def _answer(self, t: LiveTable, player_id: str, press: Press) -> Question | None:
        if press.verb not in PRESS_VERBS:
            raise TableError("illegal", f"unknown press {press.verb!r}: presses are {', '.join(PRESS_VERBS)}")
        seat = t.seat_of(player_id) if t.status != LOBBY else None
        if press.hand is not None and seat is not None and (press.hand != t.hand_no or t.status == BETWEEN):
            raise TableError("stale", f"hand {press.hand} is over", reason="hand_over")
        if press.verb in (TOGGLE_AUTO_PASS, LOOK) and seat is None:
            raise TableError("not_seated", "you have no seat in this hand")
        if press.verb == TOGGLE_AUTO_PASS:
            await self._toggle_auto_pass(t, player_id, press.step)
            return None
        if press.verb == LOOK:
            assert seat is not None
            view = self._delivery.private_as_shown(t, seat)
            if not view.choices or (press.step is not None and press.step != view.step):
                raise TableError("stale", "that decision has passed")
            return None
        if player_id in t.autoplay:  # any press of one's own panel ends 托管
            with contextlib.suppress(TableError):
                await self._play.set_autoplay(t.id, player_id, False)
        verb, tile = press.verb, press.tile
        if verb == MOQIE:
            verb, tile = "discard", tile if tile is not None else self._drawn(t, seat)
        if not press.confirmed and verb in ("discard", "liangdao") and tile is not None and seat is not None:
            question = await self._question(t, seat, player_id, verb, tile, press.step)
            if question is not None:
                return question
        if verb == "piao":
            await self._play.act(t.id, player_id, "piao", step=press.step, amount=press.amount)
        else:
            await self._play.act(t.id, player_id, verb, tile, step=press.step)
        if press.never_ask:  # after the move: a store that fails must not cost the move (the setting holds here)
            await self._settings.set(t.guild, player_id, ASK_FIRST, False)
        return None

    @staticmethod
    def _drawn(t: LiveTable, seat: int | None) -> Tile | None:
        hand = t.hand
        return hand.drawn if hand is not None and seat is not None and hand.turn == seat else None

    async def _question(self, t: LiveTable, seat: int, player_id: str, verb: str, tile: Tile,
                        step: int | None) -> Question | None:
        """The question before this move, or None (not asked: also when the move is not offered, which `act`
        then refuses with its reason)."""
        view = self._delivery.private_as_shown(t, seat)
        if (step is not None and view.step != step) or ActionChoice(verb, tile) not in view.choices:
            return None
        warning = warning_for(view.warnings, verb, tile)
        if verb == "liangdao":
            return Question(verb, tile, warning)
        if warning is not None and await self._settings.get(t.guild, player_id, ASK_FIRST):
            return Question(verb, tile, warning)
        return None

    async def _toggle_auto_pass(self, t: LiveTable, player_id: str, step: int | None) -> None:
        """Turned on during a claim offer that holds no win, it passes that one too."""
        on = not await self._settings.get(t.guild, player_id, AUTO_PASS)
        await self._settings.set(t.guild, player_id, AUTO_PASS, on)
        if on:
            with contextlib.suppress(TableError):  # nothing to pass, or the window closed meanwhile
                await self._play.auto_pass(t.id, player_id, step)

    def _view(self, table_id: int, player_id: str) -> PrivateView | None:
        t = self._ctx.tables.get(table_id)
        if t is None or t.status == LOBBY:
            return None
        seat = t.seat_of(player_id)
        return None if seat is None else self._delivery.private_as_shown(t, seat)

    async def _auto_pass(self, table_id: int, player_id: str) -> bool:
        t = self._ctx.tables.get(table_id)
        return False if t is None else await self._settings.get(t.guild, player_id, AUTO_PASS)

    async def setting(self, table_id: int, player_id: str, name: str) -> bool:
        return await self._settings.get(self._ctx.table(table_id).guild, player_id, _setting(name))

    async def set_setting(self, table_id: int, player_id: str, name: str, on: bool) -> bool:
        return await self._settings.set(self._ctx.table(table_id).guild, player_id, _setting(name), on)


def _setting(name: str) -> Setting:
    setting = SETTINGS.get(name)
    if setting is None:
        raise ValueError(f"unknown player setting {name!r}: settings are {', '.join(SETTINGS)}")
    return setting
