import pytest

from ledger.models import Account
from ledger.services import account_get
from tables.models import Game, Hand
from tables.review import hand_replay_check, posted_results
from tables.screens import hand_screen
from tables.services import (
    approval_decide,
    hand_decide,
    hand_record_card,
    hand_start,
    hand_void_request,
    shift_start,
)

from .conftest import card, decide, key, open_table, play, seat
from .test_hands import settle

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


def test_a_starboard_players_chips_drop_as_the_draw_fee_is_paid(starboard, dana):
    # given: three players of 50 at Starboard, antes of 1 taken, the common hand 4, 6
    for number in (1, 2, 3):
        seat(starboard, number, 50, dana)
    hand = card(card(hand_start(table=starboard, by=dana, key=key()), 4, dana), 6, dana)

    # when: seat 1 (the button) draws
    hand = decide(hand, ("draw",), dana)

    # then: its chips in front are 50 less the ante and the fee, on the screen as in the ledger
    screen = hand_screen(hand)
    assert [s["chips"] for s in screen["seats"]] == [48, 49, 49]
    session = hand.sessions["1"]
    assert account_get(kind=Account.Kind.PLAYER, table=starboard, ref=session).balance == 48
    assert account_get(kind=Account.Kind.POT, table=starboard, ref=hand.pk).balance == 1


def test_a_starboard_hand_booking_fees_at_each_draw_settles_to_what_it_replays(starboard, dana):
    for number in (1, 2, 3):
        seat(starboard, number, 50, dana)
    hand = hand_start(table=starboard, by=dana, key=key())
    # seat 1 draws an 8, seat 2 locks at three, seat 3 draws a 4 and busts, seat 1 locks at three
    hand = settle(play(hand, [4, 6, 8, 4], [("draw",), ("lock",), ("draw",), ("lock",)], dana), dana)

    check = hand_replay_check(hand)
    assert check["matches"] and check["posted"] == {"1": 0, "2": 1, "3": -2}
    assert account_get(kind=Account.Kind.POT, table=starboard, ref=hand.pk).balance == 0
    assert [s["chips"] for s in hand_screen(hand)["seats"]] == [50, 51, 48]


def test_voiding_a_starboard_hand_gives_back_the_draw_fees_paid(starboard, dana, pete):
    shift_start(user=pete, pit=starboard.pit, by=pete)
    for number in (1, 2):
        seat(starboard, number, 50, dana)
    hand = card(card(hand_start(table=starboard, by=dana, key=key()), 4, dana), 6, dana)
    hand = decide(hand, ("draw",), dana)
    request = hand_void_request(hand=hand, by=dana, reason="Misdeal", expected_seq=hand.seq, key=key())

    approval_decide(request=request, by=pete, approve=True, reason="Seen on camera", key=key())

    assert [s["chips"] for s in hand_screen(Hand.objects.get(pk=hand.pk))["seats"]] == [50, 50]
    assert set(posted_results(hand).values()) == {0}


def test_the_tablet_aims_only_at_seats_the_move_may_target(pit, pete, dana):
    # Troll Guts under steal_own: a player may steal their own top downcard, so the tablet offers
    # their own seat; a knocked-out player's stack cannot be stolen from, nor a Regent loser aimed at.
    table = open_table(pit, pete, Game.TROLL_GUTS, "Troll 1", 1, 100, options={"steal_own": True})
    for number in (1, 2, 3):
        seat(table, number, 60, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in [None] * 15 + [3, 5, 7]:  # five face down each, then the upcards: seat 1 starts
        hand = hand_record_card(hand=hand, rank=rank, by=dana, expected_seq=hand.seq, key=key())
    assert hand_screen(hand)["actions"]["targets"] == [1, 2, 3]

    hand = hand_decide(hand=hand, action=("steal", 1, 4), by=dana, expected_seq=hand.seq, key=key())
    hand = hand_decide(hand=hand, action=("buy", 5), by=dana, expected_seq=hand.seq, key=key())  # 2 pairs

    assert hand_screen(hand)["actions"]["targets"] == [1, 3]

    table = open_table(pit, pete, Game.REGENT, "Regent 1", 1, 100)
    for number in (1, 2, 3):
        seat(table, number, 60, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in [None] * 6 + [3, 5, 7]:  # two face down each, then the upcards: seat 1 starts
        hand = hand_record_card(hand=hand, rank=rank, by=dana, expected_seq=hand.seq, key=key())
    hand = hand_decide(hand=hand, action=("attack", 2), by=dana, expected_seq=hand.seq, key=key())
    hand = hand_record_card(hand=hand, rank=5, by=dana, expected_seq=hand.seq, key=key())  # seat 1 is out

    assert hand_screen(hand)["actions"] == hand_screen(hand)["actions"] | {"seat": 2, "targets": [3]}
