"""Timestamps read from PostgreSQL by psycopg's own loader (C, in the binary build), not Django's.

Django's psycopg backend registers a `timestamptz` loader of its own: a Python subclass of
psycopg's that sets each value's tzinfo to the connection's zone. psycopg then parses every
timestamp in Python and builds that loader afresh for each column of each result: 5 to 7% of a
table action's CPU, sampled (docs/performance.md, "Issue 17, session 16"). When Django has set the
session's zone to UTC (USE_TZ, the database's TIME_ZONE unset: always, here), psycopg's loader
gives the same value with the same tzinfo, `datetime.timezone.utc`.

psycopg's C class cannot be subclassed, and Django's `create_cursor` reads the registered
loader's `timezone` (it registers its own on the cursor when that differs from the connection's),
so the class registered carries that attribute and makes psycopg's loader when psycopg makes one.
"""

import datetime

import psycopg
from psycopg.postgres import types
from psycopg.pq import Format

TIMESTAMPTZ = types["timestamptz"].oid
# psycopg's global map holds its optimised (C) loader when the binary build is installed.
PSYCOPG_LOADER = psycopg.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)


class UTCLoader:
    """Stands in for Django's loader on a connection whose zone is UTC: what Django reads of it
    (`format`, `timezone`) is Django's; what psycopg builds from it is psycopg's own loader."""

    format = Format.TEXT
    timezone = datetime.UTC

    def __new__(cls, oid, context=None):
        return PSYCOPG_LOADER(oid, context)


def use_psycopg_loader(sender, connection, **kwargs) -> None:
    """On each new PostgreSQL connection in UTC (Django's `connection_created`)."""
    if connection.vendor != "postgresql" or connection.timezone is not datetime.UTC:
        return
    if connection.connection.info.parameter_status("TimeZone") == "UTC":
        connection.connection.adapters.register_loader(TIMESTAMPTZ, UTCLoader)
