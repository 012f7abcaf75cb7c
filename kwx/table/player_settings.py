"""A player's table settings, which the service honours for every front end: auto-pass (every claim offer but a
win is passed at once) and the question before a costly discard (on unless turned off).

They are kept per player and server in the store (kwx.store.settings), read once and then kept here. A store
that fails never costs a press its answer: a read that fails gives the default, a write that fails still
changes the setting for as long as this process runs (and is logged).
"""

from __future__ import annotations

import logging

from kwx.store import Store
from kwx.store.settings import AUTO_PASS_CLAIMS, CONFIRM_DANGER

logger = logging.getLogger(__name__)

# (setting key, the stored value that turns it away from its default, the default)
AUTO_PASS = (AUTO_PASS_CLAIMS, "on", False)
ASK_FIRST = (CONFIRM_DANGER, "off", True)
Setting = tuple[str, str, bool]
SETTINGS = {"auto_pass": AUTO_PASS, "ask_first": ASK_FIRST}  # by the names the service's callers use


class PlayerSettings:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._known: dict[tuple[str, str, str], bool] = {}  # (server, player, key) -> on

    async def get(self, guild: str, player_id: str, setting: Setting) -> bool:
        key, flipped, default = setting
        known = self._known.get((guild, player_id, key))
        if known is not None:
            return known
        try:
            stored = await self._store.player_setting(guild, player_id, key)
        except Exception:
            logger.exception("could not read the %s setting of %s: its default applies", key, player_id)
            return default
        on = (not default) if stored == flipped else default
        self._known[(guild, player_id, key)] = on
        return on

    async def set(self, guild: str, player_id: str, setting: Setting, on: bool) -> bool:
        """Change a setting; False when the store could not keep it (it holds here all the same)."""
        key, flipped, default = setting
        self._known[(guild, player_id, key)] = on
        try:
            await self._store.set_player_setting(guild, player_id, key, None if on == default else flipped)
        except Exception:
            logger.exception("could not save the %s setting of %s", key, player_id)
            return False
        return True

    def cached(self, guild: str, player_id: str, setting: Setting) -> bool:
        """The setting as last read or set here (its default when never read): for drawing a panel."""
        key, _, default = setting
        return self._known.get((guild, player_id, key), default)
