"""A report run end to end by a real Celery worker process, sent through Redis, reading and writing the
test database (committed rows: a transactional test)."""

import os
import subprocess
import sys
import time
import uuid

import pytest
from celery import Celery

from reports.models import Report
from reports.periods import today
from reports.services import report_params
from reports.services.runs import report_key
from tests.casino.test_worker import ROOT
from tests.database import shared_database_url

from .conftest import rocket_hands, seated

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
REPORT_SECONDS = 120  # a cold worker imports Django first; the report itself takes a second


@pytest.fixture
def worker(redis_broker):
    url, queue = redis_broker, f"test-reports-{uuid.uuid4().hex}"
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "REPORTS_EDGE_HANDS": "2000",
        "REPORTS_VARIANCE_HANDS": "10000",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "casino",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "-n",
            f"{queue}@%h",
            "--without-mingle",
            "--without-gossip",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield url, queue
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
        print(output)


def wait_until_finished(report: Report) -> Report:
    deadline = time.monotonic() + REPORT_SECONDS
    while time.monotonic() < deadline:
        report.refresh_from_db()
        if report.status in (Report.Status.DONE, Report.Status.FAILED):
            return report
        time.sleep(0.5)
    pytest.fail(
        f"the worker did not finish report {report.pk} in {REPORT_SECONDS} s (status {report.status})"
    )


def test_a_worker_process_runs_a_report_sent_through_redis(worker, rocket, dana, pete):
    url, queue = worker
    rocket_hands(seated(rocket, dana), 2, dana)
    day = today().isoformat()
    # the report as report_request records it; sent below to this test's own queue, not the default one
    params = report_params(
        kind="reconciliation", params={"table": rocket.pk, "date_from": day, "date_to": day}
    )
    report = Report.objects.create(
        kind="reconciliation", params=params, key=report_key("reconciliation", params), requested_by=pete
    )
    client = Celery("test-client", broker=url, backend=url, set_as_current=False)  # leave the app alone

    client.send_task("reports.run", args=[report.pk], queue=queue)
    client.send_task("reports.run", args=[report.pk], queue=queue)  # delivered twice: still one run

    report = wait_until_finished(report)
    assert report.status == "done", report.error
    assert report.result["hands"]["replayed"] == 2 and report.result["findings"] == []
    assert report.progress == 100 and report.started_at <= report.finished_at
    time.sleep(1)  # let the second delivery be consumed too
    report.refresh_from_db()
    assert report.attempts == 1 and Report.objects.count() == 1
