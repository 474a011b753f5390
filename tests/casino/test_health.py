import pytest

from casino.celery import app as celery_app

pytestmark = pytest.mark.django_db


def test_health_reports_the_database_and_broker(client, settings):
    response = client.get("/health/")

    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"] == ("in-process" if settings.CELERY_TASK_ALWAYS_EAGER else "ok")


def test_health_is_503_when_the_broker_is_unreachable(client, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Nothing listens on port 1: the broker is down. (Celery reads the
    # environment variable before its own configuration.)
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setattr(celery_app.conf, "broker_url", "redis://127.0.0.1:1/0")

    response = client.get("/health/")

    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "ok", "broker": "error"}


def test_health_needs_no_sign_in_and_is_never_cached(client):
    response = client.get("/health/")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
