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
