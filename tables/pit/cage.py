"""The cage and the count variance, as the pit reads them (`/pit/cage/`, docs/pit.md "Cage and
count variance").

A pit manager answers for the chips and the cash of their pit's tables, not for the cage: the cage's
balance is the casino's bankroll, moved by every pit and by the cashier, and the count variance
account sums every box of the casino. So a pit manager sees, for the gaming days asked for, what
passed between each table of their pit and the cage (chips out, chips back, the counted drop,
corrections, the net) and the count variance of those tables' boxes, with their total; never the
casino's balances, which would show what the other pits and the cage did. An auditor sees the same
for every table (an auditor held to one casino: that casino's) and, above it, each casino's cage and
count-variance balances.
"""

from django.http import HttpRequest, HttpResponse

from casino.web import Pages, nothing
from reports.periods import days_bounds
from tables.selectors import casinos_visible_to, sees_every_table, tables_visible_to

from . import selectors
from .players import days
from .views import check_watch, page, refused

CAGE = Pages(fetch=nothing, check=check_watch, refused=refused)
SUMMED = ("out", "back", "drop", "corrections", "net")


@CAGE.page()
def cage_page(request: HttpRequest, _) -> HttpResponse:
    """?first=&last= gaming days (today by default); a day that does not parse is a 400 saying so."""
    first, last, error = days(request)
    context = {"first": first, "last": last, "error": error}
    if error:  # a figure for days nobody asked for is worse than none
        return page(request, "pit/cage.html", context, status=400)
    user = request.user
    rows = selectors.cage_by_table(tables_visible_to(user), *days_bounds(first, last))
    balances = selectors.casino_balances(casinos_visible_to(user)) if sees_every_table(user) else []
    context.update(rows=rows, total=total(rows), balances=balances)
    return page(request, "pit/cage.html", context)


def total(rows: list[dict]) -> dict:
    """The rows summed; the variance unknown (None) while any box is uncounted."""
    variances = [row["variance"] for row in rows]
    return {
        **{name: sum(row[name] for row in rows) for name in SUMMED},
        "boxes": sum(row["boxes"] for row in rows),
        "variance": None if None in variances else sum(variances),
    }
