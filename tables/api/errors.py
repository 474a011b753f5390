"""One exception handler for the whole API.

A `casino.errors.DomainError` carries a sentence for staff and its HTTP status
(400 refused by the rules, 409 a stale screen, 403 not allowed); it becomes
`{"detail": message}` with that status. A database that cannot be reached
(down, restarting, the connection dropped; token authentication included) is
503 with Retry-After (see casino/unavailable.py). A body larger than
DATA_UPLOAD_MAX_MEMORY_SIZE is 413, and any other request Django finds suspicious
(too many fields) 400, in JSON like every other refusal, not Django's HTML page.
Everything else is DRF's own answer (a body nested too deeply: tables/api/parsers.py).
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
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
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response({"detail": f"The body is larger than {limit:,} bytes; nothing was done."}, status=413)
    if isinstance(exc, SuspiciousOperation):
        return Response({"detail": f"The request was refused: {exc}; nothing was done."}, status=400)
    return exception_handler(exc, context)
