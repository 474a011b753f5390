"""API tokens expire after API_TOKEN_DAYS and are revoked when their account's password changes or
the account is deactivated; a refused token is answered 401 with a sentence saying why."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.tables.conftest import person

pytestmark = pytest.mark.django_db


@pytest.fixture
def dana(db):
    return person("dana", "Dealer")


@pytest.fixture
def shoe(db):
    """A device account, as `device_token --create` makes it, and its token."""
    return Token.objects.get(key=device_token("shoe-rocket-1", "--create"))


def device_token(*args) -> str:
    out = StringIO()
    call_command("device_token", *args, stdout=out)
    return out.getvalue().strip()


def read_tables(key: str):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/tables/")


def age(token: Token, days: int) -> None:
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=days))


def test_a_token_works_until_it_is_older_than_api_token_days(shoe, settings):
    settings.API_TOKEN_DAYS = 30
    age(shoe, 29)
    assert read_tables(shoe.key).status_code == 200

    age(shoe, 31)
    refused = read_tables(shoe.key)

    assert refused.status_code == 401 and refused["WWW-Authenticate"] == "Token"
    assert refused.json()["detail"].startswith("This token expired on ")
    assert "ask an administrator for a new one" in refused.json()["detail"]


def test_with_api_token_days_at_zero_a_token_never_expires(shoe, settings):
    settings.API_TOKEN_DAYS = 0
    age(shoe, 10_000)

    assert read_tables(shoe.key).status_code == 200


def test_device_token_replaces_an_expired_token_and_the_new_one_works(shoe, settings):
    settings.API_TOKEN_DAYS = 30
    age(shoe, 31)

    renewed = device_token("shoe-rocket-1")

    assert renewed != shoe.key
    assert read_tables(renewed).status_code == 200
    assert read_tables(shoe.key).status_code == 401


def test_a_token_is_revoked_when_its_accounts_password_changes(dana):
    token = Token.objects.create(user=dana)
    assert read_tables(token.key).status_code == 200

    dana.set_password("a new password")
    dana.save()
    refused = read_tables(token.key)

    assert refused.status_code == 401
    assert refused.json() == {
        "detail": "This token was revoked when the password of dana changed or the account was "
        "deactivated; ask an administrator for a new one (manage.py device_token)."
    }
    token.delete()
    assert read_tables(Token.objects.create(user=dana).key).status_code == 200  # one minted since works


def test_a_password_changed_on_the_admins_page_revokes_the_token(client, dana, django_user_model):
    token = Token.objects.create(user=dana)
    client.force_login(django_user_model.objects.create_superuser("boss", password="boss-password"))

    changed = client.post(
        f"/admin/casino/user/{dana.pk}/password/",
        {"password1": "Another-Pass-2026", "password2": "Another-Pass-2026", "usable_password": "true"},
    )

    assert changed.status_code == 302
    assert read_tables(token.key).status_code == 401


def test_a_token_is_revoked_when_its_account_is_deactivated_and_stays_revoked_once_reactivated(shoe):
    device = shoe.user
    device.is_active = False
    device.save(update_fields=["is_active"])  # a save of that field alone is seen too

    refused = read_tables(shoe.key)
    assert refused.status_code == 401
    assert refused.json() == {"detail": "The account shoe-rocket-1 is deactivated, so its token is revoked."}
    with pytest.raises(CommandError, match="deactivated"):
        device_token("shoe-rocket-1")

    device.is_active = True
    device.save()

    assert read_tables(shoe.key).status_code == 401
    assert "was revoked" in read_tables(shoe.key).json()["detail"]
    assert read_tables(device_token("shoe-rocket-1")).status_code == 200


def test_signing_in_or_editing_other_fields_revokes_nothing(client, dana):
    token = Token.objects.create(user=dana)

    signed_in = client.post("/accounts/login/", {"username": "dana", "password": "dana-password"})
    dana.refresh_from_db()
    dana.first_name = "Dana"
    dana.save()

    assert signed_in.status_code == 302
    assert dana.credentials_changed_at is None
    assert read_tables(token.key).status_code == 200


def test_an_unknown_token_is_refused_with_a_sentence(db):
    refused = read_tables("0123456789abcdef0123456789abcdef01234567")

    assert refused.status_code == 401
    assert refused.json() == {"detail": "Unknown token: it was mistyped, or replaced by a newer one."}
