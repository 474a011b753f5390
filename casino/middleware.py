"""Who is asking, from where: kept for the audit log of the request being served.

Every tablet on a casino floor may share one address, so each browser is also
named by a long-lived `device` cookie given on its first visit; a device that
talks to the API sends its own name in the X-Device header.

Also django-csp's middleware, with the site's policy built once (`CSPMiddleware`).
"""

import functools
import secrets
from contextvars import ContextVar
from dataclasses import dataclass
from ipaddress import ip_address

import csp.constants
import csp.middleware
import csp.utils
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver


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


class CSPMiddleware(csp.middleware.CSPMiddleware):
    """django-csp's middleware, with the site's policy built once per process, not for every answer.

    django-csp builds the header from the settings afresh for each response, twice (the policy and
    the report-only one): 3.8% of a gunicorn worker's CPU under a floor's load, the tablets' every
    action and every poll (docs/performance.md, "Issue 17, session 16"). The header is the same
    string for every response unless the response carries a policy of its own (`csp_update` and
    the other decorators set attributes on it), a page used a nonce, a report-only policy or
    excluded paths are set, or DEBUG exempts an error page. Nothing here does any of these; a
    response that does is answered by django-csp itself, as before.
    """

    def process_response(self, request, response):
        if self._own_policy(request, response):
            return super().process_response(request, response)
        policy = _site_policy()
        if policy and csp.constants.HEADER not in response:
            response[csp.constants.HEADER] = policy
        # As django-csp does: a nonce asked for after the header is written is an error, not a gap.
        request.csp_nonce = csp.middleware.CheckableLazyObject(self._csp_nonce_post_response)
        return response

    @staticmethod
    def _own_policy(request, response) -> bool:
        """Whether this answer's header is not simply the site's policy."""
        return bool(
            getattr(request, "_csp_nonce", None) is not None
            or any(name.startswith("_csp") for name in vars(response))
            or (settings.DEBUG and response.status_code in (404, 500))
            or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
            or (getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}).get("EXCLUDE_URL_PREFIXES")
        )


@functools.cache
def _site_policy() -> str:
    return csp.utils.build_policy()


@receiver(setting_changed)
def _policy_changed(setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _site_policy.cache_clear()
