"""A tablet's offline queue sent back to the server (tables/services/offline.py and the tablet's
/tablet/hands/<id>/queue/): applied once, in order, through the hand services; the first refused
step stops it and it and the rest are held for the pit."""

import json
import re

import pytest
from django.contrib.auth.models import Group
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.models import AuditEvent
from casino.roles import ROLES, grant_role_permissions
from tables.models import CardEvent, Decision, HeldQueue, IdempotentRequest, Incident, Receiver, Shoe
from tables.services import hand_start, shift_start, shoe_start
from tables.services.offline import QueueError, hand_queue_apply, queued_steps

from .conftest import card, key, seat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def roles(db):
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()


@pytest.fixture
def hand(rocket, dana, pete):
    """Rocket 1: Ann at seat 1 and Bob at seat 2, 10 each; hand 1 started, nothing dealt."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, 200, dana, "Ann"), seat(rocket, 2, 200, dana, "Bob")
    return hand_start(table=rocket, bets={1: 10, 2: 10}, by=dana, key=key())


def card_step(seq, rank, to="seat", seat=None):
    return {"kind": "card", "rank": rank, "to": to, "seat": seat, "key": key(), "seq": seq}


def decision_step(seq, seat, *action):
    return {"kind": "decision", "seat": seat, "action": list(action), "key": key(), "seq": seq}


def offline_hand(seq):
    """The steps a dealer keys for the start of a Rocket hand: 4 to seat 1, 6 to seat 2, 8 to
    the dealer, then seat 1 hits and gets a 9, each at the step the tablet predicts."""
    return [
        card_step(seq, 4, seat=1),
        card_step(seq + 1, 6, seat=2),
        card_step(seq + 2, 8, to="dealer"),
        decision_step(seq + 3, 1, "hit"),
        card_step(seq + 4, 9, seat=1),
    ]


def recorded(hand):
    cards = [(c.rank, c.receiver, c.seat, c.seq) for c in CardEvent.objects.filter(hand=hand).order_by("seq")]
    decisions = [(d.seat, d.action, d.seq, d.key) for d in Decision.objects.filter(hand=hand)]
    return cards, decisions


def apply(hand, raw, by):
    return hand_queue_apply(hand=hand, steps=queued_steps(raw), by=by, device="tablet-1")


def test_a_queue_is_applied_in_order_with_each_steps_key_and_step_number(hand, dana):
    raw = offline_hand(hand.seq)

    outcome = apply(hand, raw, dana)

    assert (outcome.applied, outcome.refusal, outcome.held) == (5, "", None)
    cards, decisions = recorded(hand)
    first = hand.seq
    assert cards == [
        (4, Receiver.SEAT, 1, first + 1),
        (6, Receiver.SEAT, 2, first + 2),
        (8, Receiver.DEALER, None, first + 3),
        (9, Receiver.SEAT, 1, first + 5),
    ]
    assert decisions == [(1, ["hit"], first + 4, raw[3]["key"])]
    assert outcome.hand.seq == first + 5
    assert set(IdempotentRequest.objects.filter(user=dana).values_list("key", flat=True)) >= {
        step["key"] for step in raw
    }


def test_a_queue_sent_again_after_a_lost_answer_is_applied_once(hand, dana):
    raw = offline_hand(hand.seq)
    apply(hand, raw[:3], dana)  # the first three got through; the answer was lost
    before = recorded(hand)

    again = apply(hand, raw, dana)  # the tablet sends its whole queue again
    once_more = apply(hand, raw, dana)

    cards, decisions = recorded(hand)
    assert cards[:3] == before[0] and len(cards) == 4 and len(decisions) == 1
    assert (again.applied, once_more.applied) == (5, 5)
    assert recorded(hand) == (cards, decisions)


class Undone(Exception):
    """Raised to roll an example back: hypothesis runs every example on the same test database."""


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sent=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=4))
def test_however_often_any_part_of_a_queue_is_sent_each_step_is_recorded_once(hand, dana, sent):
    raw = offline_hand(hand.seq)
    with pytest.raises(Undone), transaction.atomic():
        for length in sent:
            apply(hand, raw[:length], dana)
        cards, decisions = recorded(hand)
        assert len(cards) == sum(1 for step in raw[: max(sent)] if step["kind"] == "card")
        assert len(decisions) == (1 if max(sent) >= 4 else 0)
        assert len({seq for *_, seq in cards}) == len(cards)
        raise Undone


def test_a_card_keyed_for_the_wrong_receiver_is_refused_and_nothing_after_it_is_applied(hand, dana):
    raw = offline_hand(hand.seq)
    raw[1] = card_step(hand.seq + 1, 6, to="dealer")  # seat 2 was due its first card

    outcome = apply(hand, raw, dana)

    assert outcome.applied == 1
    assert outcome.refusal == (
        "Step 2 of the offline queue: Refused the 6 keyed for the dealer: the rules give the next card to"
        " seat 2 (deal)."
    )
    cards, decisions = recorded(hand)
    assert [card[:3] for card in cards] == [(4, Receiver.SEAT, 1)] and decisions == []
    held = HeldQueue.objects.get()
    assert [step["key"] for step in held.steps] == [step["key"] for step in raw[1:]]
    event = AuditEvent.objects.get(action=AuditEvent.Action.QUEUE_HELD)
    assert (event.user, event.detail["held"], event.detail["steps"]) == (dana, held.pk, 4)
    assert (held.hand, held.by, held.first_key, held.refusal) == (hand, dana, raw[1]["key"], outcome.refusal)


def test_a_refused_queue_sent_again_is_held_once(hand, dana):
    raw = offline_hand(hand.seq)
    raw[3] = decision_step(hand.seq + 3, 2, "hit")  # seat 1 acts first

    apply(hand, raw, dana)
    outcome = apply(hand, raw, dana)

    assert outcome.refusal.endswith("Refused hit keyed for seat 2: seat 1 is the one to act.")
    assert outcome.applied == 3 and HeldQueue.objects.count() == 1
    assert AuditEvent.objects.filter(action=AuditEvent.Action.QUEUE_HELD).count() == 1
    assert len(recorded(hand)[0]) == 3


def test_a_rank_the_shoe_cannot_hold_is_refused_held_and_kept_as_an_incident(blackstone, dana, pete):
    shift_start(user=pete, pit=blackstone.pit, by=pete)
    shift_start(user=dana, table=blackstone, by=pete)
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    one_deck = [card_step(hand.seq, 1, seat=1), card_step(hand.seq + 1, 1, seat=2)]  # one deck has one 1

    queue = [*one_deck, card_step(hand.seq + 2, 5, seat=1)]
    outcome = apply(hand, queue, dana)
    again = apply(hand, queue, dana)  # the tablet never saw the answer: the same queue, sent again

    assert outcome.applied == 1 and len(HeldQueue.objects.get().steps) == 2
    assert again.held == outcome.held
    assert Incident.objects.filter(kind=Incident.Kind.RANK_REFUSED, hand=hand).count() == 1


def test_a_queue_whose_hand_moved_on_elsewhere_is_held_whole(hand, dana):

    card(hand, 2, dana)  # a second tablet dealt seat 1 its card while this one was offline
    outcome = apply(hand, offline_hand(hand.seq), dana)

    assert outcome.applied == 0 and "has moved on" in outcome.refusal
    assert len(HeldQueue.objects.get().steps) == 5 and len(recorded(hand)[0]) == 1


@pytest.mark.parametrize(
    "raw",
    [
        [],
        [{"kind": "card", "rank": 4, "to": "seat", "seat": 1, "seq": 0}],  # no key
        [{"kind": "card", "rank": 11.0, "to": "seat", "seat": 1, "seq": 0, "key": "k"}],
        [{"kind": "card", "rank": 4, "to": "burn", "seq": 0, "key": "k"}],
        [{"kind": "decision", "seat": 1, "action": "hit", "seq": 0, "key": "k"}],
        ["hit"],
        [{"kind": "card", "rank": 4, "to": "seat", "seat": 1, "seq": 0, "key": "k" * 101}],  # past 100
        [{"kind": "card", "rank": 4, "to": "seat", "seat": 1, "seq": 0, "key": "a\x00b"}],
        [{"kind": "decision", "seat": 1, "action": ["hit\x00"], "seq": 0, "key": "k"}],
    ],
)
def test_a_malformed_queue_is_refused_whole(raw):
    with pytest.raises(QueueError):
        queued_steps(raw)


# Through the tablet's address


def post_queue(client, hand, raw):
    return client.post(f"/tablet/hands/{hand.pk}/queue/", {"steps": json.dumps(raw)})


def test_the_tablet_sends_its_queue_and_is_told_how_far_it_got(client, hand, dana):
    client.force_login(dana)
    raw = offline_hand(hand.seq)

    response = post_queue(client, hand, raw)

    assert response.status_code == 200
    assert response.json() == {"applied": 5, "seq": hand.seq + 5, "refused": None}


def test_a_refused_step_answers_409_with_its_sentence(client, hand, dana):
    client.force_login(dana)
    raw = offline_hand(hand.seq)
    raw[0] = card_step(hand.seq, 4, to="dealer")

    response = post_queue(client, hand, raw)

    assert response.status_code == 409
    assert response.json()["refused"].startswith("Step 1 of the offline queue: Refused the 4 keyed")
    assert recorded(hand) == ([], [])


def test_a_malformed_queue_answers_400_and_writes_nothing(client, hand, dana):
    client.force_login(dana)

    response = post_queue(client, hand, [{"kind": "card", "rank": 4}])

    assert response.status_code == 400
    assert "Step 1 of the offline queue is not a card" in response.json()["refused"]
    assert recorded(hand) == ([], []) and not HeldQueue.objects.exists()


@pytest.mark.parametrize(
    "malformed",
    [{"key": "k" * 101}, {"key": "a\x00b"}, {"kind": "decision", "seat": 1, "action": ["hit\x00"]}],
)
def test_a_step_no_change_could_carry_answers_400_and_holds_nothing(client, hand, dana, malformed):
    """A key is 1 to 100 characters, as for every change, and no text holds a NUL: such a step is
    malformed, not one the rules refused, so nothing is held for the pit (PostgreSQL could not even
    store it: a 500)."""
    client.force_login(dana)
    raw = [{**card_step(hand.seq, 4, seat=1), **malformed}]

    response = post_queue(client, hand, raw)

    assert response.status_code == 400
    assert "Step 1 of the offline queue is not a card" in response.json()["refused"]
    assert recorded(hand) == ([], []) and not HeldQueue.objects.exists()


def test_a_dealer_at_another_table_is_refused_and_nothing_is_recorded(client, hand, olga):
    client.force_login(olga)

    response = post_queue(client, hand, offline_hand(hand.seq))

    assert response.status_code == 404 and recorded(hand) == ([], [])


def test_a_placed_card_whose_answer_was_lost_is_recorded_once_when_the_queue_sends_it_again(
    client, rocket, dana, pete
):
    # found trying the tablet: "Placed" sent no rank and the queue the rank shown, so the retry of a
    # card the server had recorded was "already used for a different request" and held for the pit
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    shoe_start(table=rocket, decks=2, kind=Shoe.Kind.SYSTEM, burn=3, reason="Test", by=dana, key=key())
    seat(rocket, 1, 200, dana, "Ann")
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    client.force_login(dana)
    html = client.get(f"/tablet/hands/{hand.pk}/").content.decode()
    form = re.search(r'<form class="place".*?</form>', html, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))

    client.post(f"/tablet/hands/{hand.pk}/card/", fields)  # recorded; the answer never reaches the tablet
    # the offline keypad keeps the tap under its key: the rank it sent, else the card shown (offline.js)
    rank = fields.get("rank") or re.search(r'data-next-place="(\d+)"', html).group(1)
    step = {"kind": "card", "key": fields["key"], "seq": int(fields["seq"]), "rank": int(rank)}
    step |= {"to": "seat", "seat": 1}
    response = post_queue(client, hand, [step])

    assert response.status_code == 200, response.json()
    assert CardEvent.objects.filter(hand=hand).count() == 1 and not HeldQueue.objects.exists()


def test_the_pit_sees_the_held_steps_on_the_hands_review(client, hand, dana, pete):
    raw = offline_hand(hand.seq)
    raw[1] = card_step(hand.seq + 1, 6, to="dealer")
    apply(hand, raw, dana)
    client.force_login(pete)

    html = client.get(f"/pit/hands/{hand.pk}/").content.decode()

    assert "Steps keyed offline and held for the pit" in html
    assert "Refused the 6 keyed for the dealer" in html and "card 6 to the dealer" in html
    assert "seat 1: hit" in html


# The offline keypad drawn on the hand screen


def test_the_rocket_hand_screen_carries_an_offline_keypad_with_the_seats_and_the_dealer(client, hand, dana):
    client.force_login(dana)

    html = client.get(f"/tablet/hands/{hand.pk}/").content.decode()

    assert 'class="offline-keypad"' in html and f'data-seq="{hand.seq}"' in html
    assert f'data-queue-url="/tablet/hands/{hand.pk}/queue/"' in html
    receivers = re.findall(r'data-to="(\w+)" data-seat="(\d*)"', html)
    assert receivers == [("seat", "1"), ("seat", "2"), ("dealer", "")]
    assert re.findall(r'data-move="(\w+)"', html) == ["hit", "fold"]
    assert "{#" not in html and "#}" not in html  # no template comment shows on the dealer's screen


def test_at_starboard_every_offline_card_goes_to_the_common_hand(client, starboard, dana, pete):
    shift_start(user=pete, pit=starboard.pit, by=pete)
    shift_start(user=dana, table=starboard, by=pete)
    seat(starboard, 1, 50, dana), seat(starboard, 2, 50, dana)
    game = hand_start(table=starboard, by=dana, key=key())
    client.force_login(dana)

    html = client.get(f"/tablet/hands/{game.pk}/").content.decode()

    assert 'data-cards-to="common"' in html
    assert re.findall(r'data-move="(\w+)"', html) == ["draw", "lock"]


def test_an_auditor_sees_no_offline_keypad(client, hand, ada):
    client.force_login(ada)

    assert "offline-keypad" not in client.get(f"/tablet/hands/{hand.pk}/").content.decode()
