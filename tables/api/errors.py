"""One exception handler for the whole API.

A `casino.errors.DomainError` carries a sentence for staff and its HTTP status
(400 refused by the rules, 409 a stale screen, 403 not allowed); it becomes
`{"detail": message}` with that status. Everything else is DRF's own answer.
"""

from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from casino.errors import DomainError


def api_exception_handler(exc, context):
    if isinstance(exc, DomainError):
        set_rollback()
        return Response({"detail": exc.message}, status=exc.status)
    return exception_handler(exc, context)
