"""A Pairs game has fixed players (RULINGS.md "Tables, seats and games"): a player seated mid-game
waits for the next game, and a player who leaves mid-game loses it, the game settling at once
under the table's ending, with the cash-out. Through the services, the tablet and the API."""

import pytest
from django.contrib.auth.models import Group
from django.db.models import Sum
from rest_framework.test import APIClient

from casino.errors import DomainError
from casino.models import AuditEvent
from casino.roles import ROLES, grant_role_permissions
from ledger.audit import ledger_verify
from ledger.models import Account, Posting, Seal, Transaction
from ledger.services import account_get
from tables.games.pairs_endings import settle_game
from tables.models import Game, Hand, IdempotentRequest, SeatSession
from tables.ratings import dealer_pace
from tables.screens import hand_screen, table_screen
from tables.services import hand_settle, hand_settle_and_continue, hand_start, seat_close
from tables.services.seating import player_account

from .conftest import card, deal_at, key, open_table, play, seat

pytestmark = pytest.mark.django_db

BUY_IN = 50


@pytest.fixture(autouse=True)
def roles(db):
    """Role groups with their permissions (a transactional test elsewhere may have flushed them)."""
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()


def pairs_table(pit, pete, dana, **options):
    """A Cutchfeld table that collects nothing unless `options` say so: these tests are about the
    game, its payments as `settle_game` gives them (which collects nothing unless told)."""
    options = {"ending": "cutchfeld", "collection": "none", **options}
    table = open_table(pit, pete, Game.PAIRS, "Pairs 3", 1, 100, options=options)
    deal_at(table, dana, pete)
    return table


def round_(table, cards, by, decisions=(("fold",),)):
    """Deal a round of `cards` (seat order), play `decisions` and confirm its settlement."""
    hand = play(hand_start(table=table, by=by, key=key()), cards, list(decisions), by)
    return hand_settle(hand=hand, by=by, expected_seq=hand.seq, key=key())


@pytest.fixture
def game(pit, pete, dana):
    """Three players at a Cutchfeld table (losing at 21): seat 1 folds for 4, then seat 2 for 5;
    the game goes on at 4, 5, 0."""
    table = pairs_table(pit, pete, dana)
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat(table, number, BUY_IN, dana, name)
    round_(table, [4, 6, 8], dana)  # seat 1 starts on the 4 and folds: scores 4
    round_(table, [7, 5, 9], dana)  # seat 2 starts on the 5 and folds: scores 5
    return table


def session_at(table, number) -> SeatSession:
    return SeatSession.objects.get(seat__table=table, seat__number=number, ended_at=None)


def chips(table, number) -> int:
    return player_account(session_at(table, number)).balance


def written() -> dict:
    models = (Transaction, Posting, AuditEvent, Hand, IdempotentRequest)
    return {
        **{model.__name__: model.objects.count() for model in models},
        "seated": SeatSession.objects.filter(ended_at=None).count(),
    }


def forfeit_postings(table) -> dict[int, int]:
    """Each seat's net from the game's forfeit settlement, as the ledger holds it."""
    [forfeit] = Transaction.objects.filter(table=table, kind=Transaction.Kind.SETTLEMENT, hand_id=None)
    seats = {session.pk: session.seat.number for session in SeatSession.objects.filter(seat__table=table)}
    rows = forfeit.postings.filter(account__kind=Account.Kind.PLAYER).values_list("account__ref", "amount")
    return {seats[ref]: amount for ref, amount in rows}


def seat_deltas(settlement) -> dict[int, int]:
    return {seat: delta for seat, delta in settlement.deltas.items() if isinstance(seat, int) and delta}


def chips_on_the_table(table) -> int:
    players = Account.objects.filter(table=table, kind=Account.Kind.PLAYER).aggregate(total=Sum("balance"))
    return players["total"] + account_get(kind=Account.Kind.CARRY, table=table).balance


