"""A player who leaves a points game played for stakes loses it (RULINGS.md "Tables, seats and games",
ruled alike for the points games; docs/rules/README.md "For stakes"): the game ends at once with the
scores as they stand, the highest score of the players who stay wins, and the leaver pays as a loser
with the cash-out, through the ledger and in the audit log. Played for nothing, it ends unscored."""

import random

import pytest
from django.contrib.auth.models import Group

from casino.errors import DomainError
from casino.models import AuditEvent
from casino.roles import ROLES, grant_role_permissions
from ledger.audit import ledger_verify
from ledger.models import Account, Transaction
from tables.games.rounds import WHOLE_DECK
from tables.models import Game, Hand, SeatSession, Shoe
from tables.screens import table_screen
from tables.services import hand_settle, hand_start, seat_close, shoe_start
from tables.services.engine import seat_keyed
from tables.services.hands import points_game_round

from .conftest import deal_at, key, open_table, seat
from .dealer import Dealer

pytestmark = pytest.mark.django_db

BUY_IN = 200


@pytest.fixture(autouse=True)
def roles(db):
    """Role groups with their permissions (a transactional test elsewhere may have flushed them)."""
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()


def points_table(pit, pete, dana, game, players, **options):
    """A table of `game` with `players` seated (Ann, Bob, Cy, ...) that collects nothing unless
    `options` say so."""
    burn = 0 if game in WHOLE_DECK else 5
    options = {"collection": "none", **options}
    table = open_table(pit, pete, game, f"{game} 1", 1, 100, options=options, burn=burn)
    deal_at(table, dana, pete)
    for number, name in zip(range(1, players + 1), ("Ann", "Bob", "Cy", "Dee"), strict=False):
        seat(table, number, BUY_IN, dana, name)
    return table


def round_(table, dana, seed) -> Hand:
    """One round played and confirmed; the game goes on after it."""
    if table.game in WHOLE_DECK:
        shoe_start(table=table, decks=1, kind=Shoe.Kind.PHYSICAL, burn=0, by=dana, reason="Round", key=key())
    hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(seed)).play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    assert points_game_round(table) == hand  # the game goes on
    return hand


def scores_of(hand: Hand) -> dict[int, int]:
    return seat_keyed(hand.settlement["result"]["scores"])


def session_at(table, number) -> SeatSession:
    return SeatSession.objects.get(seat__table=table, seat__number=number, ended_at=None)


def leave(table, number, by) -> None:
    seat_close(session=session_at(table, number), by=by, key=key())


def forfeit_postings(table) -> dict[int, int]:
    """Each seat's net from the game's forfeit settlement, as the ledger holds it."""
    [forfeit] = Transaction.objects.filter(table=table, kind=Transaction.Kind.SETTLEMENT, hand_id=None)
    seats = {session.pk: session.seat.number for session in SeatSession.objects.filter(seat__table=table)}
    rows = forfeit.postings.filter(account__kind=Account.Kind.PLAYER).values_list("account__ref", "amount")
    return {seats[ref]: amount for ref, amount in rows if amount}


@pytest.fixture
def port(pit, pete, dana):
    """Port for 2 coins a point, three players (Ann, Bob, Cy), after one round: 3, 2 and 1 points."""
    table = points_table(pit, pete, dana, Game.PORT, 3, point_value=2)
    assert scores_of(round_(table, dana, seed=7)) == {1: 3, 2: 2, 3: 1}
    return table


def test_a_player_leaving_a_port_game_for_stakes_pays_the_leader_the_difference(port, dana):
    leave(port, 3, dana)  # Cy, on 1 point, leaves

    assert forfeit_postings(port) == {3: -4, 1: 4}  # (3 - 1) x 2 to Ann; Bob pays nothing
    paid_out = Transaction.objects.filter(table=port, kind=Transaction.Kind.CASH_OUT).latest("pk")
    assert paid_out.postings.get(amount__gt=0).amount == BUY_IN - 4  # the cash-out takes what is left
    event = AuditEvent.objects.get(action=AuditEvent.Action.GAME_FORFEIT)
    assert (event.user, event.detail["seat"], event.detail["deltas"]["3"]) == (dana, 3, -4)
    assert points_game_round(port) is None  # the next hand starts a new game
    says = table_screen(port)["points_last_game"]["says"]
    assert says == "Seat 3 (Cy) left during the game and loses it. Seat 1 (Ann) wins the game with 3 points."
    assert ledger_verify().clean  # every transaction balances, every chain verifies


def test_a_leader_who_leaves_gives_up_the_game_and_the_next_highest_wins_it(port, dana):
    leave(port, 1, dana)  # Ann, leading on 3 points, leaves

    # Ann pays nothing (never less than nothing), and nobody else pays under walkout `leaver`.
    assert not Transaction.objects.filter(table=port, kind=Transaction.Kind.SETTLEMENT).exists()
    assert AuditEvent.objects.get(action=AuditEvent.Action.GAME_FORFEIT).detail["seat"] == 1
    says = table_screen(port)["points_last_game"]["says"]
    assert says == "Seat 1 (Ann) left during the game and loses it. Seat 2 (Bob) wins the game with 2 points."


