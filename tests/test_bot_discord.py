"""bot.py's Discord half: intents, a clear exit for a missing or rejected token."""

from __future__ import annotations

import argparse

import discord

import bot
from kwx.cli.settings import Settings


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(**(vars(bot.build_parser().parse_args([])) | kw))


def test_the_bot_asks_for_the_guilds_intent_only() -> None:
    intents = bot.bot_intents()
    assert intents.guilds and not intents.message_content and not intents.members
    assert intents.value == discord.Intents(guilds=True).value


def test_a_missing_token_exits_with_status_2(capsys) -> None:
    assert bot.run_discord(_args(), Settings()) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


def test_a_rejected_token_exits_with_status_2_and_says_why(monkeypatch, capsys) -> None:
    def refuse(self, token, **kw):
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(bot.KwxBot, "run", refuse)
    assert bot.run_discord(_args(), Settings(discord_token="nope")) == 2
    assert "rejected the token" in capsys.readouterr().err


def test_run_passes_the_options_and_logs_with_timestamps(monkeypatch, tmp_path) -> None:
    seen = {}

    def run(self, token, **kw):
        seen.update(token=token, bot=self, **kw)

    monkeypatch.setattr(bot.KwxBot, "run", run)
    args = _args(db=str(tmp_path / "x.db"), sync=True, guild="123")
    assert bot.run_discord(args, Settings(discord_token="tok")) == 0
    assert seen["token"] == "tok" and seen["bot"].sync_commands and seen["bot"].sync_guild == "123"
    assert str(seen["bot"].db_path).endswith("x.db")
    assert "%(asctime)s" in seen["log_formatter"]._fmt