# A player seated mid-game waits


def test_a_player_seated_mid_game_does_not_play_until_the_game_ends_and_the_scores_carry(pit, pete, dana):
    table = pairs_table(pit, pete, dana, target=10)
    seat(table, 1, BUY_IN, dana), seat(table, 2, BUY_IN, dana), seat(table, 3, BUY_IN, dana)
    round_(table, [4, 6, 8], dana)  # seat 1 scores 4
    seat(table, 4, BUY_IN, dana, "Dee")  # sits down during the game

    second = round_(table, [5, 7, 9], dana)  # seat 1 scores 5 more
    third = round_(table, [6, 8, 10], dana)  # and 6 more: 15, the game is lost at 10
    first_of_next = hand_start(table=table, by=dana, key=key())

    assert second.seats == third.seats == [1, 2, 3]
    assert second.stakes == {"1": 4, "2": 0, "3": 0} and third.stakes == {"1": 9, "2": 0, "3": 0}
    assert third.settlement["result"]["game_over"] and third.settlement["result"]["loser"] == 1
    assert chips(table, 4) == BUY_IN  # seat 4 paid nothing of the game it did not play
    assert first_of_next.seats == [1, 2, 3, 4] and first_of_next.stakes == dict.fromkeys("1234", 0)


def test_a_player_waiting_for_the_next_game_may_leave_and_the_game_goes_on(game, dana):
    waiting = seat(game, 4, BUY_IN, dana)

    seat_close(session=waiting, by=dana, key=key())
    following = hand_start(table=game, by=dana, key=key())

    assert following.seats == [1, 2, 3] and following.stakes == {"1": 4, "2": 5, "3": 0}
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.GAME_FORFEIT).exists()


def test_a_continuous_game_goes_on_with_its_stacks_while_a_new_player_waits(pit, pete, dana):
    table = pairs_table(pit, pete, dana, continuous=True)
    seat(table, 1, BUY_IN, dana), seat(table, 2, BUY_IN, dana)
    round_(table, [4, 6], dana, [("fold", 1, 4)])  # seat 1 takes its own 4: seat 2's 6 stays in play
    seat(table, 3, BUY_IN, dana)

    following = hand_start(table=table, by=dana, key=key())

    assert following.seats == [1, 2] and following.state["in_play"] == {"1": [], "2": [6]}


# A player who leaves mid-game loses it


def test_a_player_cashing_out_mid_game_loses_it_and_the_game_settles_at_once(game, dana):
    before = chips_on_the_table(game)  # the players' chips, and the carry

    gone = seat_close(session=session_at(game, 1), by=dana, key=key())

    # Cutchfeld as if seat 1 had reached 21: seat 1 pays its 21 to the lowest scorer, seat 3.
    replayed = settle_game({1: 21, 2: 5, 3: 0}, ending="cutchfeld", loser=1, carry=0)
    assert forfeit_postings(game) == seat_deltas(replayed)
    assert forfeit_postings(game) == {1: -21, 3: 21}
    cash_out = Transaction.objects.get(kind=Transaction.Kind.CASH_OUT)
    assert cash_out.postings.get(account__kind=Account.Kind.PLAYER).amount == -(BUY_IN - 21)
    assert player_account(gone).balance == 0 and chips(game, 3) == BUY_IN + 21
    assert chips_on_the_table(game) + (BUY_IN - 21) == before  # chips conserved
    assert ledger_verify().clean  # every transaction balances, every chain verifies
    event = AuditEvent.objects.get(action=AuditEvent.Action.GAME_FORFEIT)
    assert (event.user, event.detail["seat"], event.detail["ending"]) == (dana, 1, "cutchfeld")


