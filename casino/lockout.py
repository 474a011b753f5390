"""Sign-in lockout per person and device (django-axes).

Every tablet on a casino floor may reach the app from one address (a NAT, a proxy), so a lockout
keyed on the address would lock the whole floor out after one dealer's typos, and one keyed on
the username alone would let anyone lock a dealer out of every tablet. Axes counts failures per
(username, user agent); this handler puts the device's own id in place of the user agent when the
tablet sends one (the `X-Device` header or the `device` cookie, see `casino.middleware`), so
identical tablets running the same browser are still told apart. A client that sends no device
id is keyed on its user agent, as axes does by default.

A device id is whatever the client says, so a script could send a new one with every guess. To
cap that, a name that fails SIGNIN_NAME_FAILURE_LIMIT times within the cool-off, on any devices,
is locked on every device until the cool-off ends: a visible, short denial rather than an endless
guess. (Axes' own warning axes.W006 asks for the address to be a lockout key for this reason; the
ceiling answers it, and the check is silenced in the settings.)

A signature on a slip is a sign-in of its own (a name and a password or PIN typed on a tablet), so
`signature_lockout` applies the same two limits to the failed signatures in the audit log: a
dealer typing a manager's name with wrong passwords locks that name on their own tablet only.
"""

from axes.attempts import get_cool_off_threshold
from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Count, Q, Sum
from django.shortcuts import render
from django.utils import timezone

from .middleware import NOWHERE, current_origin, request_origin
from .models import AuditEvent

LOCKED_STATUS = 429  # Too Many Requests: the sign-in is refused until the cool-off ends


def device_key(request) -> str:
    """What axes stores in its user_agent column: the device id if sent, else the user agent."""
    device = request_origin(request).device
    if device:
        return f"device:{device}"
    return request.META.get("HTTP_USER_AGENT", "<unknown>")[:255]


class LockoutBackend(AxesStandaloneBackend):
    """Refuses a locked-out (username, device) before the password is even checked.

    Axes insists on a request; a sign-in without one (the test client's `login()`, a shell) has no
    device to count failures against, so it is passed on to the password backend unchecked. Every
    sign-in over HTTP carries its request.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class DeviceLockoutHandler(AxesDatabaseHandler):
    """Axes' database handler, counting failures per username and device (see the module doc)."""

    def is_allowed(self, request, credentials=None) -> bool:
        _key_by_device(request)
        return super().is_allowed(request, credentials)

    def get_failures(self, request, credentials=None) -> int:
        """Failures of this name on this device; the full limit once the name's ceiling is reached."""
        _key_by_device(request)
        on_this_device = super().get_failures(request, credentials)
        on_every_device = (
            AccessAttempt.objects.filter(
                username=get_client_username(request, credentials),
                attempt_time__gte=get_cool_off_threshold(request),
            ).aggregate(total=Sum("failures_since_start"))["total"]
            or 0
        )
        if on_every_device >= settings.SIGNIN_NAME_FAILURE_LIMIT:
            return max(on_this_device, get_failure_limit(request, credentials))
        return on_this_device

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        _key_by_device(request)
        return super().user_login_failed(sender, credentials, request, **kwargs)

    def user_logged_in(self, sender, request, user, **kwargs):
        _key_by_device(request)
        return super().user_logged_in(sender, request, user, **kwargs)

    def user_logged_out(self, sender, request, user, **kwargs):
        _key_by_device(request)
        return super().user_logged_out(sender, request, user, **kwargs)


def _key_by_device(request) -> None:
    # Axes reads the user agent once per request into this attribute and filters on it.
    if request is not None:
        request.axes_user_agent = device_key(request)


def lockout_response(request, original_response=None, credentials=None):
    """The sign-in page again, saying why it refuses and for how long (status 429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    form = AuthenticationForm(request, initial={"username": username})
    form.cleaned_data = {}  # an unbound form takes an error once it has somewhere to drop the field
    form.add_error(
        None,
        f"Too many failed sign-ins for {username or 'this name'} on this device: signing in is locked "
        f"for {minutes} minutes. An administrator can unlock it sooner.",
    )
    return render(request, "registration/login.html", {"form": form}, status=LOCKED_STATUS)


def signature_lockout(username: str, device: str) -> str:
    """Where `username` may not sign now: "on this device", "on every device", or "" (may sign).

    The sign-in's limits over failed signatures within the cool-off: AXES_FAILURE_LIMIT on one
    device, SIGNIN_NAME_FAILURE_LIMIT over all of them. Signatures refused for a lock are not
    guesses and do not count (as AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT for sign-ins): else
    one locked device could reach the name's ceiling alone. `device` is counted as the failures
    were recorded (`casino.audit.audit_record`): when blank, the device of the request served.
    """
    device = device or (current_origin.get() or NOWHERE).device
    failures = AuditEvent.objects.filter(
        action=AuditEvent.Action.SIGNATURE_FAILED,
        username=username,
        at__gte=timezone.now() - settings.AXES_COOLOFF_TIME,
    )
    # Counted as all failures less the refusals for a lock: a record without the mark is a guess.
    counts = failures.aggregate(
        everywhere=Count("pk"),
        here=Count("pk", filter=Q(device=device)),
        locked_everywhere=Count("pk", filter=Q(detail__locked_out=True)),
        locked_here=Count("pk", filter=Q(detail__locked_out=True, device=device)),
    )
    if counts["everywhere"] - counts["locked_everywhere"] >= settings.SIGNIN_NAME_FAILURE_LIMIT:
        return "on every device"
    if counts["here"] - counts["locked_here"] >= settings.AXES_FAILURE_LIMIT:
        return "on this device"
    return ""
