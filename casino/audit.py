"""The staff audit log: one append-only event per action."""

from .middleware import NOWHERE, current_origin
from .models import AuditEvent


def audit_record(*, action: str, user=None, username: str = "", address=None, device: str = "", **detail):
    """Record that `user` did `action` (details as keyword arguments, JSON-able).

    Address and device default to those of the request being served.
    """
    origin = current_origin.get() or NOWHERE
    return AuditEvent.objects.create(
        action=action,
        user=user if user is not None and user.pk else None,
        username=username or (user.get_username() if user is not None else ""),
        address=address or origin.address,
        device=device or origin.device,
        detail=detail,
    )
