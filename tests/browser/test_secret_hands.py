"""A dealer plays a whole game of each secret-hand game on the tablet by tapping (issue 20.3), at a
physical table: face-down cards are tapped "dealt face down", and each move's cards are keyed as the
player shows them (a card that goes face down, a discard or a pitch, as "?"). The players' game is a
"mirror" engine that knows every card; afterwards the ledger and the records are checked."""

import random
import re

import pytest
from django.db.models import Sum
from playwright.sync_api import Page, expect

from ledger.audit import ledger_verify
from ledger.models import Account, Posting, Transaction
from tables.games import CardDue, HandSetup
from tables.games.base import TARGETED, Move
from tables.models import Casino, Game, Hand, Pit
from tables.review import hand_replay_check
from tests.tables.conftest import deal_at
from tests.tables.conftest import open_table as table_with_shoe

from .test_tablet import confirm_settlement, key_card, open_table, seat_player, start_hand, tap

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = {
    Game.HAWTHORN: 2,
    Game.GOBLIN_POKER: 3,
    Game.MONSTER: 4,
    Game.REGENT: 2,
    Game.TROLL_GUTS: 3,
}
# Their cards go face down, unseen: a discard, a keep or a pass keys "?" for each card, a pitch names
# none (blind).
FACE_DOWN_MOVES = {Move.DISCARD, Move.PITCH, Move.KEEP, Move.PASS}
BUY_IN = 60
PLAYED_OUT = 12  # decisions chosen at random; after them a player folds where the game allows it
DOUBLE_TAP_GUARD_MS = 450  # tablet.js GUARD_MS (400), and a little


class Players:
    """The players at the table: they know their cards (a shuffled deck), the dealer does not."""

    def __init__(self, hand: Hand, rng: random.Random):
        self.game = HandSetup.from_record(hand.setup).start()
        self.rng, self.deck, self.decisions = rng, [], 0

    def next_card(self) -> int:
        if not self.deck or self.game.shoe.remaining[self.deck[0]] == 0:
            self.deck = [rank for rank, n in enumerate(self.game.shoe.remaining) for _ in range(n)]
            self.rng.shuffle(self.deck)
        return self.deck.pop(0)

    def choose(self, due) -> tuple:
        self.decisions += 1
        folds = [choice for choice in due.choices if choice[0] == Move.FOLD]
        if self.decisions > PLAYED_OUT and folds:
            return folds[0]
        return self.rng.choice(due.choices)


def deal(page: Page, players: Players, due: CardDue) -> None:
    if due.face_down:
        tap(page, page.get_by_role("button", name=re.compile("^Dealt face down")))
        players.game.deal(players.next_card())
        return
    rank = players.rng.choice(due.ranks) if due.pile else players.next_card()
    if due.pile:
        # A pile's card is turned over after the players' last move (a pitch, a show): the keypad
        # may be drawn where that move's button was, and a key tapped there within tablet.js's
        # double-tap guard is not sent, by design. The dealer turns the card over first.
        page.wait_for_timeout(DOUBLE_TAP_GUARD_MS)
    key_card(page, rank)
    players.game.deal(rank)


def decide(page: Page, players: Players, choice: tuple) -> None:
    move = Move(choice[0])
    decisions = page.locator(".decisions")
    if move not in TARGETED and len(choice) == 1 and move not in FACE_DOWN_MOVES:
        tap(page, decisions.get_by_role("button", name=re.compile(f"^{move.value.capitalize()}")))
    elif move is Move.PLACE:  # Five Cards: one button per column the card may go on
        tap(page, decisions.get_by_role("button", name=f"On the {choice[1]}", exact=True))
    else:
        form = decisions.locator(f'form.compose:has(input[name=move][value="{move.value}"])')
        ranks = choice[1:]
        if move in TARGETED:
            form.get_by_label(f"Seat {choice[1]}").check()
            ranks = choice[2:]
        for rank in [] if move is Move.PITCH else ranks:
            shown = "?" if move in FACE_DOWN_MOVES or rank is None else str(rank)
            form.get_by_role("button", name=shown, exact=True).click()
        tap(page, form.get_by_role("button", name=move.value.capitalize(), exact=True))
    players.game.act(choice)


def table_chips(table) -> int:
    return Posting.objects.filter(account__table=table).aggregate(total=Sum("amount"))["total"] or 0


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_dealer_plays_a_whole_secret_hand_game_by_tapping(people, tablet, game):
    pete = people["pete"]
    pit = Pit.objects.create(casino=Casino.objects.create(name="Test Casino"), name="Pit 1")
    name = f"{Game(game).label} 1"
    table = table_with_shoe(pit, pete, game, name, 1, 100, options={"collection": "rake"})
    deal_at(table, people["dana"], pete)
    page = tablet("dana")
    open_table(page, name)
    for number in range(1, PLAYERS[game] + 1):
        seat_player(page, number, f"Player {number}", BUY_IN)
    before = table_chips(table)
    hand = start_hand(page)
    players = Players(hand, random.Random(game))

    while not players.game.finished:
        due = players.game.next
        if isinstance(due, CardDue):
            deal(page, players, due)
        else:
            decide(page, players, players.choose(due))
    expect(page.locator(".settlement")).to_be_visible()
    confirm_settlement(page)

    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["deltas"] == {
        str(party): amount for party, amount in players.game.settlement().deltas.items()
    }
    for transaction in Transaction.objects.filter(table=table):
        assert sum(transaction.postings.values_list("amount", flat=True)) == 0
    assert table_chips(table) == before  # no chip appeared or vanished at the table
    assert Account.objects.get(table=table, kind=Account.Kind.CARRY).balance == hand.settlement["carry_out"]
    assert hand_replay_check(hand)["matches"] is True
    assert ledger_verify().clean
