"""`python bot.py --local --web`: you against two AI players, in your browser instead of the terminal.

The same local table service as the terminal (guild `local`, its own channel `web`, kept open between runs),
with the web front end as its port: the page is served on 127.0.0.1 (KWX_WEB_PORT, else 8765) and the command
prints your personal link (and opens it when a browser is at hand). Ctrl+C stops serving; the table stays open
and the next run resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import webbrowser
from typing import Any

from kwx.local.tables import (
    AI_DELAY,
    BETWEEN_HANDS,
    LOCAL_GUILD,
    TERMINAL_CLAIM_PAUSE,
    YOU_ID,
    come_back,
    only_channel,
    seat_players,
    timers,
)
from kwx.present.i18n import tr
from kwx.store import Store
from kwx.table.service import TableService
from kwx.table.views import PlayerRef
from kwx.web.hub import WebFrontEnd
from kwx.web.seats import SeatLinks
from kwx.web.server import WebServer

WEB_CHANNEL = "web"
DEFAULT_PORT = 8765


async def serve_local(db: Any, *, lang: str, port: int, seed: str | None = None, ai_delay: float = AI_DELAY,
                      turn_seconds: float | None = None, open_browser: bool = True,
                      ready: asyncio.Event | None = None, stop: asyncio.Event | None = None) -> str:
    """Serve the local web table until `stop` is set (or forever); returns the link it printed."""
    store = await Store.open(db)
    hub = WebFrontEnd()
    service = TableService(store, hub, ai_delay=ai_delay, between_hands=BETWEEN_HANDS,
                           claim_pause=TERMINAL_CLAIM_PAUSE)
    you = PlayerRef(YOU_ID, tr("local.you", lang))
    server = WebServer(service, hub, SeatLinks(secrets.token_bytes(32)), store=store, default_lang=lang)
    try:
        await service.start(include=only_channel(LOCAL_GUILD, WEB_CHANNEL))
        table_id = service.table_in_channel(LOCAL_GUILD, WEB_CHANNEL)
        if table_id is None:
            turn, claim = timers(turn_seconds)
            table_id = await service.open_table(LOCAL_GUILD, WEB_CHANNEL, you, turn_seconds=turn,
                                                claim_seconds=claim, seed=seed)
        await seat_players(service, table_id, you, [you])
        await come_back(service, table_id, YOU_ID)
        bound = await server.start("127.0.0.1", port)
        link = f"http://127.0.0.1:{bound}/?lang={lang}#link={server.sessions.links.issue(table_id, YOU_ID)}"
        print(tr("web.local_ready", lang, url=link), flush=True)
        if open_browser:
            with contextlib.suppress(Exception):
                webbrowser.open(link)
        if ready is not None:
            ready.set()
        await (stop.wait() if stop is not None else asyncio.Event().wait())
        return link
    finally:
        await server.stop()
        await service.shutdown()
        await store.close()


def run_web(settings: Any, args: Any) -> int:
    port = settings.web_port or DEFAULT_PORT
    try:
        asyncio.run(serve_local(args.db or settings.database, lang=settings.lang, port=port, seed=args.seed,
                                ai_delay=AI_DELAY if args.delay is None else args.delay,
                                turn_seconds=getattr(args, "turn_seconds", None)))
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"cannot serve the web table on 127.0.0.1:{port} (KWX_WEB_PORT): {exc.strerror or exc}")
        return 2
    return 0
