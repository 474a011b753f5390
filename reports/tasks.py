"""Celery tasks of the reports: they take ids and dates and call a service.

`run_report` acknowledges late (a worker that dies mid-report leaves the message for another) and
retries database errors with exponential backoff; `report_run` makes a second delivery harmless,
and fails the report once its message has come back more than REPORTS_MAX_DELIVERIES times.
The scheduled tasks ask for reports through `report_request`, keyed by kind and parameters, so a
schedule that fires twice, or a day run again, still gives one report each.
"""

from datetime import date, timedelta

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from reports.models import Report
from reports.periods import days_bounds, gaming_day
from reports.services import report_request, report_run
from reports.services.par_sheet import par_sheet_run
from tables.models import Casino, Hand, Shift

RETRY_BACKOFF = 5  # seconds before the first retry, doubled each time
RETRY_BACKOFF_MAX = 300
MAX_RETRIES = 6
SHIFT_LOOKBACK = timedelta(hours=24)  # ended shifts the end-of-shift sweep still reconciles


@shared_task(
    bind=True,
    name="reports.run",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=RETRY_BACKOFF,
    retry_backoff_max=RETRY_BACKOFF_MAX,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
)
def run_report(self, report_id: int) -> dict:
    """Run one report (nothing happens if it is done already)."""
    # A retry is a new message with the same task id, so the retry number tells it from a redelivery.
    report = report_run(report_id=report_id, delivery=f"{self.request.id}:{self.request.retries}")
    return {"report": report.pk, "status": report.status}


@shared_task(name="reports.end_of_shift", acks_late=True)
def end_of_shift() -> list[int]:
    """Reconcile every dealer shift at a table that ended in the last day (beat, every 15 minutes)."""
    since = timezone.now() - SHIFT_LOOKBACK
    shifts = Shift.objects.filter(table__isnull=False, ended_at__gte=since).values_list("pk", flat=True)
    return [
        report_request(kind=Report.Kind.RECONCILIATION, params={"shift": pk}).pk
        for pk in shifts.order_by("pk")
    ]


@shared_task(name="reports.end_of_day", acks_late=True)
def end_of_day(day: str | None = None) -> list[int]:
    """After the gaming day closes: statistics, house edge and master game per casino,
    reconciliation per table that dealt (beat, daily). `day` (YYYY-MM-DD) defaults to the day that
    just closed."""
    day = day or (gaming_day(timezone.now()) - timedelta(days=1)).isoformat()
    reports = []
    for casino in Casino.objects.order_by("pk").values_list("pk", flat=True):
        reports.append(report_request(kind=Report.Kind.STATISTICS, params={"casino": casino, "date": day}))
        reports.append(
            report_request(
                kind=Report.Kind.HOUSE_EDGE, params={"casino": casino, "date_from": day, "date_to": day}
            )
        )
        reports.append(report_request(kind=Report.Kind.MASTER_GAME, params={"casino": casino, "date": day}))
    start, end = days_bounds(date.fromisoformat(day), date.fromisoformat(day))
    dealt = Hand.objects.filter(settled_at__gte=start, settled_at__lt=end).values_list("table", flat=True)
    for table in sorted(set(dealt.distinct())):
        reports.append(
            report_request(
                kind=Report.Kind.RECONCILIATION, params={"table": table, "date_from": day, "date_to": day}
            )
        )
    return [report.pk for report in reports]


@shared_task(
    name="reports.par_sheet",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=RETRY_BACKOFF,
    retry_backoff_max=RETRY_BACKOFF_MAX,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
)
def compute_par_sheet(sheet_id: int) -> dict:
    """Compute one table configuration's par sheet (nothing happens if it is done already)."""
    sheet = par_sheet_run(sheet_id=sheet_id)
    return {"par_sheet": sheet.pk, "status": sheet.status}
