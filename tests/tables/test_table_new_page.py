"""The pit's new-table page (/pit/tables/new/): pete, on shift in the pit, adds a table through
`table_create`, the admin's own write path, audited the same way; a refusal keeps what was typed
and names what was wrong, writing nothing; an auditor, a dealer or a pit manager off shift is
refused, and a pit he does not run cannot be named."""

import pytest

from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from tables.models import Casino, Game, Pit, Table, TableCount
from tables.services import shift_start

from .conftest import key, open_with_count, person, signed_in

pytestmark = pytest.mark.django_db

URL = "/pit/tables/new/"


@pytest.fixture
def floor(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    return rocket


def form(pit: Pit, **typed) -> dict:
    """The form as the page fills it in, with a name and `typed` over it."""
    shown = {
        "pit": pit.pk,
        "name": "Rocket 3",
        "game": Game.ROCKET,
        "min_bet": 10,
        "max_bet": 500,
        "payout_approval_threshold": 250,
        "chip_unit_cents": 100,
        "options": "",
        "reason": "",
        "key": key(),
    }
    return {**shown, **typed}


def created() -> int:
    return AuditEvent.objects.filter(action=AuditEvent.Action.TABLE_CREATE).count()


def test_the_pit_offers_a_new_table_to_its_pit_manager_with_sensible_defaults(floor, pete):
    client = signed_in(pete)

    pit_page = client.get("/pit/").content.decode()
    page = client.get(URL)

    assert f'href="{URL}"' in pit_page
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<input type="hidden" name="pit" value="{floor.pit.pk}">' in html
    assert 'name="max_bet" min="1" step="1" inputmode="numeric" value="500"' in html
    assert 'name="payout_approval_threshold" min="0" step="1" inputmode="numeric" value="250"' in html


def test_a_new_table_is_created_closed_audited_and_listed_in_the_pit(floor, pete):
    client = signed_in(pete)

    typed = {"game": Game.BLACKSTONE, "min_bet": 5, "payout_approval_threshold": 100}
    answer = client.post(URL, form(floor.pit, **typed, options='{"collection": "rake"}', reason="New layout"))

    table = Table.objects.get(name="Rocket 3")
    assert answer.status_code == 302 and answer["Location"] == f"/pit/tables/{table.pk}/"
    assert (table.pit, table.game, table.min_bet, table.options) == (
        floor.pit,
        Game.BLACKSTONE,
        5,
        {"collection": "rake"},
    )
    event = AuditEvent.objects.get(action=AuditEvent.Action.TABLE_CREATE)
    assert (event.user, event.detail["table"], event.detail["reason"]) == (pete, table.pk, "New layout")
    assert event.detail["settings"]["payout_approval_threshold"] == 100
    listed = client.get("/pit/").content.decode()
    assert 'aria-label="Rocket 3"' in listed and not TableCount.objects.filter(table=table).exists()
    open_with_count(table)  # then opened as any table is (docs/pit.md, Opening and closing a table)
    assert TableCount.objects.get(table=table).kind == TableCount.Kind.OPENER


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        ({"max_bet": 505}, "Rocket limits must be multiples of 10 units"),
        ({"name": "Rocket 1"}, "Pit 1 already has a table named Rocket 1."),
        ({"name": "  "}, "Name: This field is required."),
        ({"min_bet": 600}, "The minimum bet (600) cannot be above the maximum (500)."),
        ({"payout_approval_threshold": 500}, "No payout could reach the approval threshold of 500 units"),
        ({"options": '{"start": "nowhere"}'}, "Rocket refuses these house rules"),
        ({"options": "{not json"}, "House rules: Enter a valid JSON."),
        ({"game": "chess"}, "Select a valid choice. chess is not one of the available choices."),
    ],
)
def test_a_refused_form_keeps_what_was_typed_names_the_fault_and_writes_nothing(floor, pete, typed, sentence):
    typed = {"name": "Rocket 3 (typed)", **typed}

    answer = signed_in(pete).post(URL, form(floor.pit, **typed))

    html = answer.content.decode()
    assert answer.status_code == 400 and 'class="banner error" role="alert"' in html
    assert sentence in html.split('role="alert">')[1].split("</p>")[0].replace("&quot;", '"')
    assert f'name="name" maxlength="100" value="{typed["name"]}"' in html
    assert created() == 0 and Table.objects.count() == 1


def test_an_auditor_a_dealer_and_a_pit_manager_off_shift_are_refused(floor, dana, ada):
    pam = person("pam", PIT_MANAGER)  # not on shift: she runs no pit

    answers = [signed_in(user).post(URL, form(floor.pit)) for user in (ada, dana, pam)]
    pages = [signed_in(user).get(URL) for user in (ada, dana, pam)]

    assert [answer.status_code for answer in answers + pages] == [403] * 6
    assert f'href="{URL}"' not in signed_in(ada).get("/pit/").content.decode()
    assert created() == 0 and Table.objects.count() == 1


def test_a_pit_the_manager_does_not_run_cannot_be_named(floor, pete):
    elsewhere = Pit.objects.create(casino=Casino.objects.create(name="Other Casino"), name="Pit 9")

    answer = signed_in(pete).post(URL, form(elsewhere))

    assert answer.status_code == 400 and "choose a pit you are on shift in" in answer.content.decode()
    assert "Pit 9" not in answer.content.decode() and created() == 0
