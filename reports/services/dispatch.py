"""Sending a task to a worker, and what `make run` does without one.

With a broker, `delay` queues the message and the page answers at once. Without one (the embedded
default, `CELERY_BROKER_URL` unset) Celery runs a task in-process at once, so a report or a par
sheet asked for in a page request was computed inside that request: the first house-edge report
on `make run` held the browser for 20 to 30 seconds with no progress (issue 18). In DEBUG (make
run) the task now runs in a thread of the server's process instead, after the request has been
answered, and the page shows its progress as it would with a worker. Tests (DEBUG off) keep
running tasks at once, in order, as before; REPORTS_TASKS_IN_THREAD=0 does the same in DEBUG.
"""

from __future__ import annotations

import logging
import threading

from celery import current_app
from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)


def in_thread() -> bool:
    """Whether a task runs in a thread of this process (no broker, DEBUG, not switched off)."""
    return bool(
        current_app.conf.task_always_eager
        and settings.DEBUG
        and getattr(settings, "REPORTS_TASKS_IN_THREAD", True)
    )


def send(task, *args) -> threading.Thread | None:
    """Queue `task(*args)` for a worker, or run it in a thread (see the module docstring); return
    the thread, if any, so a test can wait for it."""
    if not in_thread():
        task.delay(*args)
        return None
    thread = threading.Thread(target=_run, args=(task, args), name=f"{task.name}{args}", daemon=True)
    thread.start()
    return thread


def _run(task, args: tuple) -> None:
    try:
        task.apply(args=args, throw=False)
    except Exception:  # a thread has no one to raise to: the task has marked its record failed
        log.exception("Task %s%s failed in its thread", task.name, args)
    finally:
        connections.close_all()  # this thread's own connections, not the server's
