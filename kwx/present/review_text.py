"""复盘 in words: the summary of a review and each step, in one language, for every front end.

Tiles are written by a formatter the front end gives (Discord: emojis; the terminal: coloured markup; plain
text by default: 5p in English, 5筒 in Chinese); names come escaped as the front end needs them. Values are
strong's expected points (base × fan) as kwx.engine.review reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kwx.engine.actions import Action
from kwx.engine.ai_strong import Valued
from kwx.engine.review import BY_AUTO, BY_TIMEOUT, FORBIDDEN, Decision, Frame, Review
from kwx.engine.tiles import Tile
from kwx.present.i18n import pattern_name, resolve_lang, tile_label, tr
from kwx.present.numbers import signed_points

TileFormat = Callable[[Tile], str]
RANKED_SHOWN = 4  # options listed per decision


def plain_tile(lang: str) -> TileFormat:
    """5p / Red in English (what English players type, dragons by name), 5筒 / 中 in Chinese."""
    return lambda tile: tile_label(tile, lang)


class ReviewText:
    """Lines of one review for one reader: `names` per seat, in `lang`."""

    def __init__(self, review: Review, names: Sequence[str], lang: str, *, tile: TileFormat | None = None,
                 hand_id: int | None = None) -> None:
        self.review = review
        self.names = list(names)
        self.lang = resolve_lang(lang)
        self.tile = tile or plain_tile(self.lang)
        self.hand_id = hand_id

    # -- pieces ---------------------------------------------------------------------------------------------
    def tiles(self, tiles: Iterable[Tile], sep: str = " ") -> str:
        return sep.join(self.tile(Tile(x)) for x in tiles)

    def action(self, action: Action) -> str:
        verb, tile = action.verb, action.tile
        if verb == "discard":
            return tr("action.discard_tile", self.lang, tile=self.tile(tile))  # type: ignore[arg-type]
        if verb == "liangdao":
            return tr("action.liangdao_tile", self.lang, tile=self.tile(tile))  # type: ignore[arg-type]
        if verb == "gang" and tile is not None:
            return tr("action.kong_tile", self.lang, tile=self.tile(tile))
        return tr(f"action.{verb}", self.lang)

    def step_name(self, frame: int) -> str:
        return tr("review.step_name", self.lang, step=frame + 1)

    def value(self, value: float | None) -> str:
        if value is None:
            return tr("review.by_rule", self.lang)
        if value <= -FORBIDDEN:
            return tr("review.never", self.lang)
        return f"{value:+.2f}"

    # -- the summary -----------------------------------------------------------------------------------------
    def title(self) -> str:
        who = self.names[self.review.seat]
        if self.hand_id is None:
            return tr("review.title_log", self.lang, player=who)
        return tr("review.title", self.lang, hand=self.hand_id, player=who)

    def summary_lines(self) -> list[str]:
        r, s, lang = self.review, self.review.summary, self.lang
        who = self.names[r.seat]
        lines = [tr("review.ai_note", lang, player=who)]
        if s.agreement is None:
            lines.append(tr("review.no_decisions", lang))
        else:
            lines.append(tr("review.agreement", lang, agreed=s.agreed, total=s.decisions,
                           share=f"{round(100 * s.agreement)}%"))
        if s.costliest:
            lines.append(tr("review.costliest", lang))
            lines.extend("  " + self.costly_line(r.decisions[i]) for i in s.costliest)
        for key, found in (("review.louhu_count", s.louhu), ("review.fed_count", s.fed),
                           ("review.deal_in_count", s.deal_ins_unready)):
            steps = ", ".join(self.step_name(r.decisions[i].frame) for i in found)
            lines.append(tr(key, lang, count=len(found)) + (f" ({steps})" if steps else ""))
        lines.append(self.result_line())
        lines.append(tr("review.payments", lang, payments=self.payments() or tr("review.no_payments", lang)))
        return lines

    def costly_line(self, d: Decision) -> str:
        if d.forbidden:
            return tr("review.costly_forbidden", self.lang, step=self.step_name(d.frame), taken=self.action(d.taken),
                     ai=self.action(d.ai.action))
        return tr("review.costly", self.lang, step=self.step_name(d.frame), taken=self.action(d.taken),
                 ai=self.action(d.ai.action), loss=f"{d.loss or 0.0:.2f}")

    def payments(self) -> str:
        return "; ".join(tr("review.payment", self.lang, payer=self.names[p.from_seat], payee=self.names[p.to_seat],
                           amount=p.amount, reason=tr(f"payment.{p.reason}", self.lang))
                         for p in self.review.summary.payments)

    def result_line(self) -> str:
        result, lang = self.review.result, self.lang
        nets = "  ".join(f"{self.names[s]} {signed_points(n)}" for s, n in enumerate(result.net))
        if result.outcome != "win":
            return tr("review.result_draw", lang, net=nets)
        wins = []
        for s in result.winners:
            patterns = ", ".join(pattern_name(p, lang) for p in result.patterns.get(s, ()))
            wins.append(tr("review.result_win", lang, player=self.names[s], fan=result.fan.get(s, 0),
                          patterns=patterns, tile=self.tile(self.review.win_tile) if self.review.win_tile is not None
                          else "?"))
        how = tr("term.zimo", lang) if result.self_draw else tr("review.on_discard", lang,
                                                              player=self.names[result.from_seat or 0])
        return f"{'; '.join(wins)} ({how}) · {nets}"

    # -- one step --------------------------------------------------------------------------------------------
    def frame_lines(self, index: int) -> list[str]:
        r, lang = self.review, self.lang
        frame = r.frames[index]
        lines = [tr("review.step", lang, step=index + 1, total=len(r.frames), wall=frame.wall)]
        lines.extend(self.seat_line(frame, s) for s in range(3))
        if frame.pending is not None:
            lines.append(tr("board.claim_open", lang, player=self.names[frame.pending[0]],
                           tile=self.tile(frame.pending[1])))
        if frame.action is None:
            lines.append(tr("review.end", lang, result=self.result_line()))
            return lines
        lines.append(self.action_line(frame))
        decision = r.decision_at(index)
        if decision is not None:
            lines.extend(self.decision_lines(decision))
        return lines

    def seat_line(self, frame: Frame, seat: int) -> str:
        view, lang = frame.seats[seat], self.lang
        hand = list(view.concealed)
        if view.drawn is not None and view.drawn in hand:
            hand.remove(view.drawn)
        parts = [self.tiles(hand) + (f" + {self.tile(view.drawn)}" if view.drawn is not None else "")]
        if view.melds:
            parts.append(tr("review.melds", lang, melds=" ".join(
                self.tiles([m.tile] * m.size, "") for m in view.melds)))
        pond = " ".join(f"({self.tile(x)})" if claimed else self.tile(x) for x, claimed in view.discards)
        parts.append(tr("review.pond", lang, tiles=pond or "—"))
        if view.declared:
            parts.append(tr("review.declared", lang, waits=self.tiles(view.waits)))
        mark = "▶ " if seat in frame.to_act else "  "
        dealer = tr("review.dealer_mark", lang) if seat == self.review.dealer else ""
        return f"{mark}{self.names[seat]}{dealer}: " + " · ".join(parts)

    def action_line(self, frame: Frame) -> str:
        assert frame.action is not None
        by = {BY_TIMEOUT: tr("review.by_timeout", self.lang), BY_AUTO: tr("review.by_auto", self.lang)}.get(frame.by, "")
        return tr("review.action", self.lang, player=self.names[frame.action.seat], action=self.action(frame.action)) + by

    def decision_lines(self, d: Decision) -> list[str]:
        lang = self.lang
        marks = [tr(key, lang) for key, on in (("review.mark_louhu", d.louhu), ("review.mark_fed", d.fed),
                                              ("review.mark_deal_in", d.deal_in_unready)) if on]
        if d.agrees and d.taken != d.ai.action:  # a tie: name both, or "agrees: 1p" reads as "you played 1p"
            head = tr("review.ai_ties", lang, taken=self.action(d.taken), action=self.action(d.ai.action))
        elif d.agrees:
            head = tr("review.ai_agrees", lang, action=self.action(d.ai.action))
        elif d.forbidden:
            head = tr("review.ai_forbidden", lang, action=self.action(d.ai.action))
        elif d.loss is None:
            head = tr("review.ai_rule", lang, action=self.action(d.ai.action))
        else:
            head = tr("review.ai_other", lang, action=self.action(d.ai.action), loss=f"{d.loss:.2f}")
        if d.big and d.counted:
            head = "❗ " + head
        lines = [head + (" · " + " · ".join(marks) if marks else "")]
        lines.append(tr("review.ranking", lang, options=self.ranking(d.options, d.taken)))
        return lines

    def ranking(self, options: Sequence[Valued], taken: Action) -> str:
        shown = list(options[:RANKED_SHOWN])
        extra = next((o for o in options[RANKED_SHOWN:] if o.action == taken), None)
        if extra is not None:
            shown.append(extra)
        return " · ".join(f"{'*' if o.action == taken else ''}{self.action(o.action)} {self.value(o.value)}"
                          for o in shown)
