"""The points and bidding games at a table (issue 21.2): whole games keyed through the hand services,
round after round, on a physical shoe and a system shoe. Each round is a hand: it records every card
and decision and replays; the next round deals the game's players with the scores the last one left,
its starter or deal number, until a round says the game is over. Kitty's gambling rule settles the
game's end through the ledger (issue 21.3)."""

import random
import re

import pytest
from django.db.models import Sum

from casino.errors import DomainError
from ledger.models import Posting, Transaction
from tables.games import CardDue
from tables.games.cards import composition
from tables.games.rounds import WHOLE_DECK
from tables.models import Game, Hand, Shoe
from tables.review import hand_replay_check
from tables.screens import hand_screen, table_screen
from tables.services import hand_settle, hand_start, shift_start, shoe_start
from tables.services.engine import seat_keyed
from tables.services.hands import HandError, points_game_round
from tables.services.shoes import ShoeError, shoe_commitment

from .conftest import card, deal_at, decide, key, open_table, seat
from .dealer import Dealer

pytestmark = pytest.mark.django_db

PLAYERS = {"port": 3, "sweep": 3, "kitty": 4, "venture": 3, "five_cards": 2, "pickup": 2}
MOST_ROUNDS = 40  # no game here comes near it; a loop that does is a bug


def table_for(pit, pete, game, kind, options=None):
    burn = 0 if game in WHOLE_DECK else 5
    return open_table(pit, pete, game, f"{game} 1", 1, 100, options=options, kind=kind, burn=burn)


def play_a_game(table, dana, kind, rng) -> list[Hand]:
    rounds = []
    for _ in range(MOST_ROUNDS):
        if table.game in WHOLE_DECK and rounds:
            shoe_start(table=table, decks=1, kind=kind, burn=0, by=dana, reason="Next round", key=key())
        hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, rng).play()
        rounds.append(hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key()))
        if rounds[-1].settlement["result"]["game_over"]:
            return rounds
    raise AssertionError(f"{table.game} did not end in {MOST_ROUNDS} rounds")


@pytest.mark.parametrize("kind", [Shoe.Kind.PHYSICAL, Shoe.Kind.SYSTEM])
@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_whole_game_is_scored_round_by_round_at_the_table(pit, pete, dana, game, kind):
    table = table_for(pit, pete, game, kind)
    for number in range(1, PLAYERS[game] + 1):
        seat(table, number, 50, dana)
    transactions = Transaction.objects.count()

    rounds = play_a_game(table, dana, kind, random.Random(f"{game}-{kind}"))

    scores = dict.fromkeys(seat_keyed(rounds[0].stakes), 0)
    for hand in rounds:  # each round starts from the scores the last one left
        assert seat_keyed(hand.stakes) == scores
        assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True
        scores = {int(seat): score for seat, score in hand.settlement["result"]["scores"].items()}
    assert points_game_round(table) is None  # the game is over: the next hand starts a new one
    assert Transaction.objects.count() == transactions  # points move no money


def test_the_next_round_deals_the_game_s_players_with_their_scores_and_its_starter(pit, pete, dana):
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, 50, dana)
    first = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(1)).play()
    first = hand_settle(hand=first, by=dana, expected_seq=first.seq, key=key())
    result = first.settlement["result"]
    standing = table_screen(table)["points_game"]["standing"]  # the tablet between rounds
    assert {row["seat"]: row["score"] for row in standing} == seat_keyed(result["scores"])
    said = "Five Cards deals every round from a fresh deck: shuffle before the next round"
    with pytest.raises(HandError, match=said):
        hand_start(table=table, by=dana, key=key())
    shoe_start(table=table, decks=1, kind=Shoe.Kind.SYSTEM, burn=0, by=dana, reason="Next round", key=key())

    second = hand_start(table=table, by=dana, key=key())

    assert seat_keyed(second.stakes) == seat_keyed(result["scores"])
    assert second.setup["state"] == {"first": result["next_first"]}


def test_a_whole_deck_game_is_shuffled_with_no_burn(pit, pete, dana):
    table = table_for(pit, pete, Game.PICKUP, Shoe.Kind.PHYSICAL)
    with pytest.raises(ShoeError, match="no burn"):
        shoe_start(table=table, decks=1, kind=Shoe.Kind.PHYSICAL, burn=5, by=dana, reason="Again", key=key())


