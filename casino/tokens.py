"""API tokens (a device's "Authorization: Token <key>"): when one stops working.

A token is refused, with a 401 saying why, once it is older than API_TOKEN_DAYS (0: tokens never
expire), once its account is deactivated, and when it was minted before the account's
credentials last changed (`User.credentials_changed_at`: a new password, or a deactivation, so
that reactivating an account does not bring its old token back). A stolen token thus dies with
the password change or deactivation that answers the theft, and at the latest after
API_TOKEN_DAYS. `manage.py device_token` replaces a refused token with a new one.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from casino.compiled import Compiled
from tables.selectors import table_roles_annotated, table_roles_read

ASK_FOR_A_NEW_ONE = "ask an administrator for a new one (manage.py device_token)."


def token_expiry(token: Token) -> datetime | None:
    """When `token` stops working on its age alone; None when tokens do not expire."""
    days = settings.API_TOKEN_DAYS
    return token.created + timedelta(days=days) if days else None


def token_refusal(token: Token) -> str:
    """Why `token` no longer signs its account in, as a sentence; "" while it does."""
    user = token.user
    if not user.is_active:
        return f"The account {user.get_username()} is deactivated, so its token is revoked."
    if user.credentials_changed_at is not None and token.created < user.credentials_changed_at:
        return (
            f"This token was revoked when the password of {user.get_username()} changed or the account "
            f"was deactivated; {ASK_FOR_A_NEW_ONE}"
        )
    expiry = token_expiry(token)
    if expiry is not None and timezone.now() >= expiry:
        return f"This token expired on {timezone.localtime(expiry):%Y-%m-%d %H:%M %Z}; {ASK_FOR_A_NEW_ONE}"
    return ""


# Read on every request a device sends: compiled once. The user's table roles come in the same
# query: the permission checks that follow need them.
TOKEN = Compiled(
    lambda key: table_roles_annotated(Token.objects.select_related("user"), "user").filter(key=key), str
)


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing (401) a token that `token_refusal` refuses."""

    def authenticate_credentials(self, key):
        token = TOKEN.first(key)
        if token is None:
            raise AuthenticationFailed("Unknown token: it was mistyped, or replaced by a newer one.")
        refusal = token_refusal(token)
        if refusal:
            raise AuthenticationFailed(refusal)
        table_roles_read(token, token.user)
        return token.user, token


def stamp_credentials_change(sender, instance, raw=False, update_fields=None, **kwargs):
    """Before a user is saved: a changed password hash or a deactivation stamps
    `credentials_changed_at`, which revokes the tokens minted before it.

    A signal, because every path that changes a password or deactivates an account (the admin,
    the password forms, `changepassword`, a shell) ends in `User.save`. The stamp is also written
    at once, so that a save of some fields only (`update_fields`) cannot leave it out. Django
    re-hashing a password at sign-in after an upgrade of its hasher changes the stored hash too,
    and so revokes the account's tokens as well (devices have no password to re-hash).
    """
    if raw or instance.pk is None:
        return
    if update_fields is not None and not {"password", "is_active"} & set(update_fields):
        return  # e.g. a sign-in saving last_login: no credential among the fields saved
    stored = sender.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if stored is None:
        return
    if stored["password"] != instance.password or (stored["is_active"] and not instance.is_active):
        instance.credentials_changed_at = timezone.now()
        sender.objects.filter(pk=instance.pk).update(credentials_changed_at=instance.credentials_changed_at)
