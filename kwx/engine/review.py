"""复盘: a finished hand replayed step by step with every tile shown, and strong's view of one seat's decisions.

    log = HandLog(rules, dealer, wall, piao, actions=..., net=recorded_net)
    done = review(log, seat=1)          # ReplayMismatch unless the log replays to the recorded result
    done.frames[k]                      # the table before action k, every hand face up (the last: the end)
    done.decisions                      # each choice seat 1 had, with strong's ranking of its options
    done.summary                        # agreement, the costliest decisions, 漏胡, 胡口牌 fed, deal-ins, payments

Strong values each decision on `observe(hand, seat)` at that moment — what the seat could see (its own tiles,
everything public, what the table knew of its players' feeding at the deal) — never the hidden tiles the
replay shows, and through `ai_strong.evaluate`, the function its play goes through. Strong does not sample: its
values have no spread.

Every listed value is on one scale, and the AI's choice is the best listed. In play strong values only its most
promising few discards in full (its time budget) and the others by a cheaper estimate; a review has the time, so
it values in full every discard as fast to ready as the fastest, and always the one the player made, then ranks
the options by value (a slower discard keeps strong's estimate, the one it weighs them by in play). A player's
choice is therefore never worth more than the AI's, and "agrees" means worth as much. Where the budget hid a
better discard from strong in play, the review names the better one (4 of 419 decisions of a strong seat in 60
test hands).

Pure and deterministic: the loading and checking of a ledger hand (its seed against its commitment) is
kwx.table.reviews; text, pictures and pages are kwx.present.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kwx.engine.actions import Action, ActionFormatError, Event, Hu, IllegalAction
from kwx.engine.ai import observe
from kwx.engine.ai_base import Observation
from kwx.engine.ai_strong import NEVER, Valued, evaluate
from kwx.engine.analysis import Meld, shanten, shanten_after_discards
from kwx.engine.hand import HandResult, HandState
from kwx.engine.payments import Payment
from kwx.engine.reads import FeedRecord
from kwx.engine.review_json import DecisionJson, FaceUpSeatJson, FrameJson, ReviewJson, ReviewSummaryJson
from kwx.engine.rules import RuleSet
from kwx.engine.tiles import Tile

BIG_MISTAKE = 0.5  # a decision strong rates this many points (base × fan) below its own is a big mistake
# Strong values two actions the same to this much: the review prints values to 0.01, so a choice it rates within
# half of that is as good as its own (discarding one of two equally useless tiles agrees with it).
TIE = 0.005
FORBIDDEN = NEVER / 2  # a loss past this is strong's rule against feeding a declared hand, not an estimate
DISCARDING = ("discard", "liangdao")
# who made an action, as the table's event log records it
BY_PLAYER, BY_TIMEOUT, BY_AI, BY_AUTO = "player", "timeout", "ai", "auto"


class ReplayMismatch(ValueError):
    """The log does not replay to the recorded result. `code` names what (catalog `review.mismatch.<code>`),
    `fmt` its details; str() is an English line for logs and the command line."""

    def __init__(self, code: str, message: str, **fmt: Any) -> None:
        super().__init__(message)
        self.code = code
        self.fmt = fmt


@dataclass(frozen=True)
class HandLog:
    """A finished hand as a table played it: its deal (rules, dealer, the wall its seed gives, 漂, 上楼's
    multiplier), its actions in order and who made each, and what the ledger recorded, to check against."""

    rules: RuleSet
    dealer: int
    wall: Sequence[int]
    piao: Sequence[int] = (0, 0, 0)
    base_multiplier: int = 1
    actions: Sequence[Action] = ()
    by: Sequence[str] = ()  # BY_PLAYER … per action; empty when the log does not say
    feed_records: Mapping[int, FeedRecord] = field(default_factory=dict)  # seat → the table's reads at the deal
    net: Sequence[int] | None = None  # the recorded result (None: nothing to check against)
    outcome: str | None = None


@dataclass(frozen=True)
class FaceUpSeat:
    """One seat at one moment, face up."""

    concealed: tuple[Tile, ...]  # sorted, the drawn tile included
    drawn: Tile | None  # the tile just drawn (on this seat's turn)
    melds: tuple[Meld, ...]
    discards: tuple[tuple[Tile, bool], ...]  # in order, each with whether it was claimed (碰, 杠, 胡)
    declared: bool
    waits: tuple[Tile, ...]  # shown by 亮倒

    def to_json(self) -> FaceUpSeatJson:
        return {"hand": [t.compact for t in self.concealed],
                "drawn": self.drawn.compact if self.drawn is not None else None,
                "melds": [{"kind": m.kind, "tile": m.tile.compact} for m in self.melds],
                "discards": [[t.compact, claimed] for t, claimed in self.discards],
                "declared": self.declared, "waits": [t.compact for t in self.waits]}


@dataclass(frozen=True)
class Frame:
    """The table before action `index` (or, after the last action, at the end: `action` None)."""

    index: int
    wall: int  # tiles left in the wall
    seats: tuple[FaceUpSeat, ...]
    to_act: tuple[int, ...]  # seats asked to decide now
    pending: tuple[int, Tile] | None  # (seat, tile) of a discard or 补杠 open to claims
    action: Action | None
    by: str = ""
    events: tuple[Event, ...] = ()  # what the action led to (draws, a locked hand's discards, the end)

    def to_json(self) -> FrameJson:
        return {"index": self.index, "wall": self.wall, "seats": [s.to_json() for s in self.seats],
                "to_act": list(self.to_act),
                "pending": None if self.pending is None else [self.pending[0], self.pending[1].compact],
                "action": self.action.to_json() if self.action is not None else None, "by": self.by,
                "events": [e.to_json() for e in self.events]}


@dataclass(frozen=True)
class Decision:
    """A choice the reviewed seat had (two or more legal actions), with strong's ranking of its options."""

    frame: int  # index of the frame (and of the action) it was made at
    seat: int
    taken: Action
    by: str
    options: tuple[Valued, ...]  # every legal action; [0] is what strong plays, the rest best first
    taken_value: float | None  # strong's value of the action taken (valued in full)
    louhu: bool = False  # a win was on offer and was not taken (漏胡)
    fed: bool = False  # a discard a declared opponent waits on (胡口牌)
    deal_in_unready: bool = False  # a discard that lost the hand while this hand was not ready

    @property
    def ai(self) -> Valued:
        return self.options[0]

    @property
    def agrees(self) -> bool:
        """The action taken is strong's, or one strong values the same (a tie is not a mistake)."""
        if self.taken == self.ai.action:
            return True
        return self.ai.value is not None and self.taken_value is not None and self.ai.value - self.taken_value < TIE

    @property
    def loss(self) -> float | None:
        """How much less than strong's choice strong rates the action taken (0 when it agrees or rates it no
        lower; None where strong decides by rule, not by value)."""
        if self.agrees:
            return 0.0
        if self.ai.value is None or self.taken_value is None:
            return None
        return max(0.0, self.ai.value - self.taken_value)

    @property
    def forbidden(self) -> bool:
        """The action taken breaks strong's rule against feeding a declared hand while another tile is legal."""
        loss = self.loss
        return loss is not None and loss >= FORBIDDEN

    @property
    def big(self) -> bool:
        loss = self.loss
        return self.louhu or (loss is not None and loss >= BIG_MISTAKE)

    @property
    def counted(self) -> bool:
        """The player's own decision (托管 decisions were the AI's, and are shown but not counted)."""
        return self.by != BY_AUTO

    def to_json(self) -> DecisionJson:
        return {"frame": self.frame, "seat": self.seat, "taken": self.taken.to_json(), "by": self.by,
                "taken_value": _rounded(self.taken_value), "agrees": self.agrees, "loss": _rounded(self.loss),
                "big": self.big, "louhu": self.louhu, "fed": self.fed, "deal_in_unready": self.deal_in_unready,
                "counted": self.counted,
                "options": [{"action": o.action.to_json(), "value": _rounded(o.value)} for o in self.options]}


