"""Django's admin app, its default site (`admin.site`) the one that keeps an auditor limited to one
casino to its rows (`casino.admin_scope.ScopedAdminSite`). Apart from `casino.apps`: Django picks
an app's configuration from its `apps` module, which must hold only the casino's."""

from django.contrib.admin.apps import AdminConfig


class ScopedAdminConfig(AdminConfig):
    default_site = "casino.admin_scope.ScopedAdminSite"