def test_a_game_left_mid_way_pays_the_house_its_rake_from_the_prize(pit, pete, dana):
    table = pairs_table(pit, pete, dana, collection="rake")
    for number in (1, 2, 3):
        seat(table, number, BUY_IN, dana)
    round_(table, [4, 6, 8], dana)
    round_(table, [7, 5, 9], dana)

    seat_close(session=session_at(table, 1), by=dana, key=key())

    # Seat 1 pays 21 as if it had reached it: 5% of it, 1 unit, goes to the house; seat 3 gets 20.
    assert forfeit_postings(table) == {1: -21, 3: 20}
    assert account_get(kind=Account.Kind.RAKE, table=table).balance == 1


def test_after_a_player_left_the_next_hand_starts_a_new_game_with_the_players_seated(game, dana):
    seat_close(session=session_at(game, 2), by=dana, key=key())
    seat(game, 4, BUY_IN, dana)

    following = hand_start(table=game, by=dana, key=key())

    assert following.seats == [1, 3, 4] and following.stakes == dict.fromkeys("134", 0)


@pytest.mark.parametrize(
    "ending, leaver, paid",
    [
        ("downspear", 1, {1: -2, 2: 1, 3: 1}),
        ("norland", 2, {2: -1, 3: 1}),
        ("tacoma", 3, {3: -6, 1: 6}),  # seat 3 leaves on 0: as if on 21, the lowest is seat 1 on 4
        ("olympia", 2, {2: -21, 3: 21}),
        ("portland", 2, {2: -38, 1: 17, 3: 21}),
    ],
)
def test_a_game_left_mid_way_settles_under_the_tables_ending_as_settle_game_replays_it(
    pit, pete, dana, ending, leaver, paid
):
    table = pairs_table(pit, pete, dana, ending=ending)
    for number in (1, 2, 3):
        seat(table, number, BUY_IN, dana)
    round_(table, [4, 6, 8], dana), round_(table, [7, 5, 9], dana)  # scores 4, 5, 0

    seat_close(session=session_at(table, leaver), by=dana, key=key())

    scores = {1: 4, 2: 5, 3: 0, leaver: 21}
    replayed = settle_game(scores, ending=ending, loser=leaver, carry=0)
    assert forfeit_postings(table) == paid
    assert paid == seat_deltas(replayed)


def test_a_split_prize_left_mid_game_takes_the_carried_pot_and_carries_its_odd_units(pit, pete, dana):
    table = pairs_table(pit, pete, dana, target=10)
    for number in (1, 2, 3, 4):
        seat(table, number, BUY_IN, dana)
    round_(table, [4, 6, 8, 9], dana), round_(table, [5, 7, 9, 10], dana)  # seat 1 on 9
    round_(table, [7, 5, 6, 8], dana)  # seat 2 on 5
    hand = round_(table, [6, 8, 10, 9], dana)  # seat 1 folds for 6: 15, pays 15 to seats 3 and 4
    assert hand.settlement["carry_out"] == 1  # 7 each, 1 carried
    round_(table, [3, 2, 7, 8], dana)  # the next game: seat 2 scores 2

    seat_close(session=session_at(table, 2), by=dana, key=key())

    # As if seat 2 had reached 10 (the table's losing score): 10 and the carried 1, split by 1, 3, 4.
    replayed = settle_game({1: 0, 2: 10, 3: 0, 4: 0}, ending="cutchfeld", loser=2, carry=1)
    assert forfeit_postings(table) == {2: -10, 1: 3, 3: 3, 4: 3}
    assert replayed.carry_out == 2 == account_get(kind=Account.Kind.CARRY, table=table).balance


def test_under_the_forfeit_ending_a_player_who_leaves_loses_the_game_and_no_chips_move(pit, pete, dana):
    table = pairs_table(pit, pete, dana, ending="forfeit")
    seat(table, 1, BUY_IN, dana), seat(table, 2, BUY_IN, dana), seat(table, 3, BUY_IN, dana)
    round_(table, [4, 6, 8], dana)

    seat_close(session=session_at(table, 3), by=dana, key=key())

    assert not Transaction.objects.filter(kind=Transaction.Kind.SETTLEMENT).exists()
    assert AuditEvent.objects.get(action=AuditEvent.Action.GAME_FORFEIT).detail["seat"] == 3
    assert hand_start(table=table, by=dana, key=key()).stakes == {"1": 0, "2": 0}


