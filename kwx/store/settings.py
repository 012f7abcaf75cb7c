"""Per-server settings and the front end's message references (schema migration 2).

    await store.set_guild_setting(guild, "lang", "en")       # upsert
    await store.guild_setting(guild, "lang")                 # "en" | None
    await store.guild_settings("lang")                       # {guild: value} for every server that set it

    await store.set_message_ref(table_id, "board", channel_id, message_id, data={"hand": 3})
    await store.set_message_refs([(table_id, MessageRef(...)), ...])   # several, one transaction
    await store.message_refs(table_id)                       # {ref: MessageRef}
    await store.delete_message_refs(table_id)

A message ref says where a front end put one of a table's messages (the board, a player's latest hand panel),
so a restarted bot can edit the same message. The store does not interpret refs, ids or data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kwx.store.db import StoreBase, dump_json, load_json

LANG_KEY = "lang"


@dataclass(frozen=True)
class MessageRef:
    ref: str
    channel_id: str
    message_id: str
    data: dict[str, Any] = field(default_factory=dict)


CONFIRM_DANGER = "confirm_danger"  # a player setting: "off" turns the question before feeding a 亮倒 hand off
AUTO_PASS_CLAIMS = "auto_pass"  # a player setting: "on" passes every claim offer but a win at once


class SettingsMixin(StoreBase):
    async def guild_setting(self, guild: str, key: str) -> str | None:
        row = await self._one("SELECT value FROM guild_settings WHERE guild = $1 AND key = $2", guild, key)
        return None if row is None else str(row["value"])

    async def guild_settings(self, key: str) -> dict[str, str]:
        """Every server's value of one setting."""
        rows = await self._all("SELECT guild, value FROM guild_settings WHERE key = $1", key)
        return {str(r["guild"]): str(r["value"]) for r in rows}

    async def set_guild_setting(self, guild: str, key: str, value: str | None) -> None:
        """Set (or with None, remove) one setting of a server."""
        async with self._write() as db:
            if value is None:
                await db.execute("DELETE FROM guild_settings WHERE guild = $1 AND key = $2", guild, key)
            else:
                await db.execute(
                    "INSERT INTO guild_settings(guild, key, value, updated_at) VALUES ($1, $2, $3, $4)"
                    " ON CONFLICT(guild, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                    guild, key, str(value), self._stamp())

    # A player's own settings live with their server's settings, one key per player: `player:<id>:<key>`
    # (CONFIRM_DANGER "off": no question before discarding a tile that wins for a 亮倒 hand).
    async def player_setting(self, guild: str, player: str, key: str) -> str | None:
        return await self.guild_setting(guild, f"player:{player}:{key}")

    async def set_player_setting(self, guild: str, player: str, key: str, value: str | None) -> None:
        """Set (or with None, remove) one setting of a player in a server."""
        await self.set_guild_setting(guild, f"player:{player}:{key}", value)

    async def message_refs(self, table_id: int) -> dict[str, MessageRef]:
        rows = await self._all("SELECT * FROM message_refs WHERE table_id = $1", table_id)
        return {r["ref"]: MessageRef(r["ref"], r["channel_id"], r["message_id"], load_json(r["data"]) or {})
                for r in rows}

    async def set_message_ref(self, table_id: int, ref: str, channel_id: int | str, message_id: int | str, *,
                              data: Mapping[str, Any] | None = None) -> None:
        async with self._write() as db:
            await db.execute(
                "INSERT INTO message_refs(table_id, ref, channel_id, message_id, data, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT(table_id, ref) DO UPDATE SET channel_id = excluded.channel_id,"
                " message_id = excluded.message_id, data = excluded.data, updated_at = excluded.updated_at",
                table_id, ref, str(channel_id), str(message_id), dump_json(dict(data or {})), self._stamp())

    async def set_message_refs(self, refs: Iterable[tuple[int, MessageRef]]) -> None:
        """Several (table_id, ref) in one transaction (a front end writing behind, once a second)."""
        rows = [(tid, r.ref, str(r.channel_id), str(r.message_id), dump_json(dict(r.data)), self._stamp())
                for tid, r in refs]
        if not rows:
            return
        async with self._write() as db:
            await db.execute_many(
                "INSERT INTO message_refs(table_id, ref, channel_id, message_id, data, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT(table_id, ref) DO UPDATE SET channel_id = excluded.channel_id,"
                " message_id = excluded.message_id, data = excluded.data, updated_at = excluded.updated_at", rows)

    async def delete_message_refs(self, table_id: int) -> None:
        async with self._write() as db:
            await db.execute("DELETE FROM message_refs WHERE table_id = $1", table_id)