@dataclass(frozen=True)
class ReviewSummary:
    seat: int
    decisions: int  # counted decisions (托管 excluded)
    agreed: int
    costliest: tuple[int, ...]  # indexes into Review.decisions: the three largest losses, largest first
    louhu: tuple[int, ...]  # indexes into Review.decisions
    fed: tuple[int, ...]
    deal_ins_unready: tuple[int, ...]
    payments: tuple[Payment, ...]
    net: tuple[int, ...]

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.decisions if self.decisions else None

    def to_json(self) -> ReviewSummaryJson:
        return {"seat": self.seat, "decisions": self.decisions, "agreed": self.agreed,
                "agreement": None if self.agreement is None else round(self.agreement, 4),
                "costliest": list(self.costliest), "louhu": list(self.louhu), "fed": list(self.fed),
                "deal_ins_unready": list(self.deal_ins_unready),
                "payments": [p.to_json() for p in self.payments], "net": list(self.net),
                "ai": "strong", "ai_sees": "the seat's own view at each decision (never hidden tiles)",
                "spread": "none: strong does not sample"}


@dataclass(frozen=True)
class Review:
    seat: int
    frames: tuple[Frame, ...]  # one per action, then the end
    decisions: tuple[Decision, ...]
    result: HandResult
    summary: ReviewSummary
    rules: RuleSet
    dealer: int
    win_tile: Tile | None  # the tile that won, if anyone won

    def decision_at(self, frame: int) -> Decision | None:
        for d in self.decisions:
            if d.frame == frame:
                return d
        return None

    # -- stepping through it, as a viewer's buttons do -----------------------------------------------------------
    def step(self, frame: int, move: str) -> int:
        """The frame a viewer goes to from `frame`: `first`, `prev`, `next`, `last`, `mine` (the reviewed seat's
        next decision) or `mistake` (its next big mistake); where there is none, it stays."""
        last = len(self.frames) - 1
        frame = min(max(frame, 0), last)
        if move == "first":
            return 0
        if move == "last":
            return last
        if move in ("prev", "next"):
            return min(max(frame + (1 if move == "next" else -1), 0), last)
        wanted = (d.frame for d in self.decisions if d.frame > frame and (move == "mine" or (d.big and d.counted)))
        if move not in ("mine", "mistake"):
            raise ValueError(f"unknown move {move!r}")
        return next(wanted, frame)

    def to_json(self) -> ReviewJson:
        return {"seat": self.seat, "dealer": self.dealer, "rules": self.rules.to_json(),
                "result": self.result.to_json(),
                "win_tile": self.win_tile.compact if self.win_tile is not None else None,
                "summary": self.summary.to_json(), "decisions": [d.to_json() for d in self.decisions],
                "frames": [f.to_json() for f in self.frames]}