def test_a_retried_cash_out_settles_the_game_once(game, dana):
    session, same = session_at(game, 1), key()

    seat_close(session=session, by=dana, key=same)
    seat_close(session=session, by=dana, key=same)  # the answer was lost: the tablet retries

    assert Transaction.objects.filter(kind=Transaction.Kind.SETTLEMENT, hand_id=None).count() == 1
    assert Transaction.objects.filter(kind=Transaction.Kind.CASH_OUT).count() == 1
    assert AuditEvent.objects.filter(action=AuditEvent.Action.GAME_FORFEIT).count() == 1


# A player leaves between rounds: the round the last one's settlement opened is not dealt yet


def next_round(table, cards, by) -> Hand:
    """Deal a round of `cards` (seat 1 folds) and confirm it as the tablet does: the settlement
    opens the game's next round, with nothing dealt in it."""
    hand = play(hand_start(table=table, by=by, key=key()), cards, [("fold",)], by)
    return hand_settle_and_continue(hand=hand, by=by, expected_seq=hand.seq, key=key())


def test_a_player_leaving_before_the_next_round_is_dealt_loses_the_game_and_the_round_closes(pit, pete, dana):
    table = pairs_table(pit, pete, dana)
    for number in (1, 2, 3):
        seat(table, number, BUY_IN, dana)
    undealt = next_round(table, [4, 6, 8], dana)  # seat 1 scores 4; the next round is open
    assert undealt.status == Hand.Status.IN_PROGRESS and undealt.seq == 0

    seat_close(session=session_at(table, 2), by=dana, key=key())

    undealt.refresh_from_db()
    assert undealt.status == Hand.Status.VOIDED
    assert forfeit_postings(table) == {2: -21, 3: 21}  # Cutchfeld: the loser pays the lowest scorer
    assert Seal.objects.filter(model="tables.Hand", record=undealt.pk, event="voided").exists()
    event = AuditEvent.objects.get(action=AuditEvent.Action.ROUND_WITHDRAWN)
    assert (event.detail["hand"], event.detail["seat"]) == (undealt.pk, 2)
    assert AuditEvent.objects.get(action=AuditEvent.Action.GAME_FORFEIT).detail["seat"] == 2
    assert dealer_pace(dana).voids == 0 and dealer_pace(dana).hands == 1  # not the dealer's void
    assert hand_start(table=table, by=dana, key=key()).seats == [1, 3]  # a new game
    assert ledger_verify().clean


# Refusals write nothing


def test_a_player_in_the_round_being_played_cannot_cash_out_and_nothing_is_written(game, dana):
    card(hand_start(table=game, by=dana, key=key()), 4, dana)
    before = written()

    with pytest.raises(DomainError, match="Seat 1 is in the hand being played; cash out after it is settled"):
        seat_close(session=session_at(game, 1), by=dana, key=key())

    assert written() == before


def test_a_player_who_cannot_pay_the_game_they_leave_is_refused_and_nothing_is_written(pit, pete, dana):
    table = pairs_table(pit, pete, dana, ending="portland")
    seat(table, 1, BUY_IN, dana), seat(table, 2, 30, dana), seat(table, 3, BUY_IN, dana)
    round_(table, [4, 6, 8], dana), round_(table, [7, 5, 9], dana)  # scores 4, 5, 0
    before = written()

    with pytest.raises(DomainError, match="has 30 units in front; paying 38 is more than that"):
        seat_close(session=session_at(table, 2), by=dana, key=key())

    assert written() == before


# The tablet's screens


