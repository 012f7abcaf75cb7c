"""`Store`: the one object the rest of kwx talks to (see the package docstring for the API)."""

from __future__ import annotations

from kwx.store.events import TablesMixin
from kwx.store.ledger import LedgerMixin
from kwx.store.queries import QueriesMixin
from kwx.store.settings import SettingsMixin


class Store(TablesMixin, LedgerMixin, QueriesMixin, SettingsMixin):
    """Async SQLite store. `store = await Store.open(path)` … `await store.close()` (or `async with`)."""
