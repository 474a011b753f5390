"""The pit's rating slips: the rating controls of a table's seats on the pit's table page (the
same calls as the tablet's, `tables.views.slip_start` and its neighbours, answered with the pit's
table page), and a slip's page: its figures and its events in order.

A slip is seen when it ran at a table the user sees (`rating_slips_seen`); a pit manager acts
where `user_can_deal` lets them (the services check it again), an auditor only reads.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from casino.web import KeyedForm, Pages, fetch_seen
from tables import views as tablet
from tables.forms import SlipStepForm
from tables.models import RatingSlip
from tables.selectors import rating_slips_seen
from tables.services.rating_slips import slip_figures

from .views import check_watch, page, refused, render_table


def slip_failed(request, slip: RatingSlip, error, form) -> HttpResponse:
    return render_table(request, slip.at_table, error=error.message, status=error.status)


def seat_failed(request, session, error, form) -> HttpResponse:
    return render_table(request, session.seat.table, error=error.message, status=error.status)


def rated(request: HttpRequest, slip: RatingSlip) -> HttpResponse:
    return redirect("pit:table", tablet.slip_table(slip).pk)


SEAT = Pages(fetch=tablet.SEAT.fetch, check=tablet.SEAT.check, refused=refused, failed=seat_failed)
SLIP = Pages(fetch=tablet.SLIP.fetch, check=tablet.SLIP.check, refused=refused, failed=slip_failed)
SLIP_SEEN = Pages(fetch=fetch_seen(rating_slips_seen, pk="slip_id"), check=check_watch, refused=refused)

slip_start_view = SEAT.action(KeyedForm, done=rated)(tablet.slip_start)
slip_move_view = SEAT.action(KeyedForm, done=rated)(tablet.slip_move)
slip_step_view = SLIP.action(SlipStepForm, done=rated)(tablet.slip_step)


@SLIP_SEEN.page()
def slip_page(request: HttpRequest, slip: RatingSlip) -> HttpResponse:
    events = slip.events.select_related("session__seat__table", "by")
    context = {"slip": slip, "player": slip.player, "figures": slip_figures(slip), "events": events}
    return page(request, "pit/rating_slip.html", context)
