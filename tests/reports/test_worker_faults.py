"""A Celery worker killed (kill -9) in the middle of a report: the message comes back and the report
finishes once (issue 8, point 5).

- A pool process dies: the worker's main process finds it lost (WorkerLostError) and, as the task
  acknowledges late and rejects on a lost worker, puts the message back; its next pool process runs
  the report again.
- The whole worker dies: no one is left to reject the message, so Redis keeps it unacknowledged; a
  new worker restores it once the visibility timeout (CELERY_VISIBILITY_TIMEOUT, 5 s here) is over.

Either way the report ends done, started twice (`attempts`), one record, its theoretical edge (the
one row it writes besides itself) stored once, and nothing left in Redis to run it a third time.

- A pool process killed on every delivery (a report that runs the worker out of memory each time):
  each delivery is counted before the run starts, and the delivery after the cap
  (REPORTS_MAX_DELIVERIES) fails the report without running it and acknowledges the message.

The kill lands mid-run by construction, not by timing. On PostgreSQL the test locks the hands table
before the report starts: the worker marks the report running, then waits inside its work for that
lock. On SQLite a lock covers the whole database, so one that stopped the report's reads would stop
it marking itself running too; instead the test relies on the report simulating Rocket's edge for a
few seconds (no database work): it takes the write lock and reads the report running under it. While
that lock is held the report can store neither its edge nor its result: it is running when killed.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
import redis
from celery import Celery
from django.db import connection

from reports.models import Report, TheoreticalEdge
from reports.periods import today
from reports.services import report_params
from reports.services.runs import report_key
from tests.casino.test_worker import ROOT
from tests.database import shared_database_url

from .conftest import rocket_hands, seated

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 60  # a cold worker imports Django first; the report itself takes seconds
VISIBILITY_TIMEOUT = 5  # seconds before Redis gives a dead worker's message to another (3600 in production)
MAX_DELIVERIES = 2  # below the default (3), so the test also shows the worker reads it from the environment


class Workers:
    """`celery worker` processes on a private queue. Each leads a process group of its own, so that
    teardown kills its pool process with it."""

    def __init__(self, url: str, log_dir: Path):
        self.url, self.queue, self.log_dir = url, f"test-faults-{uuid.uuid4().hex}", log_dir
        self.redis = redis.Redis.from_url(self.url)
        self.client = Celery("test-client", broker=self.url, set_as_current=False)  # leave the app alone
        self.started: list[tuple[subprocess.Popen, Path]] = []

    def start(self, **env: str) -> subprocess.Popen:
        """A prefork worker with one pool process: the pool runs the report, as in production."""
        number = len(self.started)
        log = self.log_dir / f"worker-{number}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=prefork",
                 "--concurrency=1", "-Q", self.queue, "-n", f"{self.queue}-{number}@%h",
                 "--without-mingle", "--without-gossip", "--loglevel=INFO"],
                cwd=ROOT, env=self.environment(env), stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.started.append((process, log))
        return process

    def environment(self, extra: dict) -> dict:
        return {
            **os.environ,
            "DATABASE_URL": shared_database_url(),
            "REPORTS_EDGE_HANDS": "2000",  # the edge's simulation then takes a few seconds
            "REPORTS_VARIANCE_HANDS": "10000",
            **extra,
        }

    def send(self, report: Report) -> str:
        return self.client.send_task("reports.run", args=[report.pk], queue=self.queue).id

    def log(self, worker: subprocess.Popen) -> str:
        return next(log for process, log in self.started if process is worker).read_text()

    def unacknowledged(self) -> dict[str, float]:
        """Task id -> when it was delivered, for this queue's messages that a worker took and never
        acknowledged (kombu keeps them in the hash `unacked`, delivery times in `unacked_index`)."""
        found = {}
        for tag, raw in self.redis.hgetall("unacked").items():
            message, _exchange, routing_key = json.loads(raw)
            if routing_key == self.queue:
                found[message["headers"]["id"]] = self.redis.zscore("unacked_index", tag)
        return found

    def stop(self) -> None:
        for process, log in self.started:
            if process.returncode is None:  # not reaped yet, so its group id is still ours
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            print(log.read_text())
        for tag, raw in self.redis.hgetall("unacked").items():  # a failed run's leftovers
            if json.loads(raw)[2] == self.queue:
                self.redis.hdel("unacked", tag)
                self.redis.zrem("unacked_index", tag)
        self.redis.delete(self.queue)
        self.client.close()
        self.redis.close()


@pytest.fixture
def workers(redis_broker, tmp_path):
    started = Workers(redis_broker, tmp_path)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def report(rocket, dana, pete) -> Report:
    """Two Rocket hands today and their house-edge report, recorded as report_request would (the tests
    send it to their own queue, not the default one)."""
    rocket_hands(seated(rocket, dana), 2, dana)
    day = today().isoformat()
    params = report_params(kind="house_edge", params={"date_from": day, "date_to": day})
    return Report.objects.create(
        kind="house_edge", params=params, key=report_key("house_edge", params), requested_by=pete
    )


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {WAIT_SECONDS} s for {what}")
        time.sleep(0.05)


def state(report: Report) -> tuple[str, int]:
    return Report.objects.values_list("status", "attempts").get(pk=report.pk)


@contextmanager
def held_mid_run(report: Report, send: Callable[[], str]):
    """Send the report's task; give its id once its run has started and cannot finish; let it go on."""
    with runs_held(report) as hold:
        task = send()
        hold(1)
        yield task


