"""Staff accounts.

A custom user model from the first migration, as Django advises, so that staff
fields (a signing PIN, a badge number) can be added later without a painful
switch. A user's role is their membership of one of the groups in `roles`.
"""

from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """A member of staff: dealer, pit manager, auditor or administrator."""

    @property
    def role_names(self) -> list[str]:
        return sorted(g.name for g in self.groups.all())
