"""Player rating and dealer pace from hands played through the services, on a pinned clock."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.errors import DomainError
from reports.models import DEFAULT_STRATEGY
from reports.services.theory import RocketConfig, theoretical_edge
from tables.games.cards import MAX_DECKS, MIN_DECKS
from tables.games.rocket_exact import fresh_shoe
from tables.ratings import dealer_pace, hours_and_minutes, player_rating, rocket_edge
from tables.services import (
    approval_decide,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_close,
    shift_start,
)
from tables.simulation import rocket_strategy

from .conftest import key, play, seat

pytestmark = pytest.mark.django_db

EVENING = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)


class Clock:
    """The wall clock the services read, moved by hand."""

    def __init__(self, start: datetime):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **elapsed) -> None:
        self.now += timedelta(**elapsed)


@pytest.fixture
def clock(monkeypatch):
    clock = Clock(EVENING)
    monkeypatch.setattr(timezone, "now", clock)
    return clock


def dealer_pairs_nines(table, bets, dealer):
    """Seat 1 hits a 4 and the dealer pairs her 9s: seat 1 is paid 9 tenths of the bet; seat 2
    folds and pays 6 tenths of the bet (the lower of its 6 and the dealer's 9)."""
    hand = hand_start(table=table, bets=bets, by=dealer, key=key())
    hand = play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dealer)
    return hand_settle(hand=hand, by=dealer, expected_seq=hand.seq, key=key())


def voided(table, bets, dealer, pit_manager):
    hand = hand_start(table=table, bets=bets, by=dealer, key=key())
    request = hand_void_request(hand=hand, by=dealer, reason="Misdeal", expected_seq=hand.seq, key=key())
    approval_decide(request=request, by=pit_manager, approve=True, reason="Seen on camera", key=key())


