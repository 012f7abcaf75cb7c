"""Panels and hands the Discord front end's tests draw and play: tile emojis, a private view to render, the
buttons of a view, and the scripted hand of the claim-pause tests (alice deals; she may 碰 bob's 5p, then 补杠)."""

from __future__ import annotations

import discord

from cogs.buttons import ActId
from cogs.emoji import TileFormatter
from cogs.fake_discord.kit import Kit
from kwx.engine.tiles import Tile, parse_tiles
from kwx.table.views import (
    ActionChoice,
    PlayerRef,
    PrivateView,
)

EMOJIS = TileFormatter({int(t): f"<:kwx_{t.compact}:{1_234_567_890_123_456_789 + int(t)}>" for t in Tile})
PLAYERS = [PlayerRef("1", "alice"), PlayerRef("2", "bob"), PlayerRef("ai:standard:1", "AI 1", "standard")]


def act_ids(view: discord.ui.View | None) -> list[ActId]:
    out = []
    for item in view.children if view else []:
        out.append(item.act)  # type: ignore[attr-defined]
    return out


def panel_view(**kw) -> PrivateView:
    base = dict(table_id=7, hand_no=2, step=31, seat=0, player_id="1", concealed=tuple(parse_tiles("1123456789p5s7z")),
                drawn=Tile.S9, melds=(), choices=(), deadline=1_700_000_000.0)
    return PrivateView(**(base | kw))


TILES = set(parse_tiles("1123456789p5s7z")) | {Tile.S9}  # alice's hand on the danger panel tests' turn
TURN = tuple(ActionChoice("discard", t) for t in sorted(TILES)) + (ActionChoice("liangdao", Tile.S5),)
PAUSE = 1.5
# alice deals (seat 0); she may 碰 bob's 5p and later adds her drawn 5p to it (补杠); nobody may rob it.
HANDS = ("12355p12345678s7z", "44668877s5566z3p", "113346789p179s5z")
DRAWS = "5p 9p 1p 5p"
BACK = "9s"


async def later(kit: Kit, seconds: float) -> None:
    kit.clock.advance(seconds)
    await kit.service.idle()
    await kit.settle()


async def move(kit: Kit, member, verb: str, arg: str | None = None) -> str:
    """Once any pause is over, `member` presses this button on their live panel; returns the reply."""
    await later(kit, PAUSE)
    panel = kit.live_panel(member)
    assert panel is not None, f"{member.name} has no live panel"
    return kit.reply(await kit.press(member, panel, verb, arg))
