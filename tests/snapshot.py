"""Every row of every table, to show that a refused request wrote nothing (the fuzz tests)."""

from django.apps import apps
from django.db import connection


def watched_tables() -> dict[str, str]:
    """Every table of every installed app (many-to-many ones too), with the column to order by."""
    return {
        model._meta.db_table: model._meta.pk.column
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }


def snapshot(allowed: dict[str, str] | None = None) -> dict[str, list]:
    """Every watched row, column by column, so an insert, an update and a delete all show; `allowed`
    maps a table to the SQL condition of the rows to watch there (the rest may change on a refusal,
    on purpose). Plain SQL: through the ORM this takes 30 times longer, and it runs around every
    request."""
    quote, rows, allowed = connection.ops.quote_name, {}, allowed or {}
    with connection.cursor() as cursor:
        for table, pk in watched_tables().items():
            where = f"WHERE {allowed[table]}" if table in allowed else ""
            cursor.execute(f"SELECT * FROM {quote(table)} {where} ORDER BY {quote(pk)}")
            rows[table] = cursor.fetchall()
    return rows


def written(before: dict, after: dict) -> list[str]:
    return [table for table in before if before[table] != after[table]]
