"""The pit's drop and count page (`/pit/drop/`, docs/count.md): the drop boxes not yet counted at
the tables the user sees, with the next custody step of each (exchange, remove, deliver, count),
the count incidents that wait for a pit manager's findings, and the boxes counted lately.

The count form (`/pit/drop/<box>/count/`) is blind: it says whether the user counts first or
second, never what anyone counted. Each form calls one service of `tables.services.drop` or
`tables.services.incidents`, which decide who may (a pit manager on shift in the table's pit); a
box or incident at a table the user does not see answers 404, as if it did not exist.
"""

from django.contrib import messages
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from casino.errors import DomainError, NotAllowed
from casino.web import KeyedForm, Pages, device, fetch_seen, nothing
from tables.models import CountedDrop, DropBox, DropCount, DropCustody, Incident, Table, TableCount
from tables.selectors import at_tables_seen, supervised_pits, tables_visible_to, user_can_supervise
from tables.services import (
    drop_box_attach,
    drop_box_count,
    drop_box_deliver,
    drop_box_remove,
    incident_acknowledge,
)
from tables.services.incidents import incidents_to_acknowledge

from .forms import NOTE_VALUES, AcknowledgeForm, NotesForm
from .views import check_watch, page, refused

COUNTED_LATELY = 20  # counted boxes shown under the ones still in play


def boxes_seen(user):
    """The boxes at the tables `user` sees, each with `last_count`: the kind of its table's latest
    count, an opener while the table is open (as `table_is_open` reads it, in the same query)."""
    latest = TableCount.objects.filter(table=OuterRef("table")).order_by("-at", "-pk").values("kind")[:1]
    boxes = (
        DropBox.objects.select_related("table__pit", "counted")
        .prefetch_related("custody", "counts")
        .annotate(last_count=Subquery(latest))
    )
    return at_tables_seen(boxes, user)


def box_shown(box: DropBox) -> dict:
    """A box not yet counted, its place and the step that comes next (never a count's figures)."""
    steps = {custody.step for custody in box.custody.all()}
    counts = sorted(box.counts.all(), key=lambda count: (count.round, count.counter))
    if DropCustody.Step.DELIVERED in steps:
        where, step = "In the count room", "count"
        if counts and counts[-1].counter == DropCount.Counter.FIRST:
            where += f": round {counts[-1].round}, the first count is in"
        elif counts:
            where += f": round {counts[-1].round} differed, recount"
    elif DropCustody.Step.REMOVED in steps:
        where, step = "Removed, on its way to the count room", "deliver"
    elif box.last_count == TableCount.Kind.OPENER:
        where, step = "At the table, which is open", "exchange"
    else:
        where, step = "At the table, which is closed", "remove"
    return {"box": box, "where": where, "step": step}


def render_drop(request: HttpRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    boxes = boxes_seen(request.user).order_by("table__name", "number")
    context = {
        "boxes": [box_shown(box) for box in boxes.filter(counted__isnull=True)],
        "counted": CountedDrop.objects.filter(box__in=boxes).select_related("box__table").order_by("-at")[
            :COUNTED_LATELY
        ],
        "incidents": incidents_to_acknowledge(request.user),
        "supervised": supervised_pits(request.user),  # where the user's buttons are drawn
        "error": error,
    }
    return page(request, "pit/drop.html", context, status=status)


def failed(request: HttpRequest, _, error: DomainError, form) -> HttpResponse:
    return render_drop(request, error=error.message, status=error.status)


def done(request: HttpRequest, record) -> HttpResponse:
    messages.success(request, f"{record}.")
    return redirect("pit:drop")


def check_handle(user, record: Table | DropBox) -> None:
    """The services' own rule, asked first: so an auditor's GET of a count form is refused as its
    POST would be, not drawn."""
    table = record if isinstance(record, Table) else record.table
    if not user_can_supervise(user, table):
        raise NotAllowed(f"Only a pit manager on shift in {table}'s pit handles its drop boxes.")


def check_acknowledge(user, incident: Incident) -> None:
    if not user_can_supervise(user, incident.table):
        raise NotAllowed(f"Only a pit manager on shift in {incident.table}'s pit acknowledges its incidents.")


PIT = Pages(fetch=nothing, check=check_watch, refused=refused, failed=failed)
BOX = Pages(fetch=fetch_seen(boxes_seen, pk="box_id"), check=check_handle, refused=refused, failed=failed)
TABLE = Pages(
    fetch=fetch_seen(tables_visible_to, pk="table_id"), check=check_handle, refused=refused, failed=failed
)
INCIDENT = Pages(
    fetch=fetch_seen(lambda user: at_tables_seen(Incident.objects.select_related("table"), user),
                     pk="incident_id"),
    check=check_acknowledge,
    refused=refused,
    failed=failed,
)


@PIT.page()
def drop_page(request: HttpRequest, _) -> HttpResponse:
    return render_drop(request)


@TABLE.action(KeyedForm, done=lambda request, box: done(request, f"{box} attached"))
def attach(request: HttpRequest, table: Table, form) -> DropBox:
    return drop_box_attach(table=table, by=request.user, key=form.cleaned_data["key"])


@BOX.action(KeyedForm, done=done)
def remove(request: HttpRequest, box: DropBox, form) -> DropCustody:
    return drop_box_remove(box=box, by=request.user, device=device(request), key=form.cleaned_data["key"])


@BOX.action(KeyedForm, done=done)
def deliver(request: HttpRequest, box: DropBox, form) -> DropCustody:
    return drop_box_deliver(box=box, by=request.user, device=device(request), key=form.cleaned_data["key"])


def render_count(request, box: DropBox, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    """The blind count: who counts now, never what was counted."""
    last = box.counts.order_by("-round", "-counter").first()
    second = last is not None and last.counter == DropCount.Counter.FIRST
    notes = [
        {"value": value, "name": f"note_{value}", "count": form.data.get(f"note_{value}", "") if form else ""}
        for value in NOTE_VALUES
    ]
    context = {
        "box": box,
        "table": box.table,
        "second": second,
        "mine": second and last.by_id == request.user.pk,
        "notes": notes,
        "error": error,
    }
    return page(request, "pit/drop_count.html", context, status=status)


def count_failed(request, box: DropBox, error: DomainError, form) -> HttpResponse:
    return render_count(request, box, form, error=error.message, status=error.status)


def counted(request: HttpRequest, count: DropCount) -> HttpResponse:
    box = count.box
    if count.counter == DropCount.Counter.FIRST:
        messages.success(request, f"{box}: first count in. A second counter counts it, blind.")
    elif CountedDrop.objects.filter(box=box, round=count.round).exists():
        messages.success(request, f"{box}: the two counts agree; the counted drop is posted to the cage.")
    else:
        messages.warning(request, f"{box}: the two counts differ. Count it again, both of you.")
    return redirect("pit:drop")


@BOX.action(NotesForm, show=render_count, failed=count_failed, done=counted)
def count(request: HttpRequest, box: DropBox, form) -> DropCount:
    return drop_box_count(
        box=box,
        denominations=form.denominations(),
        by=request.user,
        device=device(request),
        key=form.cleaned_data["key"],
    )


@INCIDENT.action(AcknowledgeForm, done=lambda request, finding: done(request, finding))
def acknowledge(request: HttpRequest, incident: Incident, form) -> object:
    data = form.cleaned_data
    return incident_acknowledge(
        incident=incident, findings=data["findings"], by=request.user, device=device(request), key=data["key"]
    )