def test_the_table_screen_shows_the_game_in_progress_its_scores_and_who_waits(game, dana):
    seat(game, 4, BUY_IN, dana, "Dee")

    screen = table_screen(game)

    pairs = screen["pairs"]
    assert pairs["in_game"] and pairs["target"] == 21 and pairs["players"] == [1, 2, 3]
    assert [(row["seat"], row["score"], row["to_lose"]) for row in pairs["standing"]] == [
        (3, 0, 21), (1, 4, 17), (2, 5, 16)
    ]
    seats = {seat["number"]: seat for seat in screen["seats"]}
    assert [(seats[n]["score"], seats[n]["waits"]) for n in (1, 2, 3, 4)] == [
        (4, False), (5, False), (0, False), (None, True)
    ]
    assert seats[1]["forfeit"] == 21 and seats[3]["forfeit"] == 21


def test_the_table_screen_shows_how_a_game_left_mid_way_ended_and_its_payments(game, dana):
    seat_close(session=session_at(game, 1), by=dana, key=key())

    pairs = table_screen(game)["pairs"]

    assert not pairs["in_game"] and pairs["target"] == 31  # two players left: the chart's 31
    assert pairs["last_game"]["says"] == "Seat 1 (Ann) left during the game and loses it. Ending: Cutchfeld."
    assert [(line["who"], line["amount"]) for line in pairs["last_game"]["pays"]] == [("Seat 1 (Ann)", 21)]
    assert [(line["who"], line["amount"]) for line in pairs["last_game"]["paid"]] == [("Seat 3 (Cy)", 21)]


def test_only_the_first_player_to_leave_loses_and_the_table_still_names_them(game, dana):
    seat_close(session=session_at(game, 2), by=dana, key=key())
    seat_close(session=session_at(game, 1), by=dana, key=key())  # the game was already over

    assert Transaction.objects.filter(kind=Transaction.Kind.SETTLEMENT, hand_id=None).count() == 1
    assert AuditEvent.objects.filter(action=AuditEvent.Action.GAME_FORFEIT).count() == 1
    assert table_screen(game)["pairs"]["last_game"]["says"].startswith("Seat 2 (Bob) left during the game")


def test_the_hand_screen_of_the_round_that_ends_a_game_names_the_ending_and_each_payment(pit, pete, dana):
    table = pairs_table(pit, pete, dana, target=4, ending="downspear")
    seat(table, 1, BUY_IN, dana, "Ann"), seat(table, 2, BUY_IN, dana, "Bob"), seat(table, 3, BUY_IN, dana)
    hand = play(hand_start(table=table, by=dana, key=key()), [4, 6, 8], [("fold",)], dana)

    settlement = hand_screen(hand)["settlement"]

    assert settlement["game_end"] == "Seat 1 (Ann) reached 4 points and loses the game. Ending: Downspear."
    assert [(line["who"], line["amount"]) for line in settlement["pays"]] == [("Seat 1 (Ann)", 2)]
    paid = [(line["who"], line["amount"]) for line in settlement["paid"]]
    assert paid == [("Seat 2 (Bob)", 1), ("Seat 3", 1)]


# Through the tablet and the API


def tablet(client, dana):
    client.force_login(dana)
    return client


def test_the_tablet_shows_scores_and_a_waiting_player_and_warns_that_leaving_loses(client, game, dana):
    seat(game, 4, BUY_IN, dana, "Dee")

    html = tablet(client, dana).get(f"/tablet/{game.pk}/").content.decode()

    assert "Game in progress" in html and "Waits for the next game" in html
    assert "<b class=\"num\">4</b> of 21 points" in html
    assert "Seat 1 is in the game: leaving now loses it (Cutchfeld: pays 21 first)." in html


