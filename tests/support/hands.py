"""Builders for scripted hands: a wall from the hands you want, and a short way to play actions.

    wall = build_wall("11123p...", "456s...", "789p...", draws="5p 3s", back="7z")
    hand = deal("...", "...", "...", draws="5p", rules=RuleSet.preset("standard"))
    play(hand, "0 discard 5p", "1 hu")

The dealer takes the first 14 tiles, the next seat 13, the seat after 13; `draws` are the front draws in
order after the deal; `back` are the kong replacement draws (and the 买码 tile) in order: the first of them is
the wall's last tile. Every other position is filled with the tiles left over, in display order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from kwx.engine.actions import Action, Event
from kwx.engine.hand import HandState
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import WALL_SIZE, Tile, full_set, parse_tile, parse_tiles
from kwx.engine.wall import check_wall, format_sequence


def build_wall(dealer: str, second: str, third: str, draws: str = "", back: str = "") -> list[Tile]:
    """An 84-tile wall dealing these hands (dealer 14, the next seats 13 each) with these draws."""
    parts = [parse_tiles(dealer, check_copies=False), parse_tiles(second, check_copies=False),
             parse_tiles(third, check_copies=False)]
    for name, tiles, size in zip(("dealer", "second", "third"), parts, (14, 13, 13)):
        if len(tiles) != size:
            raise ValueError(f"the {name} hand needs {size} tiles, got {len(tiles)}")
    front = [t for p in parts for t in p] + parse_tiles(draws, check_copies=False)
    back_tiles = parse_tiles(back, check_copies=False)
    left = full_set()
    for t in front + back_tiles:
        try:
            left.remove(t)
        except ValueError:
            raise ValueError(f"more than four {t} in the scripted wall") from None
    wall = front + left + back_tiles[::-1]
    assert len(wall) == WALL_SIZE
    check_wall(wall)
    return wall


def wall_text(*args: str, **kwargs: str) -> str:
    """`build_wall` as compact text, for replay JSON."""
    return format_sequence(build_wall(*args, **kwargs))


def deal(dealer_hand: str, second: str, third: str, draws: str = "", back: str = "", *,
         rules: RuleSet = STANDARD, dealer: int = 0, piao: Sequence[int] = (0, 0, 0),
         base_multiplier: int = 1) -> HandState:
    """A HandState from scripted hands; `dealer_hand` goes to seat `dealer`, `second` to dealer+1, …"""
    return HandState(rules, dealer, build_wall(dealer_hand, second, third, draws, back), piao, base_multiplier)


def act(text: str) -> Action:
    """"0 discard 5p", "1 peng", "2 gang 7z", "1 gang" -> Action."""
    words = text.split()
    seat, verb = int(words[0]), words[1]
    tile = parse_tile(words[2]) if len(words) > 2 else None
    return Action(seat, verb, tile)


def play(hand: HandState, *steps: str) -> list[Event]:
    """Apply each step; returns all the events they caused."""
    out: list[Event] = []
    for step in steps:
        out.extend(hand.apply(act(step)))
    return out


def kinds(events: Sequence[Event]) -> list[str]:
    return [e.kind for e in events]


def of_kind(events: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def payments_json(hand: HandState) -> list[tuple[int, int, int, str]]:
    """(from, to, amount, reason) of every payment so far, in order."""
    return [(p.from_seat, p.to_seat, p.amount, p.reason) for p in hand.payments]


def census(hand: HandState) -> list[int]:
    """How many of each tile kind are in hands, melds, discards and the wall: always four each."""
    return hand.census()


def passive(hand: HandState, seat: int) -> Action:
    """The quietest legal action: pass a claim, else discard the drawn tile, else the first discard offered."""
    legal = hand.legal_actions(seat)
    for a in legal:
        if a.verb == "pass":
            return a
    drawn = hand.drawn
    for a in legal:
        if a.verb == "discard" and a.tile == drawn:
            return a
    for a in legal:
        if a.verb == "discard":
            return a
    return legal[0]


def drain(hand: HandState, until=None, limit: int = 500) -> list[Event]:
    """Play passive actions until the hand is over or `until(hand)` holds; returns the events."""
    out: list[Event] = []
    for _ in range(limit):
        if hand.finished or (until is not None and until(hand)):
            return out
        out.extend(hand.apply(passive(hand, min(hand.to_act()))))
    raise AssertionError("drain did not finish")


def choose(rng: random.Random, actions: list[Action]) -> Action:
    """A policy that reaches every corner: wins usually, claims and 亮倒 often, discards otherwise."""
    by_verb: dict[str, list[Action]] = {}
    for a in actions:
        by_verb.setdefault(a.verb, []).append(a)
    roll = rng.random()
    if "hu" in by_verb and roll < 0.85:
        return by_verb["hu"][0]
    if "gang" in by_verb and roll < 0.8:
        return rng.choice(by_verb["gang"])
    if "peng" in by_verb and roll < 0.5:
        return by_verb["peng"][0]
    if "liangdao" in by_verb and roll < 0.6:
        return rng.choice(by_verb["liangdao"])
    plain = by_verb.get("discard") or by_verb.get("pass")
    return rng.choice(plain) if plain else rng.choice(actions)


DEALER = "57899p23s555z666z7z"
WAIT_5P = "12346p789s111s77z"  # waits on 5p: 卡五星 (2) × 亮倒 (2) = 4
JUNK_WITH_5P = "35p347s258s69s5z6z7z"  # not ready, holds a 5p
READY_9S = "123p678p234s567s9s"  # waits on 9s


def declared_hand(seat2: str = JUNK_WITH_5P, draws: str = "3s 2p", **options: object):
    """Dealer discards 7p; seat 1 draws 3s and declares 亮倒 with it."""
    hand = deal(DEALER, WAIT_5P, seat2, draws=draws, rules=RuleSet.preset("standard", **options))
    play(hand, "0 discard 7p")
    assert Action(1, "liangdao", Tile.S3) in hand.legal_actions(1)
    events = play(hand, "1 liangdao 3s")
    assert events[0].kind == "discard" and events[0].liangdao
    reveal = of_kind(events, "liangdao")[0]
    assert reveal.waits == (Tile.P5,) and list(reveal.hand) == sorted(parse_tiles(WAIT_5P))
    assert reveal.public_json()["hand"] is not None  # the reveal is public
    return hand
