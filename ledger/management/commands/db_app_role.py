"""`manage.py db_app_role ROLE [--print]`: give the app's PostgreSQL role what it needs, no more."""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from ledger.db import app_role_sql, protected_models


class Command(BaseCommand):
    help = (
        "Run as the owner role after every migrate. Grants ROLE SELECT and INSERT only on the "
        "append-only tables (ledger transactions, postings and seals, card events, decisions, table "
        "counts, signatures: every model built on ledger.models.AppendOnly), SELECT, INSERT, UPDATE "
        "and DELETE on the others, "
        "SELECT on django_migrations, and USAGE and SELECT on sequences. PostgreSQL only."
    )

    def add_arguments(self, parser):
        parser.add_argument("role", help="The app's login role (it must exist and own nothing).")
        parser.add_argument("--print", action="store_true", help="Only print the SQL.")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, role, database, **options):
        connection = connections[database]
        if connection.vendor != "postgresql":
            raise CommandError("Database roles are a PostgreSQL matter; this database is SQLite.")
        try:
            sql = app_role_sql(role, using=database)
        except LookupError as error:
            raise CommandError(str(error)) from error
        if options["print"]:
            self.stdout.write(";\n".join(sql) + ";")
            return
        self._refuse_owner(connection, role)
        with transaction.atomic(using=database), connection.cursor() as cursor:
            for statement in sql:
                cursor.execute(statement)
        tables = ", ".join(sorted(model._meta.db_table for model in protected_models()))
        self.stdout.write(f"{role}: SELECT and INSERT only on {tables}; full DML on the other tables.")

    def _refuse_owner(self, connection, role):
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role])
            row = cursor.fetchone()
            if row is None:
                raise CommandError(f"There is no role {role}; create it first (see the README).")
            if row[0]:
                raise CommandError(f"{role} is a superuser: no grant can hold it back.")
            cursor.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tableowner = %s",
                [role],
            )
            if cursor.fetchone()[0]:
                raise CommandError(f"{role} owns tables here; the app's role must own nothing.")
