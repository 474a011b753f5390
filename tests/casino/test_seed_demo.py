from dataclasses import astuple
from datetime import UTC, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from casino.demo import DEMO_DAY_BUY_INS, DEMO_DAY_TABLE, DEMO_TABLES, DEMO_TRAY, DEMO_USERS
from casino.models import User
from ledger.models import Account
from ledger.services import account_get
from reports.demo import DAY_HANDS, DAY_TABLE
from reports.periods import today
from reports.services.master_game import master_game_figures
from reports.services.reconciliation import chips_section
from tables.models import Casino, Incident, Pit, RatingSlip, Shift, Shoe, Table, TableCount
from tables.services import table_is_open
from tables.services.rating_slips import slip_figures

pytestmark = pytest.mark.django_db


def seed():
    out = StringIO()
    call_command("seed_demo", force=True, stdout=out)
    return out.getvalue()


def test_seeding_twice_gives_one_demo_floor():
    seed()
    output = seed()

    assert Casino.objects.count() == 1
    assert Pit.objects.count() == 1
    games = sorted(Table.objects.values_list("game", flat=True))
    # the second Rocket table is Rocket 2, with its played day
    assert games == ["blackstone", "hawthorn", "pairs", "port", "rocket", "rocket", "starboard"]
    rocket_shoes = Shoe.objects.filter(table__game="rocket")
    assert [s.decks for s in rocket_shoes] == [8, 8]
    for table in Table.objects.exclude(name=DAY_TABLE):
        assert account_get(kind=Account.Kind.TRAY, table=table).balance == DEMO_TRAY
    dealers = Shift.objects.filter(ended_at=None, table__isnull=False).values_list(
        "table__name", "user__username"
    )
    assert sorted(dealers) == sorted((name, dealer) for name, *_, dealer in DEMO_TABLES)
    managers = Shift.objects.filter(ended_at=None, pit__name="Pit 1").values_list("user__username", flat=True)
    assert sorted(managers) == ["pam", "pete"]
    assert User.objects.count() == len(DEMO_USERS)
    for username, _, password in DEMO_USERS:
        assert f"{username:<6} password: {password}" in output


def test_each_demo_user_holds_their_role_and_can_sign_in(client):
    seed()
    for username, role, password in DEMO_USERS:
        assert User.objects.get(username=username).role_names == [role]
        assert client.login(username=username, password=password)


def test_the_demo_has_played_and_closed_a_full_day_for_the_master_game_report():
    seed()
    seed()  # played once

    table = Table.objects.get(name=DAY_TABLE)
    assert [count.kind for count in table.counts.order_by("at")] == ["opener", "closer"]
    row = next(
        r for r in master_game_figures(table.pit.casino_id, today())["tables"] if r["name"] == DAY_TABLE
    )
    assert (row["fills"], row["credits"], row["expected_drop"]) == (500, 300, 3500)
    assert row["system_win"] == DAY_HANDS * 12 and row["status"] == "not counted yet"


def test_seeding_refuses_published_passwords_with_debug_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("seed_demo", stdout=StringIO())
    assert not User.objects.exists()


def test_every_demo_table_is_open_with_a_signed_count_that_matches_its_tray():
    seed()
    seed()  # a second run opens nothing twice

    for table in Table.objects.exclude(name=DAY_TABLE):
        count = TableCount.objects.filter(table=table).latest("at", "pk")
        assert count.kind == TableCount.Kind.OPENER and table_is_open(table)
        # Blackstone 1 opens with what its day before left in the tray, and is filled while open
        held = DEMO_TRAY - sum(DEMO_DAY_BUY_INS) if table.name == DEMO_DAY_TABLE else DEMO_TRAY
        assert count.counted == count.expected == held
        assert account_get(kind=Account.Kind.TRAY, table=table).balance == DEMO_TRAY
        signers = sorted(count.slip.signatures.values_list("user__username", "role"))
        dealer = next(dealer for name, *_, dealer in DEMO_TABLES if name == table.name)
        assert signers == sorted([(dealer, "dealer"), ("pete", "pit manager")])


PIT_PAGES = ["Pit", "Approvals", "Shifts", "Drop and count", "Players", "Cash log", "Ratings", "Slips"]
DAYS = "Gaming days · Demo Casino"


@pytest.mark.parametrize(
    "username, links",
    [
        ("dana", []),
        ("pete", [*PIT_PAGES, "Reports", DAYS]),
        ("ada", [*PIT_PAGES, "Reports", DAYS, "Admin"]),
        ("admin", [*PIT_PAGES, "Reports", DAYS, "Admin"]),
    ],
)
def test_the_home_page_links_each_role_to_its_pages(client, username, links):
    seed()
    client.force_login(User.objects.get(username=username))

    page = client.get("/")

    assert [link["name"] for link in page.context["pages"]] == links
    for link in page.context["pages"]:
        assert client.get(link["url"], follow=True).status_code == 200, link
    assert b"Rocket 1" in page.content


def test_blackstone_1s_day_before_is_closed_and_its_drop_box_counted_to_the_unit():
    seed()
    seed()  # a second run adds no day

    table = Table.objects.get(name=DEMO_DAY_TABLE)
    kinds = list(table.counts.order_by("at", "pk").values_list("kind", flat=True))
    yesterday, today = table.drop_boxes.order_by("number")
    assert kinds == ["opener", "closer", "opener"]
    assert sorted(yesterday.custody.values_list("step", flat=True)) == ["delivered", "removed"]
    assert (yesterday.counted.counted, yesterday.counted.expected) == (sum(DEMO_DAY_BUY_INS),) * 2
    assert not hasattr(today, "counted") and not Incident.objects.exists()


def test_the_demo_runs_a_rating_slip_for_each_carded_player_on_rocket_2s_day(client):
    seed()
    seed()  # rated once

    slips = {slip.player.card_number: slip for slip in RatingSlip.objects.select_related("player")}
    assert sorted(slips) == ["1001", "1002"]
    alice, bruno = slips["1001"], slips["1002"]
    assert list(alice.events.values_list("kind", flat=True)) == ["started", "closed"]
    assert list(bruno.events.values_list("kind", flat=True)) == ["started", "paused", "resumed", "closed"]
    # Every hand: seat 1 bets 20 and is paid 18, seat 2 bets 50 and folds for 30 (reports.demo).
    assert astuple(slip_figures(alice))[1:5] == (DAY_HANDS, 20 * DAY_HANDS, Decimal("20.00"), 18 * DAY_HANDS)
    played = DAY_HANDS - 1  # paused for one hand
    assert astuple(slip_figures(bruno))[1:5] == (played, 50 * played, Decimal("50.00"), -30 * played)

    client.force_login(User.objects.get(username="pete"))
    page = client.get(reverse("pit:player", args=[alice.player_id])).content.decode()
    assert reverse("pit:rating_slip", args=[alice.pk]) in page and "by dana" in page


def test_the_demo_floor_holds_no_reconciliation_finding_of_chips_moved_at_a_closed_table():
    seed()

    for table in Table.objects.all():
        _, findings = chips_section(table, datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC))
        assert not [item for item in findings if "while the table was closed" in item["problem"]], table
