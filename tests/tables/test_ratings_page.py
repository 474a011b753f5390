import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import SeatSession, Shift
from tables.services import hand_start, seat_close, seat_open, shift_start

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


def test_a_merged_records_play_counts_in_the_rating_of_the_record_kept(client, played, rocket, dana, pete):
    # found merging on the floor: "B. Ann" (card 2) was merged into "Ann" (card 1); Ann's player
    # page counted both records' hands, the ratings page for "Ann" only the hands seated as "Ann"
    from tables.services.players import player_create, player_merge

    ann = player_create(casino=rocket.pit.casino, name="Ann", card_number="1", by=pete)
    twin = player_create(casino=rocket.pit.casino, name="B. Ann", card_number="2", by=pete)
    seat_close(session=SeatSession.objects.get(seat__number=1), by=dana, key=key())
    seat_open(table=rocket, seat=1, buy_in=200, player=twin, by=dana, key=key())
    hand = hand_start(table=rocket, bets={1: 30}, by=dana, key=key())
    settle(play(hand, [5, 9, 4, 9], [("hit",)], dana), dana)
    player_merge(duplicate=twin, into=ann, by=pete)
    client.force_login(pete)

    page = client.get("/pit/ratings/", {"player": "Ann"}).content.decode()

    # two hands, 20 and 30 bet, each paid 9 tenths: 18 + 27
    assert re.search(r"<th>Hands</th><td class=\"num\">2</td>", page)
    assert re.search(r"<th>Total bet</th><td class=\"num\">50</td>", page)
    assert re.search(r"<th>Result \(player's net\)</th><td class=\"num\">45</td>", page)
