"""Liveness of what the app depends on: the database and the Celery broker."""

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .celery import app as celery_app

log = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2  # a load balancer's probe must answer fast


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        log.exception("health: database unreachable")
        return "error"
    return "ok"


def broker_status() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "in-process"
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT_SECONDS)
    except Exception:
        log.exception("health: broker unreachable")
        return "error"
    return "ok"


@never_cache
@require_GET
def health(request):
    """200 with each dependency's status when all work, 503 when one fails.

    Open to anonymous callers (load balancers), so it names no hosts or errors;
    the details go to the log.
    """
    checks = {"database": database_status(), "broker": broker_status()}
    healthy = "error" not in checks.values()
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)
