"""One log line per table event an operator may want to see: logger `kwx.table.events`, level INFO.

Each line starts `table <id> guild <id>:` so one server's or one table's story greps out of a busy log:
opened, game started, resumed after a restart, a hand recorded, paused, resumed, a player leaving, a seat
taken, closed. What a line never holds is a tile: no concealed hand (nor any hand) reaches a log line at INFO
or above — a recorded hand is told by its outcome, winners, fan and money, which the result post shows anyway.
"""

from __future__ import annotations

import logging

from kwx.store import LedgerHand
from kwx.table.record import TableRecord

logger = logging.getLogger("kwx.table.events")


def _note(t: TableRecord, text: str, *args: object) -> None:
    logger.info("table %s guild %s: " + text, t.id, t.guild, *args)


def opened(t: TableRecord) -> None:
    _note(t, "opened in channel %s by %s (rules %s)", t.channel, t.host, t.rules.preset_name)


def started(t: TableRecord) -> None:
    _note(t, "game started: %s", ", ".join(p.player_id for p in t.lobby))


def rebuilt(t: TableRecord) -> None:
    _note(t, "resumed from its event log at hand %s, step %s (%s)", t.hand_no, t.step, t.paused or t.status)


def hand_recorded(t: TableRecord, record: LedgerHand) -> None:
    winners = ", ".join(f"{s.player_id} {s.fan} fan" for s in record.seats if s.won)
    nets: dict[str, int] = {s.player_id: 0 for s in record.seats}
    for p in record.payments:
        nets[p.from_player] -= p.amount
        nets[p.to_player] += p.amount
    _note(t, "hand %s recorded: %s; %s", record.hand_no, f"won by {winners}" if winners else "no winner (荒庄)",
          ", ".join(f"{player} {net:+d}" for player, net in nets.items()))


def paused(t: TableRecord, reason: str) -> None:
    _note(t, "paused (%s)", reason)


def resumed(t: TableRecord, by: str) -> None:
    _note(t, "resumed by %s", by)


def leaving(t: TableRecord, player_id: str) -> None:
    _note(t, "%s leaves (their seat empties at the end of the hand in play)", player_id)


def seated(t: TableRecord, player_id: str, replaces: str) -> None:
    _note(t, "%s takes the seat %s left", player_id, replaces)


def closed(t: TableRecord, reason: str) -> None:
    _note(t, "closed (%s) after %s hand(s)", reason, t.hands_done)
