from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from casino.demo import DEMO_TRAY, DEMO_USERS
from casino.models import User
from ledger.models import Account
from ledger.services import account_get
from tables.models import Casino, Pit, Shift, Shoe, Table

pytestmark = pytest.mark.django_db


def seed():
    out = StringIO()
    call_command("seed_demo", force=True, stdout=out)
    return out.getvalue()


def test_seeding_twice_gives_one_demo_floor():
    seed()
    output = seed()

    assert Casino.objects.count() == 1
    assert Pit.objects.count() == 1
    games = sorted(Table.objects.values_list("game", flat=True))
    assert games == ["blackstone", "pairs", "rocket", "starboard"]
    rocket_shoes = Shoe.objects.filter(table__game="rocket")
    assert [s.decks for s in rocket_shoes] == [8]
    for table in Table.objects.all():
        assert account_get(kind=Account.Kind.TRAY, table=table).balance == DEMO_TRAY
    assert Shift.objects.get(user__username="dana", ended_at=None).table.name == "Rocket 1"
    assert Shift.objects.get(user__username="pete", ended_at=None).pit.name == "Pit 1"
    assert User.objects.count() == len(DEMO_USERS)
    for username, _, password in DEMO_USERS:
        assert f"{username:<6} password: {password}" in output


def test_each_demo_user_holds_their_role_and_can_sign_in(client):
    seed()
    for username, role, password in DEMO_USERS:
        assert User.objects.get(username=username).role_names == [role]
        assert client.login(username=username, password=password)


def test_seeding_refuses_published_passwords_with_debug_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("seed_demo", stdout=StringIO())
    assert not User.objects.exists()
