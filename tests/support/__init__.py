"""What every test uses, in one place: no test module imports another test module, only this package (and the
harness it shares with the benchmarks under kwx/devtools: the fake Discord and its bot kit, the fake clock,
the polling helper). `tests/test_house.py` checks it.

    backends.py            the store backends under test (a SQLite file, a PostgreSQL schema per test)
    clock.py               FakeClock: time that moves only when told, with the timers and sleeps that wait on it
    polling.py             eventually(): wait until something holds, or fail saying what never came
    prometheus.py          samples(): a Prometheus text page read into name{labels} -> value
    players.py             the guild and the players the table tests seat (GUILD, ANN, BOB, CY, DEE)
    hands.py               walls and hands built from text (build_wall, deal, play, ...), scripted engine hands
    reviews.py             hands played to the end by AI players, for the 复盘 tests
    frontends.py           the table service's recording front ends
    tables.py              table service steps (table_with, wait_prompt, refused ...) and ScriptedDeal
    ledger.py              ledger hands for the store tests (make_hand)
    released_migrations.py the SQL each released version ran, for the upgrade tests
    ledger_kit.py          the ledger cogs on the fake Discord (LedgerKit)
    panels.py              Discord panels to render and the claim-pause tests' scripted hand
    terminal.py            the terminal's boards, panels, fake service and scripted sessions
    scripted.py            a scripted hand at the terminal table (wall, dealer and every AI decision fixed)
    ledger_run.py          the ledger command line run in-process
    web.py, browser.py     the table page served, and a browser driven over the DevTools protocol
"""
