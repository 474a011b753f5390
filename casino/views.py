from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse

from tables.selectors import sees_every_table, tables_visible_to


@login_required
def home(request):
    """The floor as this user may see it, each table linking to its tablet screen, and the pages
    the user's role works in (pit, reports, admin)."""
    return render(
        request,
        "tables/floor.html",
        {"tables": tables_visible_to(request.user), "pages": pages_for(request.user)},
    )


def pages_for(user) -> list[dict]:
    """The role's pages besides the tables: what a pit manager, an auditor or an admin opens."""
    pages = []
    if user.has_perm("tables.supervise_table") or sees_every_table(user):
        pages += [
            {
                "name": "Pit",
                "url": reverse("pit:floor"),
                "says": "Tables live, approvals, counts, fills and credits",
            },
            {
                "name": "Approvals",
                "url": reverse("pit:approvals"),
                "says": "Requests waiting for a pit manager",
            },
            {"name": "Ratings", "url": reverse("pit:ratings"), "says": "Players' ratings and dealers' pace"},
            {"name": "Slips", "url": reverse("pit:slips_now"), "says": "Every slip number of the year"},
        ]
    if user.has_perm("reports.view_report"):
        pages.append(
            {
                "name": "Reports",
                "url": reverse("reports:list"),
                "says": "House edge, statistics, reconciliation",
            }
        )
    if user.is_staff:
        pages.append(
            {
                "name": "Admin",
                "url": reverse("admin:index"),
                "says": "Every record, read-only where it is audited",
            }
        )
    return pages
