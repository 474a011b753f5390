from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import SeatSession, Shift
from tables.services import hand_start, shift_start

from .conftest import key, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, 200, dana, name="Ann")
    hand = hand_start(table=rocket, bets={1: 20}, by=dana, key=key())
    return settle(play(hand, [5, 9, 4, 9], [("hit",)], dana), dana)  # the dealer pairs 9s: Ann wins 18


def test_a_pit_manager_sees_a_players_rating_and_the_dealers_pace(client, played, pete):
    client.force_login(pete)

    page = client.get("/pit/ratings/", {"player": "ann"}).content.decode()

    assert "<td>ann</td>" in page and ">18<" in page  # her result, whatever case the name is typed in
    assert "0.68" in page  # theoretical win: 20 units bet at the exact 8-deck Rocket edge, 3.377%
    assert "dana" in page


def test_a_dealer_cannot_see_ratings(client, played, dana):
    client.force_login(dana)
    assert client.get("/pit/ratings/").status_code == 403


def test_times_on_the_ratings_read_as_hours_and_minutes(client, played, pete):
    # given: Ann sat down and dana went on shift 2 h 05 min 40 s ago (both still there)
    since = timezone.now() - timedelta(hours=2, minutes=5, seconds=40)
    SeatSession.objects.filter(player_name="Ann").update(started_at=since)
    Shift.objects.filter(user__username="dana").update(started_at=since)
    client.force_login(pete)

    page = client.get("/pit/ratings/", {"player": "ann"}).content.decode()

    assert page.count('<td class="num">2 h 05 min</td>') == 2  # her time played, his time on shift
    assert "2:05:" not in page and "0:00:" not in page
