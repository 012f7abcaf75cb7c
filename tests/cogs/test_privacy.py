"""No public message and no other player's DM ever shows a concealed tile (except by 亮倒 and the final reveal).

How the check is made precise. Tiles are written as application emojis (`<:kwx_5p_…:…>`), so every tile a
message shows can be found. Tiles of one kind are indistinguishable, so "shows a concealed tile" means: shows
more copies of a kind than could have come from what is public at that moment. The audit runs inside the fake
Discord, synchronously, every time a message is sent or edited, against the engine's own state of the hand at
that instant (`HandState`, not the views the front end was given):

    public[K] = copies of K in the discards + exposed melds (+ a 暗杠 once its owner declared 亮倒)
                + the concealed hand of every 亮倒 seat (its drawn tile excluded)
    own[K]    = the recipient's own concealed tiles and 暗杠 (for their DM / ephemeral panel only)

Each line of a message (a seat's discards, melds, revealed hand; one action; the hand row of a panel) and the
set of button emojis are checked on their own: copies of K in the line ≤ public[K] (+ own[K] for the owner).
A line is one fact about one place, so a leaked hand or a leaked drawn tile shows up as a line with more copies
than exist in public. The part of a line after 听 ("waiting on") names kinds, not tiles: it must be the waits
of a 亮倒 seat (public) or, in the owner's panel, waits the owner's own hand has. Public information only
grows during a hand (a tile that was public stays public), so checking at send time rather than render time
cannot hide a leak that was already in the text. Messages about a hand that is over are not checked (every hand
is revealed then). `test_the_audit_catches_a_leak` shows the audit failing on a board that leaks one hand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cogs import board as boards
from cogs.fake_discord import Recorder, Sent
from cogs.fake_discord.kit import Kit, bot_kit, seat_table
from kwx.engine.analysis import waits
from kwx.engine.tiles import Tile, parse_tile
from kwx.table.viewbuild import public_concealed

TILE = re.compile(r"<:kwx_([1-9][psz])_(?:dim_)?[0-9a-f]+:\d+>")  # a face, or its faded form (a claimed discard)
FOOTER = re.compile(r"牌桌 (\d+) · 第 (\d+) 局")
WAITS = "听"  # what follows it in a line are the kinds waited on, not tiles


@dataclass
class Audit:
    kit: Kit
    leaks: list[str] = field(default_factory=list)
    checked_messages: int = 0
    checked_tiles: int = 0

    # -- what is known ---------------------------------------------------------------------------------
    def public(self, hand: Any) -> tuple[Counter[int], set[int]]:
        seen: Counter[int] = Counter()
        public_waits: set[int] = set()
        for s in range(3):
            for tile, claimed in hand.discards(s):
                if not claimed:  # a claimed discard is counted in the claimer's meld
                    seen[int(tile)] += 1
            for m in hand.melds(s):
                if m.kind == "ankong" and not hand.declared(s):
                    continue
                seen[int(m.tile)] += 4 if m.kind in ("kong", "ankong") else 3
            seen.update(int(t) for t in public_concealed(hand, s))
            if hand.declared(s):
                public_waits.update(int(t) for t in hand.liangdao_waits(s))
        return seen, public_waits

    @staticmethod
    def own(hand: Any, seat: int) -> tuple[Counter[int], set[int]]:
        counts = list(hand.counts(seat))
        mine: Counter[int] = Counter({t: n for t, n in enumerate(counts) if n})
        for m in hand.melds(seat):
            if m.kind == "ankong":
                mine[int(m.tile)] += 4
        ready: set[int] = set()
        melds = hand.melds(seat)
        if sum(counts) % 3 == 1:
            ready.update(int(t) for t in waits(counts, melds))
        else:
            for t in [t for t, n in enumerate(counts) if n]:
                counts[t] -= 1
                ready.update(int(x) for x in waits(counts, melds))
                counts[t] += 1
        return mine, ready

    # -- the check -------------------------------------------------------------------------------------
    def check(self, rec: Sent) -> None:
        if rec.kind not in ("send", "dm", "response", "followup", "edit") or rec.message_id is None:
            return
        stored = self.kit.fake.messages.get(rec.message_id)
        if stored is None:
            return
        text = stored.content + "\n" + "\n".join(_embed_lines(stored.embeds))
        emojis = " ".join(c.emoji or "" for c in stored.components)
        found = FOOTER.search(text)
        if found is None:
            if TILE.search(text + emojis):
                self.leaks.append(f"tiles in a message that names no hand: {text[:200]}")
            return
        table, hand_no = int(found[1]), int(found[2])
        live = self.kit.service.context.tables.get(table)
        if live is None or live.hand is None or live.hand_no != hand_no or live.hand.finished:
            return  # that hand is over: every hand has been revealed
        hand = live.hand
        public, public_waits = self.public(hand)
        recipient = stored.dm_to or stored.ephemeral_to
        own: Counter[int] = Counter()
        own_waits: set[int] = set()
        where = "public"
        if recipient is not None:
            seat = live.seat_of(str(recipient))
            where = f"private to seat {seat}"
            if seat is not None:
                own, own_waits = self.own(hand, seat)
        elif rec.files:
            self.leaks.append(f"an image in a public message during hand {hand_no}")
        allowed = public + own
        self.checked_messages += 1
        for line in [*text.splitlines(), emojis]:
            tiles_part, _, waits_part = line.partition(WAITS)
            shown = Counter(int(parse_tile(x)) for x in TILE.findall(tiles_part))
            self.checked_tiles += sum(shown.values())
            over = {Tile(k).compact: n for k, n in shown.items() if n > allowed[k]}
            if over:
                self.leaks.append(f"{where}, hand {hand_no}: {over} beyond what is public in: {line[:300]}")
            kinds = {int(parse_tile(x)) for x in TILE.findall(waits_part)}
            if kinds - public_waits - own_waits:
                self.leaks.append(f"{where}, hand {hand_no}: waits nobody declared in: {line[:300]}")


def _embed_lines(embeds: Iterable[Any]) -> list[str]:
    out = []
    for e in embeds:
        out += [p for p in (e.title, e.description) if p]
        for f in e.fields:
            out += [f.name or "", f.value or ""]
        if e.footer.text:
            out.append(e.footer.text)
    return out


class AuditedRecorder(Recorder):
    def __init__(self, records: Iterable[Sent], audit: Audit) -> None:
        super().__init__(records)
        self.audit = audit

    def append(self, rec: Sent) -> None:
        super().append(rec)
        self.audit.check(rec)


def _audit(kit: Kit) -> Audit:
    audit = Audit(kit)
    kit.fake.log = AuditedRecorder(kit.fake.log, audit)
    return audit


async def _play(kit: Kit, hands: int, humans: list, ephemeral_for: list) -> None:
    for _ in range(hands):
        await kit.play_hand(humans, ephemeral_for=ephemeral_for)


async def test_no_message_shows_a_tile_it_should_not_over_many_hands(tmp_path) -> None:
    async with bot_kit(tmp_path, names=("alice", "bob", "carol"), closed_dms=("bob",), seed="privacy") as kit:
        audit = _audit(kit)
        table = await seat_table(kit, [kit.alice, kit.bob], ais=1)
        await kit.slash(kit.alice, "kwx start")
        await kit.press_id(kit.bob, kit.board(1), f"kwx:tbl:{table}:hand")  # bob plays from the ephemeral panel
        await _play(kit, 6, [kit.alice, kit.bob], [kit.bob])
        assert audit.leaks == []
        assert audit.checked_messages > 100 and audit.checked_tiles > 2000  # the audit looked at a lot
        reveals = [s for s in kit.fake.log.of("edit", channel_id=kit.channel.id)
                   if re.search(r"^亮倒 <:kwx_", s.text, re.M)]
        assert reveals  # 亮倒 happened, so revealed hands (on the board) were part of what was checked


async def test_the_audit_catches_a_leak(tmp_path, monkeypatch) -> None:
    async with bot_kit(tmp_path, names=("alice",), seed="privacy") as kit:
        audit = _audit(kit)
        table = await seat_table(kit, [kit.alice], ais=2)
        real = boards.board_embeds

        def leaky(view, lang, fmt, lines):  # a bug: the board shows seat 1's concealed hand
            embeds = real(view, lang, fmt, lines)
            hand = kit.service.context.tables[table].hand
            if hand is not None and not hand.finished:
                embeds[0].add_field(name="oops", value=fmt.tiles(hand.concealed(1)))
            return embeds

        monkeypatch.setattr(boards, "board_embeds", leaky)
        await kit.slash(kit.alice, "kwx start")
        assert audit.leaks and "public" in audit.leaks[0]
