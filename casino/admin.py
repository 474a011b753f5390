"""Staff accounts and the audit log in the admin.

The audit log is read-only for everyone, superusers included (the database refuses changes
anyway). Password hashes and PINs never leave in a CSV export. An auditor limited to one casino
sees the staff its records name (`casino.admin_scope.staff_within_limit`); any other account's page
answers as one that does not exist.
"""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from ledger.admin import RecordAdmin

from .admin_csv import CsvExportMixin
from .admin_scope import staff_within_limit
from .models import AuditEvent, User


@admin.register(User)
class StaffAdmin(CsvExportMixin, UserAdmin):
    list_display = ["username", "first_name", "last_name", "roles", "is_active", "is_staff", "last_login"]
    list_filter = ["groups", "is_active", "is_staff", "is_superuser"]
    csv_exclude = ["password", "pin"]

    def get_queryset(self, request):
        users = super().get_queryset(request).prefetch_related("groups")
        return staff_within_limit(users, request.user, self.admin_site)

    @admin.display(description="roles")
    def roles(self, user):
        return ", ".join(sorted(group.name for group in user.groups.all()))


@admin.register(AuditEvent)
class AuditEventAdmin(RecordAdmin):
    list_display = ["at", "action", "username", "user", "address", "device", "detail"]
    list_filter = ["action", ("user", admin.RelatedOnlyFieldListFilter), "at"]
    list_select_related = ["user"]
    search_fields = ["username", "device", "address"]
    date_hierarchy = "at"
