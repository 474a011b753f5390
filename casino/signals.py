"""Sign-ins, failed sign-ins and sign-outs go to the staff audit log.

Django's auth signals are the one place every sign-in path passes (the floor's login page, the
admin's, a lockout refusal), so the audit events are written here rather than in each view. Other
staff actions are recorded by the services that carry them out. For the same reason a password
change or a deactivation revokes the account's API tokens here (`casino.tokens`).
"""

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models.signals import pre_save

from .audit import audit_record
from .middleware import NOWHERE, request_origin
from .models import AuditEvent, User
from .tokens import stamp_credentials_change


def record_login(sender, request, user, **kwargs):
    _record(AuditEvent.Action.LOGIN, request, user=user)


def record_login_failed(sender, credentials, request=None, **kwargs):
    # Axes flags the request once this failure has locked the name out on this device.
    locked_out = bool(getattr(request, "axes_locked_out", False))
    username = str(credentials.get("username") or "")[:150]
    _record(AuditEvent.Action.LOGIN_FAILED, request, username=username, locked_out=locked_out)


def record_logout(sender, request, user, **kwargs):
    if user is not None:  # signing out a session that was never signed in is no staff action
        _record(AuditEvent.Action.LOGOUT, request, user=user)


def _record(action, request, *, user=None, username="", **detail):
    origin = request_origin(request) if request is not None else NOWHERE
    # A browser's first visit is named by OriginMiddleware before it has the cookie.
    device = getattr(request, "device", "") or origin.device
    audit_record(action=action, user=user, username=username, address=origin.address, device=device, **detail)


def connect() -> None:
    user_logged_in.connect(record_login, dispatch_uid="casino.audit.login")
    user_login_failed.connect(record_login_failed, dispatch_uid="casino.audit.login_failed")
    user_logged_out.connect(record_logout, dispatch_uid="casino.audit.logout")
    pre_save.connect(stamp_credentials_change, sender=User, dispatch_uid="casino.tokens.credentials")
