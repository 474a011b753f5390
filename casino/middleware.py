"""Who is asking, from where: kept for the audit log of the request being served."""

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    address: str | None
    device: str


NOWHERE = Origin(None, "")  # outside a request: a management command, a Celery task
current_origin: ContextVar[Origin | None] = ContextVar("current_origin", default=None)


def request_origin(request) -> Origin:
    """The client's address and the tablet or device id it sent (X-Device header or device cookie)."""
    device = request.headers.get("X-Device") or request.COOKIES.get("device", "")
    return Origin(request.META.get("REMOTE_ADDR"), device[:100])


class OriginMiddleware:
    """Makes the request's origin available to services that write audit events."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = current_origin.set(request_origin(request))
        try:
            return self.get_response(request)
        finally:
            current_origin.reset(token)
