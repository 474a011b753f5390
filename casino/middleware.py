"""Who is asking, from where: kept for the audit log of the request being served.

Every tablet on a casino floor may share one address, so each browser is also
named by a long-lived `device` cookie given on its first visit; a device that
talks to the API sends its own name in the X-Device header.
"""

import secrets
from contextvars import ContextVar
from dataclasses import dataclass
from ipaddress import ip_address

from django.conf import settings


@dataclass(frozen=True)
class Origin:
    address: str | None
    device: str


NOWHERE = Origin(None, "")  # outside a request: a management command, a Celery task
DEVICE_COOKIE_AGE = 5 * 365 * 24 * 3600  # a tablet keeps its name for its working life
current_origin: ContextVar[Origin | None] = ContextVar("current_origin", default=None)


def request_origin(request) -> Origin:
    """The client's address and the tablet or device id it sent (X-Device header or device cookie)."""
    device = request.headers.get("X-Device") or request.COOKIES.get("device", "")
    return Origin(client_address(request), device.strip()[:100])


def client_address(request) -> str | None:
    """REMOTE_ADDR, or behind a trusted proxy (setting TRUSTED_PROXY) the first X-Forwarded-For entry.

    The first entry is the client only if the proxy sets the header rather than appending to what
    the client sent, so TRUSTED_PROXY stays off unless such a proxy is the only way in. A value that
    is not an IP address is ignored: the audit log stores addresses, not whatever a header says.
    """
    remote = request.META.get("REMOTE_ADDR") or None
    if not getattr(settings, "TRUSTED_PROXY", False):
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[0].strip()
    try:
        return str(ip_address(forwarded))
    except ValueError:
        return remote


class OriginMiddleware:
    """Makes the request's origin available to services that write audit events."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        origin = request_origin(request)
        named_now = not origin.device
        if named_now:
            origin = Origin(origin.address, f"tablet-{secrets.token_hex(4)}")
        request.device = origin.device
        token = current_origin.set(origin)
        try:
            response = self.get_response(request)
        finally:
            current_origin.reset(token)
        if named_now:
            response.set_cookie(
                "device",
                origin.device,
                max_age=DEVICE_COOKIE_AGE,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response