# -- replaying ---------------------------------------------------------------------------------------------
def deal(log: HandLog) -> HandState:
    """The hand as dealt from the log's wall."""
    try:
        return HandState(log.rules, log.dealer, log.wall, log.piao, log.base_multiplier)
    except ValueError as exc:
        raise ReplayMismatch("deal", f"the hand cannot be dealt: {exc}", detail=str(exc)) from None


def parse_actions(raw: Sequence[Any]) -> tuple[Action, ...]:
    """The log's actions from their JSON form ([seat, verb, tile?]); ReplayMismatch names a malformed one."""
    out = []
    for k, item in enumerate(raw):
        try:
            out.append(item if isinstance(item, Action) else Action.from_json(item))
        except ActionFormatError as exc:
            raise ReplayMismatch("illegal", f"action {k + 1} ({item}) is malformed: {exc}", number=k + 1) from None
    return tuple(out)


def apply_logged(hand: HandState, k: int, action: Action) -> list[Event]:
    """Apply the log's action `k` (0-based); ReplayMismatch when it is not legal on this wall."""
    try:
        return hand.apply(action)
    except IllegalAction as exc:
        raise ReplayMismatch("illegal", f"action {k + 1} ({action}) is not legal on this wall: {exc}",
                             number=k + 1) from None


def check_result(hand: HandState, count: int, net: Sequence[int] | None, outcome: str | None) -> HandResult:
    """The replayed hand's result, when it is over and ends as recorded; ReplayMismatch otherwise."""
    result = hand.result
    if result is None:
        raise ReplayMismatch("unfinished", f"the {count} actions do not finish the hand", count=count)
    if net is not None and list(net) != list(result.net):
        raise ReplayMismatch("net", f"the replay ends with net {list(result.net)}, the ledger recorded {list(net)}",
                             replayed=list(result.net), recorded=list(net))
    if outcome is not None and outcome != result.outcome:
        raise ReplayMismatch("outcome", f"the replay ends in a {result.outcome}, the ledger recorded a {outcome}",
                             replayed=result.outcome, recorded=outcome)
    return result


def _seat_view(hand: HandState, seat: int) -> FaceUpSeat:
    return FaceUpSeat(tuple(hand.concealed(seat)), hand.drawn if hand.turn == seat else None, hand.melds(seat),
                    hand.discards(seat), hand.declared(seat), hand.liangdao_waits(seat))


def _frame(hand: HandState, index: int, action: Action | None, by: str) -> Frame:
    return Frame(index, hand.wall_remaining, tuple(_seat_view(hand, s) for s in range(3)),
                 tuple(sorted(hand.to_act())), hand.pending, action, by)


Evaluator = Callable[[Any, Sequence[Action]], list[Valued]]


