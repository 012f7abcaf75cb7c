"""The web front end: the table in a browser and as a Discord Activity, served by the bot or the local table.

    hub.py       WebFrontEnd, the table service's port for pages: which socket gets which view
    fanout.py    FanOut: one service, several front ends (Discord and the pages)
    wire.py      views → the JSON a page draws, with the words in the page's language (the catalog)
    session.py   one page's socket: who it is for (a signed link, or the Activity's Discord user), its presses
    seats.py     personal table links: signed, expiring, one player at one table
    oauth.py     the Activity's OAuth2 code exchange and GET /users/@me
    server.py    the aiohttp web root: the page, its files, tile art, /api/token, /ws
    static/      the page (table.js, table.css) and discord-sdk.js, bundled by `make web` from websdk/

No module here imports discord.py: the Discord pieces (the board's "Open the table" button, the entry point
command, the DM panel's link) are in cogs/web.py.
"""
