"""Staff roles as Django groups, and the permissions each role holds.

The groups are created by migration 0002; `grant_role_permissions` (run after
every migrate) gives each group exactly the permissions matching its patterns,
so permissions of models added later reach the right roles without a hand edit.
Patterns are "app_label.codename" in fnmatch syntax.
"""

from fnmatch import fnmatchcase

DEALER, PIT_MANAGER, AUDITOR, ADMIN = "Dealer", "Pit manager", "Auditor", "Admin"
ROLES = (DEALER, PIT_MANAGER, AUDITOR, ADMIN)

# Apps whose records staff work with; auth and contenttypes are Django's own.
OUR_APPS = ("casino", "tables", "ledger", "reports")

ROLE_PATTERNS = {
    DEALER: ("tables.view_*", "tables.deal_*"),
    PIT_MANAGER: (
        "tables.view_*",
        "tables.deal_*",
        "tables.supervise_*",
        "ledger.view_*",
        "reports.view_*",
        "reports.add_report",
    ),
    # Read-only, everywhere: auditors change nothing.
    AUDITOR: tuple(f"{app}.view_*" for app in OUR_APPS) + ("auth.view_*",),
    ADMIN: tuple(f"{app}.*" for app in OUR_APPS) + ("auth.*",),
}


def role_grants(role: str, perm_name: str) -> bool:
    """Whether `role` holds the permission "app_label.codename"."""
    return any(fnmatchcase(perm_name, pattern) for pattern in ROLE_PATTERNS[role])


def grant_role_permissions(using="default", apps=None, **kwargs):
    """Set each role group's permissions to exactly those its patterns match."""
    from django.contrib.auth.models import Group, Permission

    perms = list(Permission.objects.using(using).select_related("content_type"))
    for group in Group.objects.using(using).filter(name__in=ROLES):
        granted = [p for p in perms if role_grants(group.name, f"{p.content_type.app_label}.{p.codename}")]
        group.permissions.set(granted)
