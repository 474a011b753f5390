from django.apps import AppConfig
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Staff and roles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.contrib import admin

        from . import signals
        from .admin_csv import csv_export_everywhere
        from .roles import grant_role_permissions
        from .timestamps import use_psycopg_loader

        # Django creates each model's permissions after migrating; the roles
        # are granted theirs right after, so a new model's rights are never missing.
        post_migrate.connect(grant_role_permissions, dispatch_uid="casino.grant_role_permissions")
        signals.connect()  # sign-ins, failures and sign-outs to the audit log
        # The admin app comes first in INSTALLED_APPS, so every admin module is loaded by now.
        csv_export_everywhere(admin.site)
        connection_created.connect(use_psycopg_loader, dispatch_uid="casino.timestamps")
