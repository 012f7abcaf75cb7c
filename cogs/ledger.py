"""The ledger's slash commands: `/kwx balance | leaderboard | history | stats | settleup | chart | pay | record`,
and for managers `/kwx-admin export | undo`. This extension registers the three cogs that hold them:

- `LedgerLookups` (cogs/ledger_lookups.py): balances, leaderboard, history, stats, settling up, charts;
- `LedgerRequests` (cogs/ledger_requests.py): `pay` and `record`, money that moves only with consent;
- `LedgerAdmin` (cogs/ledger_admin.py): `export` and `undo`, which need Manage Server.

Every answer reads (and every write names) this server's ledger only: the guild id of the interaction is the
ledger's key. Mentions never ping (`AllowedMentions.none()`), except the members a confirmation request waits
for. The cogs are added in this order, which is the order of the subcommands Discord lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.ledger_admin import LedgerAdmin
from cogs.ledger_lookups import LedgerLookups
from cogs.ledger_requests import LedgerRequests

if TYPE_CHECKING:
    from cogs.bot import KwxBot


async def setup(bot: KwxBot) -> None:
    await bot.add_cog(LedgerLookups(bot))
    await bot.add_cog(LedgerRequests(bot))
    await bot.add_cog(LedgerAdmin(bot))
