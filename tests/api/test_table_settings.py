"""A table's settings through the API (PATCH /api/tables/{id}/settings/): pete, on shift in the pit,
changes Rocket 1; each refusal is a 4xx with a sentence and writes nothing."""

import pytest

from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from tables.models import Table
from tests.tables.conftest import person, seat

from .conftest import new_key, records, signed_in

pytestmark = pytest.mark.django_db


def patch(client, table: Table, body: dict, key: str | None = None):
    return client.patch(
        f"/api/tables/{table.pk}/settings/", body, format="json", HTTP_IDEMPOTENCY_KEY=key or new_key()
    )


def test_a_pit_manager_changes_the_limits_and_the_audit_log_keeps_old_and_new(as_pete, rocket):
    body = {"max_bet": 1000, "payout_approval_threshold": 800, "reason": "VIP night"}
    answer = patch(as_pete, rocket, body)

    assert answer.status_code == 200
    assert (answer.json()["max_bet"], answer.json()["payout_approval_threshold"]) == (1000, 800)
    [event] = AuditEvent.objects.filter(action=AuditEvent.Action.TABLE_SETTINGS)
    assert event.user.username == "pete"
    assert event.detail["changes"] == {"max_bet": [500, 1000], "payout_approval_threshold": [1000, 800]}


def test_a_retry_with_the_same_key_is_applied_once(as_pete, rocket):
    body = {"payout_approval_threshold": 300, "reason": "Tighter"}
    first, again = patch(as_pete, rocket, body, key="limits-1"), patch(as_pete, rocket, body, key="limits-1")

    assert (first.status_code, again.status_code) == (200, 200)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TABLE_SETTINGS).count() == 1


@pytest.mark.parametrize(
    "body, sentence",
    [
        ({"game": "blackstone"}, "cannot change while a shoe is in play"),
        ({"min_bet": 600}, "cannot be above the maximum"),
        ({"min_bet": 0}, "The minimum must be a whole number of units from 1"),
        ({"options": {"start": "middle"}}, "Rocket refuses these house rules"),
        ({"options": {"previous_button": 2**64}}, "The house rule previous_button is at most 2,147,483,647"),
        ({"options": {"previous_button": -(2**60)}}, "not a number that large"),
        ({"payout_approval_threshold": 500}, "No payout could reach the approval threshold of 500 units"),
    ],
)
def test_refused_settings_are_400_with_a_sentence_and_nothing_written(as_pete, rocket, body, sentence):
    before = records()

    answer = patch(as_pete, rocket, {**body, "reason": "Try"})

    assert answer.status_code == 400
    assert sentence in answer.json()["detail"]
    assert records() == before


def test_a_game_change_with_a_player_seated_is_refused(as_pete, rocket, dana):
    seat(rocket, 1, 100, dana)
    before = records()

    answer = patch(as_pete, rocket, {"game": "pairs", "reason": "Try"})

    assert answer.status_code == 400 and "cannot change while" in answer.json()["detail"]
    assert records() == before


def test_a_malformed_body_names_the_field(as_pete, rocket):
    answer = patch(as_pete, rocket, {"max_bet": "lots", "reason": "Try"})

    assert answer.status_code == 400 and "max_bet" in answer.json()


def test_a_name_that_is_no_setting_is_refused_not_ignored(as_pete, rocket):
    """A typo changed nothing, yet answered 200 with the table as it was."""
    before = records()

    answer = patch(as_pete, rocket, {"maxbet": 1000, "reason": "VIP night"})

    assert answer.status_code == 400
    assert "Not a table setting" in answer.json()["maxbet"][0]
    assert records() == before


@pytest.mark.parametrize("who", ["as_dana", "as_ada"])
def test_a_dealer_and_an_auditor_are_403_and_nothing_is_written(request, rocket, who):
    client = request.getfixturevalue(who)
    before = records()

    answer = patch(client, rocket, {"max_bet": 1000, "reason": "Try"})

    assert answer.status_code == 403 and "pit manager on shift" in answer.json()["detail"]
    assert records() == before


def test_a_table_the_user_does_not_see_is_404(floor, rocket):
    paul = person("paul", PIT_MANAGER)  # runs no pit: sees no table

    assert patch(signed_in(paul), rocket, {"max_bet": 1000, "reason": "Try"}).status_code == 404
