"""Staff accounts.

A custom user model from the first migration, as Django advises, so that staff
fields (a signing PIN, a badge number) can be added later without a painful
switch. A user's role is their membership of one of the groups in `roles`.
"""

from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

from ledger.models import AppendOnly


class User(AbstractUser):
    """A member of staff: dealer, pit manager, auditor or administrator.

    `pin` is a hashed signing PIN: a signature on a slip is a fresh
    re-authentication with the password or this PIN. `credentials_changed_at`
    is stamped when the password changes or the account is deactivated
    (`casino.tokens`): API tokens minted before it are refused.
    """

    pin = models.CharField(max_length=128, blank=True)
    credentials_changed_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When the password last changed or the account was deactivated; API tokens minted "
        "before are refused.",
    )

    def set_pin(self, raw_pin: str) -> None:
        self.pin = make_password(raw_pin)

    def check_pin(self, raw_pin: str) -> bool:
        return bool(self.pin) and check_password(raw_pin, self.pin)

    @property
    def role_names(self) -> list[str]:
        return sorted(g.name for g in self.groups.all())


class AuditEvent(AppendOnly):
    """One staff action in the app: who, what, when, from which address and device.

    Append-only like the ledger: the database refuses UPDATE and DELETE.
    """

    class Action(models.TextChoices):
        LOGIN = "login", "Signed in"
        LOGIN_FAILED = "login_failed", "Failed sign-in"
        LOGOUT = "logout", "Signed out"
        SIGNATURE = "signature", "Signed a slip"
        SIGNATURE_FAILED = "signature_failed", "Failed signature"
        APPROVAL = "approval", "Decided a request"
        VOID_REQUEST = "void_request", "Asked for a void"
        TABLE_OPEN = "table_open", "Opened a table"
        TABLE_CLOSE = "table_close", "Closed a table"
        FILL = "fill", "Fill"
        CREDIT = "credit", "Credit"
        SHIFT = "shift", "Shift change"
        GAME_FORFEIT = "game_forfeit", "Left a game and lost it"
        SHIFT_START = "shift_start", "Started a shift"
        SHIFT_END = "shift_end", "Ended a shift"
        TABLE_CREATE = "table_create", "Created a table"
        TABLE_SETTINGS = "table_settings", "Changed a table's settings"
        PIT_CREATE = "pit_create", "Created a pit"
        AUDITOR_CASINO = "auditor_casino", "Set or lifted an auditor's casino"
        DAY_CLOSE = "day_close", "Closed a gaming day"
        PLAYER_CREATE = "player_create", "Recorded a player"
        PLAYER_IDENTIFY = "player_identify", "Recorded a player's identification"
        PLAYER_MERGE = "player_merge", "Merged two records of one player"
        SESSION_IDENTIFY = "session_identify", "Identified a seat's anonymous player"
        COMP = "comp", "Gave a player a comp"
        BACK_ENTRY = "back_entry", "Entered a hand from paper"
        QUEUE_HELD = "queue_held", "Offline steps held for the pit"
        ROUND_WITHDRAWN = "round_withdrawn", "Closed an undealt Pairs round as a player left"
        RULES = "rules", "Changed a casino's rules"
        INVESTIGATION_CLOSE = "investigation", "Closed an investigation with findings"

    action = models.CharField(max_length=20, choices=Action.choices)
    user = models.ForeignKey("casino.User", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    username = models.CharField(max_length=150, blank=True, help_text="As typed, for failed sign-ins.")
    address = models.GenericIPAddressField(null=True, blank=True)
    device = models.CharField(max_length=100, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["action", "at"]), models.Index(fields=["user", "at"])]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.username or self.user}: {self.get_action_display()}"
