import pytest

from casino.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_a_tablet_is_named_on_its_first_visit_and_keeps_its_name(client):
    first = client.get("/accounts/login/")
    name = first.cookies["device"].value
    assert name.startswith("tablet-")
    assert first.cookies["device"]["httponly"]

    again = client.get("/accounts/login/")
    assert "device" not in again.cookies  # already named: nothing new to set
    client.post("/accounts/login/", {"username": "nobody", "password": "wrong"})
    assert AuditEvent.objects.get(action="login_failed").device == name


def test_a_device_that_names_itself_keeps_that_name(client):
    response = client.get("/accounts/login/", HTTP_X_DEVICE="shoe-rocket-1")
    assert "device" not in response.cookies
