"""The seat's Rating control on the tablet and on the pit's table page, the pit's slip page and a
player's slips: each step goes through the slip services, a retry applies once, and refusals write
nothing and reveal nothing."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from casino.roles import ROLES, grant_role_permissions
from tables.models import Game, RatingSlip, RatingSlipEvent
from tables.services import seat_close, seat_open, shift_start
from tables.services.players import player_create
from tables.services.rating_slips import rating_slip_move, rating_slip_start, slip_state

from .conftest import key, open_table, seat
from .test_ratings import clock, dealer_pairs_nines  # noqa: F401  (the pinned clock fixture)

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def roles(db):
    """Role groups with their permissions (a transactional test elsewhere may have flushed them)."""
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()


@pytest.fixture
def lee(clock, client, rocket, pit, dana, pete):  # noqa: F811
    """dana deals at Rocket 1 (signed in on the tablet), pete runs the pit; Mr Lee (carded) sits
    at seat 1 next to a stranger at seat 2."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    player = player_create(casino=pit.casino, name="Mr Lee", card_number="C-100", by=pete)
    client.force_login(dana)
    session = seat_open(table=rocket, seat=1, buy_in=500, player=player, by=dana, key=key())
    seat(rocket, 2, 500, dana, "Stranger")
    return session


def start_url(session):
    return reverse("tablet:slip_start", args=[session.seat.table_id, session.pk])


def step(client, slip, what, **extra):
    return client.post(reverse("tablet:slip_step", args=[slip.pk]), {"step": what, "key": key()}, **extra)


def kinds(slip):
    return list(slip.events.values_list("kind", flat=True))


def test_the_dealer_runs_a_slip_from_the_seat_in_one_tap_per_step(client, lee, rocket, dana, clock):  # noqa: F811
    page = client.get(reverse("tablet:table", args=[rocket.pk])).content.decode()
    assert page.count("Start rating") == 1  # Mr Lee's seat only: the stranger is not carded

    answer = client.post(start_url(lee), {"key": key()}, **HTMX)
    slip = RatingSlip.objects.get()
    assert answer.status_code == 200
    assert f"Rating slip {slip.pk} running" in answer.content.decode()

    clock.advance(minutes=5)
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # Lee +18
    clock.advance(minutes=5)
    assert f"Rating slip {slip.pk} paused" in step(client, slip, "pause", **HTMX).content.decode()
    assert f"Rating slip {slip.pk} running" in step(client, slip, "resume", **HTMX).content.decode()
    closed = step(client, slip, "close", **HTMX).content.decode()

    assert "Start rating" in closed  # a new visit can start a new slip
    assert kinds(slip) == ["started", "paused", "resumed", "closed"]
    assert set(slip.events.values_list("by__username", flat=True)) == {"dana"}


def test_a_retried_start_applies_once(client, lee):
    form = {"key": key()}
    first = client.post(start_url(lee), form)
    again = client.post(start_url(lee), form)
    assert (first.status_code, again.status_code) == (302, 302)
    assert RatingSlip.objects.count() == 1
    assert RatingSlipEvent.objects.count() == 1


def test_an_anonymous_seat_is_refused_with_a_sentence_and_nothing_written(client, lee, rocket):
    stranger = rocket.seats.get(number=2).sessions.get(ended_at=None)
    answer = client.post(start_url(stranger), {"key": key()}, **HTMX)
    assert answer.status_code == 400
    assert "Only a carded player is rated" in answer.content.decode()
    assert not RatingSlip.objects.exists()


def test_a_step_the_slip_cannot_take_is_refused_and_writes_nothing(client, lee):
    client.post(start_url(lee), {"key": key()})
    slip = RatingSlip.objects.get()
    answer = step(client, slip, "resume", **HTMX)
    assert answer.status_code == 409
    assert "Only a paused slip can be resumed." in answer.content.decode()
    assert kinds(slip) == ["started"]
    assert step(client, slip, "jump").status_code == 400  # not a step: the form says so
    assert kinds(slip) == ["started"]


def test_a_dealer_elsewhere_is_answered_404_and_writes_nothing(client, lee, olga, pit, pete):
    client.post(start_url(lee), {"key": key()})
    slip = RatingSlip.objects.get()
    other = open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8)
    shift_start(user=olga, table=other, by=pete)
    client.force_login(olga)
    assert step(client, slip, "close").status_code == 404
    assert client.post(start_url(lee), {"key": key()}).status_code == 404
    assert kinds(slip) == ["started"]


