"""Report pages: start a report, watch its progress, open it, download it; investigations.

Who: pit managers and auditors (anyone holding `reports.view_report`); a dealer is refused (403).
Running a report changes no record of the floor, so an auditor, who changes nothing, may run one.
Only a supervisor closes an investigation. Progress is polled with htmx; no inline script.
"""

import csv

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from casino.errors import DomainError
from reports.charts import hold_chart_svg
from reports.exports import report_filename, report_rows
from reports.forms import CloseForm, StartForm
from reports.models import Investigation, Report
from reports.services import investigation_close, report_request

RECENT = 50  # reports listed on the start page
PERIODS = [("day", "Day"), ("mtd", "Month to date"), ("ytd", "Year to date")]


def _require_reports(user) -> None:
    if not user.has_perm("reports.view_report"):
        raise PermissionDenied("Reports are for pit managers and auditors.")


@login_required
@require_GET
def report_list(request):
    _require_reports(request.user)
    reports = Report.objects.select_related("requested_by")[:RECENT]
    return render(request, "reports/list.html", {"reports": reports, "form": StartForm(auto_id=False)})


@login_required
@require_POST
def report_start(request):
    _require_reports(request.user)
    form = StartForm(request.POST, auto_id=False)
    if form.is_valid():
        try:
            report = report_request(kind=form.cleaned_data["kind"], params=form.params(), by=request.user)
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            return redirect("reports:detail", report.pk)
    reports = Report.objects.select_related("requested_by")[:RECENT]
    return render(request, "reports/list.html", {"reports": reports, "form": form}, status=400)


@login_required
@require_GET
def report_detail(request, pk: int):
    _require_reports(request.user)
    report = get_object_or_404(Report.objects.select_related("requested_by"), pk=pk)
    context = {"report": report, "result": report.result, "periods": PERIODS}
    return render(request, f"reports/detail_{report.kind}.html", context)


@login_required
@require_GET
def report_progress(request, pk: int):
    """The progress bar alone, for htmx polling; once the report has finished, reload the page."""
    _require_reports(request.user)
    report = get_object_or_404(Report, pk=pk)
    response = render(request, "reports/_progress.html", {"report": report})
    if report.status in (Report.Status.DONE, Report.Status.FAILED):
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_GET
def report_csv(request, pk: int):
    _require_reports(request.user)
    report = get_object_or_404(Report, pk=pk, status=Report.Status.DONE)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{report_filename(report)}"'
    csv.writer(response).writerows(report_rows(report))
    return response


@login_required
@require_GET
def report_chart(request, pk: int):
    _require_reports(request.user)
    report = get_object_or_404(Report, pk=pk, kind=Report.Kind.HOUSE_EDGE, status=Report.Status.DONE)
    return HttpResponse(hold_chart_svg(report.result.get("series", [])), content_type="image/svg+xml")


@login_required
@require_GET
def investigation_list(request):
    _require_reports(request.user)
    investigations = Investigation.objects.select_related("table", "closed_by", "report")
    status = request.GET.get("status", Investigation.Status.OPEN)
    if status in Investigation.Status.values:
        investigations = investigations.filter(status=status)
    return render(
        request,
        "reports/investigations.html",
        {
            "investigations": investigations,
            "status": status,
            "form": CloseForm(),
            "may_close": request.user.has_perm("tables.supervise_table"),
        },
    )


@login_required
@require_POST
def investigation_close_view(request, pk: int):
    _require_reports(request.user)
    investigation = get_object_or_404(Investigation, pk=pk)
    form = CloseForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Write what the investigation found.", status=400)
    try:
        investigation_close(
            investigation=investigation, findings=form.cleaned_data["findings"], by=request.user
        )
    except DomainError as error:
        return HttpResponse(error.message, status=error.status)
    return redirect("reports:investigations")
