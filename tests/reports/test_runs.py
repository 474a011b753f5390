"""Running reports: one report per kind and parameters, progress saved, retries, the schedule."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import OperationalError

from reports.models import Report, VarianceRules
from reports.periods import today
from reports.services import ReportError, report_request, report_run
from reports.services import runs as runs_module
from reports.services.reconciliation import reconciliation_report
from reports.tasks import end_of_day, end_of_shift, run_report
from tables.models import Shift
from tables.services import shift_end, shift_start

from .conftest import rocket_hands, run, seated

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def pete_on_shift(pete, pit):
    """pete runs the test pit: off shift, a pit manager may ask for no report (docs/reports.md)."""
    shift_start(user=pete, pit=pit, by=pete)


def day_params(table):
    return {"table": table.pk, "date_from": today().isoformat(), "date_to": today().isoformat()}


def test_asking_twice_gives_one_report_queued_once(rocket, pete, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as queued:
        first = report_request(kind="reconciliation", params=day_params(rocket), by=pete)
        again = report_request(kind="reconciliation", params={**day_params(rocket), "shift": ""}, by=pete)

    assert again.pk == first.pk and Report.objects.count() == 1
    assert len(queued) == 1
    assert first.params == day_params(rocket) and first.status == "pending"


def test_a_report_of_a_day_still_going_on_runs_again_when_asked_again(rocket, dana, pete):
    # found walking a money day: the 06:15 run handed back what someone had asked for at noon
    table = seated(rocket, dana)
    rocket_hands(table, 2, dana)
    first = run("reconciliation", day_params(rocket), by=pete)
    rocket_hands(table, 1, dana)

    again = run("reconciliation", day_params(rocket), by=pete)

    assert again.pk == first.pk and again.status == "done"
    assert (first.result["hands"]["replayed"], again.result["hands"]["replayed"]) == (2, 3)


def test_a_report_that_ran_once_its_days_were_over_is_not_run_again(
    rocket, dana, pete, django_capture_on_commit_callbacks
):
    yesterday = (today() - timedelta(days=1)).isoformat()
    params = {"table": rocket.pk, "date_from": yesterday, "date_to": yesterday}
    first = run("reconciliation", params, by=pete)

    with django_capture_on_commit_callbacks() as queued:
        again = report_request(kind="reconciliation", params=params, by=pete)

    assert again.pk == first.pk and again.status == "done" and not queued


def test_a_task_delivered_twice_runs_the_report_once(
    rocket, dana, pete, in_process, django_capture_on_commit_callbacks
):
    rocket_hands(seated(rocket, dana), 2, dana)
    with django_capture_on_commit_callbacks(execute=True):
        report = report_request(kind="reconciliation", params=day_params(rocket), by=pete)
    report.refresh_from_db()
    finished = report.finished_at

    run_report.delay(report.pk)  # a second delivery of the same message

    report.refresh_from_db()
    assert (report.status, report.attempts, report.finished_at) == ("done", 1, finished)
    assert (report.progress, report.stage) == (100, "Done") and report.seconds >= 0


def test_progress_is_reported_as_the_hands_are_replayed(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)
    seen = []

    reconciliation_report(
        params=day_params(rocket), progress=lambda percent, stage: seen.append((percent, stage))
    )

    percents = [percent for percent, _ in seen]
    assert percents == sorted(percents) and percents[0] < 10 and percents[-1] >= 85
    assert any(stage.startswith("Hands: 0 of 3") for _, stage in seen)


def test_a_database_error_is_retried_and_the_report_finishes(rocket, pete, monkeypatch):
    # the database drops the connection the first time (the outside world failing)
    real, calls = runs_module._compute, []

    def flaky(report):
        calls.append(report.pk)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(report)

    monkeypatch.setattr(runs_module, "_compute", flaky)
    report = report_request(kind="reconciliation", params=day_params(rocket), by=pete)

    run_report.apply(args=[report.pk], throw=False)  # eager: the retry runs at once, without its backoff

    report.refresh_from_db()
    assert report.status == "done" and report.attempts == 2 and len(calls) == 2
    assert run_report.acks_late and OperationalError in run_report.autoretry_for and run_report.retry_backoff


def test_bad_parameters_are_refused_before_anything_is_written(pete):
    for kind, params, message in [
        ("house_edge", {"date_from": "2026-02-30", "date_to": "2026-03-01"}, "as a date"),
        ("house_edge", {"date_from": "2026-03-02", "date_to": "2026-03-01"}, "comes after"),
        ("house_edge", {"date_from": "2026-03-01", "date_to": "2026-03-01", "group": "moon"}, "Group by"),
        ("statistics", {"date": "2026-03-01"}, "Choose a casino"),
        ("lottery", {}, "no report"),
    ]:
        with pytest.raises(ReportError, match=message):
            report_request(kind=kind, params=params, by=pete)
    assert not Report.objects.exists()


def test_a_report_that_cannot_run_fails_with_its_reason_and_can_be_asked_for_again(rocket, dana, pete):
    # a strategy the engine does not know, saved by a script (the admin's form would refuse it)
    rules = VarianceRules.objects.create(casino=rocket.pit.casino, strategy="moon")
    rocket_hands(seated(rocket, dana), 1, dana)
    day = today().isoformat()
    params = {"casino": rocket.pit.casino_id, "date_from": day, "date_to": day}

    failed = run("house_edge", params, pete)

    assert failed.status == "failed" and "moon" in failed.error
    rules.strategy = "best"
    rules.save()
    again = report_request(kind="house_edge", params=params, by=pete)
    assert again.pk == failed.pk and again.status == "pending"


def test_a_record_gone_before_the_worker_runs_the_report_fails_it_with_the_reason(rocket, dana, pete):
    shift = shift_start(user=dana, table=rocket, by=pete)
    report = report_request(kind="reconciliation", params={"shift": shift.pk}, by=pete)
    Shift.objects.filter(pk=shift.pk).delete()  # an administrator's cleanup, before a worker ran it

    failed = report_run(report_id=report.pk)

    assert failed.status == "failed" and "does not exist" in failed.error


def test_the_end_of_shift_sweep_reconciles_each_ended_shift_once(rocket, dana, pete):
    shift = shift_start(user=dana, table=rocket, by=pete)
    rocket_hands(seated(rocket, dana), 1, dana)
    shift_end(shift=shift, by=pete)

    first, again = end_of_shift(), end_of_shift()

    assert first == again and len(first) == 1
    assert Report.objects.get(pk=first[0]).params == {"shift": shift.pk}


def test_the_end_of_day_schedule_asks_for_each_report_once(rocket, dana):
    rocket_hands(seated(rocket, dana), 1, dana)
    day = today().isoformat()

    first, again = end_of_day(day), end_of_day(day)

    assert first == again
    kinds = sorted(Report.objects.filter(pk__in=first).values_list("kind", flat=True))
    assert kinds == ["house_edge", "master_game", "reconciliation", "statistics"]


def test_beat_runs_the_sweeps_at_the_end_of_each_shift_and_day():
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"reports.end_of_shift", "reports.end_of_day"} <= tasks


def left_running_by_a_dead_worker(report, deliveries):
    """The record as a worker killed on the `deliveries`-th delivery of message "task-1:0" leaves it."""
    Report.objects.filter(pk=report.pk).update(
        status="running", delivery="task-1:0", deliveries=deliveries, attempts=deliveries
    )


def test_a_message_delivered_past_the_cap_fails_its_report_without_running_it(rocket, pete, settings):
    settings.REPORTS_MAX_DELIVERIES = 3
    report = report_request(kind="reconciliation", params=day_params(rocket), by=pete)
    left_running_by_a_dead_worker(report, 3)

    failed = report_run(report_id=report.pk, delivery="task-1:0")

    assert (failed.status, failed.attempts, failed.deliveries, failed.result) == ("failed", 3, 4, None)
    assert failed.error.startswith("The worker died 3 times running this report")
    assert Report.objects.get(pk=report.pk).error == failed.error


def test_each_delivery_is_counted_and_a_new_message_counts_from_one(rocket, pete, settings):
    settings.REPORTS_MAX_DELIVERIES = 3
    report = report_request(kind="reconciliation", params=day_params(rocket), by=pete)
    left_running_by_a_dead_worker(report, 2)

    third = report_run(report_id=report.pk, delivery="task-1:0")
    assert (third.status, third.deliveries, third.worker_deaths) == ("done", 3, 2)

    left_running_by_a_dead_worker(report, 3)
    retried = report_run(report_id=report.pk, delivery="task-1:1")  # a retry: the same task, a new message
    assert (retried.status, retried.deliveries, retried.worker_deaths) == ("done", 1, 0)