def test_the_pit_moves_the_slip_to_the_players_new_table_from_the_pit_table_page(
    client, lee, rocket, pit, dana, pete, clock  # noqa: F811
):
    client.post(start_url(lee), {"key": key()})
    slip = RatingSlip.objects.get()
    other = open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8)
    seat_close(session=lee, by=dana, key=key())
    there = seat_open(table=other, seat=3, buy_in=300, player=lee.player, by=pete, key=key())
    client.force_login(pete)
    page = client.get(reverse("pit:table", args=[other.pk])).content.decode()
    assert "Move rating slip here" in page

    answer = client.post(reverse("pit:slip_move", args=[other.pk, there.pk]), {"key": key()})

    assert answer.status_code == 302 and answer["Location"] == reverse("pit:table", args=[other.pk])
    assert slip_state(slip).session == there
    assert kinds(slip) == ["started", "moved"]
    closed = client.post(reverse("pit:slip_step", args=[slip.pk]), {"step": "close", "key": key()})
    assert closed.status_code == 302 and kinds(slip) == ["started", "moved", "closed"]


def test_a_move_with_no_slip_to_move_is_refused_on_the_pit_page(client, lee, rocket, pete):
    client.force_login(pete)
    answer = client.post(reverse("pit:slip_move", args=[rocket.pk, lee.pk]), {"key": key()})
    assert answer.status_code == 400
    assert "Mr Lee has no open rating slip at a table you see." in answer.content.decode()
    assert not RatingSlip.objects.exists()


def test_the_player_page_lists_slips_with_figures_and_the_slip_page_its_events(
    client, lee, rocket, dana, pete, ada, clock  # noqa: F811
):
    client.post(start_url(lee), {"key": key()})
    slip = RatingSlip.objects.get()
    clock.advance(minutes=10)
    dealer_pairs_nines(rocket, {1: 40, 2: 50}, dana)  # Lee +36
    clock.advance(minutes=20)
    client.force_login(dana)  # the tablet's idle sign-out has passed
    assert step(client, slip, "close").status_code == 302

    client.force_login(ada)  # the auditor reads
    player = client.get(reverse("pit:player", args=[lee.player_id])).content.decode()
    detail = client.get(reverse("pit:rating_slip", args=[slip.pk])).content.decode()

    started = lee.started_at
    assert reverse("pit:rating_slip", args=[slip.pk]) in player
    assert f"{started:%Y-%m-%d %H:%M} by dana" in player
    assert f"{started + timedelta(minutes=30):%Y-%m-%d %H:%M} by dana" in player  # closed, by whom
    for figure in (">30 min<", ">1<", ">40.00<", ">36<", ">1.35<"):  # 40 units x the Rocket edge
        assert figure in player.replace('<td class="num">', ">")
    assert detail.index("Started") < detail.index("Closed")
    refused = client.post(reverse("pit:slip_step", args=[slip.pk]), {"step": "pause", "key": key()})
    assert refused.status_code == 403 and kinds(slip) == ["started", "closed"]


# A slip moved on to a table outside one's scope: still read where it ran, never named where it went

REFUSED = "You may not rate players at that table: only its dealer on shift or the pit manager may."


def moved_away(lee, table, by):
    """Mr Lee's slip, started at Rocket 1, moved by `by` with him to seat 3 of `table`."""
    slip = rating_slip_start(session=lee, by=lee.started_by, key=key())
    seat_close(session=lee, by=lee.started_by, key=key())
    there = seat_open(table=table, seat=3, buy_in=300, player=lee.player, by=by, key=key())
    return rating_slip_move(slip=slip, to=there, by=by, key=key())


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_dealer_tapping_a_slip_moved_to_a_table_she_does_not_see_is_not_told_which(
    client, lee, pit, pete, headers
):
    # found on the floor: dana's pause on Mr Lee's slip, moved by the pit to Rocket 2 since, was
    # refused with "You may not deal at Rocket 2", a table she does not see
    slip = moved_away(lee, open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8), pete)

    answer = step(client, slip, "pause", **headers)

    assert answer.status_code == 403
    assert REFUSED in answer.content.decode() and "Rocket 2" not in answer.content.decode()
    assert kinds(slip) == ["started", "moved"]


def test_the_pit_page_refusing_a_slip_moved_out_of_sight_does_not_name_its_table(client, lee, pit, pete):
    # The pit's rating controls answer with the same check. (A pit manager of another pit never gets
    # here: a slip moves only between tables one person may rate at, so within one pit.)
    slip = moved_away(lee, open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8), pete)

    answer = client.post(reverse("pit:slip_step", args=[slip.pk]), {"step": "close", "key": key()})

    assert answer.status_code == 403
    assert REFUSED in answer.content.decode() and "Rocket 2" not in answer.content.decode()
    assert kinds(slip) == ["started", "moved"]
