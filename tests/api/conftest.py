"""The API's floor: dana deals at Rocket 1 and olga at Blackstone 1, pete runs their pit, ada audits.

Requests go through DRF's test client with a session (the tablet's way) unless a test says
otherwise; every change gets a fresh Idempotency-Key unless the test passes its own.
"""

import itertools

import pytest
from django.apps import apps
from rest_framework.test import APIClient

from tables.services import shift_start
from tests.tables import conftest as services_floor

# The named people and the tables of the services' tests.
dana, pete, ada, olga = services_floor.dana, services_floor.pete, services_floor.ada, services_floor.olga
pit, rocket, blackstone = services_floor.pit, services_floor.rocket, services_floor.blackstone
starboard, pairs = services_floor.starboard, services_floor.pairs

_keys = itertools.count(1)


def new_key() -> str:
    return f"api-key-{next(_keys)}"


class Client(APIClient):
    """DRF's test client that sends JSON and a new Idempotency-Key with every change."""

    def change(self, url: str, body: dict | None = None, *, key: str | None = None, **headers):
        headers.setdefault("HTTP_IDEMPOTENCY_KEY", key or new_key())
        return self.post(url, body or {}, format="json", **headers)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def floor(rocket, blackstone, dana, olga, pete):
    """dana on shift at Rocket 1, olga at Blackstone 1, pete in their pit."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    shift_start(user=olga, table=blackstone, by=pete)
    return rocket


@pytest.fixture
def as_dana(floor, dana):
    return signed_in(dana)


@pytest.fixture
def as_pete(floor, pete):
    return signed_in(pete)


@pytest.fixture
def as_olga(floor, olga):
    return signed_in(olga)


@pytest.fixture
def as_ada(floor, ada):
    return signed_in(ada)


RECORDED_APPS = ("casino", "tables", "ledger", "authtoken")  # staff and audit log, floor and play, money


def records() -> dict[str, int]:
    """How many rows each of our models holds: equal before and after a refused request."""
    ours = [model for app in RECORDED_APPS for model in apps.get_app_config(app).get_models()]
    return {model._meta.label: model.objects.count() for model in ours}
