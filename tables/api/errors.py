"""One exception handler for the whole API.

A `casino.errors.DomainError` carries a sentence for staff and its HTTP status
(400 refused by the rules, 409 a stale screen, 403 not allowed); it becomes
`{"detail": message}` with that status. A database that cannot be reached
(down, restarting, the connection dropped; token authentication included) is
503 with Retry-After (see casino/unavailable.py). Everything else is DRF's own
answer.
"""

from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from casino.errors import DomainError
from casino.unavailable import DATABASE_DOWN, database_down_answer, is_database_down


def api_exception_handler(exc, context):
    if isinstance(exc, DomainError):
        set_rollback()
        return Response({"detail": exc.message}, status=exc.status)
    if is_database_down(exc):
        answer = Response({"detail": DATABASE_DOWN}, status=503)
        return database_down_answer(context["request"]._request, answer, exc)
    return exception_handler(exc, context)
