"""bot.py's Discord half: intents, the settings it builds from the command line, a clear exit for a missing or
rejected token."""

from __future__ import annotations

import argparse
import logging
import socket

import discord
import pytest

import bot
from cogs.bot import BotSettings, CommandSync, KwxBot, SetupError, bot_intents
from cogs.operations import Rest
from kwx.cli.settings import Settings
from kwx.store import Store, StoreError

START_LOGGING = bot.start_logging


@pytest.fixture(autouse=True)
def no_logging_setup(monkeypatch) -> None:
    """run_discord would hang its handler on this process's root logger."""
    monkeypatch.setattr(bot, "start_logging", lambda: None)


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(**(vars(bot.build_parser().parse_args([])) | kw))


def test_the_bot_asks_for_the_guilds_intent_only() -> None:
    intents = bot_intents()
    assert intents.guilds and not intents.message_content and not intents.members
    assert intents.value == discord.Intents(guilds=True).value


def test_a_missing_token_exits_with_status_2(capsys) -> None:
    assert bot.run_discord(_args(), Settings()) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


def test_a_rejected_token_exits_with_status_2_and_says_why(monkeypatch, capsys) -> None:
    async def refuse(self, token):
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(KwxBot, "start", refuse)
    assert bot.run_discord(_args(), Settings(discord_token="nope")) == 2
    assert "rejected the token" in capsys.readouterr().err


def test_run_passes_the_options_and_logs_with_timestamps(monkeypatch, tmp_path) -> None:
    seen = {}

    async def start(self, token):
        seen.update(token=token, bot=self)

    monkeypatch.setattr(KwxBot, "start", start)
    args = _args(db=str(tmp_path / "x.db"), sync=True, guild="123", delay=0.2)
    assert bot.run_discord(args, Settings(discord_token="tok")) == 0
    monkeypatch.setattr(discord.utils, "setup_logging", lambda **kw: seen.update(kw))
    START_LOGGING()
    logging.getLogger("discord.client").setLevel(logging.NOTSET)
    settings = seen["bot"].settings
    assert seen["token"] == "tok" and settings.sync == CommandSync(guild="123")
    assert str(settings.store).endswith("x.db") and settings.pace.ai_delay == 0.2
    assert settings.hosting and settings.handle_signals and settings.rate_limit
    assert "%(asctime)s" in seen["formatter"]._fmt


@pytest.mark.parametrize("base", ["http://127.0.0.1:8123/api/v9", "http://127.0.0.1:x/api/v10", "ftp://h/api/v10"])
def test_an_api_base_the_connector_cannot_serve_is_one_line_before_start_up(capsys, base) -> None:
    assert bot.run_discord(_args(), Settings(discord_token="tok", api_base=base)) == 2
    err = capsys.readouterr().err
    assert err.startswith("python bot.py: DISCORD_API_BASE must be http(s)://HOST[:PORT]/api/v10") and err.count("\n") == 1


def test_a_store_that_cannot_be_opened_exits_with_status_2_and_says_why(monkeypatch, capsys) -> None:
    async def fail(self, token):
        raise StoreError("cannot back up data/kwx.sqlite3 (disk full); the store was not migrated from v3 to v4")

    monkeypatch.setattr(KwxBot, "start", fail)
    assert bot.run_discord(_args(), Settings(discord_token="tok")) == 2
    err = capsys.readouterr().err
    assert err.startswith("python bot.py: cannot back up") and len(err.splitlines()) == 1


def test_the_installed_command_names_itself_in_its_errors(capsys) -> None:
    assert bot.main(["--autoplay", "-1"], prog="kwx-bot") == 2
    assert capsys.readouterr().err.startswith("kwx-bot: --autoplay")
    assert bot.run_discord(bot.build_parser("kwx-bot").parse_args([]), Settings()) == 2
    assert capsys.readouterr().err.startswith("kwx-bot: DISCORD_TOKEN is not set")


async def test_a_metrics_port_in_use_stops_the_start_with_one_line(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        kwx = KwxBot(BotSettings(env=Settings(discord_token="tok", metrics_port=port), hosting=True))
        async with await Store.open(tmp_path / "kwx.sqlite3") as store:
            with pytest.raises(SetupError, match=f"cannot serve /healthz and /metrics on 127.0.0.1:{port}"):
                await kwx._start_hosting(store, object(), Rest())  # type: ignore[arg-type]
        assert kwx.monitor is None and kwx.backups is None  # nothing was left running
        await kwx.close()
