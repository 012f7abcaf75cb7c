"""The lobby: opening a table, taking and leaving seats, AI players, spectators, starting and stopping.

The lobby (who sits where, spectators, the host, the timers) is written to the table's row before it changes
in memory, tried once: a person whose write failed is refused and may ask again. Starting writes the event
log's first record; from then on seats change by log records (presence: leave, seat).
"""

from __future__ import annotations

import asyncio

import kwx.table.oplog as oplog
from kwx.engine.ai import AI_LEVELS
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.wall import new_seed
from kwx.table.context import TableContext, check_open
from kwx.table.delivery import Delivery
from kwx.table.errors import TableError
from kwx.table.live import LiveTable
from kwx.table.lobby_row import options_json, seats_json
from kwx.table.phases import CLOSED, LOBBY
from kwx.table.play import Play
from kwx.table.presence import Presence
from kwx.table.views import PlayerRef
from kwx.table.writer import DurableWriter


class Lobby:
    def __init__(self, ctx: TableContext, delivery: Delivery, writer: DurableWriter, presence: Presence,
                 play: Play, *, claim_pause: float) -> None:
        self._ctx = ctx
        self._delivery = delivery
        self._writer = writer
        self._presence = presence
        self._play = play
        self.claim_pause = claim_pause  # the default of new tables (see LiveTable.pause_s)
        self._open_lock = asyncio.Lock()

    async def open_table(self, guild: str, channel: str | None, host: PlayerRef, *, rules: RuleSet = STANDARD,
                         turn_seconds: float = 30, claim_seconds: float = 12, seed: str | None = None,
                         max_open: int | None = None, max_hosted: int | None = None,
                         claim_pause: float | None = None) -> int:
        """A new table with `host` seated (see TableService.open_table); returns its id."""
        if turn_seconds < 0 or claim_seconds < 0:
            raise ValueError("turn_seconds and claim_seconds must be positive, or 0 for no timer")
        claim_pause = self.claim_pause if claim_pause is None else claim_pause
        if claim_pause < 0:
            raise ValueError("claim_pause must be ≥ 0")
        ctx = self._ctx
        async with self._open_lock:
            if channel is not None and self.table_in_channel(guild, channel) is not None:
                raise TableError("table_exists", "this channel already has an open table")
            self._check_caps(guild, host.player_id, max_open, max_hosted)
            # A seed a person chose may be guessed: its commitments are salted (kwx.engine.seeds).
            salt = new_seed() if seed else None
            seed = seed or new_seed()
            t = LiveTable(0, guild, channel, rules, seed, host.player_id, [host], turn_seconds=turn_seconds,
                          claim_seconds=claim_seconds, claim_pause=claim_pause, seed_salt=salt, deal=ctx.deal)
            t.id = await self._writer.lobby_write("a new table", lambda: ctx.store.create_table(
                guild, rules=rules, seed=seed, seats=seats_json(t.lobby), channel=channel, options=options_json(t)))
            ctx.tables[t.id] = t
        oplog.opened(t)
        self._delivery.show_lobby(t)
        return t.id

    def table_in_channel(self, guild: str, channel: str) -> int | None:
        for t in self._ctx.tables.values():
            if t.guild == guild and t.channel == channel and t.status != CLOSED:
                return t.id
        return None

    async def join(self, table_id: int, player: PlayerRef) -> None:
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if t.vacant and t.status != LOBBY:
                await self._presence.take_seat(t, player)
                return
            if t.in_lobby(player.player_id):
                raise TableError("already_seated", "you already have a seat at this table")
            if t.status != LOBBY:
                raise TableError("already_started", "the game has started: seats are taken")
            if len(t.lobby) >= t.capacity:
                raise TableError("table_full", "the table is full")
            spectators = dict(t.spectators)
            spectators.pop(player.player_id, None)
            await self._save_lobby(t, [*t.lobby, player], spectators)
            self._delivery.show_lobby(t, ("lobby.joined", {"player": player.name, "player_id": player.player_id}))

    async def leave(self, table_id: int, player_id: str) -> None:
        """Leave a seat or stop spectating (see TableService.leave)."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if player_id in t.spectators and not t.in_lobby(player_id):
                spectators = {k: v for k, v in t.spectators.items() if k != player_id}
                await self._save_lobby(t, t.lobby, spectators)
                self._delivery.show_lobby(t)
                return
            if t.status != LOBBY:
                await self._presence.leave_game(t, player_id)
                return
            if not t.in_lobby(player_id):
                raise TableError("not_seated", "you are not at this table")
            player = t.players[player_id]
            lobby = [p for p in t.lobby if p.player_id != player_id]
            humans = [p for p in lobby if not p.is_ai]
            if not humans:
                await self._presence.close(t, by=player_id)
                return
            if t.host == player_id:
                t.host = humans[0].player_id
            await self._save_lobby(t, lobby, t.spectators)
            t.players.pop(player_id, None)
            self._delivery.show_lobby(t, ("lobby.left", {"player": player.name, "player_id": player_id}))

    async def add_ai(self, table_id: int, level: str = "standard", by: str | None = None) -> PlayerRef:
        """Seat an AI player (`by`, when given, must be the host). Its id is `ai:<level>:<n>`."""
        if level not in AI_LEVELS:
            raise TableError("illegal", f"unknown AI level {level!r}: choose one of {', '.join(AI_LEVELS)}")
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if by is not None and by != t.host:
                raise TableError("not_host", "only the host can add AI players")
            if t.vacant and t.status != LOBBY:
                return await self._presence.take_seat(t, _new_ai(t, level))
            if t.status != LOBBY:
                raise TableError("already_started", "the game has started: seats are taken")
            if len(t.lobby) >= t.capacity:
                raise TableError("table_full", "the table is full")
            player = _new_ai(t, level)
            await self._save_lobby(t, [*t.lobby, player], t.spectators)
            self._delivery.show_lobby(t, ("lobby.ai_added", {"name": player.name, "player_id": player.player_id}))
            return player

    async def spectate(self, table_id: int, player: PlayerRef) -> None:
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if t.in_lobby(player.player_id):
                raise TableError("already_seated", "you have a seat at this table")
            if player.player_id not in t.spectators:
                await self._save_lobby(t, t.lobby, {**t.spectators, player.player_id: player})
                self._delivery.show_lobby(t)

    async def start_game(self, table_id: int, by: str) -> None:
        """Deal hand 1 (or open its 漂 phase). Needs every seat filled: 3, or 4 with `rotation`."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if by != t.host:
                raise TableError("not_host", "only the host can start the game")
            if t.status != LOBBY:
                raise TableError("already_started", "the game has already started")
            if len(t.lobby) < t.capacity:
                raise TableError("need_players", f"{t.capacity} players are needed to start, "
                                                 f"{len(t.lobby)} are seated")
            applied = await self._writer.commit(t, t.start_record(by, self._ctx.clock()))
            oplog.started(t)
            self._delivery.show(t, applied)
            await self._play.open_next_hand(t)

    async def stop(self, table_id: int, by: str, *, force: bool = False, reason: str = "stopped") -> None:
        """Close the table (see TableService.stop)."""
        t = self._ctx.table(table_id)
        async with t.lock:
            check_open(t)
            if by != t.host and not force:
                raise TableError("not_host", "only the host (or a manager) can stop the table")
            await self._presence.close(t, reason=reason, by=by)

    def _check_caps(self, guild: str, host: str, max_open: int | None, max_hosted: int | None) -> None:
        open_tables = [t for t in self._ctx.tables.values() if t.status != CLOSED]
        if max_open is not None and sum(t.guild == guild for t in open_tables) >= max_open:
            raise TableError("too_many_tables", f"this server has {max_open} open tables, its limit: "
                                                "stop one first (/kwx tables lists them)")
        if max_hosted is not None and sum(t.host == host for t in open_tables) >= max_hosted:
            raise TableError("too_many_hosted", f"you host {max_hosted} open tables, the limit: stop one first")

    async def _save_lobby(self, t: LiveTable, lobby: list[PlayerRef], spectators: dict[str, PlayerRef]) -> None:
        """Persist the lobby (seats JSON + options) first, then change it in memory."""
        old = (t.lobby, t.spectators)
        t.lobby, t.spectators = list(lobby), dict(spectators)
        store = self._ctx.store
        try:
            await self._writer.lobby_write(f"the lobby of table {t.id}", lambda: store.update_table(
                t.id, seats=seats_json(t.lobby), options=options_json(t)))
        except BaseException:
            t.lobby, t.spectators = old
            raise
        for p in lobby:
            t.players[p.player_id] = p


def _new_ai(t: LiveTable, level: str) -> PlayerRef:
    taken = {pid.rsplit(":", 1)[-1] for pid in t.players if pid.startswith("ai:")}
    n = next(i for i in range(1, 100) if str(i) not in taken)
    return PlayerRef(f"ai:{level}:{n}", f"AI {n}", level)

