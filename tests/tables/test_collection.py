"""The house's collection at the table: the rake and the fee booked to the rake account, shown on
the tablet before the confirm, old hands replayed as collecting nothing, and the time charge taken
once per period of seat time (RULINGS.md "House revenue on pot games")."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.errors import DomainError
from ledger.models import Account, Transaction
from ledger.services import account_get
from tables.models import Game, Hand, SeatSession, TimeCharge
from tables.pit.presenters import settlement_rows
from tables.screens import hand_screen, table_screen
from tables.services import hand_start, seat_close, shift_start
from tables.services.collection import time_charges_post
from tables.services.engine import engine_for, replay

from .conftest import key, open_table, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db

# Seat 2 (the low 2) takes a second 10 with 5 white stones out: it pays the ante 100 plus 5.
SECOND_TEN = ([4, 2, 6, 10, 9, 8, 10], [("take", 1)] * 4)


def rake_balance(table) -> int:
    return account_get(kind=Account.Kind.RAKE, table=table).balance


def chips(table, number) -> int:
    session = SeatSession.objects.get(seat__table=table, seat__number=number, ended_at=None)
    return account_get(kind=Account.Kind.PLAYER, table=table, ref=session.pk).balance


def blackstone_at(pit, pete, **options):
    return open_table(pit, pete, Game.BLACKSTONE, "Blackstone 9", 5, 500, options={"ante": 100, **options})


def test_a_blackstone_pot_is_raked_into_the_tables_rake_account_by_default(pit, pete, dana):
    table = blackstone_at(pit, pete)
    for number in (1, 2, 3):
        seat(table, number, 300, dana)
    hand = play(hand_start(table=table, by=dana, key=key()), *SECOND_TEN, dana)

    # The pot of 105: the house takes 5% (5 units), seats 1 and 3 split 100.
    screen = hand_screen(hand)
    assert screen["settlement"]["house_take"] == {
        "amount": 5,
        "says": "The house takes 5 (rake 5% of the pot paid out, rounded down, at most 10).",
    }
    assert {"party": "house", "who": "The house (rake)", "amount": 5, "reason": "rake"} in (
        screen["settlement"]["paid"]
    )
    settle(hand, dana)
    assert rake_balance(table) == 5
    assert [chips(table, n) for n in (1, 2, 3)] == [350, 195, 350]
    reviewed = settlement_rows(Hand.objects.get(pk=hand.pk))  # the pit review names the rake
    assert [row["who"] for row in reviewed].count("The house (rake)") == 1


def test_the_hand_records_its_collection_so_a_later_change_of_the_table_does_not_change_it(pit, pete, dana):
    table = blackstone_at(pit, pete, collection="none")
    seat(table, 1, 300, dana), seat(table, 2, 300, dana), seat(table, 3, 300, dana)
    hand = hand_start(table=table, by=dana, key=key())
    table.options = {"ante": 100}  # back to the default rake
    table.save()
    hand = play(hand, *SECOND_TEN, dana)
    assert hand.options["collection"] == "none"
    assert engine_for(hand).settlement().deltas["house"] == 0


def test_a_hand_recorded_before_the_collection_option_replays_as_collecting_nothing(pit, pete, dana):
    table = blackstone_at(pit, pete)
    seat(table, 1, 300, dana), seat(table, 2, 300, dana), seat(table, 3, 300, dana)
    hand = play(hand_start(table=table, by=dana, key=key()), *SECOND_TEN, dana)
    old = {**hand.setup, "options": {"ante": 100}}  # as a hand started before the option existed
    Hand.objects.filter(pk=hand.pk).update(setup=old)
    hand.refresh_from_db()

    settlement = replay(hand).settlement()
    assert settlement.deltas == {1: 52, 2: -105, 3: 52, "house": 0, "carry": 1}
    settle(hand, dana)
    assert rake_balance(table) == 0


def test_under_the_fee_each_player_pays_the_house_and_one_without_ante_and_fee_cannot_sit_in(pit, pete, dana):
    table = blackstone_at(pit, pete, collection="fee", fee=2)
    seat(table, 1, 300, dana), seat(table, 2, 300, dana), seat(table, 3, 100, dana)
    refusal = "Seat 3 has 100 units in front; the ante is 100 and the house's fee 2"
    with pytest.raises(DomainError, match=refusal):
        hand_start(table=table, by=dana, key=key())
    seat_close(session=SeatSession.objects.get(seat__table=table, seat__number=3), by=dana, key=key())
    seat(table, 3, 300, dana)

    hand = play(hand_start(table=table, by=dana, key=key()), *SECOND_TEN, dana)
    assert hand_screen(hand)["settlement"]["house_take"]["says"] == (
        "The house takes 6 (a fee of 2 from each player dealt in)."
    )
    settle(hand, dana)
    assert rake_balance(table) == 6
    assert [chips(table, n) for n in (1, 2, 3)] == [300 + 52 - 2, 300 - 105 - 2, 300 + 52 - 2]


def test_a_pairs_game_pays_the_fee_once_on_its_first_round(pit, pete, dana):
    options = {"ending": "cutchfeld", "collection": "fee"}
    table = open_table(pit, pete, Game.PAIRS, "Pairs 9", 1, 100, options=options)
    seat(table, 1, 50, dana), seat(table, 2, 50, dana), seat(table, 3, 1, dana)
    # Seat 1 starts on the low 3 and pairs it: the first round moves only the fees.
    hand = settle(play(hand_start(table=table, by=dana, key=key()), [3, 5, 6, 3], [("hit",)], dana), dana)
    assert hand.settlement["deltas"] == {"1": -1, "2": -1, "3": -1, "house": 3, "carry": 0}
    hand = settle(play(hand_start(table=table, by=dana, key=key()), [4, 5, 6, 4], [("hit",)], dana), dana)
    assert set(hand.settlement["deltas"].values()) == {0}
    assert hand_screen(hand)["settlement"]["house_take"] is None  # a round that moves no chips
    assert rake_balance(table) == 3


# -- The time charge -----------------------------------------------------------------


def starboard_by_time(pit, pete, **options):
    options = {"collection": "time", "time_fee": 5, "time_minutes": 30, **options}
    return open_table(pit, pete, Game.STARBOARD, "Starboard 9", 1, 100, options=options)


def sat_down(table, number, minutes_ago: int):
    session = SeatSession.objects.get(seat__table=table, seat__number=number, ended_at=None)
    earlier = session.started_at - timedelta(minutes=minutes_ago)
    SeatSession.objects.filter(pk=session.pk).update(started_at=earlier)
    return SeatSession.objects.get(pk=session.pk)


def test_the_time_charge_is_taken_at_the_sit_down_and_at_the_first_deal_of_each_period(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    seat(table, 1, 50, dana), seat(table, 2, 50, dana)
    assert rake_balance(table) == 10  # period 1 of each seat, at the sit-down
    sat_down(table, 1, minutes_ago=61)  # seat 1 is in its third period

    hand_start(table=table, by=dana, key=key())

    charges = TimeCharge.objects.filter(session__seat__table=table)
    charges = charges.order_by("session__seat__number", "period")
    charged = [(c.session.seat.number, c.period, c.amount) for c in charges]
    assert charged == [(1, 0, 5), (1, 1, 5), (1, 2, 5), (2, 0, 5)]
    assert rake_balance(table) == 20
    assert Transaction.objects.filter(table=table, kind=Transaction.Kind.TIME_CHARGE).count() == 4


def test_a_period_is_charged_once_however_often_the_table_asks(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    seat(table, 1, 50, dana)
    session = sat_down(table, 1, minutes_ago=45)
    now = timezone.now()
    time_charges_post(table=table, sessions={1: session}, by=dana, now=now)
    time_charges_post(table=table, sessions={1: session}, by=dana, now=now)
    assert list(TimeCharge.objects.filter(session=session).values_list("period", flat=True)) == [0, 1]
    with pytest.raises(IntegrityError), transaction.atomic():
        TimeCharge.objects.create(
            session=session, period=1, amount=5, due_at=now, at=now, by=dana,
            transaction=Transaction.objects.filter(kind=Transaction.Kind.TIME_CHARGE).last(),
        )


def test_a_player_who_cannot_pay_the_time_charge_cannot_be_dealt_in(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    seat(table, 1, 50, dana), seat(table, 2, 3, dana)
    with pytest.raises(DomainError, match="Seat 2 owes the time charge of 5 units and cannot pay it"):
        hand_start(table=table, by=dana, key=key())
    assert chips(table, 2) == 3 and rake_balance(table) == 5  # the refused start wrote nothing


def test_the_cash_out_takes_the_periods_begun_and_drops_one_the_player_cannot_pay(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    seat(table, 1, 12, dana)
    session = sat_down(table, 1, minutes_ago=95)  # four periods begun; 12 pays the first two
    seat_close(session=session, by=dana, key=key())
    assert TimeCharge.objects.filter(session=session).count() == 2
    assert rake_balance(table) == 10


def test_the_table_screen_shows_when_each_seats_next_time_charge_falls_due(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    seat(table, 1, 50, dana)
    session = sat_down(table, 1, minutes_ago=40)

    screen = table_screen(table)

    first = screen["seats"][0]
    assert first["time_due"] == session.started_at + timedelta(minutes=30) and first["time_due_now"]
    assert screen["collection"] == "The house charges each seated player 5 every 30 minutes."
    time_charges_post(table=table, sessions={1: session}, by=dana, now=timezone.now())
    first = table_screen(table)["seats"][0]
    assert first["time_due"] == session.started_at + timedelta(minutes=60) and not first["time_due_now"]
    assert "time_due" not in table_screen(table)["seats"][1]


def test_a_time_table_collects_nothing_in_the_hand_itself(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    for number in (1, 2, 3):
        seat(table, number, 50, dana)
    decisions = [("draw",), ("lock",), ("draw",), ("lock",)]
    hand = play(hand_start(table=table, by=dana, key=key()), [4, 6, 8, 4], decisions, dana)
    assert hand_screen(hand)["settlement"]["house_take"] is None
    assert settle(hand, dana).settlement["deltas"]["house"] == 0


def test_a_pot_games_theoretical_win_is_the_houses_take_shared_by_bet(pit, pete, dana):
    from decimal import Decimal

    from tables.ratings import bets_by_game, hand_edges, player_rating

    table = blackstone_at(pit, pete)
    lee = seat(table, 1, 300, dana, name="Mr Lee")
    seat(table, 2, 300, dana), seat(table, 3, 300, dana)
    hand = settle(play(hand_start(table=table, by=dana, key=key()), *SECOND_TEN, dana), dana)

    hands = Hand.objects.filter(pk=hand.pk)
    staked = bets_by_game(SeatSession.objects.filter(seat__table=table), hands)[Game.BLACKSTONE]
    assert hand_edges(hands) == {hand.pk: Decimal(5) / staked}  # the rake of 5 over all that was bet
    lee_bet = bets_by_game(SeatSession.objects.filter(pk=lee.pk), hands)[Game.BLACKSTONE]
    expected = (Decimal(5) * lee_bet / staked).quantize(Decimal("0.01"))
    assert lee_bet > 0 and player_rating("Mr Lee").theoretical_win == expected



def change_options(table, pete, options):
    """A pit manager on shift changes the table's options (with a threshold its limits can reach)."""
    from tables.services.settings import table_settings_change

    changed = {"options": options, "payout_approval_threshold": 10}
    return table_settings_change(table=table, by=pete, reason="r", **changed)


