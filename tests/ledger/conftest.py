"""The ledger's people and floor: dealer dana, pit manager pete, auditor ada, and olga, a dealer
at another table. Tables in one casino, each with its tray and drop; the casino's cage and patrons."""

from contextlib import contextmanager

import pytest
from django.db import connection

from casino.roles import AUDITOR, DEALER, PIT_MANAGER
from ledger.db import expected_triggers, protection_drop_sql, protection_sql
from ledger.services import Line, account_get, ledger_post
from ledger.testing import ledger_flushable  # noqa: F401  (autouse: transactional tests can flush)
from tables.models import Casino, Game, Pit
from tests.floor import new_table, player_chips

TRAY_OPENING = 1000  # units the cage sends to a tray when a table opens


def make_user(django_user_model, name, role):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username=name, password=f"{name}-pass")
    # get_or_create: after a transactional test Django's flush has emptied the groups too.
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def dana(django_user_model):
    return make_user(django_user_model, "dana", DEALER)


@pytest.fixture
def pete(django_user_model):
    return make_user(django_user_model, "pete", PIT_MANAGER)


@pytest.fixture
def ada(django_user_model):
    return make_user(django_user_model, "ada", AUDITOR)


@pytest.fixture
def olga(django_user_model):
    return make_user(django_user_model, "olga", DEALER)


@pytest.fixture
def casino(db):
    return Casino.objects.create(name="Riverside")


@pytest.fixture
def pit(casino):
    return Pit.objects.create(casino=casino, name="Pit 1")


@pytest.fixture
def table(pit):
    return new_table(pit=pit, name="Rocket 1", game=Game.ROCKET, min_bet=10, max_bet=500)


@pytest.fixture
def other_table(pit):
    return new_table(pit=pit, name="Blackstone 1", game=Game.BLACKSTONE, min_bet=5, max_bet=500)


@pytest.fixture
def cage(casino):
    return account_get(kind="cage", casino=casino)


@pytest.fixture
def patrons(casino):
    return account_get(kind="patrons", casino=casino)


@pytest.fixture
def tray(table):
    return account_get(kind="tray", table=table)


@pytest.fixture
def drop(table):
    return account_get(kind="drop", table=table)


@pytest.fixture
def open_table(table, tray, cage, pete):
    """The table opened: the cage has sent TRAY_OPENING units to its tray."""
    ledger_post(
        lines=[Line(cage, -TRAY_OPENING, "opening count"), Line(tray, TRAY_OPENING, "opening count")],
        kind="opening", memo="Table opens", by=pete, table=table,
    )
    return table


@pytest.fixture
def seat3(table):
    return player_chips(table, 345, "Seat 3")


def _buy_in(*, table, player, amount, by):
    patrons = account_get(kind="patrons", table=None, casino=table.pit.casino)
    drop = account_get(kind="drop", table=table)
    tray = account_get(kind="tray", table=table)
    return ledger_post(
        lines=[Line(patrons, -amount, "cash"), Line(drop, amount, "cash"),
               Line(tray, -amount, "chips"), Line(player, amount, "chips")],
        kind="buy_in", memo="Buy-in", by=by, table=table,
    )


@pytest.fixture
def buy_in():
    """buy_in(table=, player=, amount=, by=): cash into the drop box, chips from the tray to the player."""
    return _buy_in


@pytest.fixture
def tray_opening():
    return TRAY_OPENING


@pytest.fixture(autouse=True)
def anchor_dir(settings, tmp_path):
    """Anchors go to a fresh directory: never the project's own."""
    settings.LEDGER_ANCHOR_DIR = tmp_path / "anchors"
    return settings.LEDGER_ANCHOR_DIR


@pytest.fixture
def on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (SQLite has no TRUNCATE, session_replication_role or roles): "
                    "set DATABASE_URL to a PostgreSQL database to run it")


@pytest.fixture
def protection_lifted():
    """protection_lifted(*tables): a context manager, see _protection_lifted."""
    return _protection_lifted


@contextmanager
def _protection_lifted(*tables):
    """What only the tables' owner can do: switch the triggers off, and back on afterwards.

    PostgreSQL: ALTER TABLE ... DISABLE TRIGGER ALL (pending deferred checks are run first, as
    ALTER TABLE refuses a table with pending trigger events). SQLite: DROP TRIGGER, then recreate.
    """
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for table in tables:
                cursor.execute(f'ALTER TABLE "{table}" DISABLE TRIGGER ALL')
        else:
            for statement in protection_drop_sql(connection.vendor, connection.ops.quote_name):
                cursor.execute(statement)
    yield
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            expected = expected_triggers("postgresql")
            for table in tables:
                cursor.execute(f'ALTER TABLE "{table}" ENABLE TRIGGER ALL')
                for name in expected.get(table, []):
                    cursor.execute(f'ALTER TABLE "{table}" ENABLE ALWAYS TRIGGER "{name}"')
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        else:
            for statement in protection_sql(connection.vendor, connection.ops.quote_name):
                cursor.execute(statement)
