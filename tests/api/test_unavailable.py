"""A database that cannot be reached: the API answers 503 with a sentence and Retry-After, keeps
nothing of the request, and the same change sent again with the same key is applied once."""

import pytest
from django.db import InterfaceError, OperationalError, connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.unavailable import DATABASE_DOWN, RETRY_AFTER_SECONDS
from tables.models import Hand

from .conftest import records

pytestmark = pytest.mark.django_db


def database_down(error=OperationalError):
    def fail(*args, **kwargs):
        raise error("connection to server at 127.0.0.1, port 5432 failed: Connection refused")

    return fail


def assert_database_down(response):
    assert response.status_code == 503
    assert response.json() == {"detail": DATABASE_DOWN}
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)


@pytest.fixture
def seated(as_dana, rocket):
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    return as_dana


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_change_losing_the_database_midway_is_503_and_leaves_nothing(seated, rocket, monkeypatch, error):
    before = records()
    # Inside the service's transaction, after the idempotency key was claimed.
    monkeypatch.setattr("tables.services.hands._start", database_down(error))

    response = seated.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}, key="lost-start")

    assert_database_down(response)
    assert records() == before


def test_the_retry_with_the_same_key_once_the_database_is_back_is_applied_once(seated, rocket, monkeypatch):
    url, bets = f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}
    with monkeypatch.context() as down:
        down.setattr("tables.services.hands._start", database_down())
        assert_database_down(seated.change(url, bets, key="retried-start"))

    first = seated.change(url, bets, key="retried-start")
    again = seated.change(url, bets, key="retried-start")

    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert Hand.objects.filter(table=rocket).count() == 1


def test_token_authentication_that_cannot_reach_the_database_is_503(floor, monkeypatch):
    monkeypatch.setattr(
        "casino.tokens.ExpiringTokenAuthentication.authenticate_credentials", database_down()
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")

    assert_database_down(client.get("/api/tables/"))
    assert_database_down(client.post("/api/tables/1/hands/", {}, format="json", HTTP_IDEMPOTENCY_KEY="k"))


def test_no_query_getting_through_is_503_for_the_tablets_session_and_for_a_token(as_dana, dana):
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=dana).key}")
    as_dana.raise_request_exception = token.raise_request_exception = False  # as from a server
    # Every query of the request fails, from authentication to the way out.
    with connection.execute_wrapper(database_down()):
        assert_database_down(as_dana.get("/api/tables/"))
        assert_database_down(as_dana.change("/api/tables/1/hands/", {"bets": {"1": 10}}))
        assert_database_down(token.get("/api/tables/"))
