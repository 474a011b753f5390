"""A real Celery worker, started as its own process, runs a task sent through Redis."""

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from celery import Celery

ROOT = Path(__file__).resolve().parents[2]
WORKER_START_SECONDS = 60  # a cold worker imports Django and the apps first

pytestmark = pytest.mark.worker


@pytest.fixture
def worker(redis_broker):
    url, queue = redis_broker, f"test-{uuid.uuid4().hex}"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=solo", "-Q", queue,
         "-n", f"{queue}@%h", "--without-mingle", "--without-gossip", "--loglevel=WARNING"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        yield url, queue
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
        print(output)


def test_a_worker_process_runs_a_task_sent_through_redis(worker):
    url, queue = worker
    client = Celery("test-client", broker=url, backend=url, set_as_current=False)  # leave the app alone

    result = client.send_task("casino.ping", queue=queue).get(timeout=WORKER_START_SECONDS)

    assert result["pong"] is True
    assert result["hostname"].startswith(queue)
