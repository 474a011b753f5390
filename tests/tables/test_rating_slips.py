"""Rating slips run by the floor: lifecycle, refusals that write nothing, figures equal to the
recorded hands', paused time excluded, a move between tables."""

from datetime import timedelta
from decimal import Decimal

import pytest

from casino.errors import DomainError, NotAllowed
from ledger.models import Seal
from tables.models import Game, RatingSlip, RatingSlipEvent
from tables.services import seat_close, seat_open, shift_start
from tables.services.players import player_create
from tables.services.rating_slips import (
    rating_slip_close,
    rating_slip_move,
    rating_slip_pause,
    rating_slip_resume,
    rating_slip_start,
    slip_figures,
    slip_state,
    slips_open,
)

from .conftest import key, open_table, seat
from .test_ratings import clock, dealer_pairs_nines  # noqa: F401  (the pinned clock fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def floor(clock, rocket, pit, dana, pete):  # noqa: F811
    """dana deals at Rocket 1, pete runs the pit; Mr Lee (carded) sits at seat 1 next to a stranger."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    player = player_create(casino=pit.casino, name="Mr Lee", card_number="C-100", by=pete)
    lee = seat_open(table=rocket, seat=1, buy_in=500, player=player, by=dana, key=key())
    seat(rocket, 2, 500, dana)
    return lee


def test_a_slip_counts_only_the_hands_played_while_it_ran(floor, rocket, dana, clock):  # noqa: F811
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # before the slip: not counted
    clock.advance(minutes=5)
    slip = rating_slip_start(session=floor, by=dana, device="tablet-1", key=key())
    clock.advance(minutes=10)
    dealer_pairs_nines(rocket, {1: 40, 2: 50}, dana)  # Lee +36
    clock.advance(minutes=5)
    rating_slip_pause(slip=slip, by=dana, key=key())
    clock.advance(minutes=30)
    dealer_pairs_nines(rocket, {1: 100, 2: 50}, dana)  # paused: not counted
    clock.advance(minutes=5)
    rating_slip_resume(slip=slip, by=dana, key=key())
    clock.advance(minutes=20)
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # Lee +18
    clock.advance(minutes=5)
    rating_slip_close(slip=slip, by=dana, key=key())
    clock.advance(minutes=30)
    dealer_pairs_nines(rocket, {1: 10, 2: 50}, dana)  # closed: not counted

    figures = slip_figures(slip)

    assert figures.time_played == timedelta(minutes=15 + 25)  # the 35 paused minutes do not count
    assert (figures.hands, figures.total_bet, figures.average_bet) == (2, 60, Decimal("30.00"))
    assert figures.result == 36 + 18
    assert figures.theoretical_win == Decimal("2.03")  # 60 units x the exact 8-deck Rocket edge
    kinds = list(RatingSlipEvent.objects.filter(slip=slip).values_list("kind", flat=True))
    assert kinds == ["started", "paused", "resumed", "closed"]
    assert RatingSlipEvent.objects.first().device == "tablet-1"


def test_a_slip_moves_with_the_player_to_another_table(floor, rocket, pit, dana, pete, clock):  # noqa: F811
    other = open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8)
    slip = rating_slip_start(session=floor, by=dana, key=key())
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # Lee +18
    clock.advance(minutes=10)
    seat_close(session=floor, by=dana, key=key())
    clock.advance(minutes=5)  # walking over: the slip still runs but the seat session is over
    there = seat_open(table=other, seat=1, buy_in=300, player=floor.player, by=pete, key=key())
    seat(other, 2, 300, pete)
    rating_slip_move(slip=slip, to=there, by=pete, key=key())
    dealer_pairs_nines(other, {1: 40, 2: 50}, pete)  # Lee +36
    clock.advance(minutes=20)

    figures = slip_figures(slip)

    assert slip_state(slip).session == there
    assert figures.time_played == timedelta(minutes=10 + 20)
    assert (figures.hands, figures.total_bet, figures.result) == (2, 60, 54)
    # each step sealed in the chain of the table the slip runs at from then on (docs/ledger.md)
    sealed = Seal.objects.filter(model="tables.RatingSlipEvent").order_by("pk")
    assert [(seal.event, seal.chain.name) for seal in sealed] == [
        ("started", f"table:{rocket.pk}"), ("moved", f"table:{other.pk}")
    ]


def test_one_slip_at_a_time_per_player(floor, dana):
    rating_slip_start(session=floor, by=dana, key=key())
    with pytest.raises(DomainError, match="already has an open rating slip"):
        rating_slip_start(session=floor, by=dana, key=key())
    assert RatingSlip.objects.count() == 1


def test_a_slip_started_at_a_merged_records_seat_is_the_kept_players_one_slip(floor, pit, rocket, dana, pete):
    from tables.services.players import player_merge

    twin = player_create(casino=pit.casino, name="B. Lee", card_number="C-200", by=pete)
    twins_seat = seat_open(table=rocket, seat=3, buy_in=100, player=twin, by=dana, key=key())
    player_merge(duplicate=twin, into=floor.player, by=pete)
    slip = rating_slip_start(session=floor, by=dana, key=key())

    # one person, one slip: the duplicate's seat starts none while the kept record's runs
    with pytest.raises(DomainError, match="already has an open rating slip"):
        rating_slip_start(session=twins_seat, by=dana, key=key())
    rating_slip_close(slip=slip, by=dana, key=key())
    # and a slip started there is the kept record's
    assert rating_slip_start(session=twins_seat, by=dana, key=key()).player == floor.player
    assert RatingSlip.objects.count() == 2


def test_a_slip_on_a_merged_record_is_the_persons_at_every_seat_of_theirs(floor, pit, rocket, dana, pete):
    # found trying the floor: after a merge the table offered "Start rating" at the kept record's
    # seat while the duplicate's slip ran at the other, and two records each with a slip merged
    from tables.screens import table_screen
    from tables.services.players import PlayerError, player_merge

    twin = player_create(casino=pit.casino, name="B. Lee", card_number="C-200", by=pete)
    twins_seat = seat_open(table=rocket, seat=3, buy_in=100, player=twin, by=dana, key=key())
    twins_slip = rating_slip_start(session=twins_seat, by=dana, key=key())
    lees_slip = rating_slip_start(session=floor, by=dana, key=key())

    with pytest.raises(PlayerError, match="each have a rating slip open: close one of them before merging"):
        player_merge(duplicate=twin, into=floor.player, by=pete)
    rating_slip_close(slip=lees_slip, by=dana, key=key())
    player_merge(duplicate=twin, into=floor.player, by=pete)

    ratings = {seat["number"]: seat.get("rating") for seat in table_screen(rocket)["seats"]}
    assert ratings == {1: "elsewhere", 2: None, 3: "running", 4: None, 5: None, 6: None}
    assert slips_open([floor.player.pk, twin.pk]).get() == twins_slip


def test_an_anonymous_player_is_not_rated(floor, rocket, dana):
    anonymous = seat(rocket, 3, 100, dana, name="Tall man")
    with pytest.raises(DomainError, match="carded"):
        rating_slip_start(session=anonymous, by=dana, key=key())
    assert not RatingSlip.objects.exists()


def test_only_the_tables_dealer_or_the_pit_runs_a_slip(floor, olga, dana):
    with pytest.raises(NotAllowed):
        rating_slip_start(session=floor, by=olga, key=key())
    slip = rating_slip_start(session=floor, by=dana, key=key())
    with pytest.raises(NotAllowed):
        rating_slip_pause(slip=slip, by=olga, key=key())
    assert RatingSlipEvent.objects.count() == 1


def test_steps_out_of_order_are_refused_and_write_nothing(floor, dana, pete):
    slip = rating_slip_start(session=floor, by=dana, key=key())
    with pytest.raises(DomainError, match="paused slip"):
        rating_slip_resume(slip=slip, by=dana, key=key())
    rating_slip_close(slip=slip, by=pete, key=key())
    for step in (rating_slip_pause, rating_slip_close):
        with pytest.raises(DomainError):
            step(slip=slip, by=dana, key=key())
    assert RatingSlipEvent.objects.count() == 2


def test_a_move_to_someone_elses_seat_is_refused(floor, rocket, dana):
    slip = rating_slip_start(session=floor, by=dana, key=key())
    stranger = rocket.seats.get(number=2).sessions.get()
    with pytest.raises(DomainError, match="not Mr Lee"):
        rating_slip_move(slip=slip, to=stranger, by=dana, key=key())
    assert RatingSlipEvent.objects.count() == 1


def test_a_slip_follows_the_player_to_a_new_seat_at_the_same_table(floor, rocket, dana, clock):  # noqa: F811
    # found on the tablet: Mr Lee changed seats (cashed out at seat 1, sat down at seat 4); seat 4
    # offered "Move rating slip here", which was refused ("at the same table it simply runs on"),
    # yet the slip had stopped with the old seat: it could neither resume nor move, only close
    slip = rating_slip_start(session=floor, by=dana, key=key())
    dealer_pairs_nines(rocket, {1: 20, 2: 50}, dana)  # Lee +18
    clock.advance(minutes=10)
    seat_close(session=floor, by=dana, key=key())
    clock.advance(minutes=2)  # changing seats: the slip counts nothing meanwhile
    new_seat = seat_open(table=rocket, seat=4, buy_in=100, player=floor.player, by=dana, key=key())
    rating_slip_move(slip=slip, to=new_seat, by=dana, key=key())
    dealer_pairs_nines(rocket, {2: 50, 4: 40}, dana)  # seat 2 hits; Lee at 4 folds his 6: -24
    clock.advance(minutes=5)

    figures = slip_figures(slip)

    assert slip_state(slip).session == new_seat
    assert figures.time_played == timedelta(minutes=10 + 5)
    assert (figures.hands, figures.total_bet, figures.result) == (2, 60, 18 - 24)


def test_a_slip_does_not_move_to_another_seat_while_the_player_holds_the_old_one(floor, rocket, dana):
    slip = rating_slip_start(session=floor, by=dana, key=key())
    second = seat_open(table=rocket, seat=4, buy_in=100, player=floor.player, by=dana, key=key())
    with pytest.raises(DomainError, match="still sits at Rocket 1 seat 1: the slip runs on there"):
        rating_slip_move(slip=slip, to=second, by=dana, key=key())
    assert slip_state(slip).session == floor
    assert RatingSlipEvent.objects.count() == 1
