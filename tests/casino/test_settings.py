"""Configuration comes from the environment; production settings pass the deploy check."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_KEY = "k7#Qv9!mZp2$Lx8@Rt4^Wn6&Yb3*Hc5(Jd1)Fg0_Se-Ua+Io=Pl"


def manage(*args, **env):
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True
    )


def test_production_settings_pass_the_deploy_check():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DEBUG="false", SECRET_KEY=PRODUCTION_KEY, ALLOWED_HOSTS="tables.casino.example",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_refuses_the_development_key():
    result = manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="false")
    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_the_database_comes_from_database_url():
    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected


@pytest.mark.skipif(not os.environ.get("CI"), reason="CI must run on PostgreSQL and Redis")
def test_ci_never_falls_back_to_the_embedded_default():
    assert connection.vendor == "postgresql"
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert not settings.CELERY_TASK_ALWAYS_EAGER


def test_without_a_broker_tasks_run_in_process(settings):
    from casino.tasks import ping

    if not settings.CELERY_TASK_ALWAYS_EAGER:
        pytest.skip("a broker is configured: tasks go to a worker (see test_worker)")
    assert ping.delay().get(timeout=1)["pong"] is True
