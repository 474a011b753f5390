"""Venture (booklet, "Bidding Games"; the Professor Elemental rules card; RULINGS.md "Points and
bidding games")."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import IllegalAction, new_game, replay
from tables.games.cards import composition
from tables.games.venture import SLUG, deal_points

from .secret_play import play, play_at_random

FULL = list(composition(1))


def dealt(slug, hands: dict[int, list[int]], **options):
    """A deal with this slug and these hands (each card named, as a system shoe deals them)."""
    seats = list(hands)
    game = new_game("venture", seats, dict.fromkeys(seats, 0), options)
    slug, left = list(slug), {seat: list(cards) for seat, cards in hands.items()}
    while game.to_deal:
        due = game.next
        game.deal(slug.pop(0) if due.to == "centre" else left[due.seat].pop(0))
    return game


def hands_for_bids(bids: dict[int, list[int]], slug: list[int]) -> dict[int, list[int]]:
    """Hands that hold these bids first, the rest of the deck (less the slug) shared out."""
    rest = Counter({rank: n for rank, n in enumerate(FULL) if n})
    rest.subtract([*slug, *(rank for cards in bids.values() for rank in cards)])
    cards, n = sorted(rest.elements()), len(bids)
    return {seat: bids[seat] + cards[i::n] for i, seat in enumerate(bids)}


def example_hands() -> dict[int, list[int]]:
    """The booklet's five players: round one's bids 2, 3, 4, 5, 6, round two's 5, 5, 7, 9, 9."""
    bids = {1: [2, 5], 2: [3, 5], 3: [4, 7], 4: [5, 9], 5: [6, 9]}
    return hands_for_bids(bids, [4, 5, 6, 8, 10])


def test_the_slug_is_4_3_5_7_6_or_7_cards_and_the_rest_divides_evenly():
    assert SLUG == {3: 4, 4: 3, 5: 5, 6: 7, 7: 6, 8: 7}
    for players, slug in SLUG.items():
        assert (55 - slug) % players == 0


def test_the_booklet_s_example_rounds():
    game = dealt([4, 5, 6, 8, 10], example_hands())
    play(game, 4, 5, 6, 8, 10)  # the slug turned up: the first pool
    # round one: the 2 takes the 10, the 3 the 2, the 4 the 3, the 5 both 4s, the 6 both 5s
    play(game, *(("choose", rank) for rank in (2, 3, 4, 5, 6)))
    assert game.rounds[0]["captured"] == {1: [10], 2: [2], 3: [3], 4: [4, 4], 5: [5, 5]}
    assert game.pool == [6, 6, 8]
    # round two: the 5s misfire, the 7 takes the 5s and 6s, the 9s misfire
    play(game, *(("choose", rank) for rank in (5, 5, 7, 9, 9)))
    assert game.rounds[1]["captured"] == {1: [], 2: [], 3: [5, 5, 6, 6], 4: [], 5: []}
    assert game.pool == [7, 8, 9, 9]


def test_the_booklet_s_scoring_example_and_a_set_completed_by_the_centre():
    # 11 cards captured, all five 5s among them: six unmatched cards -6, the five 5s +5
    assert deal_points([5, 5, 5, 5, 5, 10, 9, 8, 7, 6, 6], [], FULL) == -1
    # eight 9s captured and the last one left in the middle: 9 points
    assert deal_points([9] * 8, [9], FULL) == 9
    assert deal_points([], [1], FULL) == 0  # a rank wholly in the centre scores for nobody


def test_a_bid_captured_before_it_fires_does_not_fire():
    slug = [4, 5, 6, 8]
    game = dealt(slug, hands_for_bids({1: [2], 2: [3], 3: [10]}, slug))
    play(game, *slug)
    play(game, ("choose", 2), ("choose", 3), ("choose", 10))
    # the 2 fires first and takes the highest rank on the table, seat 3's 10, before it can fire
    assert game.rounds[0]["captured"] == {1: [10], 2: [2], 3: []}
    assert game.pool == [3, 4, 5, 6, 8]  # the 3 took the 2, and stays on the table


def test_the_draft_keeps_three_and_passes_the_rest_left_until_a_packet_of_three_or_fewer():
    hands = example_hands()  # ten cards each
    game = dealt([4, 5, 6, 8, 10], hands, draft=True)
    passes = 0
    while game.drafting:
        seat = game.next.seat
        game.act(game.next.choices[0])
        passes += seat == 5
    assert passes == 3  # 10 -> 7 -> 4 -> 1: kept whole
    assert sorted(len(hand) for hand in game.hands.values()) == [10] * 5
    assert Counter(r for h in game.hands.values() for r in h.known) == Counter(
        r for cards in hands.values() for r in cards
    )


def test_refusals_say_why():
    game = dealt([4, 5, 6, 8, 10], example_hands())
    play(game, 4, 5, 6, 8, 10)
    missing = next(rank for rank in range(1, 11) if rank not in game.hands[1].known)
    with pytest.raises(IllegalAction):
        game.act(("choose", missing))
    with pytest.raises(IllegalAction, match="3 to 8 players"):
        new_game("venture", [1, 2], {1: 0, 2: 0})


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 8), st.booleans(), st.randoms(use_true_random=False))
def test_any_deal_scores_as_counted_again_and_replays_equal(players, draft, rng):
    seats = list(range(1, players + 1))
    game = new_game("venture", seats, dict.fromkeys(seats, 0), {"draft": draft})
    cards, decisions = play_at_random(game, rng)
    result = game.settlement().result
    captured = sum(len(c) for c in result["captured"].values())
    assert captured + len(result["centre"]) == 55  # every card is captured or in the centre
    assert result["points"] == {s: deal_points(result["captured"][s], result["centre"], FULL) for s in seats}
    again = replay("venture", seats, dict.fromkeys(seats, 0), cards, decisions, {"draft": draft})
    assert again.settlement.result == result


def test_at_a_physical_table_the_draft_is_kept_unseen_and_the_bids_name_the_cards():
    game = new_game("venture", [1, 2, 3], dict.fromkeys([1, 2, 3], 0), {"draft": True})
    while game.to_deal:
        game.deal(None)  # the slug and the hands, face down
    assert game.next.choices == ()  # the packet is unseen: nothing to offer
    with pytest.raises(IllegalAction, match="keeps 3 cards"):
        game.act(("keep",))
    while game.drafting:
        game.act(("keep", None, None, None))
    assert [len(hand) for hand in game.hands.values()] == [17, 17, 17]
    play(game, 10, 10, 9, 9)  # the slug turned up
    play(game, ("choose", 1), ("choose", 2), ("choose", 3))
    assert game.rounds[0]["captured"] == {1: [10, 10], 2: [1], 3: [2]}
