"""A server's table defaults (set with `/kwx-admin config`), kept as guild settings in the store.

    defaults = await table_defaults(store, guild)
    defaults["rules"]          # RuleSet: the server's preset with its base
    defaults["preset"], defaults["base"], defaults["turn_seconds"], defaults["claim_seconds"], defaults["lang"]
    zone = await server_zone(store, guild, lang)  # the server's time zone, for the dates a player reads

Keys in guild_settings: rules (a preset name), base, turn_seconds, claim_seconds, lang, max_tables (open
tables in the server), max_hosted (open tables one member may host), timezone (an IANA name such as
Asia/Shanghai). A missing or unusable stored value falls back to the default, so a bad row can never stop a
table from opening. Discord does not tell a bot where a server is, so until a manager sets it the time zone
follows the server's language: China's time (Asia/Shanghai, all of China keeps one) for Chinese, UTC otherwise.
Nothing here imports discord.
"""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Any, Protocol, TypedDict
from zoneinfo import ZoneInfo, available_timezones

from kwx.engine.rules import PRESETS, RuleSet
from kwx.present.i18n import DEFAULT_LANG, LANGUAGES

RULES, BASE, TURN_SECONDS, CLAIM_SECONDS, LANG = "rules", "base", "turn_seconds", "claim_seconds", "lang"
MAX_TABLES, MAX_HOSTED = "max_tables", "max_hosted"  # caps: open tables per server, hosted per member
TIMEZONE = "timezone"
SETTING_KEYS = (RULES, BASE, TURN_SECONDS, CLAIM_SECONDS, LANG, TIMEZONE, MAX_TABLES, MAX_HOSTED)
DEFAULTS: dict[str, Any] = {RULES: "standard", BASE: 1, TURN_SECONDS: 30, CLAIM_SECONDS: 12, LANG: DEFAULT_LANG,
                            TIMEZONE: None, MAX_TABLES: 10, MAX_HOSTED: 2}
ZONE_BY_LANG = {"zh-CN": "Asia/Shanghai"}  # the time zone of a server that set none, by its language
FALLBACK_ZONE = "UTC"
# Inclusive bounds of the numeric settings.
BOUNDS: dict[str, tuple[int, int]] = {BASE: (1, 100_000), TURN_SECONDS: (10, 600), CLAIM_SECONDS: (5, 120),
                                      MAX_TABLES: (1, 50), MAX_HOSTED: (1, 10)}


class TableDefaults(TypedDict):
    """What a new table in a server starts with (`table_defaults`)."""

    rules: RuleSet  # the server's preset with its base
    preset: str
    base: int
    turn_seconds: float
    claim_seconds: float
    lang: str
    max_tables: int  # open tables in the server
    max_hosted: int  # open tables one member may host


class SettingsStore(Protocol):
    async def guild_setting(self, guild: str, key: str) -> str | None: ...

    async def set_guild_setting(self, guild: str, key: str, value: str | None) -> None: ...


class SettingError(ValueError):
    """A value a setting cannot take. `key` names the setting; `bounds` is set for numbers out of range."""

    def __init__(self, key: str, value: Any, bounds: tuple[int, int] | None = None) -> None:
        super().__init__(f"{key} cannot be {value!r}")
        self.key = key
        self.value = value
        self.bounds = bounds


def parse_setting(key: str, value: Any) -> Any:
    """The validated value of one setting (a preset name, a language tag, or an int); SettingError if bad."""
    if key == RULES:
        if str(value) not in PRESETS:
            raise SettingError(key, value)
        return str(value)
    if key == LANG:
        if str(value) not in LANGUAGES:
            raise SettingError(key, value)
        return str(value)
    if key == TIMEZONE:
        zone = zone_names().get(str(value).strip().lower())
        if zone is None:
            raise SettingError(key, value)
        return zone
    if key in BOUNDS:
        low, high = BOUNDS[key]
        try:
            number = int(str(value).strip())
        except ValueError:
            raise SettingError(key, value, BOUNDS[key]) from None
        if isinstance(value, bool) or not low <= number <= high:
            raise SettingError(key, value, BOUNDS[key])
        return number
    raise SettingError(key, value)


@cache
def zone_names() -> dict[str, str]:
    """Every IANA time zone name this machine knows, by its lower-case spelling."""
    return {name.lower(): name for name in available_timezones() | {FALLBACK_ZONE}}


async def guild_settings(store: SettingsStore, guild: str) -> dict[str, Any]:
    """Every setting of the server, validated, defaults filled in."""
    out = dict(DEFAULTS)
    for key in SETTING_KEYS:
        raw = await store.guild_setting(guild, key)
        if raw is None:
            continue
        with contextlib.suppress(SettingError):  # a stored value this version cannot use: keep the default
            out[key] = parse_setting(key, raw)
    return out


def default_zone(lang: str) -> str:
    """The time zone of a server that set none, from its language."""
    return ZONE_BY_LANG.get(lang, FALLBACK_ZONE)


async def server_zone(store: SettingsStore, guild: str, lang: str) -> ZoneInfo:
    """The server's time zone: its setting, else the default for its language (`lang`, the server's)."""
    raw = await store.guild_setting(guild, TIMEZONE)
    with contextlib.suppress(SettingError):
        if raw is not None:
            return ZoneInfo(parse_setting(TIMEZONE, raw))
    return ZoneInfo(default_zone(lang))


async def set_setting(store: SettingsStore, guild: str, key: str, value: Any) -> Any:
    """Validate and store one setting; returns the stored value."""
    parsed = parse_setting(key, value)
    await store.set_guild_setting(guild, key, str(parsed))
    return parsed


async def table_defaults(store: SettingsStore, guild: str) -> TableDefaults:
    """What a new table in this server starts with. Options a table command gives explicitly should override
    these."""
    values = await guild_settings(store, guild)
    return {
        "rules": RuleSet.preset(values[RULES], base=values[BASE]),
        "preset": values[RULES],
        "base": values[BASE],
        "turn_seconds": float(values[TURN_SECONDS]),
        "claim_seconds": float(values[CLAIM_SECONDS]),
        "lang": values[LANG],
        "max_tables": values[MAX_TABLES],
        "max_hosted": values[MAX_HOSTED],
    }
