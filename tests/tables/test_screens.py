import pytest

from tables.screens import hand_screen
from tables.services import hand_start

from .conftest import card, decide, key, seat

pytestmark = pytest.mark.django_db


def test_blackstone_players_keep_only_their_black_stone_and_the_whites_go_to_the_centre(blackstone, dana):
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    hand = decide(card(card(hand, 3, dana), 10, dana), ("take", 2), dana)  # seat 1 starts on its low 3
    hand = card(card(hand, 4, dana), 6, dana)

    screen = hand_screen(hand)

    assert [s["cards"] for s in screen["seats"]] == [
        [],
        [{"rank": 10, "why": "black stone", "discarded": False}],
    ]
    assert screen["centre"]["white"] == 3


def test_a_blackstone_loser_shows_both_black_stones_it_took(blackstone, dana):
    # given: seat 1 starts on a 3, seat 2 holds a 10 from the deal
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    hand = decide(card(card(hand, 3, dana), 10, dana), ("take", 1), dana)
    hand = decide(card(hand, 4, dana), ("take", 1), dana)  # seat 1 takes a white stone

    # when: seat 2 takes its second 10 and loses
    hand = card(hand, 10, dana)

    # then: its seat shows both 10s, the survivor none
    seats = hand_screen(hand)["seats"]
    assert [[c["rank"] for c in s["cards"]] for s in seats] == [[], [10, 10]]
    assert [c["why"] for c in seats[1]["cards"]] == ["black stone", "second black stone"]
    assert seats[1]["status"] == "second black stone"