def test_kitty_s_gambling_rule_settles_the_game_s_end_through_the_ledger(pit, pete, dana):
    table = table_for(pit, pete, Game.KITTY, Shoe.Kind.SYSTEM, options={"point_value": 1})
    for number in (1, 2, 3, 4):
        seat(table, number, 200, dana)
    before = Posting.objects.filter(account__table=table).aggregate(total=Sum("amount"))["total"]

    (hand,) = play_a_game(table, dana, Shoe.Kind.SYSTEM, random.Random("kitty"))

    result = hand.settlement["result"]
    top = max(result["scores"].values())
    losers = {int(s): score for s, score in result["scores"].items() if score < top}
    assert losers  # someone lost, and paid the difference
    for seat_number, score in losers.items():
        assert hand.settlement["deltas"][str(seat_number)] == score - top
    settlement = Transaction.objects.get(hand_id=hand.pk, kind="settlement")
    assert sum(settlement.postings.values_list("amount", flat=True)) == 0
    after = Posting.objects.filter(account__table=table).aggregate(total=Sum("amount"))["total"]
    assert after == before  # the chips moved between the players (and the carry), none appeared
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True


def test_a_loser_without_the_chips_to_pay_is_refused_with_the_reason_and_nothing_is_written(pit, pete, dana):
    table = table_for(pit, pete, Game.PICKUP, Shoe.Kind.PHYSICAL, options={"point_value": 5})
    for number in (1, 2):
        seat(table, number, 1, dana)  # far too few chips for 5 coins a point
    hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(5)).play()
    before = Transaction.objects.count()

    with pytest.raises(DomainError) as refused:
        hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    assert "has 1 unit in front; paying 140 is more than that" in str(refused.value)
    assert Transaction.objects.count() == before and Hand.objects.get(pk=hand.pk).status == "in_progress"


def test_port_deals_on_from_one_deck_unless_the_table_shuffles_a_new_one_every_round(pit, pete, dana):
    for options, refused in (({}, False), ({"new_deck_each_round": True}, True)):
        table = open_table(pit, pete, Game.PORT, f"Port {refused}", 1, 100, options=options)
        for number in (1, 2):
            seat(table, number, 50, dana)
        hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(2)).play()
        hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
        if refused:
            said = "Port deals every round from a fresh deck: shuffle before the next round."
            assert table_screen(table)["shoe_note"] == said  # said before the dealer taps
            with pytest.raises(HandError, match=said):
                hand_start(table=table, by=dana, key=key())
        else:
            assert hand_start(table=table, by=dana, key=key()).shoe_id == hand.shoe_id


@pytest.mark.parametrize("game", [Game.SWEEP, Game.FIVE_CARDS])
def test_a_new_game_s_first_starter_is_drawn_at_random_and_recorded(pit, pete, dana, game):
    table = table_for(pit, pete, game, Shoe.Kind.SYSTEM)
    for number in range(1, PLAYERS[game] + 1):
        seat(table, number, 50, dana)
    starters = set()
    for _ in range(30):  # seat 1 alone, 30 times in a row, would be one chance in 2**29 at least
        hand = hand_start(table=table, by=dana, key=key())
        starters.add(hand.setup["state"]["first"])
        Hand.objects.filter(pk=hand.pk).delete()

    assert starters == set(range(1, PLAYERS[game] + 1))


def targets_of(order: list[int]) -> tuple[list[int], list[int]]:
    """Five Cards' setup from a deck's order: the five unmatched targets and the cards set aside."""
    targets, set_aside = [], []
    for rank in order:
        (set_aside if rank in targets else targets).append(rank)
        if len(targets) == 5:
            return targets, set_aside
    raise AssertionError("a deck always holds five ranks")


def test_five_cards_shuffles_the_set_aside_cards_back_into_the_deck_at_a_system_shoe(pit, pete, dana):
    # The booklet: "If you had to discard any cards on the deal, reshuffle the deck" (RULINGS: the
    # set-aside cards go back in first). A system shoe dealt on from its first order would never
    # deal them again.
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, 50, dana)
    for _ in range(50):  # most shuffles set a card aside; shuffle again until one does
        shoe = table.shoes.get(state=Shoe.State.IN_PLAY)
        targets, set_aside = targets_of(shoe.order)
        if set_aside:
            break
        shoe_start(table=table, decks=1, kind=Shoe.Kind.SYSTEM, burn=0, by=dana, reason="Again", key=key())
    dealer = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(5))
    for _ in range(5 + len(set_aside)):
        dealer.card(dealer.mirror.next)
    assert not dealer.hand.recycle_list

    screen = hand_screen(dealer.hand)  # the first draw: the tablet shows no card of the old order to place
    assert screen["next"]["place"] is None and "put the cards set aside back" in screen["next"]["says"]
    dealer.card(dealer.mirror.next)

    hand = dealer.hand
    (recycle,) = hand.recycle_list
    expected = list(composition(1))
    for rank in targets:
        expected[rank] -= 1
    assert recycle.ranks == expected and recycle.burned == 0  # every card back in but the targets
    assert shoe_commitment(recycle.order, recycle.salt) == recycle.commitment
    assert hand.card_list[-1].rank == recycle.order[0]  # the draw is the new order's first card
    hand = dealer.play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True


