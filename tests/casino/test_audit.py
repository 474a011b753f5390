"""The staff audit log: sign-ins, failed sign-ins and sign-outs with address and device; the log
itself cannot be changed, not even with SQL."""

import pytest
from django.db import IntegrityError, connection, transaction

from casino.models import AuditEvent
from ledger.models import AppendOnlyError
from tests.tables.conftest import person

pytestmark = pytest.mark.django_db

LOGIN, LOGOUT = "/accounts/login/", "/accounts/logout/"


@pytest.fixture
def dana(db):
    return person("dana", "Dealer")


def events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


def test_a_sign_in_is_recorded_with_the_user_address_and_device(client, dana):
    response = client.post(
        LOGIN,
        {"username": "dana", "password": "dana-password"},
        REMOTE_ADDR="10.20.0.5",
        HTTP_X_DEVICE="tablet-7",
    )

    assert response.status_code == 302
    [event] = events(AuditEvent.Action.LOGIN)
    assert (event.user, event.username, event.address, event.device) == (
        dana,
        "dana",
        "10.20.0.5",
        "tablet-7",
    )


def test_a_failed_sign_in_is_recorded_with_the_name_typed_and_the_device_cookie(client, dana):
    client.cookies["device"] = "tablet-3"

    client.post(LOGIN, {"username": "dana", "password": "guess"}, REMOTE_ADDR="10.20.0.6")

    [event] = events(AuditEvent.Action.LOGIN_FAILED)
    assert (event.user, event.username, event.address, event.device) == (
        None,
        "dana",
        "10.20.0.6",
        "tablet-3",
    )
    assert event.detail == {"locked_out": False}
    assert "guess" not in str(event.detail)


def test_a_sign_out_is_recorded(client, dana):
    client.post(LOGIN, {"username": "dana", "password": "dana-password"}, HTTP_X_DEVICE="tablet-7")

    client.post(LOGOUT, HTTP_X_DEVICE="tablet-7")

    [event] = events(AuditEvent.Action.LOGOUT)
    assert (event.user, event.address, event.device) == (dana, "127.0.0.1", "tablet-7")


def test_signing_out_when_not_signed_in_records_nothing(client, db):
    client.post(LOGOUT)
    assert not events(AuditEvent.Action.LOGOUT)


def test_behind_a_trusted_proxy_the_address_is_the_first_forwarded_one(client, dana, settings):
    settings.TRUSTED_PROXY = True

    client.post(
        LOGIN,
        {"username": "dana", "password": "dana-password"},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="192.168.7.21, 10.0.0.1",
    )

    assert events(AuditEvent.Action.LOGIN)[0].address == "192.168.7.21"


def test_without_a_trusted_proxy_a_forwarded_address_is_ignored(client, dana, settings):
    settings.TRUSTED_PROXY = False

    client.post(
        LOGIN,
        {"username": "dana", "password": "dana-password"},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="192.168.7.21",
    )

    assert events(AuditEvent.Action.LOGIN)[0].address == "10.0.0.1"


def test_a_forwarded_value_that_is_no_address_falls_back_to_the_peer(client, dana, settings):
    settings.TRUSTED_PROXY = True

    client.post(
        LOGIN,
        {"username": "dana", "password": "dana-password"},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="'; drop table--",
    )

    assert events(AuditEvent.Action.LOGIN)[0].address == "10.0.0.1"


def test_a_long_device_id_is_cut_to_the_column(client, dana):
    client.post(LOGIN, {"username": "dana", "password": "guess"}, HTTP_X_DEVICE="t" * 500)
    assert events(AuditEvent.Action.LOGIN_FAILED)[0].device == "t" * 100


@pytest.mark.parametrize(
    "sql",
    ["UPDATE casino_auditevent SET device = 'forged'", "DELETE FROM casino_auditevent"],
    ids=["update", "delete"],
)
def test_the_database_refuses_to_change_or_remove_an_audit_event(client, dana, sql):
    client.post(LOGIN, {"username": "dana", "password": "guess"}, HTTP_X_DEVICE="tablet-7")

    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)

    [event] = AuditEvent.objects.all()
    assert event.device == "tablet-7"


def test_the_orm_refuses_to_change_or_remove_an_audit_event(client, dana):
    client.post(LOGIN, {"username": "dana", "password": "guess"})
    event = AuditEvent.objects.get()

    with pytest.raises(AppendOnlyError):
        AuditEvent.objects.update(device="forged")
    with pytest.raises(AppendOnlyError):
        event.delete()


def test_a_first_visit_is_recorded_under_the_device_name_the_browser_is_given(client, dana):
    response = client.post(LOGIN, {"username": "dana", "password": "dana-password"})

    given = response.cookies["device"].value
    assert given and events(AuditEvent.Action.LOGIN)[0].device == given
