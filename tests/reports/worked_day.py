"""The worked gaming day of the win tests: one Rocket table opened at 10,000, 4,000 of buy-ins, a
fill of 500 on a slip, a credit of 300, three hands the house wins 12 each, closed at 6,236.

The counted drop comes from the soft count (another branch); its adapter
`reports.services.win.counted_drop` is patched here to give the counted figure."""

from ledger.models import Account
from ledger.services import account_get
from tables.models import SeatSession
from tables.services import approval_decide, fill_request, seat_close, tray_credit

from .conftest import ROCKET_HOUSE_WIN, count, key, rocket_hands, seated

OPENER = 10_000
BUY_INS = 2 * 2000  # the keyed drop: two players buy in for 2,000 each
FILL, CREDIT = 500, 300
HOUSE_WIN = 3 * ROCKET_HOUSE_WIN
CLOSER = OPENER - BUY_INS + FILL - CREDIT + HOUSE_WIN  # 6,236 in the tray at the close


def tray(table) -> int:
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def drop_counted(monkeypatch, amount):
    """The soft count's figure for every box (None: not counted yet)."""
    monkeypatch.setattr("reports.services.win.counted_drop", lambda table_id, start, end: amount)


def play_the_day(table, dana, pete, closer=True):
    """Play the worked day at `table` (dana deals, pete runs the pit); closed with its count unless
    not `closer`. Returns the fill's approval request."""
    count(table, "opener", tray(table), dana, pete)
    seated(table, dana)
    fill = fill_request(table=table, denominations={"100": 5}, by=dana, secret="dana-password", key=key())
    approval_decide(request=fill, by=pete, approve=True, secret="pete-password", key=key())
    tray_credit(table=table, amount=CREDIT, by=pete, key=key())
    rocket_hands(table, 3, dana)
    for session in SeatSession.objects.filter(seat__table=table, ended_at=None):
        seat_close(session=session, by=dana, key=key())
    if closer:
        count(table, "closer", tray(table), dana, pete)
    return fill
