"""Report pages: start a report, watch its progress, open it, download it; investigations.

Who: pit managers and auditors (anyone holding `reports.view_report`); a dealer is refused (403) the
lists and the start form. Each user lists, opens and acts on the reports and investigations of
their scope only (`reports.selectors.reports_seen`, `investigations_seen`: a pit manager their
pit's tables and their casino's casino-wide reports, an auditor limited to one casino that casino);
any other id is 404, as an id that does not exist (`casino.web.fetch_seen`), and the start form
offers and accepts only the casinos and tables they read.
Running a report changes no record of the floor, so an auditor, who changes nothing, may run one.
Only a supervisor closes an investigation (the service says so, 403). Gaming days
(/reports/days/<casino>/): anyone who reads reports sees a casino's days and their closes; only a
pit manager on shift in one of its pits closes one (signed with their password or PIN) or posts
what was found since (`reports.services.day_close`, 403 for anyone else); an adjustment found
since has its own read-only page (/reports/adjustments/<id>/), read as the days are. Par sheets
(/reports/par-sheets/): whoever sees a table (`tables.selectors.tables_visible_to`, a dealer
theirs) sees its configuration's par sheet; the page asks for it (`par_sheet_request`, which never
computes) and shows its progress until the task has filled it in. Progress is polled with htmx;
no inline script. Every page goes through `casino.web.Pages`, as the tablet's and the pit's do.
"""

import csv

from django.http import HttpResponse
from django.shortcuts import redirect, render

from casino.admin_csv import csv_cell
from casino.errors import DomainError, NotAllowed
from casino.web import FreshKeys, Pages, device, fetch_seen, nothing, seen
from reports.charts import hold_chart_svg
from reports.exports import report_filename, report_rows
from reports.forms import CloseForm, DayAdjustForm, DayCloseForm, StartForm
from reports.models import DayAdjustment, Investigation, Report
from reports.periods import today
from reports.selectors import casino_records_seen, investigations_seen, reports_seen
from reports.services import gaming_day_adjust, gaming_day_close, investigation_close, report_request
from reports.services.day_close import check_may_close
from reports.services.links import table_url
from reports.services.master_game import days_shown, master_game_shown
from reports.services.par_sheet import ParSheetError, par_sheet_found, par_sheet_request, par_sheet_rows
from tables.models import Casino, Table
from tables.selectors import casinos_visible_to, tables_visible_to
from tables.services import SignatureGiven

RECENT = 50  # reports listed on the start page
DAYS_SHOWN = 14  # gaming days listed on a casino's close page
PERIODS = [("day", "Day"), ("mtd", "Month to date"), ("ytd", "Year to date")]


def check_reports(user, _=None) -> None:
    if not user.has_perm("reports.view_report"):
        raise NotAllowed("Reports are for pit managers and auditors.")


def refused(request, error: NotAllowed) -> HttpResponse:
    return render(request, "refused.html", {"message": error.message}, status=error.status)


def render_list(request, form: StartForm, status: int = 200) -> HttpResponse:
    reports = reports_seen(Report.objects.select_related("requested_by"), request.user)[:RECENT]
    casinos = casinos_visible_to(request.user)  # each links its gaming days
    context = {"reports": reports, "form": form.offer(request.user), "casinos": casinos}
    return render(request, "reports/list.html", context, status=status)


def start_failed(request, _, error: DomainError, form: StartForm) -> HttpResponse:
    if form.is_valid():  # the service refused what the form let through: say it above the forms
        form.add_error(None, error.message)
    return render_list(request, form, status=error.status)


REPORTS = Pages(fetch=nothing, check=check_reports, refused=refused, failed=start_failed)


def report_fetch(**where):
    """The report of the URL's `pk` among those the user sees, further filtered by `where` (404
    otherwise)."""
    reports = Report.objects.select_related("requested_by").filter(**where)
    return fetch_seen(lambda user: reports_seen(reports, user), pk="pk")