def test_five_cards_records_the_dealer_s_reshuffle_at_a_physical_shoe(pit, pete, dana):
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in (1, 2, 2, 3, 4, 5):  # the second 2 is set aside
        hand = card(hand, rank, dana)
    assert "put the cards set aside back" in hand_screen(hand)["next"]["says"]

    hand = card(hand, 2, dana)  # the set-aside 2, shuffled back in, drawn at once

    assert [recycle.ranks[2] for recycle in hand.recycle_list] == [1]
    assert hand.card_list[-1].rank == 2


def test_five_cards_names_the_drawn_card_when_the_player_must_place_it(pit, pete, dana):
    # At a system shoe, "Shuffle the deck again and show the next card" shuffles and deals the draw in
    # one tap: the decision that follows is the only screen that can tell the dealer which card it was.
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in (1, 2, 2, 3, 4, 5, 7):  # the second 2 is set aside; the 7 is the first draw
        hand = card(hand, rank, dana)

    says = hand_screen(hand)["next"]["says"]

    assert says.startswith("Seat ") and "place the 7 on a column" in says


def test_the_pit_review_of_a_settled_round_that_moved_no_chips_says_so(client, pit, pete, dana):
    # A points round played for nothing settles with no money lines: the review read "Not settled yet."
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, 50, dana)
    hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(3)).play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)

    page = client.get(f"/pit/hands/{hand.pk}/").content.decode()

    assert "Not settled yet." not in page and "Settled: no chips moved." in page


def test_the_tablet_shows_five_cards_columns_and_offers_each_open_column(client, pit, pete, dana):
    # given a Five Cards round at a physical shoe: targets 1 to 5 (a 2 set aside), then the 7 drawn
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.PHYSICAL)
    deal_at(table, dana, pete)
    for number in (1, 2):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in (1, 2, 2, 3, 4, 5, 7):
        hand = card(hand, rank, dana)
    client.force_login(dana)
    page = client.get(f"/tablet/hands/{hand.pk}/").content.decode()
    assert "On the 1</button>" in page and "On the 5</button>" in page and "Cards shown" not in page
    first = hand_screen(hand)["actions"]["seat"]

    # when the dealer taps "On the 3", and the other player's 6 goes on the 1
    response = client.post(
        f"/tablet/hands/{hand.pk}/decide/", {"move": "place", "ranks": "3", "seq": hand.seq, "key": key()}
    )
    assert response.status_code in (200, 302)
    hand = card(Hand.objects.get(pk=hand.pk), 6, dana)
    hand = decide(hand, ("place", 1), dana)

    # then each target shows both players' cards beside it, with their totals
    sides = {
        column["target"]: {side["seat"]: (side["cards"], side["total"]) for side in column["sides"]}
        for column in hand_screen(hand)["points"]["columns"]
    }
    second = 3 - first
    assert sides[3] == {first: ([7], 7), second: ([], 0)}
    assert sides[1] == {first: ([], 0), second: ([6], 6)}
    page = client.get(f"/tablet/hands/{hand.pk}/").content.decode()
    assert 'data-target="3"' in page and '<b class="num total">7</b>' in page


def test_a_five_cards_reshuffle_is_said_as_one_and_listed_in_the_pit_review(client, pit, pete, dana):
    # given a Five Cards round whose targets set a 2 aside: the deck is shuffled again, 50 cards
    table = table_for(pit, pete, Game.FIVE_CARDS, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in (1, 2, 2, 3, 4, 5, 2):
        hand = card(hand, rank, dana)

    # then the tablet says a shuffle the rules call for, not a recycle of discards never dealt
    says = [recycle["says"] for recycle in hand_screen(hand)["recycled"]]
    assert says == ["Deck shuffled again: 50 cards."]

    # and the pit's review lists it as a step, with no gap in the step numbers
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)
    page = client.get(f"/pit/hands/{hand.pk}/").content.decode()
    steps = [int(seq) for seq in re.findall(r'<tr class="step-\w+">\s*<td class="num">(\d+)</td>', page)]
    assert steps == list(range(1, hand.seq + 1))
    recycle = r'class="step-recycle">\s*<td class="num">7</td>\s*<td>Deck shuffled again: 50 cards.'
    assert re.search(recycle, page)


