"""A small floor and the house's named people: dana deals, pete runs the pit,
ada audits, olga deals at another table."""

import itertools

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from casino.models import User
from casino.roles import AUDITOR, DEALER, PIT_MANAGER, grant_role_permissions
from ledger.models import Account
from ledger.services import account_get
from tables.games import CardDue
from tables.models import Casino, Game, Pit, Shift, Shoe, Table, TableCount
from tables.selectors import open_shifts, supervised_pits
from tables.services import (
    SignatureGiven,
    hand_decide,
    hand_record_card,
    seat_open,
    shift_end,
    shift_rotate,
    shift_start,
    shoe_start,
    table_count,
    tray_fill,
)
from tests.floor import new_table

TRAY_OPENING = 10_000
_keys = itertools.count(1)


def key() -> str:
    return f"test-key-{next(_keys)}"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def person(username: str, role: str) -> User:
    user = User.objects.create_user(username=username, password=f"{username}-password")
    group, created = Group.objects.get_or_create(name=role)
    if created:  # a transactional test flushed the groups the migration made: give them their rights again
        grant_role_permissions()
    user.groups.add(group)
    return user


@pytest.fixture
def dana(db):
    return person("dana", DEALER)


@pytest.fixture
def pete(db):
    return person("pete", PIT_MANAGER)


@pytest.fixture
def ada(db):
    return person("ada", AUDITOR)


@pytest.fixture
def olga(db):
    return person("olga", DEALER)


@pytest.fixture
def pit(db):
    return Pit.objects.create(casino=Casino.objects.create(name="Test Casino"), name="Pit 1")


COUNT_TEAM = ("cora", "carl")  # pit managers who open the test tables, and are then off shift


def open_with_count(table: Table) -> TableCount:
    """Open `table` as the pit does, with a signed count of its tray (right to the unit): the count
    team goes on shift in its pit for the count and off again, so no test's own people are put on
    shift."""
    in_tray = account_get(kind=Account.Kind.TRAY, table=table).balance
    team = [User.objects.filter(username=name).first() or person(name, PIT_MANAGER) for name in COUNT_TEAM]
    shifts = [shift_start(user=member, pit=table.pit, by=member) for member in team]
    count = table_count(
        table=table,
        kind=TableCount.Kind.OPENER,
        denominations={"1": in_tray} if in_tray else {},
        by=team[0],
        counter=SignatureGiven(team[0].username, f"{team[0].username}-password"),
        witness=SignatureGiven(team[1].username, f"{team[1].username}-password"),
        key=key(),
    )
    for shift in shifts:
        shift_end(shift=shift, by=shift.user)
    return count


def deal_at(table: Table, dealer: User, pete: User) -> Shift:
    """`dealer` on shift at `table`, put there by `pete` as the pit does (pete comes on shift in its
    pit first if he is not); rotated from the table they deal at, if any."""
    if table.pit_id not in supervised_pits(pete):
        shift_start(user=pete, pit=table.pit, by=pete)
    current = open_shifts(dealer).first()
    if current is None:
        return shift_start(user=dealer, table=table, by=pete)
    return shift_rotate(shift=current, table=table, by=pete)


def open_table(
    pit, pete, game, name, low, high, options=None, decks=1, kind=Shoe.Kind.PHYSICAL, burn=5, opened=True
):
    """A table opened with a signed count (unless not `opened`), its tray filled from the cage, a
    shoe in play."""
    table = new_table(pit=pit, name=name, game=game, min_bet=low, max_bet=high, options=options or {})
    if opened:
        open_with_count(table)
    tray_fill(table=table, amount=TRAY_OPENING, by=pete, key=key())
    shoe_start(table=table, decks=decks, kind=kind, burn=burn, by=pete, key=key())
    return table


@pytest.fixture
def rocket(pit, pete):
    return open_table(pit, pete, Game.ROCKET, "Rocket 1", 10, 500, decks=8)


@pytest.fixture
def blackstone(pit, pete):
    return open_table(pit, pete, Game.BLACKSTONE, "Blackstone 1", 5, 500)


@pytest.fixture
def starboard(pit, pete):
    return open_table(pit, pete, Game.STARBOARD, "Starboard 1", 1, 100)


@pytest.fixture
def pairs(pit, pete):
    return open_table(pit, pete, Game.PAIRS, "Pairs 1", 1, 100, options={"ending": "cutchfeld"})


def seat(table, number, buy_in, by, name=""):
    return seat_open(table=table, seat=number, buy_in=buy_in, player_name=name, by=by, key=key())


def card(hand, rank, by):
    return hand_record_card(hand=hand, rank=rank, by=by, device="tablet-1", expected_seq=hand.seq, key=key())


def decide(hand, action, by):
    return hand_decide(hand=hand, action=action, by=by, device="tablet-1", expected_seq=hand.seq, key=key())


def play(hand, cards, decisions, by):
    """Feed cards and decisions in the order the hand asks for them (as the engine each step left
    on the hand it returned says)."""
    from tables.services.engine import hand_game

    cards, decisions = list(cards), list(decisions)
    while True:
        game = hand_game(hand)
        if game.finished:
            return hand
        if isinstance(game.next, CardDue):
            hand = card(hand, cards.pop(0), by)
        else:
            hand = decide(hand, decisions.pop(0), by)