@REPORTS.page()
def report_list(request, _):
    return render_list(request, StartForm(auto_id=False))


@REPORTS.action(
    lambda data: StartForm(data, auto_id=False),
    done=lambda request, report: redirect("reports:detail", report.pk),
)
def report_start(request, _, form: StartForm) -> Report:
    return report_request(kind=form.cleaned_data["kind"], params=form.params(), by=request.user)


REPORT = Pages(fetch=report_fetch(), check=check_reports, refused=refused)


@REPORT.page()
def report_detail(request, report: Report):
    context = {"report": report, "result": report.result, "periods": PERIODS}
    if report.kind == Report.Kind.MASTER_GAME and report.result:
        context.update(master_game_shown(report))
    return render(request, f"reports/detail_{report.kind}.html", context)


@REPORT.page()
def report_progress(request, report: Report):
    """The progress bar alone, for htmx polling; once the report has finished, reload the page."""
    response = render(request, "reports/_progress.html", {"report": report})
    if report.status in (Report.Status.DONE, Report.Status.FAILED):
        response["HX-Refresh"] = "true"
    return response


@Pages(fetch=report_fetch(status=Report.Status.DONE), check=check_reports, refused=refused).page()
def report_csv(request, report: Report):
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{report_filename(report)}"'
    csv.writer(response).writerows([csv_cell(cell) for cell in row] for row in report_rows(report))
    return response


CHARTED = report_fetch(kind=Report.Kind.HOUSE_EDGE, status=Report.Status.DONE)


@Pages(fetch=CHARTED, check=check_reports, refused=refused).page()
def report_chart(request, report: Report):
    return HttpResponse(hold_chart_svg(report.result.get("series", [])), content_type="image/svg+xml")


# Investigations


def render_investigations(request, *, error: str = "", status: int = 200) -> HttpResponse:
    investigations = investigations_seen(
        Investigation.objects.select_related("table", "closed_by", "report"), request.user
    )
    shown = request.GET.get("status", Investigation.Status.OPEN)
    if shown in Investigation.Status.values:
        investigations = investigations.filter(status=shown)
    context = {
        "investigations": investigations,
        "status": shown,
        "form": CloseForm(),
        "fresh": FreshKeys(),
        "may_close": request.user.has_perm("tables.supervise_table"),
        "error": error,
    }
    return render(request, "reports/investigations.html", context, status=status)


INVESTIGATION = Pages(
    fetch=fetch_seen(lambda user: investigations_seen(Investigation.objects.all(), user), pk="pk"),
    check=check_reports,
    refused=refused,
    failed=lambda request, _, error, form: render_investigations(
        request, error=error.message, status=error.status
    ),
)


@REPORTS.page()
def investigation_list(request, _):
    return render_investigations(request)


@INVESTIGATION.action(CloseForm, done=lambda request, investigation: redirect("reports:investigations"))
def investigation_close_view(request, investigation: Investigation, form: CloseForm) -> Investigation:
    data = form.cleaned_data
    return investigation_close(
        investigation=investigation, findings=data["findings"], by=request.user, key=data["key"]
    )


# Gaming days: the master game report's days, closed and signed by a pit manager


def render_days(request, casino: Casino, *, error: str = "", status: int = 200) -> HttpResponse:
    try:
        check_may_close(request.user, casino)
        may_close = True
    except NotAllowed:
        may_close = False
    context = {
        "casino": casino,
        "days": days_shown(casino.pk, today(), DAYS_SHOWN),
        "may_close": may_close,
        "error": error,
        "fresh": FreshKeys(),
    }
    return render(request, "reports/days.html", context, status=status)


DAYS = Pages(
    fetch=fetch_seen(lambda user: casino_records_seen(Casino.objects.all(), user, "pk"), pk="casino_id"),
    check=check_reports,
    refused=refused,
    failed=lambda request, casino, error, form: render_days(
        request, casino, error=error.message, status=error.status
    ),
)


