"""A page whose view finds the database down answers a plain 503 with Retry-After, not a 500."""

import pytest
from django.db import InterfaceError, OperationalError, connection

from casino.models import User
from casino.unavailable import DATABASE_DOWN, RETRY_AFTER_SECONDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client):
    client.force_login(User.objects.create_user("dana", password="dana-password"))
    return client


def database_down(error):
    def fail(*args, **kwargs):
        raise error("connection to server at 127.0.0.1, port 5432 failed: Connection refused")

    return fail


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_page_answers_503_when_the_database_is_down(signed_in, monkeypatch, error):
    monkeypatch.setattr("casino.views.tables_visible_to", database_down(error))

    response = signed_in.get("/")

    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response["Content-Type"].startswith("text/plain")
    # Staff read a sentence; the server's address and the driver's message stay in the log.
    assert response.content.decode() == DATABASE_DOWN


def test_other_errors_are_not_taken_for_an_outage(signed_in, monkeypatch):
    monkeypatch.setattr("casino.views.tables_visible_to", database_down(ValueError))

    with pytest.raises(ValueError):
        signed_in.get("/")


def test_a_signed_in_page_answers_503_when_no_query_gets_through(signed_in):
    signed_in.raise_request_exception = False  # the answer the browser gets, as from a server
    # The whole request meets a dead database: the session, the user, the view and the way out.
    with connection.execute_wrapper(database_down(OperationalError)):
        response = signed_in.get("/")

    assert response.status_code == 503
    assert response.content.decode() == DATABASE_DOWN
