"""A failing store, through Discord: a press whose write fails is answered privately, the table pauses with a
notice in its channel and a Resume button, the log has an ERROR line (with the traceback of a bug), and once
the store works a press of Resume plays on. The retry time is the KWX_STORE_RETRY_SECONDS setting (fake
Discord, real bot, service and store)."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from cogs.bot import BotSettings, KwxBot, Pace
from cogs.fake_discord import make_world
from cogs.fake_discord.kit import Kit, alice_asked
from kwx.cli.settings import Settings
from kwx.store import StoreBusy
from kwx.store.sqlite.conn import store_error

RETRY_SECONDS = 0.05


def locked() -> Exception:
    """What the SQLite store raises when another writer holds the database."""
    error = sqlite3.OperationalError("database is locked")
    error.sqlite_errorcode = 5  # type: ignore[attr-defined]
    return store_error(error)


@pytest.fixture
async def kit(tmp_path) -> Kit:
    settings = Settings(store_retry_seconds=RETRY_SECONDS)  # as KWX_STORE_RETRY_SECONDS=0.05 sets it
    bot = KwxBot(BotSettings(env=settings, database=tmp_path / "kwx.sqlite3", pace=Pace.instant(), table_seed="kwx-test"))
    k = Kit(bot, await make_world(bot, run_setup_hook=True))
    yield k
    await k.stop()


def break_the_event_log(kit: Kit, monkeypatch, error: Exception) -> list[int]:
    """Every event-log write fails with `error` until the returned list is emptied; it counts the tries."""
    store = kit.rt.store
    tries: list[int] = [0]
    write = store.append_events_batch

    async def failing(*args: Any, **kwargs: Any) -> Any:
        if tries:
            tries[0] += 1
            raise error
        return await write(*args, **kwargs)

    monkeypatch.setattr(store, "append_events_batch", failing)
    return tries


def channel_text(kit: Kit) -> str:
    """Everything the table's channel shows now: posts, and every embed's text."""
    parts = []
    for m in kit.table_messages():
        parts.append(m.content or "")
        for e in m.embeds:
            parts += [e.title or "", e.description or "", *(f"{f.name}\n{f.value}" for f in e.fields)]
    return "\n".join(parts)


async def press_a_move(kit: Kit, panel) -> str:
    """Alice presses a discard (or a pass) on her panel; returns what she was answered."""
    verb, arg, _ = next(a for a in kit.acts(panel) if a[0] in ("discard", "pass"))
    return kit.reply(await kit.press(kit.alice, panel, verb, arg))


@pytest.mark.parametrize("error", [RuntimeError("a bug in the store path"), locked()], ids=["bug", "outage"])
async def test_a_failing_store_pauses_the_table_and_resume_plays_on(kit: Kit, monkeypatch, caplog, error) -> None:
    assert kit.service.store_retry.give_up_after == RETRY_SECONDS
    table, panel, _, _ = await alice_asked(kit)
    tries = break_the_event_log(kit, monkeypatch, error)
    caplog.clear()
    answer = await press_a_move(kit, panel)
    await kit.settle()

    assert "保存到数据库失败" in answer  # her press was refused, and she is told why
    assert (tries[0] == 1) == isinstance(error, RuntimeError)  # a bug is not tried again; an outage is
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and (errors[0].exc_info is not None) == isinstance(error, RuntimeError)
    channel = channel_text(kit)
    assert "牌桌已暂停：保存到数据库失败" in channel  # the notice, on the board
    assert ("保存失败，正在重试" in channel) == isinstance(error, StoreBusy)
    board = kit.board(1)
    resume = next(c for c in board.components if c.custom_id == f"kwx:tbl:{table}:resume")

    tries.clear()  # the store works again
    await kit.press_id(kit.alice, board, resume.custom_id)
    assert kit.service.public_view_as_shown(table).paused is None
    panel = kit.live_panel(kit.alice)
    assert panel is not None and await press_a_move(kit, panel) == ""  # her move is made (no refusal)
    events = await kit.rt.store.load_events(table)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # nothing lost, nothing doubled
