"""A real Celery worker, started as its own process, runs a task sent through Redis."""

import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pytest
from celery import Celery

ROOT = Path(__file__).resolve().parents[2]
LOCAL_REDIS = "redis://127.0.0.1:6379/15"
WORKER_START_SECONDS = 60  # a cold worker imports Django and the apps first

pytestmark = pytest.mark.worker


def redis_url() -> str:
    url = os.environ.get("CELERY_BROKER_URL") or LOCAL_REDIS
    parsed = urlparse(url)
    try:
        socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=1).close()
    except OSError:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs Redis at {url}")
        pytest.skip(f"no Redis at {url}: start one to run the worker test")
    return url


@pytest.fixture
def worker():
    url, queue = redis_url(), f"test-{uuid.uuid4().hex}"
    env = {**os.environ, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "--pool=solo", "-Q", queue,
         "-n", f"{queue}@%h", "--without-mingle", "--without-gossip", "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
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