def test_a_points_game_s_seat_with_one_point_says_point(pit, pete, dana):
    table = table_for(pit, pete, Game.PORT, Shoe.Kind.PHYSICAL, options={"target": 5})
    for number in (1, 2, 3):
        seat(table, number, 50, dana)
    hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(7)).play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    next_round = hand_start(table=table, by=dana, key=key())
    statuses = [seat_["status"] for seat_ in hand_screen(next_round)["seats"]]

    assert "1 point" in statuses and "1 points" not in statuses


def deal_to_the_first_pile_card(table, dana, rng) -> Hand:
    """Deal a new round at the table up to the first card turned up from the game's own pile."""
    dealer = Dealer(hand_start(table=table, by=dana, key=key()), dana, rng)
    while not getattr(dealer.mirror.next, "pile", False):
        due = dealer.mirror.next
        dealer.card(due) if isinstance(due, CardDue) else dealer.decide(due)
    return dealer.hand


@pytest.mark.parametrize(
    ("game", "says"),
    [
        (Game.KITTY, "Next card: turn up the top card of the kitty, the target."),
        (Game.VENTURE, "Next card: turn up the next card of the slug into the centre."),
    ],
)
def test_a_card_turned_up_from_the_game_s_pile_is_not_told_as_dealt_from_the_dealt_out_deck(
    pit, pete, dana, game, says
):
    # Kitty and Venture deal the whole deck before the first round: the tablet told the dealer to
    # shuffle the discards and burn before turning up every kitty target and every slug card.
    table = table_for(pit, pete, game, Shoe.Kind.SYSTEM)
    for number in (1, 2, 3):
        seat(table, number, 50, dana)

    screen = hand_screen(deal_to_the_first_pile_card(table, dana, random.Random(game)))

    assert screen["shoe"]["cards_left"] == 0
    assert screen["next"]["says"] == says


def test_the_tablet_says_who_takes_sweep_s_captures_into_their_hand_and_what_to_discard(pit, pete, dana):
    # The captured cards go into the hands, face down on the screen: the dealer saw the round's plays
    # vanish and the next centre asked for, never who takes what.
    table = table_for(pit, pete, Game.SWEEP, Shoe.Kind.PHYSICAL)
    for number in (1, 2, 3):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(15):
        hand = card(hand, None, dana)  # the hands, face down
    for rank in (9, 9, 3, 5, 6):  # the centre
        hand = card(hand, rank, dana)
    assert hand_screen(hand)["points"]["last_round"] == ""  # the round is being played
    plays = {1: 4, 2: 7, 3: 5}
    for _ in plays:
        hand = decide(hand, ("play", plays[hand_screen(hand)["next"]["seat"]]), dana)

    says = hand_screen(hand)["points"]["last_round"]

    # the 4 takes both 9s, the 5 the 3 and the fallen 4, the 7 the 5s and the 6; the 7 is left
    assert says == (
        "Last round: seat 1 takes 9, 9; seat 3 takes 3, 4; seat 2 takes 5, 5, 6;"
        " discard the 7 left in the centre. Seat 2 starts the next round."
    )


def test_the_tablet_says_who_takes_kitty_s_target_and_whom_the_1_gives_it_to(pit, pete, dana):
    table = table_for(pit, pete, Game.KITTY, Shoe.Kind.PHYSICAL)
    for number in (1, 2, 3):
        seat(table, number, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(55):
        hand = card(hand, None, dana)  # the kitty and the hands, face down
    hand = card(hand, 8, dana)  # the target
    for _ in (1, 2, 3):
        hand = decide(hand, ("pass", None), dana)
    for bid in (1, 5, 5):  # the 5s are ignored: the 1 takes
        hand = decide(hand, ("choose", bid), dana)
    assert hand_screen(hand)["points"]["last_round"] == ""  # the 1 has not given it yet

    hand = decide(hand, ("give", 3), dana)

    says = hand_screen(hand)["points"]["last_round"]
    assert says == "Last round: seat 1 takes the 8 with the 1 and gives it to seat 3; discard the bids."
