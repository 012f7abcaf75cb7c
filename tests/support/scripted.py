"""A scripted hand at the terminal table: the wall, the dealer and every AI decision are fixed, so a test knows
each public event the log must show.

    hand = ScriptedHand()                # a service given deal=hand.deal deals CLAIMS_WALL, and its AI seats
                                          # follow CLAIMS_PLAN with ai_policy=hand.decide
    move = hand.your_move(view)           # what you type at your decision ("7z", "pass", ...)

You (seat 0, the dealer) throw 中; AI 1 pungs it (碰) and throws 9p; AI 2 kongs that 9p from the discard
(直杠), draws its replacement and throws it; AI 1 then declares 亮倒 with 2s, waiting on 5p; its next draw is
thrown for it; AI 2 draws and throws 5p, and AI 1 wins on it (a win on a discard).
"""

from __future__ import annotations

from collections.abc import Mapping

from kwx.engine.actions import Action
from kwx.engine.hand import HandState
from kwx.engine.reads import FeedRecord
from kwx.table.deal import Deal
from kwx.table.views import PrivateView
from tests.support.hands import act, build_wall, passive

YOU_SEAT = 0
CLAIMS_WALL = {
    "dealer": "7z5z6z 123468p 23456s",  # you: nothing pairs, nothing is ready
    "second": "77z 9p 123p 46p 789s 11s",  # AI 1: pungs 中, throws 9p, then waits on 5p
    "third": "7z 999p 78p 2468s 3s 5z6z",  # AI 2: kongs the 9p
    "draws": "8s 2s 3s 4s 6s 5p",
    "back": "7p",  # AI 2's replacement draw after its kong
}
CLAIMS_PLAN = ("0 discard 7z", "1 peng", "1 discard 9p", "2 gang", "1 liangdao 2s", "1 hu")

# What the log shows of that hand, in order, in each language (the line mode and the game screen alike).
CLAIMS_LOG = {
    "zh-CN": ("→ 你打出 中", "◆ AI 1 碰 中", "→ AI 1 打出 9筒", "◆ AI 2 直杠 9筒", "→ AI 2 打出 7筒",
              "→ 你打出 8条", "→ AI 1 打出 2条", "★ AI 1 亮倒：1筒 2筒 3筒 4筒 6筒 1条 1条 7条 8条 9条  听牌：5筒",
              "→ AI 2 打出 3条", "→ 你打出 4条", "⇢ AI 1 打出 6条", "→ AI 2 打出 5筒",
              "★ AI 1 胡了 AI 2 打出的 5筒"),
    "en": ("→ You discard Red", "◆ AI 1 pungs Red", "→ AI 1 discards 9p", "◆ AI 2 makes an exposed kong of 9p",
           "→ AI 2 discards 7p", "→ You discard 8s", "→ AI 1 discards 2s",
           "★ AI 1 laid down: 1p 2p 3p 4p 6p 1s 1s 7s 8s 9s  Waiting on 5p", "→ AI 2 discards 3s",
           "→ You discard 4s", "⇢ AI 1 discards 6s", "→ AI 2 discards 5p", "★ AI 1 wins on AI 2's 5p"),
}


def in_order(text: str, lines: tuple[str, ...]) -> list[str]:
    """The lines that are not in `text` once each, after the one before (empty when all are)."""
    wrong, at = [], 0
    for line in lines:
        found = text.find(line, at)
        if found < 0 or text.count(line) != 1:
            wrong.append(line)
        else:
            at = found + len(line)
    return wrong


class ScriptedHand:
    """Deals CLAIMS_WALL with you as the dealer, and decides for the AI seats by CLAIMS_PLAN (each planned
    action is taken as soon as it is legal for its seat; otherwise a seat passes a claim or throws its draw)."""

    def __init__(self) -> None:
        self.plan = [act(step) for step in CLAIMS_PLAN]
        wall = build_wall(CLAIMS_WALL["dealer"], CLAIMS_WALL["second"], CLAIMS_WALL["third"],
                          CLAIMS_WALL["draws"], CLAIMS_WALL["back"])
        self.deal = Deal.scripted(wall, dealer=YOU_SEAT)  # what the terminal's service takes, with decide

    def _planned(self, seat: int, legal: list[Action]) -> Action | None:
        step = next((a for a in self.plan if a.seat == seat), None)
        if step is not None and step == self.plan[0] and step in legal:
            self.plan.pop(0)
            return step
        return None

    def decide(self, hand: HandState, seat: int, level: str, known: Mapping[int, FeedRecord] | None) -> Action:
        """The AI seats' policy (`TableService(..., ai_policy=hand.decide)`)."""
        return self._planned(seat, hand.legal_actions(seat)) or passive(hand, seat)

    def your_move(self, view: PrivateView) -> str:
        """What you type now: your planned move, else pass a claim, else throw the drawn tile."""
        legal = [Action(YOU_SEAT, c.verb, c.tile) for c in view.choices]
        planned = self._planned(YOU_SEAT, legal)
        if planned is not None:
            return planned.tile.compact if planned.verb == "discard" and planned.tile else planned.verb
        verbs = {c.verb for c in view.choices}
        if "pass" in verbs:
            return "pass"
        tile = view.drawn if view.drawn is not None else view.concealed[-1]
        return tile.compact
