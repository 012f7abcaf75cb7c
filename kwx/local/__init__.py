"""The local front end: the game at the terminal and the headless autoplay runner, on the same table service,
store and ledger as Discord (guild `local`).

    launch.py    which of them a command line asks for (`python bot.py --local [--plain | --autoplay N]`)
    app.py       the game screen (Textual; app_port.py its FrontEnd port, widgets.py its screens): `python bot.py` at a terminal without a Discord token, or `--local`
    plain.py     the line-by-line mode (`--plain`): pipes, screen readers, scripted runs
    browser.py   `--web`: the same table in your browser (the web front end, kwx/web)
    autoplay.py  three AI players play N hands headless (`--autoplay N`)
    tables.py    the local tables: finding, seating, the clock that stands still while nobody runs them
    commands.py  typed commands → legal choices;  render.py views → rich text;  text.py strings and tiles
    input_bytes.py  typed bytes that are not UTF-8 read as U+FFFD;  crash.py  an error's log file and exit status
"""
