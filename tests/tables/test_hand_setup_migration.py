"""Migration 0011 moves a hand's engine start from six columns into `Hand.setup`, and back."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tables.games.collection import CollectionOptions
from tables.models import Hand
from tables.review import hand_replay_check
from tables.services import hand_start

from .conftest import key, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db(transaction=True)  # migrations run outside a test's transaction

BEFORE = [("tables", "0010_idempotency_key_per_user")]


def migrate(targets=None):
    """Migrate to `targets`, or to the latest migration of every app (later ones included)."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())


def old_columns(pk: int) -> dict:
    names = ["game", "seats", "stakes", "carry_in", "options", "state", "shoe_before"]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(names)} FROM tables_hand WHERE id = %s", [pk])
        row = cursor.fetchone()
    # a raw query gives JSON back as text on SQLite, decoded on PostgreSQL
    return {
        name: json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v
        for name, v in zip(names, row, strict=True)
    }


def test_a_hands_setup_goes_back_to_its_columns_and_returns_unchanged(starboard, dana):
    # given a settled Starboard game with a pot carried into the next, which has started
    for number in (1, 2, 3):
        seat(starboard, number, 50, dana)
    first = settle(play(hand_start(table=starboard, by=dana, key=key()), [4, 6, 8, 4],
                        [("draw",), ("lock",), ("draw",), ("lock",)], dana), dana)  # fmt: skip
    second = hand_start(table=starboard, by=dana, key=key())
    setups = dict(Hand.objects.values_list("pk", "setup"))
    shoe = setups[second.pk]["shoe"]

    # when the migration is undone, the old columns hold the engine's start
    migrate(BEFORE)
    try:
        undone = old_columns(second.pk)
    finally:
        migrate()

    assert undone == {
        "game": "starboard",
        "seats": [1, 2, 3],
        "stakes": {"1": 50, "2": 51, "3": 48},
        "carry_in": 1,
        "options": {
            "ante": 1, "draw_fee": None, "knockout_on_draw": False, "button": 2,
            **CollectionOptions().as_record(),  # the table's default collection, recorded in full
        },
        "state": {},
        "shoe_before": {"remaining": shoe["remaining"], "unseen": shoe["unseen"]},
    }
    # and done again, every hand's setup is what it was and the settled game still replays
    assert dict(Hand.objects.values_list("pk", "setup")) == setups
    assert hand_replay_check(Hand.objects.get(pk=first.pk))["matches"] is True
