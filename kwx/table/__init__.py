"""kwx.table — the table service: lobbies, hands, timers, AI seats and 托管 over the store and a front end.

    from kwx.table import TableService, TableError, PlayerRef
See kwx/table/service.py for the API and kwx/table/ports.py for the FrontEnd port front ends implement.
"""

from kwx.table.errors import TableError
from kwx.table.ports import FrontEnd
from kwx.table.service import ServiceStats, TableService
from kwx.table.views import (
    ActionChoice,
    MeldView,
    PaymentView,
    PlayerRef,
    PrivateView,
    PublicView,
    ResultView,
    RevealedHand,
    SeatView,
    WinnerView,
)

__all__ = [
    "ActionChoice", "FrontEnd", "MeldView", "PaymentView", "PlayerRef", "PrivateView", "PublicView", "ResultView",
    "RevealedHand", "SeatView", "ServiceStats", "TableError", "TableService", "WinnerView",
]
