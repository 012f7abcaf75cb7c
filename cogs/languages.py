"""Each server's language, cached in memory: what the board, the panels and every reply are written in.

    languages = Languages(store, default="zh-CN"); await languages.load()
    languages.of(guild_id)  -> "zh-CN" | "en";   await languages.set(guild_id, "en")
"""

from __future__ import annotations

from kwx.present.i18n import DEFAULT_LANG, LANGUAGES, resolve_lang
from kwx.store import Store
from kwx.store.settings import LANG_KEY


class Languages:
    """Each server's language (guild_settings 'lang'), cached in memory; `default` for servers that chose none."""

    def __init__(self, store: Store, default: str = DEFAULT_LANG) -> None:
        self.store = store
        self.default = resolve_lang(default)
        self._by_guild: dict[str, str] = {}

    async def load(self) -> None:
        self._by_guild = {g: resolve_lang(v) for g, v in (await self.store.guild_settings(LANG_KEY)).items()}

    def of(self, guild_id: int | str | None) -> str:
        if guild_id is None:
            return self.default
        return self._by_guild.get(str(guild_id), self.default)

    async def set(self, guild_id: int | str, lang: str) -> str:
        lang = resolve_lang(lang)
        if lang not in LANGUAGES:  # pragma: no cover - resolve_lang only returns LANGUAGES
            raise ValueError(lang)
        await self.store.set_guild_setting(str(guild_id), LANG_KEY, lang)
        self._by_guild[str(guild_id)] = lang
        return lang
