"""The pit's settings page (/pit/tables/<id>/settings/): pete, on shift in the pit, changes Rocket 1
with a reason; a refusal re-renders the form with its sentence and writes nothing; a dealer or an
auditor is refused, and a table the user does not see is a 404."""

import pytest

from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from tables.models import Table
from tables.services import hand_start, shift_start, shoe_start, table_settings_change

from .conftest import key, person, seat, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def floor(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    return rocket


def form(table: Table, **changes) -> dict:
    """The form as the page fills it in, with `changes` typed over it."""
    shown = {**table.limits(), "game": table.game, "options": "", "reason": "VIP night", "key": "form-1"}
    return {**shown, **changes}


def url(table: Table) -> str:
    return f"/pit/tables/{table.pk}/settings/"


def settings_rows() -> int:
    return AuditEvent.objects.filter(action=AuditEvent.Action.TABLE_SETTINGS).count()


def test_the_page_shows_the_settings_in_force_and_the_table_page_links_to_it(floor, pete):
    client = signed_in(pete)

    page = client.get(url(floor))
    history = client.get(f"/pit/tables/{floor.pk}/")

    assert page.status_code == 200
    assert b'name="max_bet" min="1" step="1" inputmode="numeric" value="500"' in page.content
    assert url(floor).encode() in history.content


def test_a_change_is_saved_audited_and_answered_with_the_table_page(floor, pete):
    answer = signed_in(pete).post(url(floor), form(floor, max_bet=1000, payout_approval_threshold=800))

    assert answer.status_code == 302 and answer["Location"] == f"/pit/tables/{floor.pk}/"
    assert Table.objects.get(pk=floor.pk).max_bet == 1000
    [event] = AuditEvent.objects.filter(action=AuditEvent.Action.TABLE_SETTINGS)
    assert event.detail["changes"]["max_bet"] == [500, 1000] and event.detail["reason"] == "VIP night"


def test_house_rules_are_typed_as_json(floor, pete):
    body = form(floor, options='{"start": "button"}', payout_approval_threshold=400)

    assert signed_in(pete).post(url(floor), body).status_code == 302
    assert Table.objects.get(pk=floor.pk).options == {"start": "button"}


@pytest.mark.parametrize(
    "changes, sentence",
    [
        ({"game": "blackstone"}, "cannot change while a shoe is in play"),
        ({"min_bet": 600}, "cannot be above the maximum"),
        ({"options": '{"decks": 12}'}, "Rocket refuses these house rules"),
        ({"options": "{start"}, "House rules: Enter a valid JSON."),
        ({"payout_approval_threshold": 500}, "No payout could reach the approval threshold of 500 units"),
        ({"reason": ""}, "Why: This field is required."),
    ],
)
def test_a_refusal_shows_the_form_again_with_its_sentence_and_writes_nothing(floor, pete, changes, sentence):
    answer = signed_in(pete).post(url(floor), form(floor, **{"payout_approval_threshold": 400, **changes}))

    assert answer.status_code == 400
    assert sentence in answer.content.decode()
    assert Table.objects.get(pk=floor.pk).payout_approval_threshold == 1000
    assert settings_rows() == 0


def test_a_dealer_and_an_auditor_are_refused_and_nothing_is_written(floor, dana, ada):
    for user in (dana, ada):
        client = signed_in(user)
        assert client.get(url(floor)).status_code == 403
        assert client.post(url(floor), form(floor, payout_approval_threshold=400)).status_code == 403
    assert settings_rows() == 0


def test_a_table_in_a_pit_the_manager_does_not_run_is_404(floor):
    paul = person("paul", PIT_MANAGER)

    assert signed_in(paul).post(url(floor), form(floor, payout_approval_threshold=400)).status_code == 404
    assert settings_rows() == 0


def test_the_hand_review_shows_the_limits_the_hand_started_with(floor, pete, dana):
    seat(floor, 1, 500, dana)
    hand = hand_start(table=floor, bets={1: 20}, by=dana, key=key())
    table_settings_change(table=floor, by=pete, max_bet=300, payout_approval_threshold=200)

    page = signed_in(pete).get(f"/pit/hands/{hand.pk}/").content.decode()

    assert "limits 10–500, payouts above 1000 wait for the pit" in page


def test_the_page_warns_when_the_shoe_in_play_can_be_beaten_by_a_card_counter(floor, pete):
    client = signed_in(pete)
    shoe_start(table=floor, decks=8, by=pete, key=key(), reason="A fresh shoe")
    assert b"card counter" not in client.get(url(floor)).content  # eight decks: not beatable

    shoe_start(table=floor, decks=1, by=pete, key=key(), reason="A single-deck game tonight")
    page = client.get(url(floor)).content.decode()
    assert "The shoe in play: A card counter betting 1 to" in page and "can beat this table" in page
