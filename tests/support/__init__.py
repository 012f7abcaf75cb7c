"""What every test uses, in one place: no test module imports another test module, only this package.

    backends.py            the store backends under test (a SQLite file, a PostgreSQL schema per test)
    clock.py               FakeClock: time that moves only when told, with the timers and sleeps that wait on it
    ledger.py              ledger hands for the store tests (make_hand)
    players.py             the guild and the players the table tests seat (GUILD, ANN, BOB, CY, DEE)
    polling.py             eventually(): wait until something holds, or fail saying what never came
    prometheus.py          samples(): a Prometheus text page read into name{labels} -> value
    released_migrations.py the SQL each released version ran, for the upgrade tests
"""