@pytest.fixture
def evening(clock, rocket, dana, pete):
    """Mr Lee plays two hands and a voided one, leaves after 45 minutes, comes back at 21:00
    for one more hand and is still seated at 21:30. dana deals from 20:00 throughout."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    lee, stranger = seat(rocket, 1, 500, dana, name="Mr Lee"), seat(rocket, 2, 500, dana)
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # Lee +18
    clock.advance(minutes=10)
    dealer_pairs_nines(rocket, {1: 40, 2: 50}, dana)  # Lee +36
    clock.advance(minutes=10)
    voided(rocket, {1: 30, 2: 10}, dana, pete)  # bets handed back
    clock.advance(minutes=25)
    seat_close(session=lee, by=dana, key=key())  # 20:45
    clock.advance(minutes=15)
    seat(rocket, 1, 200, dana, name="Mr Lee")  # 21:00
    dealer_pairs_nines(rocket, {1: 20, 2: 10}, dana)  # Lee +18
    clock.advance(minutes=30)  # 21:30
    return stranger


def test_a_players_rating_sums_time_hands_bets_result_and_theoretical_win(evening):
    rating = player_rating("Mr Lee")

    assert rating.sessions == 2
    assert rating.time_played == timedelta(minutes=45 + 30)  # the open session runs to now
    assert rating.hands == 3  # the voided hand was never played
    assert (rating.total_bet, rating.average_bet) == (80, Decimal("26.67"))
    assert rating.result == 18 + 36 + 18  # buy-ins and the cash-out are not a result
    assert rating.theoretical_win == Decimal("2.70")  # 80 units bet x 3.377%, 8 decks, fresh shoe


def test_a_player_holding_two_seats_at_once_plays_the_time_once(evening, rocket, dana, clock):
    clock.advance(minutes=5)  # 21:35: Mr Lee takes seat 3 as well, and both are open at 22:05
    seat(rocket, 3, 200, dana, name="Mr Lee")
    clock.advance(minutes=30)

    rating = player_rating("Mr Lee")

    assert rating.sessions == 3
    assert rating.time_played == timedelta(minutes=45 + 65)  # 20:00-20:45 and 21:00-22:05, once each


def test_a_bet_on_a_hand_still_in_play_is_in_no_figure_of_the_rating(evening, rocket, dana):
    hand_start(table=rocket, bets={1: 100, 2: 10}, by=dana, key=key())  # Lee's 100 is on the layout

    rating = player_rating("Mr Lee")

    assert (rating.hands, rating.total_bet) == (3, 80)
    assert rating.result == 18 + 36 + 18  # not 100 less: the hand has no result yet


def test_a_losing_player_has_a_negative_result(evening):
    # the unnamed seat 2 is not rated; rate it under a name to see the house's side
    evening.player_name = "Ms Ode"
    evening.save()

    rating = player_rating("ms ode")  # names match without regard to case

    assert rating.hands == 3 and rating.total_bet == 50 + 50 + 10
    assert rating.result == -(30 + 30 + 6)  # three folds at 6 tenths of 50, 50 and 10


def test_rockets_edge_is_the_reports_exact_figure_for_the_configuration(settings):
    settings.REPORTS_EDGE_HANDS = settings.REPORTS_VARIANCE_HANDS = 2_000
    report = theoretical_edge(config=RocketConfig(decks=8))
    assert rocket_edge(8) == Decimal(str(report.fresh_edge))
    assert rocket_edge(8).quantize(Decimal("0.0001")) == Decimal("0.0338")


@pytest.mark.parametrize("decks", range(MIN_DECKS, MAX_DECKS + 1))
def test_rockets_edge_kept_for_each_shoe_is_the_solvers(decks):
    solved = fresh_shoe(decks, DEFAULT_STRATEGY, rocket_strategy(DEFAULT_STRATEGY))
    assert rocket_edge(decks) == Decimal(str(solved.edge))


def test_a_player_never_seen_has_an_empty_rating(db):
    rating = player_rating("Nobody")
    assert (rating.sessions, rating.hands, rating.total_bet, rating.result) == (0, 0, 0, 0)
    assert rating.time_played == timedelta(0) and rating.average_bet == 0


def test_an_unrated_player_cannot_be_rated(db):
    with pytest.raises(DomainError, match="no name"):
        player_rating("  ")


def test_a_dealers_pace_counts_hands_per_hour_and_voids_per_hundred(evening, dana):
    pace = dealer_pace(dana)

    assert pace.time_on_shift == timedelta(hours=1, minutes=30)
    assert (pace.hands, pace.voids) == (4, 1)
    assert pace.hands_per_hour == Decimal("2.67")
    assert pace.voids_per_hundred == Decimal("25.00")


def test_hands_outside_a_dealers_shift_are_not_theirs(evening, dana, olga, rocket, pete, clock):
    # olga relieves dana at 21:30; one more hand is dealt on her shift
    shift_start(user=olga, table=rocket, by=pete)
    from tables.models import Shift

    Shift.objects.filter(user=dana).update(ended_at=clock.now, ended_reason=Shift.Ended.END)
    clock.advance(minutes=5)
    dealer_pairs_nines(rocket, {2: 10}, olga)
    clock.advance(minutes=25)

    assert dealer_pace(dana).hands == 4
    olgas = dealer_pace(olga)
    assert (olgas.hands, olgas.voids, olgas.time_on_shift) == (1, 0, timedelta(minutes=30))
    assert olgas.hands_per_hour == Decimal("2.00")


def test_a_hand_dealt_while_two_are_on_shift_is_the_pace_of_the_one_started_last(
    evening, dana, olga, rocket, pete, clock
):
    # olga taps in at 21:30 while dana's shift goes on (a relief dealer, a shoe's device account)
    shift_start(user=olga, table=rocket, by=pete)
    clock.advance(minutes=5)
    dealer_pairs_nines(rocket, {2: 10}, olga)
    clock.advance(minutes=25)

    # the hand is olga's, as the reports by dealer count it, and not dana's as well
    assert (dealer_pace(dana).hands, dealer_pace(olga).hands) == (4, 1)


def test_a_dealer_without_shifts_has_no_pace_rather_than_a_division_by_zero(olga):
    pace = dealer_pace(olga)
    assert (pace.hands, pace.hands_per_hour, pace.voids_per_hundred) == (0, 0, 0)


def test_a_rating_takes_a_fixed_number_of_queries_however_many_hands(evening, rocket, dana, clock):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            player_rating("Mr Lee")
            dealer_pace(dana)
        return len(captured)

    before = queries()
    for _ in range(3):
        dealer_pairs_nines(rocket, {1: 20, 2: 10}, dana)
    assert player_rating("Mr Lee").hands == 6
    assert queries() == before


@pytest.mark.parametrize(
    ("duration", "shown"),
    [
        (timedelta(0), "0 min"),
        (timedelta(minutes=45, seconds=59), "45 min"),
        (timedelta(hours=2, minutes=5), "2 h 05 min"),
        (timedelta(days=1, hours=2, minutes=30), "26 h 30 min"),
    ],
)
def test_a_length_of_time_reads_as_hours_and_minutes(duration, shown):
    assert hours_and_minutes(duration) == shown
