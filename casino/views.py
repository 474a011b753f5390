from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views import defaults

from reports.selectors import casino_records_seen
from tables.models import Casino
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
            {"name": "Shifts", "url": reverse("pit:shifts"), "says": "Dealers on tables, rotations, breaks"},
            {
                "name": "Drop and count",
                "url": reverse("pit:drop"),
                "says": "Drop boxes, the soft count and count incidents",
            },
            {"name": "Players", "url": reverse("pit:players"), "says": "Players, their visits and comps"},
            {"name": "Cash log", "url": reverse("pit:cash"), "says": "Cash in by player and gaming day"},
            {"name": "Ratings", "url": reverse("pit:ratings"), "says": "Players' ratings and dealers' pace"},
            {"name": "Slips", "url": reverse("pit:slips_now"), "says": "Every slip number of the year"},
        ]
    if user.has_perm("reports.view_report"):
        pages.append(
            {
                "name": "Reports",
                "url": reverse("reports:list"),
                "says": "House edge, statistics, reconciliation, master game report",
            }
        )
        pages += [
            {
                "name": f"Gaming days · {casino}",
                "url": reverse("reports:days", args=[casino.pk]),
                "says": "Close a gaming day; what was found since",
            }
            for casino in casino_records_seen(Casino.objects.order_by("name"), user, "pk")
        ]
    if user.is_staff:
        pages.append(
            {
                "name": "Admin",
                "url": reverse("admin:index"),
                "says": "Every record, read-only where it is audited",
            }
        )
    return pages


# What an htmx request is told when its screen is not one the user sees (any more): a dealer rotated,
# on a break or at the end of the shift loses the table at once, and their tablet's next poll or tap
# says so in place of the screen. Worded for an id that never existed too.
NOT_SEEN = (
    "This table or hand is not one you see now: a table leaves your screen when your shift there ends "
    "(a rotation, a break), and a tap from here is not recorded."
)


def not_found(request, exception):
    """A 404: under /api/ as the API's own are, `{"detail": ...}` in JSON (an integrator's client reads
    no HTML page), e.g. for an id that is not a number; to an htmx request (a poll or a tap, swapped
    in place of its screen) the sentence alone; elsewhere Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    if getattr(request, "htmx", False):
        return render(request, "_not_found.html", {"message": NOT_SEEN}, status=404)
    return defaults.page_not_found(request, exception)