@contextmanager
def runs_held(report: Report):
    """Give `hold(attempt)`, which waits until the report's run number `attempt` has started and holds
    it where it cannot finish; every run goes on when the block ends."""
    if connection.vendor == "postgresql":
        with psycopg.connect(shared_database_url()) as lock:
            lock.execute("LOCK TABLE tables_hand IN ACCESS EXCLUSIVE MODE")
            try:
                # a killed run's query waits on as long as the lock is held: one waiter per run so far
                yield lambda attempt: wait_for(
                    lambda: state(report) == ("running", attempt) and waiting_on_hands() >= attempt,
                    f"run {attempt} of the report to wait",
                )
            finally:
                lock.rollback()
        return
    lock = sqlite3.connect(connection.settings_dict["NAME"], timeout=20, isolation_level=None)

    def hold(attempt: int) -> None:
        if lock.in_transaction:  # the run held before was killed: let the next one mark itself running
            lock.execute("ROLLBACK")
        wait_for(lambda: running_under(lock, report, attempt), f"run {attempt} of the report")

    try:
        yield hold
    finally:
        lock.close()  # rolls back, releasing the write lock


def waiting_on_hands() -> int:
    """How many queries on the hands table wait for a lock (the report's, as no one else reads it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query LIKE %s",
            ['%"tables_hand"%'],
        )
        return cursor.fetchone()[0]


def running_under(lock: sqlite3.Connection, report: Report, attempt: int) -> bool:
    """Take SQLite's write lock and keep it if the report's run number `attempt` is going on; the
    report writes its edge and its result, so it cannot finish while the lock is held."""
    lock.execute("BEGIN IMMEDIATE")
    status, attempts = lock.execute(
        "SELECT status, attempts FROM reports_report WHERE id = ?", [report.pk]
    ).fetchone()
    if (status, attempts) == ("running", attempt):
        return True
    lock.execute("ROLLBACK")
    assert status in ("pending", "running"), f"the report was {status} before the test could hold it"
    return False


def pool_process(worker: subprocess.Popen) -> int:
    """The worker's one pool process: the one running the report."""
    found = subprocess.run(["pgrep", "-P", str(worker.pid)], capture_output=True, text=True).stdout.split()
    assert len(found) == 1, f"worker {worker.pid} has pool processes {found}"
    return int(found[0])


def alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] not in ("Z", "X")  # a zombie is dead, just not yet reaped


