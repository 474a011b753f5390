"""The pit's rota: who deals at which table, run by the pit manager on shift (see docs/pit.md).

One page (`/pit/shifts/`) shows each table of the manager's pit with its dealer on shift, the pit's
managers on shift, and the dealers off a table (on a break, or not started); its forms assign a
dealer to a table, rotate a dealer to another table, send a dealer on a break and end a shift. Each
form calls one service of `tables.services.shifts`, which decides who may; a table or shift the user
cannot see answers 404, as if it did not exist. An auditor sees every pit's rota and changes nothing.
"""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect

from casino.errors import DomainError
from casino.web import KeyedForm, Pages, nothing
from tables.models import Pit, Shift, Table
from tables.selectors import in_casinos_seen, sees_every_table, supervised_pits, tables_visible_to
from tables.services import shift_end, shift_rotate, shift_start

from . import selectors
from .forms import AssignForm, RotateForm
from .views import check_watch, page, refused


def rota_pits(user) -> list[Pit]:
    """The pits whose rota `user` sees: the pits they are on shift in (an auditor: every pit of
    the casinos they read)."""
    pits = Pit.objects.select_related("casino").order_by("casino__name", "name")
    if sees_every_table(user):
        return list(in_casinos_seen(pits, user))
    return list(pits.filter(pk__in=supervised_pits(user)))


def render_rota(request: HttpRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    decides_in = supervised_pits(request.user)
    rotas = [{**selectors.pit_rota(pit), "runs": pit.pk in decides_in} for pit in rota_pits(request.user)]
    return page(request, "pit/shifts.html", {"rotas": rotas, "error": error}, status=status)


def failed(request: HttpRequest, _, error: DomainError, form) -> HttpResponse:
    return render_rota(request, error=error.message, status=error.status)


def done(request: HttpRequest, shift: Shift) -> HttpResponse:
    if shift.ended_at is None:
        messages.success(request, f"{shift.user} is on shift at {shift.table or shift.pit}.")
    else:
        reason = shift.get_ended_reason_display().lower()
        messages.success(request, f"{shift.user}: {reason} at {shift.table or shift.pit}.")
    return redirect("pit:shifts")


def visible_table(user, table_id) -> Table:
    """A table `user` sees; 404 for any other, so the page names no table it does not show."""
    return get_object_or_404(tables_visible_to(user), pk=table_id)


def dealer_named(username: str):
    dealer = get_user_model().objects.filter(username=username, is_active=True).first()
    if dealer is None:
        raise DomainError(f"There is no active staff account {username!r}.")
    return dealer


ROTA = Pages(fetch=nothing, check=check_watch, refused=refused, failed=failed)
TABLE = Pages(
    fetch=lambda request, table_id: visible_table(request.user, table_id),
    check=check_watch,
    refused=refused,
    failed=failed,
)
SHIFT = Pages(
    fetch=lambda request, shift_id: get_object_or_404(selectors.shifts_visible_to(request.user), pk=shift_id),
    check=check_watch,
    refused=refused,
    failed=failed,
)


@ROTA.page()
def shifts_page(request: HttpRequest, _) -> HttpResponse:
    return render_rota(request)


@TABLE.action(AssignForm, done=done)
def assign(request: HttpRequest, table: Table, form) -> Shift:
    data = form.cleaned_data
    dealer = dealer_named(data["dealer"])
    return shift_start(user=dealer, table=table, by=request.user, key=data["key"])


@SHIFT.action(RotateForm, done=done)
def rotate(request: HttpRequest, shift: Shift, form) -> Shift:
    data = form.cleaned_data
    table = tables_visible_to(request.user).filter(pk=data["table"]).first()
    if table is None:
        raise DomainError(f"There is no table {data['table']} among your tables.")
    return shift_rotate(shift=shift, table=table, by=request.user, key=data["key"])


@SHIFT.action(KeyedForm, done=done)
def send_on_break(request: HttpRequest, shift: Shift, form) -> Shift:
    return shift_end(shift=shift, reason=Shift.Ended.BREAK, by=request.user, key=form.cleaned_data["key"])


@SHIFT.action(KeyedForm, done=done)
def end(request: HttpRequest, shift: Shift, form) -> Shift:
    return shift_end(shift=shift, reason=Shift.Ended.END, by=request.user, key=form.cleaned_data["key"])
