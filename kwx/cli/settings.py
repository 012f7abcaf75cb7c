"""Settings from the environment (and a `.env` file): the one place that reads them.

    settings = load_settings()            # reads .env (never overriding variables already set), then os.environ

Every setting is documented in `.env.example`. Nothing here imports discord: the terminal table and the
tools read the same settings as the bot.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import load_dotenv

from kwx.present.i18n import LANGUAGES, resolve_lang
from kwx.store.db import DEFAULT_DB
from kwx.table.retry import STORE_RETRY_SECONDS


class ConfigError(ValueError):
    """A setting has a value that cannot be used; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    discord_token: str | None = None  # DISCORD_TOKEN: unset = no Discord, the terminal table runs
    db_path: Path = DEFAULT_DB  # KWX_DB
    database_url: str | None = None  # KWX_DATABASE_URL: postgresql://… selects PostgreSQL instead of KWX_DB
    lang: str = "zh-CN"  # KWX_LANG: zh-CN | en (the terminal's language, the bot's fallback)
    owner_id: str | None = None  # KWX_OWNER_ID: Discord user id of the bot's owner (admin commands)
    test_guild: str | None = None  # KWX_TEST_GUILD: a guild id to sync slash commands to instantly
    api_base: str | None = None  # DISCORD_API_BASE: another Discord API (a REST proxy, the loopback Discord)
    store_retry_seconds: float = STORE_RETRY_SECONDS  # KWX_STORE_RETRY_SECONDS: then a table whose writes fail pauses
    backup_dir: Path | None = None  # KWX_BACKUP_DIR: unset = backups/ beside the SQLite store
    backup_keep: int = 14  # KWX_BACKUP_KEEP: scheduled and on-demand backups kept
    backup_hours: float = 24.0  # KWX_BACKUP_HOURS: the bot backs the SQLite store up this often; 0 = never
    metrics_port: int | None = None  # KWX_METRICS_PORT: serve /healthz and /metrics there; unset = not at all
    metrics_host: str = "127.0.0.1"  # KWX_METRICS_HOST: the address they listen on (loopback unless told)
    web_port: int | None = None  # KWX_WEB_PORT: serve the table pages (and the Activity) there; unset = not at all
    web_host: str = "127.0.0.1"  # KWX_WEB_HOST: the address they listen on (a TLS proxy in front; README)
    web_url: str | None = None  # KWX_WEB_URL: the public address of the web root, for the links the DM panel gives
    web_secret: str | None = None  # KWX_WEB_SECRET: signs personal table links (unset: derived from DISCORD_TOKEN)
    client_secret: str | None = None  # DISCORD_CLIENT_SECRET: the Activity's OAuth2 code exchange

    @property
    def database(self) -> str | Path:
        """Where the store lives: the PostgreSQL URL when set, else the SQLite file (for Store.open)."""
        return self.database_url or self.db_path

    @property
    def has_discord(self) -> bool:
        return bool(self.discord_token)

    def __repr__(self) -> str:  # never print the token
        token = "set" if self.discord_token else "unset"
        return (f"Settings(discord_token={token}, db_path={str(self.db_path)!r}, lang={self.lang!r}, "
                f"owner_id={self.owner_id!r}, test_guild={self.test_guild!r}, api_base={self.api_base!r}, "
                f"store_retry_seconds={self.store_retry_seconds!r})")


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def _snowflake(env: Mapping[str, str], name: str) -> str | None:
    value = _clean(env.get(name))
    if value is not None and not value.isdigit():
        raise ConfigError(f"{name} must be a Discord id (digits only), not {value!r}")
    return value


def _api_base(env: Mapping[str, str]) -> str | None:
    value = _clean(env.get("DISCORD_API_BASE"))
    if value is None:
        return None
    if not value.startswith(("http://", "https://")) or "/api/v" not in value:
        raise ConfigError(f"DISCORD_API_BASE must be an http(s) URL ending in /api/v10, not {value!r}")
    return value.rstrip("/")


def _web_url(env: Mapping[str, str]) -> str | None:
    value = _clean(env.get("KWX_WEB_URL"))
    if value is not None and not value.startswith(("http://", "https://")):
        raise ConfigError(f"KWX_WEB_URL must be an http(s) URL (the web root players open), not {value!r}")
    return value.rstrip("/") + "/" if value else None


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = _clean(env.get(name))
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ConfigError(f"{name} must be a number of seconds (0 or more), not {value!r}")
    return seconds


def _number(env: Mapping[str, str], name: str, low: float, high: float, default: float) -> float:
    value = _clean(env.get(name))
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not low <= number <= high:
        raise ConfigError(f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return number


def _whole(env: Mapping[str, str], name: str, low: int, high: int, default: int | None) -> int | None:
    value = _clean(env.get(name))
    if value is None:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return int(value)


def settings_from(env: Mapping[str, str]) -> Settings:
    """Settings from a mapping of environment variables (no file reading; tests pass a dict)."""
    lang_text = _clean(env.get("KWX_LANG"))
    if lang_text is None:
        lang = "zh-CN"
    else:
        lang = resolve_lang(lang_text)
        if lang_text not in LANGUAGES and lang_text.split("-")[0].split("_")[0].lower() not in ("zh", "en"):
            raise ConfigError(f"KWX_LANG must be one of {', '.join(LANGUAGES)}, not {lang_text!r}")
    db = _clean(env.get("KWX_DB"))
    url = _clean(env.get("KWX_DATABASE_URL"))
    if url is not None and not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"KWX_DATABASE_URL must be a postgresql:// URL, not {url.split(':')[0]!r}"
                          " (leave it unset to use SQLite at KWX_DB)")
    backup_dir = _clean(env.get("KWX_BACKUP_DIR"))
    return Settings(
        discord_token=_clean(env.get("DISCORD_TOKEN")),
        db_path=Path(db) if db else DEFAULT_DB,
        database_url=url,
        lang=lang,
        owner_id=_snowflake(env, "KWX_OWNER_ID"),
        test_guild=_snowflake(env, "KWX_TEST_GUILD"),
        api_base=_api_base(env),
        store_retry_seconds=_seconds(env, "KWX_STORE_RETRY_SECONDS", STORE_RETRY_SECONDS),
        backup_dir=Path(backup_dir) if backup_dir else None,
        backup_keep=_whole(env, "KWX_BACKUP_KEEP", 1, 10_000, 14) or 14,
        backup_hours=_number(env, "KWX_BACKUP_HOURS", 0, 24 * 366, 24.0),
        metrics_port=_whole(env, "KWX_METRICS_PORT", 1, 65535, None),
        metrics_host=_clean(env.get("KWX_METRICS_HOST")) or "127.0.0.1",
        web_port=_whole(env, "KWX_WEB_PORT", 1, 65535, None),
        web_host=_clean(env.get("KWX_WEB_HOST")) or "127.0.0.1",
        web_url=_web_url(env),
        web_secret=_clean(env.get("KWX_WEB_SECRET")),
        client_secret=_clean(env.get("DISCORD_CLIENT_SECRET")),
    )


def load_settings(env_file: str | os.PathLike[str] | None = None) -> Settings:
    """Read `.env` (the current directory's, or `env_file`) into os.environ without overriding what is already
    set, then build the settings from os.environ."""
    if env_file is None:
        load_dotenv(Path.cwd() / ".env", override=False)
    else:
        load_dotenv(env_file, override=False)
    return settings_from(os.environ)