def test_time_collection_cannot_start_under_a_seated_player_who_would_pay_for_time_before_it(pit, pete, dana):
    # found trying the floor: switched to time collection 5 minutes after the sit-down (5 units a
    # minute), the next deal took five periods from each player, all of them from before the switch
    from casino.models import AuditEvent

    table = open_table(pit, pete, Game.STARBOARD, "Starboard 9", 1, 100)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 50, dana)
    sat_down(table, 1, minutes_ago=5)
    by_time = {"collection": "time", "time_fee": 5, "time_minutes": 1}
    events = AuditEvent.objects.count()

    with pytest.raises(DomainError, match="time collection cannot start or change its period while a player"):
        change_options(table, pete, by_time)

    table.refresh_from_db()
    assert table.options.get("collection") != "time" and AuditEvent.objects.count() == events
    seat_close(session=SeatSession.objects.get(seat__table=table, ended_at=None), by=dana, key=key())
    assert change_options(table, pete, by_time).options == by_time


def test_a_time_table_with_players_seated_may_change_its_fee_or_stop_but_not_its_period(pit, pete, dana):
    table = starboard_by_time(pit, pete)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 50, dana)
    options = table.options

    with pytest.raises(DomainError, match="cannot start or change its period"):
        change_options(table, pete, {**options, "time_minutes": 10})
    assert change_options(table, pete, {**options, "time_fee": 6}).options["time_fee"] == 6
    assert change_options(table, pete, {**options, "collection": "rake"}).options["collection"] == "rake"


def test_a_points_game_played_for_nothing_collects_nothing_and_says_so(pit, pete, dana):
    # "The house collects only when the game is played for stakes" (docs/rules/README.md).
    sweep = open_table(pit, pete, Game.SWEEP, "Sweep 9", 1, 100, burn=0)
    timed = {"collection": "time", "time_fee": 5, "time_minutes": 30}
    kitty = open_table(pit, pete, Game.KITTY, "Kitty 9", 1, 100, options=timed, burn=0)
    assert table_screen(sweep)["collection"] == table_screen(kitty)["collection"] == ""

    seat(kitty, 1, 50, dana)

    assert rake_balance(kitty) == 0 and chips(kitty, 1) == 50
    assert not TimeCharge.objects.filter(session__seat__table=kitty).exists()


def test_a_points_game_played_for_stakes_collects_as_the_table_says(pit, pete, dana):
    table = open_table(pit, pete, Game.SWEEP, "Sweep 9", 1, 100, options={"point_value": 1}, burn=0)
    assert table_screen(table)["collection"] == "The house rakes 5% of each pot paid out, at most 10."
