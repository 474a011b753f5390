import os
import socket
from urllib.parse import urlparse

import pytest

from ledger.testing import ledger_flushable  # noqa: F401  (lets Django flush after transactional tests)


@pytest.fixture(autouse=True)
def plain_http(settings):
    """Tests speak plain HTTP to the test client and the live server; the
    production HTTPS redirect and secure-only cookies would get in the way."""
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Real hashing is slow on purpose; tests sign in hundreds of times."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


LOCAL_REDIS = "redis://127.0.0.1:6379/15"  # when no broker is set


@pytest.fixture
def redis_broker(monkeypatch) -> str:
    """The Redis database a test's Celery workers use: the broker's, and the next one up for each
    further process of the suite (pytest-xdist's gw1, gw2...). Kombu keeps a database's
    unacknowledged messages in one hash, and a worker started with a short visibility timeout
    restores any it finds old enough: sharing one, a test in one process would give a report that
    another holds mid-run a third delivery. Celery reads the environment before its own settings,
    so the URL is set there, for the test's own client and the workers it starts alike."""
    parsed = urlparse(os.environ.get("CELERY_BROKER_URL") or LOCAL_REDIS)
    try:
        socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=1).close()
    except OSError:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs Redis at {parsed.geturl()}")
        pytest.skip(f"no Redis at {parsed.geturl()}: start one to run the worker tests")
    process = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    database = (int(parsed.path.strip("/") or 0) + process) % 16  # Redis has databases 0 to 15
    url = parsed._replace(path=f"/{database}").geturl()
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    monkeypatch.setenv("CELERY_RESULT_BACKEND", url)
    return url