def test_cashing_out_on_the_tablet_mid_game_settles_the_game_and_the_table_says_so(client, game, dana):
    session = session_at(game, 2)

    response = tablet(client, dana).post(
        f"/tablet/{game.pk}/seats/{session.pk}/leave/", {"key": key()}, follow=True
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "Seat 2 (Bob) left during the game and loses it. Ending: Cutchfeld." in html
    assert forfeit_postings(game) == {2: -21, 3: 21}


def test_the_tablet_offers_a_cash_out_before_the_next_round_is_dealt(client, pit, pete, dana):
    table = pairs_table(pit, pete, dana)
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat(table, number, BUY_IN, dana, name)
    undealt = next_round(table, [4, 6, 8], dana)

    html = tablet(client, dana).get(f"/tablet/{table.pk}/").content.decode()
    assert f"Open hand {undealt.number}" in html
    assert "Seat 2 is in the game: leaving now loses it (Cutchfeld: pays 21 first)." in html
    leave = f"/tablet/{table.pk}/seats/{session_at(table, 2).pk}/leave/"
    response = client.post(leave, {"key": key()}, follow=True)

    html = response.content.decode()
    assert response.status_code == 200
    assert "Seat 2 (Bob) left during the game and loses it. Ending: Cutchfeld." in html
    assert "Open hand" not in html
    assert Hand.objects.get(pk=undealt.pk).status == Hand.Status.VOIDED


def test_the_tablet_refuses_a_cash_out_during_the_round_and_writes_nothing(client, game, dana):
    card(hand_start(table=game, by=dana, key=key()), 4, dana)
    tablet(client, dana)
    session, before = session_at(game, 1), written()

    response = client.post(f"/tablet/{game.pk}/seats/{session.pk}/leave/", {"key": key()})

    assert response.status_code == 400
    assert "Seat 1 is in the hand being played; cash out after it is settled." in response.content.decode()
    assert written() == before


def test_the_round_that_ends_a_game_shows_its_ending_on_the_tablet(client, pit, pete, dana):
    table = pairs_table(pit, pete, dana, target=4)
    seat(table, 1, BUY_IN, dana), seat(table, 2, BUY_IN, dana)
    hand = play(hand_start(table=table, by=dana, key=key()), [4, 6], [("fold",)], dana)

    html = tablet(client, dana).get(f"/tablet/hands/{hand.pk}/").content.decode()

    assert "Seat 1 reached 4 points and loses the game. Ending: Cutchfeld." in html


def test_a_cash_out_through_the_api_mid_game_settles_the_game(game, dana):
    api = APIClient()
    api.force_login(dana)
    url = f"/api/seat-sessions/{session_at(game, 1).pk}/cash-out/"

    response = api.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY=key())

    assert response.status_code == 200 and response.json()["chips"] == 0
    assert forfeit_postings(game) == {1: -21, 3: 21}


def test_a_game_lost_by_leaving_is_in_the_players_rating_and_slip(pit, pete, dana):
    from tables.ratings import player_rating
    from tables.services import seat_open
    from tables.services.players import player_create
    from tables.services.rating_slips import rating_slip_start, slip_figures

    table = pairs_table(pit, pete, dana)
    ann = player_create(casino=pit.casino, name="Ann", card_number="1001", by=pete)
    leaving = seat_open(table=table, seat=1, buy_in=BUY_IN, player=ann, by=dana, key=key())
    seat(table, 2, BUY_IN, dana, "Bob"), seat(table, 3, BUY_IN, dana, "Cy")
    slip = rating_slip_start(session=leaving, by=dana, key=key())
    round_(table, [4, 6, 8], dana), round_(table, [7, 5, 9], dana)  # scores 4, 5, 0

    seat_close(session=leaving, by=dana, key=key())

    # Ann paid 21 as if she had reached it, and Cy took it: their ratings say so, as the ledger does
    assert forfeit_postings(table) == {1: -21, 3: 21}
    assert (player_rating("Ann").result, player_rating("Cy").result) == (-21, 21)
    assert slip_figures(slip).result == -21
