"""The pit's pages of the records the reports link to that had no page but the admin's: a shift,
a shoe, a ledger transaction (a bare cage move, a transaction of a reconciliation's finding).

A pit manager has no admin, so a report's link there was a page refused to the very person who
reads the report. These pages read only, through `casino.web.Pages` as every pit page: the record
is looked up among those at the tables the user sees (`fetch_seen`), so a pit manager opens the
records of their pit's tables and gets 404 for any other, as for an id that does not exist; an
auditor opens every one (an auditor held to one casino, that casino's); a dealer gets the 403 page.
"""

from django.http import HttpRequest, HttpResponse

from casino.web import Pages, fetch_seen
from ledger.api import in_reach
from ledger.models import Transaction
from tables.models import Shoe
from tables.selectors import at_tables_seen

from . import selectors
from .views import check_watch, page, refused

SHIFT = Pages(
    fetch=fetch_seen(selectors.shifts_visible_to, pk="shift_id"), check=check_watch, refused=refused
)


@SHIFT.page()
def shift_page(request: HttpRequest, shift) -> HttpResponse:
    """Who was on duty where, from when to when and why it ended; a dealer's hands in it."""
    return page(request, "pit/shift.html", {"shift": shift, "hands": selectors.shift_hands(shift)})


SHOE = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(Shoe.objects.select_related("table__pit"), user), pk="shoe_id"
    ),
    check=check_watch,
    refused=refused,
)


@SHOE.page()
def shoe_page(request: HttpRequest, shoe: Shoe) -> HttpResponse:
    """A shoe as the reconciliation checks it. Its order and salt only once it is retired: they
    are revealed then (RULINGS), so that nobody at a screen can read the cards still to come."""
    context = {"shoe": shoe, "table": shoe.table, **selectors.shoe_record(shoe)}
    return page(request, "pit/shoe.html", context)


def transactions_seen(user):
    """The ledger's own reach (`ledger.api.in_reach`: a pit manager their pit's tables'; an
    auditor everything of the casinos they read), so the page and the API agree."""
    records = Transaction.objects.select_related("table__pit", "created_by", "approved_by", "reverses")
    return in_reach(user, records)


TRANSACTION = Pages(
    fetch=fetch_seen(transactions_seen, pk="transaction_id"), check=check_watch, refused=refused
)


@TRANSACTION.page()
def transaction_page(request: HttpRequest, move: Transaction) -> HttpResponse:
    """One transaction as posted and chained: what a cage move with no slip links to."""
    context = {"move": move, "table": move.table, **selectors.transaction_record(move)}
    return page(request, "pit/transaction.html", context)