def finished(report: Report) -> Report:
    wait_for(lambda: state(report)[0] in ("done", "failed"), f"report {report.pk} to finish")
    report.refresh_from_db()
    return report


def assert_finished_once(report: Report, workers: Workers) -> None:
    assert report.status == "done", report.error
    assert report.attempts == 2  # started by the first delivery, killed, started again by the second
    assert report.progress == 100 and report.started_at <= report.finished_at
    assert report.result["totals"]["hands"] == 2 and len(report.result["edges"]) == 1
    assert Report.objects.count() == 1 and TheoreticalEdge.objects.count() == 1
    # acknowledged once done, and no copy queued: no third run is coming
    wait_for(lambda: not workers.unacknowledged(), "the message to be acknowledged")
    assert workers.redis.llen(workers.queue) == 0


def test_a_pool_process_killed_mid_report_is_replaced_and_the_report_runs_again_once(workers, report):
    worker = workers.start()

    with held_mid_run(report, lambda: workers.send(report)) as task:
        assert state(report) == ("running", 1) and not TheoreticalEdge.objects.exists()
        child = pool_process(worker)
        os.kill(child, signal.SIGKILL)

    assert_finished_once(finished(report), workers)
    log = workers.log(worker)
    assert f"pid:{child} exited with 'signal 9 (SIGKILL)'" in log
    assert "WorkerLostError('Worker exited prematurely: signal 9 (SIGKILL)" in log
    assert log.count(f"Task reports.run[{task}] received") == 2  # rejected back to the queue
    assert log.count(f"Task reports.run[{task}] succeeded") == 1


def test_a_worker_killed_mid_report_leaves_it_in_redis_for_the_next_worker_which_runs_it_once(
    workers, report
):
    timeout = {"CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT)}
    first = workers.start(**timeout)

    with held_mid_run(report, lambda: workers.send(report)) as task:
        child = pool_process(first)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        wait_for(lambda: not alive(child), "the pool process to die with its worker")  # PDEATHSIG

    assert state(report) == ("running", 1)  # left running by the dead worker
    delivered = workers.unacknowledged()
    assert list(delivered) == [task]
    # a worker restores what is older than the timeout when it starts (then every ~100 s): start the
    # next one once the timeout is over
    time.sleep(max(0.0, delivered[task] + VISIBILITY_TIMEOUT + 0.5 - time.time()))
    second = workers.start(**timeout)

    assert_finished_once(finished(report), workers)
    log = workers.log(second)
    assert log.count(f"Task reports.run[{task}] received") == 1
    assert log.count(f"Task reports.run[{task}] succeeded") == 1


def test_a_report_whose_pool_process_is_killed_on_every_delivery_fails_after_the_cap_and_is_acknowledged(
    workers, report
):
    worker = workers.start(REPORTS_MAX_DELIVERIES=str(MAX_DELIVERIES))
    killed = []

    with runs_held(report) as hold:
        task = workers.send(report)
        for attempt in range(1, MAX_DELIVERIES + 1):
            hold(attempt)
            killed.append(pool_process(worker))
            os.kill(killed[-1], signal.SIGKILL)

    report = finished(report)
    assert report.status == "failed" and report.attempts == MAX_DELIVERIES
    assert report.deliveries == MAX_DELIVERIES + 1 and report.worker_deaths == MAX_DELIVERIES
    assert report.error.startswith(f"The worker died {MAX_DELIVERIES} times running this report")
    assert report.result is None and not TheoreticalEdge.objects.exists()
    wait_for(lambda: not workers.unacknowledged(), "the message to be acknowledged")
    assert workers.redis.llen(workers.queue) == 0
    log = workers.log(worker)
    assert all(f"pid:{child} exited with 'signal 9 (SIGKILL)'" in log for child in killed)
    assert log.count(f"Task reports.run[{task}] received") == MAX_DELIVERIES + 1
    assert log.count(f"Task reports.run[{task}] succeeded") == 1  # the last delivery, which only failed it