@DAYS.page()
def day_list(request, casino: Casino):
    return render_days(request, casino)


@DAYS.action(
    DayCloseForm,
    check=check_may_close,
    done=lambda request, close: redirect("reports:days", close.casino_id),
    sensitive=("secret",),
)
def day_close(request, casino: Casino, form: DayCloseForm):
    data = form.cleaned_data
    return gaming_day_close(
        casino=casino,
        day=data["day"],
        by=request.user,
        signature=SignatureGiven(request.user.get_username(), data["secret"]),
        device=device(request),
        key=data["key"],
    )


@DAYS.action(
    DayAdjustForm, check=check_may_close, done=lambda request, casino: redirect("reports:days", casino.pk)
)
def day_adjust(request, casino: Casino, form: DayAdjustForm) -> Casino:
    data = form.cleaned_data
    gaming_day_adjust(casino=casino, day=data["day"], by=request.user, key=data["key"])
    return casino


# A closed day's adjustment, read-only: linked from the master game report, read by whoever reads it
# (a casino-wide report: the casinos the user reads), so never the admin, which a pit manager lacks.
ADJUSTMENTS = DayAdjustment.objects.select_related("casino", "closed__signed_by", "table", "created_by")


@Pages(
    fetch=fetch_seen(lambda user: casino_records_seen(ADJUSTMENTS, user), pk="pk"),
    check=check_reports,
    refused=refused,
).page()
def adjustment_detail(request, adjustment: DayAdjustment):
    context = {"adjustment": adjustment, "table_link": table_url(adjustment.table_id)}
    return render(request, "reports/adjustment.html", context)


# Par sheets: one per table configuration, shown for each table the user sees


PAR_SHEET = Pages(fetch=fetch_seen(tables_visible_to, pk="table_id"), check=seen, refused=refused)


def par_sheet_context(table: Table, ask: bool = True) -> dict:
    """The table's par sheet, asked for (never computed here) or, with `ask` off, only looked up,
    and its rows; or why it has none."""
    try:
        sheet = par_sheet_request(table=table) if ask else par_sheet_found(table)
    except ParSheetError as error:
        return {"table": table, "sheet": None, "rows": [], "error": error.message}
    return {"table": table, "sheet": sheet, "rows": par_sheet_rows(sheet) if sheet else []}


@REPORTS.page()
def par_sheet_list(request, _):
    tables = tables_visible_to(request.user)
    return render(request, "reports/par_sheets.html", {"tables": tables})


@PAR_SHEET.page()
def par_sheet_page(request, table: Table):
    """Opening the page asks for the sheet (again, if it failed); the other addresses only read."""
    return render(request, "reports/par_sheet.html", par_sheet_context(table))


@PAR_SHEET.page()
def par_sheet_print(request, table: Table):
    context = {**par_sheet_context(table, ask=False), "printable": True}
    return render(request, "reports/par_sheet.html", context)


@PAR_SHEET.page()
def par_sheet_progress(request, table: Table):
    """The progress bar alone, for htmx polling; once the sheet is done, reload the page (a failed
    one says so here, and is asked for again only when the page is opened again)."""
    context = par_sheet_context(table, ask=False)
    response = render(request, "reports/_par_sheet_progress.html", context)
    sheet = context["sheet"]
    if sheet is not None and sheet.status == sheet.Status.DONE:
        response["HX-Refresh"] = "true"
    return response


@PAR_SHEET.page()
def par_sheet_csv(request, table: Table):
    context = par_sheet_context(table, ask=False)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="par-sheet-table-{table.pk}.csv"'
    writer = csv.writer(response)
    writer.writerow(["section", "figure", "value", "method", "95% interval (half-width)"])
    for row in context["rows"]:
        cells = (row["section"], row["name"], row["value"], row["method"], row["interval"])
        writer.writerow([csv_cell(cell) for cell in cells])  # "+0.3" is a payment, not a formula
    return response
