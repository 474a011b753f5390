"""Random hands of every game through the services keep the books straight."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.models import Account, Posting, Transaction
from ledger.services import account_balance, account_get
from tables.games import CardDue, replay
from tables.games.cards import composition
from tables.models import CardEvent, Decision, Game, Hand, Receiver
from tables.services import hand_settle, hand_start
from tables.services.engine import engine_for

from .conftest import TRAY_OPENING, card, decide, key, open_table, seat

pytestmark = pytest.mark.django_db

GAMES = [(Game.ROCKET, 8), (Game.BLACKSTONE, 1), (Game.STARBOARD, 1), (Game.PAIRS, 1)]
_tables = iter(range(1, 10_000))


def a_legal_decision(data, due):
    move = data.draw(st.sampled_from(due.moves))
    if move == "take":
        return ("take", data.draw(st.integers(due.min_take, due.max_take)))
    if move == "fold" and due.fold_cards and len(due.fold_cards) > 1:
        return ("fold", *data.draw(st.sampled_from(due.fold_cards)))
    return (move,)


def play_randomly(hand, data, order, by):
    while not (game := engine_for(hand)).finished:
        if isinstance(game.next, CardDue):
            rank = next(r for r in order if game.shoe.remaining[r])
            order.remove(rank)
            hand = card(hand, rank, by)
        else:
            hand = decide(hand, a_legal_decision(data, game.next), by)
    return hand_settle(hand=hand, by=by, expected_seq=hand.seq, key=key())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    game_and_decks=st.sampled_from(GAMES),
    players=st.integers(2, 5),
    collection=st.sampled_from(["rake", "fee", "none"]),
)
def test_random_hands_leave_the_books_balanced_and_replayable(
    pit, pete, dana, data, game_and_decks, players, collection
):
    game, decks = game_and_decks
    # A steep rake, so that small pots are raked too; Rocket is house-banked and collects nothing.
    options = {} if game == Game.ROCKET else {"collection": collection, "rake_percent": 50, "rake_cap": 30}
    table = open_table(pit, pete, game, f"Table {next(_tables)}", 10, 500, options, decks=decks, burn=0)
    for number in range(1, players + 1):
        seat(table, number, 500, dana)
    counts = composition(decks)
    order = data.draw(st.permutations([r for r in range(1, 11) for _ in range(counts[r])]))
    bets = {n: data.draw(st.sampled_from([10, 20, 50, 100])) for n in range(1, players + 1)}

    hand = hand_start(table=table, bets=bets if game == Game.ROCKET else None, by=dana, key=key())
    hand = play_randomly(hand, data, list(order), dana)

    for transaction in Transaction.objects.filter(table=table):
        assert sum(p.amount for p in transaction.postings.all()) == 0
    tray = account_get(kind=Account.Kind.TRAY, table=table)
    assert tray.balance == account_balance(tray)
    tray_postings = Posting.objects.filter(account=tray)
    assert sum(p.amount for p in tray_postings) == TRAY_OPENING - 500 * players + sum(
        p.amount for p in tray_postings.filter(transaction__hand_id=hand.pk)
    )
    assert_replays_to_what_was_posted(hand)
    if game != Game.ROCKET:  # what the house takes is on the table's rake account, and only that
        assert account_get(kind=Account.Kind.RAKE, table=table).balance == hand.settlement["deltas"]["house"]


def assert_replays_to_what_was_posted(hand):
    cards = CardEvent.objects.filter(hand=hand).exclude(receiver__in=[Receiver.BURN, Receiver.DISCARD])
    decisions = Decision.objects.filter(hand=hand).order_by("seq")
    again = replay(
        hand.game,
        hand.seats,
        {int(s): v for s, v in hand.stakes.items()},
        [c.rank for c in cards.order_by("seq")],
        [tuple(d.action) for d in decisions],
        options=hand.options,
        carry=hand.carry_in,
        **_state(hand),
    )
    assert {str(k): v for k, v in again.settlement.deltas.items()} == hand.settlement["deltas"]
    assert hand.status == Hand.Status.SETTLED


def _state(hand):
    state = dict(hand.state)
    if "in_play" in state:
        state["in_play"] = {int(s): v for s, v in state["in_play"].items()}
    return state
