"""The string catalog: every text a player reads, in 简体中文 (zh-CN, the default) and English (en).

The catalogs are flat JSON files in kwx/present/locale/ (`"board.wall": "牌墙剩余 {count} 张"`) so translators can edit
them without touching code. `tr(key, lang, **fmt)` looks the key up in `lang`, then in zh-CN, then gives the
key itself back, so a missing translation shows up as readable Chinese or as the key, never as a crash.
A placeholder the caller forgot stays visible as `{name}` (and is logged).

Both front ends use it: the Discord cogs pass the interaction's locale (`tr(key, interaction.locale)`: any
'en-US'/'en-GB' becomes en, any 'zh-*' becomes zh-CN), the terminal table passes its own setting.
"""

from __future__ import annotations

import json
import logging
import string
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from kwx.engine.rules import PATTERN_FAN
from kwx.engine.tiles import SHORT_CHINESE, Tile

logger = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANG = "zh-CN"
LANGUAGES = ("zh-CN", "en")

_FORMATTER = string.Formatter()


def resolve_lang(locale: object | None) -> str:
    """One of LANGUAGES for a language tag or a discord.Locale: 'en-GB' -> 'en', 'zh-TW' -> 'zh-CN'."""
    if locale is None:
        return DEFAULT_LANG
    tag = str(getattr(locale, "value", locale)).strip()
    if tag in LANGUAGES:
        return tag
    prefix = tag.split("-")[0].split("_")[0].lower()
    for lang in LANGUAGES:
        if lang.split("-")[0].lower() == prefix:
            return lang
    return DEFAULT_LANG


def placeholders(template: str) -> set[str]:
    """The field names a template uses: '{player} 打出 {tile}' -> {'player', 'tile'}."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in _FORMATTER.parse(template) if name}


class _KeepMissing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        logger.warning("i18n: no value for placeholder {%s}", key)
        return "{" + key + "}"


class Catalog:
    """Messages by language and key; falls back to DEFAULT_LANG, then to the key."""

    def __init__(self, messages: Mapping[str, Mapping[str, str]]) -> None:
        if DEFAULT_LANG not in messages:
            raise ValueError(f"a catalog needs the default language {DEFAULT_LANG}")
        self.messages = {lang: dict(table) for lang, table in messages.items()}

    @classmethod
    def load(cls, folder: Path = LOCALE_DIR) -> Catalog:
        return cls({p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))})

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.messages)

    def keys(self, lang: str = DEFAULT_LANG) -> set[str]:
        return set(self.messages.get(lang, {}))

    def template(self, key: str, lang: object | None = DEFAULT_LANG) -> str | None:
        lang = resolve_lang(lang)
        found = self.messages.get(lang, {}).get(key)
        if found is None and lang != DEFAULT_LANG:
            found = self.messages[DEFAULT_LANG].get(key)
        return found

    def tr(self, key: str, lang: object | None = DEFAULT_LANG, **fmt: Any) -> str:
        """`fmt` values that are errors with a code (TileError, InputError …) are rendered in `lang` too."""
        template = self.template(key, lang)
        if template is None:
            logger.warning("i18n: unknown key %r", key)
            return key
        if not fmt and "{" not in template:
            return template
        if any(isinstance(v, Exception) for v in fmt.values()):
            fmt = {k: self.error_text(v, lang) if isinstance(v, Exception) else v for k, v in fmt.items()}
        return _FORMATTER.vformat(template, (), _KeepMissing(fmt))

    def error_text(self, exc: Exception, lang: object | None = DEFAULT_LANG) -> str:
        """An error with `catalog` (a key prefix), `code` and `fmt` in `lang`; any other error as str()."""
        prefix, code = getattr(exc, "catalog", None), getattr(exc, "code", None)
        if prefix and code and self.template(f"{prefix}.{code}", lang) is not None:
            return self.tr(f"{prefix}.{code}", lang, **getattr(exc, "fmt", {}))
        return str(exc)


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The catalog in kwx/present/locale/, loaded once."""
    return Catalog.load()


def tr(key: str, lang: object | None = DEFAULT_LANG, **fmt: Any) -> str:
    """The text for `key` in `lang` (a tag like 'en' or a discord.Locale), formatted with `fmt`."""
    return catalog().tr(key, lang, **fmt)


def error_text(exc: Exception, lang: object | None = DEFAULT_LANG) -> str:
    """A player's mistake in their language: a TileError, a calculator InputError … (see Catalog.error_text)."""
    return catalog().error_text(exc, lang)


def pattern_name(pid: str, lang: object | None = DEFAULT_LANG) -> str:
    """The name of a pattern id of kwx.engine.rules ('qidui' -> 七对 / Seven Pairs); an unknown id as is."""
    if pid not in PATTERN_FAN:
        return pid
    return tr(f"pattern.{pid}", lang)


# The short label of a tile, as players type it: 5筒 / 中 in Chinese; 5p / Red in English, dragons by name ("7z"
# means nothing to a player who has not read the notation). The terminal's command line reads these words back.
ENGLISH_DRAGONS = {Tile.RED: "Red", Tile.GREEN: "Grn", Tile.WHITE: "Wht"}


def tile_label(tile: Tile, lang: object | None = DEFAULT_LANG) -> str:
    """5筒 / 中 in Chinese; 5p / Red in English."""
    if resolve_lang(lang) != "en":
        return SHORT_CHINESE[tile]
    return ENGLISH_DRAGONS.get(tile, tile.compact)


def tile_name(tile: int, lang: object | None = DEFAULT_LANG) -> str:
    """A tile as words: 5筒 / 5 Dots, 中 / Red Dragon."""
    tile = Tile(tile)
    if tile.is_dragon:
        return tr({Tile.RED: "tile.red", Tile.GREEN: "tile.green", Tile.WHITE: "tile.white"}[tile], lang)
    return tr(f"tile.{tile.suit}", lang, n=tile.number)


def join_names(names: list[str], lang: object | None = DEFAULT_LANG) -> str:
    """'a、b' / 'a, b' with the language's list separator; two names use 'and' (a和b / a and b)."""
    if len(names) == 2:
        return tr("common.and", lang, a=names[0], b=names[1])
    return tr("common.list_sep", lang).join(names)