def test_a_port_game_left_mid_way_pays_the_house_its_rake_from_the_difference(pit, pete, dana):
    table = points_table(pit, pete, dana, Game.PORT, 3, point_value=20, collection="rake")
    round_(table, dana, seed=7)  # 3, 2 and 1 points

    leave(table, 2, dana)  # Bob owes (3 - 2) x 20

    assert forfeit_postings(table) == {2: -20, 1: 19}  # the house rakes 5% of the 20
    leave(table, 3, dana)  # between games now: a plain cash-out
    assert Transaction.objects.filter(table=table, kind=Transaction.Kind.SETTLEMENT).count() == 1


def test_a_port_game_played_for_nothing_ends_unscored_when_a_player_leaves(pit, pete, dana):
    table = points_table(pit, pete, dana, Game.PORT, 3)
    round_(table, dana, seed=7)

    leave(table, 3, dana)

    assert not Transaction.objects.filter(table=table, kind=Transaction.Kind.SETTLEMENT).exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.GAME_FORFEIT).exists()
    assert points_game_round(table) is None
    says = table_screen(table)["points_last_game"]["says"]
    assert says == "Seat 3 (Cy) left during the game: it ends unscored (played for nothing)."


def test_a_venture_game_left_under_walkout_everyone_settles_every_loser_as_at_its_end(pit, pete, dana):
    table = points_table(pit, pete, dana, Game.VENTURE, 3, point_value=1, deals=3, walkout="everyone")
    assert scores_of(round_(table, dana, seed=1)) == {1: -12, 2: -14, 3: -25}

    leave(table, 3, dana)

    assert forfeit_postings(table) == {3: -13, 2: -2, 1: 15}


def test_a_venture_game_left_under_walkout_leaver_settles_the_leaver_alone(pit, pete, dana):
    table = points_table(pit, pete, dana, Game.VENTURE, 3, point_value=1, deals=3)
    round_(table, dana, seed=1)  # -12, -14 and -25 points

    leave(table, 3, dana)

    assert forfeit_postings(table) == {3: -13, 1: 13}


def test_a_leaver_without_the_chips_to_pay_is_refused_and_nothing_is_written(pit, pete, dana):
    table = points_table(pit, pete, dana, Game.PORT, 3, point_value=150)
    round_(table, dana, seed=7)  # 3, 2 and 1 points: Cy owes 300
    before = (Transaction.objects.count(), AuditEvent.objects.count())

    with pytest.raises(DomainError) as refused:
        leave(table, 3, dana)

    assert str(refused.value) == (
        f"Seat 3 has {BUY_IN} units in front; paying 300 is more than that: the player buys more first."
    )
    assert (Transaction.objects.count(), AuditEvent.objects.count()) == before
    assert points_game_round(table) is not None  # the game goes on; the player is still seated
    session_at(table, 3)


# On the tablet


def test_the_tablet_warns_that_leaving_loses_and_its_cash_out_settles_the_game(client, port, dana):
    client.force_login(dana)
    html = client.get(f"/tablet/{port.pk}/").content.decode()
    assert "Seat 3 is in the game, played for stakes: leaving now loses it (pays 4 first)." in html
    leader = "Seat 1 is in the game, played for stakes: leaving now loses it (pays nothing: gives up"
    assert leader in html

    leave = f"/tablet/{port.pk}/seats/{session_at(port, 3).pk}/leave/"
    response = client.post(leave, {"key": key()}, follow=True)

    html = response.content.decode()
    assert response.status_code == 200
    assert "Seat 3 (Cy) left during the game and loses it. Seat 1 (Ann) wins the game with 3 points." in html
    assert forfeit_postings(port) == {3: -4, 1: 4}


# In the pit


def test_the_pit_shows_what_a_game_lost_by_leaving_moved_in_history_and_hand(client, port, pete, dana):
    # given Cy, on 1 point, leaves the Port game after its first round
    leave(port, 3, dana)
    last_round = Hand.objects.get(table=port)
    client.force_login(pete)

    # when the pit reads the table's history and the round
    history = client.get(f"/pit/tables/{port.pk}/").content.decode()
    review = client.get(f"/pit/hands/{last_round.pk}/").content.decode()

    # then both show the forfeit settlement: who paid whom, how much, why
    paid = "seat 3 left the Port game and loses it (difference in scores): seat 1 +4, seat 3 -4"
    assert f"seat 1 0, seat 2 0, seat 3 0; then {paid}" in history
    assert f"The game ended after this round when a player left: {paid}" in review
    memo = f"Hand {last_round.number}: {paid.split(':')[0]}"
    assert review.count(memo) == 2  # its two postings, in the ledger postings of the round
