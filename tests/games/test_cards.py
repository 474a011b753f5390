"""The shared shoe and the low-card contest (tables/games/cards.py)."""

import pytest

from tables.games.cards import DECK_SIZE, RANKS, Hand, LowCard, Shoe, check_rank, composition
from tables.games.errors import IllegalAction


@pytest.mark.parametrize("decks", range(1, 9))
def test_a_shoe_of_d_decks_holds_d_times_r_cards_of_rank_r(decks):
    shoe = Shoe(decks)

    assert shoe.full == composition(decks)
    assert all(shoe.remaining[r] == decks * r for r in RANKS)
    assert len(shoe) == DECK_SIZE * decks


def test_a_pairs_deck_holds_55_cards():
    assert DECK_SIZE == 55


@pytest.mark.parametrize("decks", [0, 9, -1, True, 2.0, "2", None])
def test_a_shoe_holds_one_to_eight_decks(decks):
    with pytest.raises(IllegalAction, match="1 to 8 decks"):
        Shoe(decks)


@pytest.mark.parametrize("rank", [0, 11, -3, True, 5.0, "5", None])
def test_a_card_is_a_rank_from_1_to_10(rank):
    with pytest.raises(IllegalAction, match="rank from 1 to 10"):
        check_rank(rank)


def test_every_rank_from_1_to_10_is_a_card():
    assert [check_rank(r) for r in RANKS] == list(range(1, 11))


def test_the_shoe_refuses_a_rank_it_cannot_hold_any_more():
    shoe = Shoe(1)
    shoe.take(2)
    shoe.take(2)

    with pytest.raises(IllegalAction, match="cannot hold another 2: all 2 of them are already out"):
        shoe.check(2)
    with pytest.raises(IllegalAction, match="cannot hold another 2"):
        shoe.take(2)
    assert shoe.remaining[2] == 0
    assert len(shoe) == DECK_SIZE - 2


def test_an_eight_deck_shoe_gives_exactly_eight_ones():
    shoe = Shoe(8)
    for _ in range(8):
        shoe.take(1)

    with pytest.raises(IllegalAction, match="all 8 of them"):
        shoe.take(1)


def test_a_shoe_can_start_part_dealt():
    remaining = [0, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10]

    shoe = Shoe(1, remaining)

    assert len(shoe) == 53
    with pytest.raises(IllegalAction):
        shoe.check(1)


@pytest.mark.parametrize(
    "remaining",
    [
        [0, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10],  # two 1s in a one-deck shoe
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],  # rank 10 missing
        [0, 1, 2, -1, 4, 5, 6, 7, 8, 9, 10],
    ],
)
def test_a_shoe_cannot_start_with_cards_its_decks_do_not_hold(remaining):
    with pytest.raises(IllegalAction):
        Shoe(1, remaining)


def test_a_card_put_back_can_be_dealt_again():
    shoe = Shoe(1)
    shoe.take(1)

    shoe.put_back(1)

    assert shoe.remaining[1] == 1
    shoe.take(1)


def test_a_card_cannot_be_put_back_into_a_shoe_that_already_holds_every_one():
    shoe = Shoe(2)

    with pytest.raises(IllegalAction, match="Every 5 is already in the shoe"):
        shoe.put_back(5)
    assert shoe.remaining[5] == 10


def contest(seats, *, replace_pairs=True, key=None):
    stacks = {s: [] for s in seats}
    kwargs = {"replace_pairs": replace_pairs} | ({"key": key} if key else {})
    return LowCard(seats, stacks, **kwargs), stacks


def test_the_single_lowest_card_goes_first():
    low, stacks = contest([1, 2, 3])
    assert not low.is_tiebreak
    for rank in (6, 2, 9):
        assert low.feed(rank)

    assert low.winner == 2
    assert low.seat is None
    assert low.rounds == 1
    assert stacks == {1: [6], 2: [2], 3: [9]}


def test_tied_players_get_one_more_card_each_in_seat_order_and_only_new_cards_count():
    # given seats 1 and 3 tie on 2s
    low, stacks = contest([1, 2, 3, 4])
    for rank in (2, 5, 2, 7):
        low.feed(rank)
    assert low.winner is None
    assert low.is_tiebreak

    # when the tied seats get one more card each, in seat order
    assert low.seat == 1
    low.feed(9)
    assert low.seat == 3
    low.feed(4)

    # then the new cards alone decide: seat 3's 4 beats seat 1's 9 (seat 2's 5 no longer counts)
    assert low.winner == 3
    assert stacks == {1: [2, 9], 2: [5], 3: [2, 4], 4: [7]}


def test_a_tie_break_can_tie_again_and_narrow():
    low, _ = contest([1, 2, 3])
    for rank in (4, 4, 4, 6, 1, 1, 5, 3):
        low.feed(rank)

    assert low.winner == 3
    assert low.rounds == 3


def test_with_replace_pairs_a_tie_break_card_that_pairs_is_discarded_and_the_seat_dealt_again():
    low, stacks = contest([1, 2], replace_pairs=True)
    low.feed(3)
    low.feed(3)

    assert low.would_discard(3)
    assert low.feed(3) is False  # seat 1 would pair its 3: discarded
    assert low.seat == 1
    assert stacks[1] == [3]
    assert low.feed(8)
    assert low.feed(6)
    assert low.winner == 2
    assert stacks == {1: [3, 8], 2: [3, 6]}


def test_without_replace_pairs_a_tie_break_card_that_pairs_simply_stays():
    low, stacks = contest([1, 2], replace_pairs=False)
    low.feed(3)
    low.feed(3)

    assert not low.would_discard(3)
    assert low.feed(3) is True
    low.feed(8)

    assert low.winner == 1
    assert stacks == {1: [3, 3], 2: [3, 8]}


def test_a_custom_key_changes_what_counts_as_low():
    # Calamities: 7s count lower than 1s for who goes first
    def calamities(rank):
        return 0 if rank == 7 else rank

    low, _ = contest([1, 2, 3], key=calamities)
    for rank in (1, 7, 2):
        low.feed(rank)

    assert low.winner == 2


def test_a_custom_key_also_decides_ties():
    def calamities(rank):
        return 0 if rank == 7 else rank

    low, _ = contest([1, 2], key=calamities)
    for rank in (1, 1, 2, 7):
        low.feed(rank)

    assert low.winner == 2


def test_face_down_cards_leave_the_shoe_but_not_the_possible_ranks():
    shoe = Shoe(1, unseen=5)

    assert len(shoe) == 50
    assert shoe.remaining[10] == 10
    shoe.take(10)
    assert len(shoe) == 49


def test_a_tie_no_card_can_break_goes_to_the_tied_seat_first_from_the_dealers_left():
    stacks = {1: [], 2: [], 3: []}
    low = LowCard([1, 2, 3], stacks)
    for rank in (5, 1, 1):
        low.feed(rank)
    low.settle_if_stuck(1)
    assert low.winner is None  # a card is left to deal

    low.settle_if_stuck(0)

    assert low.winner == 2


def test_a_hidden_hand_reveals_only_ranks_the_shoe_could_still_hold():
    shoe, hand = Shoe(1), Hand()
    shoe.hide()
    hand.add(None)
    shoe.take(1)

    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        hand.check_reveal([1], shoe)
    hand.check_reveal([7], shoe)
    hand.reveal(7, shoe)
    assert (len(hand), shoe.unseen, shoe.remaining[7]) == (0, 0, 6)