def review(log: HandLog, seat: int, evaluator: Evaluator = evaluate) -> Review:
    """Replay `log`, checking it ends as recorded, and value each decision `seat` had with strong."""
    if seat not in range(3):
        raise ValueError(f"seat must be 0, 1 or 2, not {seat!r}")
    hand = deal(log)
    frames: list[Frame] = []
    decisions: list[Decision] = []
    feed = dict(log.feed_records)
    for k, action in enumerate(log.actions):
        by = log.by[k] if k < len(log.by) else ""
        if action.seat == seat and len(hand.legal_actions(seat)) > 1:
            decisions.append(_decide(hand, k, action, by, feed, evaluator))
        before = _frame(hand, k, action, by)
        frames.append(replace(before, events=tuple(apply_logged(hand, k, action))))
    result = check_result(hand, len(log.actions), log.net, log.outcome)
    end = _frame(hand, len(log.actions), None, "")
    if result.self_draw:  # the winner's last draw is the winning tile: shown apart, as on its turn
        win = next(e.tile for e in hand.events if isinstance(e, Hu))
        end = replace(end, seats=tuple(replace(v, drawn=win) if s in result.winners else v
                                       for s, v in enumerate(end.seats)))
    frames.append(end)
    decisions = _mark_deal_in(decisions, frames, result, seat, log)
    win_tile = next((e.tile for e in hand.events if isinstance(e, Hu)), None)
    return Review(seat, tuple(frames), tuple(decisions), result, _summary(seat, decisions, result), log.rules,
                  log.dealer, win_tile)


def _decide(hand: HandState, k: int, action: Action, by: str, feed: Mapping[int, FeedRecord],
            evaluator: Evaluator) -> Decision:
    seat = action.seat
    obs = observe(hand, seat, feed)  # what the seat saw: never another concealed hand, never the wall
    legal = obs.legal
    options = _on_one_scale(evaluator(obs, _valued_in_full(obs, action)), obs.claim_tile is not None)
    taken_value = next((o.value for o in options if o.action == action), None)
    verbs = {a.verb for a in legal}
    fed = action.verb in DISCARDING and not hand.declared(seat) and any(
        action.tile in hand.liangdao_waits(s) for s in range(3) if s != seat)
    return Decision(k, seat, action, by, tuple(options), taken_value, louhu="hu" in verbs and action.verb != "hu",
                    fed=fed)


def _valued_in_full(obs: Observation, taken: Action) -> list[Action]:
    """The discards a review asks strong to value in full: every one that keeps the hand as close to ready as it
    can be (in play strong values only the most promising few of them, for time), and the one taken. A slower
    discard keeps strong's own estimate, the one it weighs them by in play."""
    tiles = {int(a.tile) for a in obs.legal if a.verb in DISCARDING and a.tile is not None}
    if not tiles:
        return []
    after = shanten_after_discards(obs.counts, len(obs.melds))
    fastest = min(after[t] for t in tiles)
    return [a for a in obs.legal if a.verb in DISCARDING and a.tile is not None
            and (after[int(a.tile)] == fastest or a == taken)]


def _on_one_scale(options: Sequence[Valued], claim: bool) -> list[Valued]:
    """Strong's options best first by value, so that its choice is the best listed. A choice it makes by rule stays
    first: a locked hand's moves, and a self-drawn win, which it always takes (its value is not on the scale of the
    discards, so none is shown). Ties keep strong's own order."""
    options = list(options)
    if not options:
        return options
    first = options[0]
    if first.action.verb == "hu" and not claim:
        first = Valued(first.action, None)
    if first.value is None:
        return [first, *sorted(options[1:], key=_by_value)]
    return sorted(options, key=_by_value)


def _by_value(option: Valued) -> tuple[bool, float]:
    return (option.value is None, -(option.value or 0.0))


def _mark_deal_in(decisions: list[Decision], frames: list[Frame], result: HandResult, seat: int,
                  log: HandLog) -> list[Decision]:
    """The seat's last discard (or robbed 补杠) lost the hand while its own hand was not ready."""
    if result.outcome != "win" or result.from_seat != seat or seat in result.winners:
        return decisions
    for i in range(len(decisions) - 1, -1, -1):
        d = decisions[i]
        if d.taken.verb in (*DISCARDING, "gang"):
            view = frames[d.frame].seats[seat]
            counts = [0] * 21
            for t in view.concealed:
                counts[t] += 1
            counts[d.taken.tile] -= 1  # type: ignore[index]
            if shanten(counts, len(view.melds)) > 0:
                decisions[i] = replace(d, deal_in_unready=True)
            break
    return decisions


def _summary(seat: int, decisions: Sequence[Decision], result: HandResult) -> ReviewSummary:
    counted = [i for i, d in enumerate(decisions) if d.counted]
    costly = sorted((i for i in counted if (decisions[i].loss or 0.0) > 0),
                    key=lambda i: (-(decisions[i].loss or 0.0), i))[:3]
    return ReviewSummary(seat, len(counted), sum(1 for i in counted if decisions[i].agrees), tuple(costly),
                   tuple(i for i in counted if decisions[i].louhu), tuple(i for i in counted if decisions[i].fed),
                   tuple(i for i in counted if decisions[i].deal_in_unready), result.payments, result.net)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
