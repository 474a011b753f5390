"""The tablet when the network fails, in a real Chromium: the browser's offline mode cuts the network
mid-hand, the dealer keys on on the offline keypad, the tablet is closed and opened again (its
battery went flat), the network comes back and the records are checked."""

import json
import re

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import expect

from tables.models import CardEvent, Decision, HeldQueue, IdempotentRequest, Receiver
from tests.tables.conftest import deal_at

from .test_tablet import key_card, open_table, seat_player, start_hand, three_seated

pytestmark = pytest.mark.django_db(transaction=True)

STORE = re.compile(r"tablet-offline:table-\d+:hand-\d+")


def offline_tap(page, label: str) -> None:
    page.locator(".offline-keypad").get_by_role("button", name=label, exact=True).click()


def stored_queue(page) -> dict:
    """The queue as the tablet holds it in localStorage (one hand's)."""
    stored = page.evaluate("Object.keys(localStorage).map(k => [k, localStorage.getItem(k)])")
    queues = [json.loads(value) for name, value in stored if STORE.fullmatch(name)]
    assert len(queues) == 1, stored
    return queues[0]


def two_at_rocket(floor, people, tablet, polls: bool = False):
    """Dana at Rocket 1, Ann at seat 1 and Bob at seat 2 betting 10 each; hand 1 is open."""
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana", polls=polls)
    open_table(page, "Rocket 1")
    seat_player(page, 1, "Ann", 100)
    seat_player(page, 2, "Bob", 100)
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.get_by_role("button", name="Seat 2 bet up").click()
    return page, start_hand(page)


@pytest.fixture
def two_seat_hand(floor, people, tablet):
    return two_at_rocket(floor, people, tablet)


def test_a_hand_keyed_offline_survives_a_flat_battery_and_is_recorded_once_the_network_returns(
    two_seat_hand, tablet
):
    # given: the first card is recorded, then the network fails
    page, hand = two_seat_hand
    key_card(page, 4)
    page.context.set_offline(True)

    # when: the next tap cannot reach the server, and the dealer keys on on the offline keypad
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="6", exact=True).click()
    expect(page.locator(".offline-keypad")).to_be_visible()
    expect(page.locator(".offline-who [aria-pressed=true]")).to_have_text("Dealer")  # by rotation
    offline_tap(page, "8")
    expect(page.locator(".offline-who [aria-pressed=true]")).to_have_text("Seat 1")
    offline_tap(page, "Hit")
    offline_tap(page, "9")
    expect(page.locator(".offline-queue li")).to_have_text(
        ["the 6 to seat 2", "the 8 to the dealer", "seat 1: hit", "the 9 to seat 1"]
    )
    queue = stored_queue(page)
    assert CardEvent.objects.filter(hand=hand).count() == 1  # nothing reached the server

    # the battery goes flat; the network comes back; the tablet opens the hand again
    page.close()
    page.context.set_offline(False)
    again = page.context.new_page()
    again.goto(f"/tablet/hands/{hand.pk}/")

    # then: the queue is sent in order, each step once under the key it was tapped with
    expect(again.locator(".prompt")).to_have_text("Seat 2 to act.")
    expect(again.locator(".offline-keypad")).to_be_hidden()
    cards = CardEvent.objects.filter(hand=hand).order_by("seq")
    assert [(c.rank, c.receiver, c.seat, c.seq) for c in cards] == [
        (4, Receiver.SEAT, 1, 1),
        (6, Receiver.SEAT, 2, 2),
        (8, Receiver.DEALER, None, 3),
        (9, Receiver.SEAT, 1, 5),
    ]
    decision = Decision.objects.get(hand=hand)
    steps = queue["steps"]
    assert (decision.seat, decision.action, decision.seq, decision.key) == (1, ["hit"], 4, steps[2]["key"])
    assert [step["seq"] for step in steps] == [1, 2, 3, 4]
    sent = set(IdempotentRequest.objects.filter(user__username="dana").values_list("key", flat=True))
    assert {step["key"] for step in steps} <= sent
    assert again.evaluate("Object.keys(localStorage).length") == 0


def test_a_queued_card_for_the_wrong_receiver_is_refused_and_the_rest_waits_for_the_pit(two_seat_hand):
    page, hand = two_seat_hand
    page.context.set_offline(True)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="4", exact=True).click()
    offline_tap(page, "Dealer")  # seat 2 is due its first card, not the dealer
    offline_tap(page, "6")
    offline_tap(page, "8")

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    expect(page.locator(".banner.error")).to_contain_text(
        "Step 2 of the offline queue: Refused the 6 keyed for the dealer: the rules give the next card to"
        " seat 2 (deal)."
    )
    assert [(c.rank, c.seat) for c in CardEvent.objects.filter(hand=hand)] == [(4, 1)]
    assert [step["rank"] for step in HeldQueue.objects.get(hand=hand).steps] == [6, 8]


def test_a_refused_queue_still_says_why_once_the_screen_has_caught_up(floor, people, tablet):
    # found trying the tablet: the red sentence sat inside the hand screen, and the screen's poll,
    # seeing the steps before the refused one recorded, redrew it away within half a second
    page, _ = two_at_rocket(floor, people, tablet, polls=True)
    page.context.set_offline(True)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="4", exact=True).click()
    offline_tap(page, "Dealer")  # seat 2 is due its first card, not the dealer
    offline_tap(page, "6")

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    refusal = page.locator(".banner.error", has_text="Step 2 of the offline queue")
    expect(refusal).to_be_visible()
    page.wait_for_timeout(5000)  # two polls and more
    expect(refusal).to_be_visible()
    expect(page.locator(".prompt")).to_have_text("Next card: seat 2 (deal).")


def test_offline_a_blackstone_take_offers_the_taker_every_card_of_it(floor, people, tablet):
    page = three_seated(floor["blackstone"], people, tablet, 100)
    start_hand(page)
    key_card(page, 5)
    key_card(page, 3)
    page.context.set_offline(True)

    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="8", exact=True).click()
    offline_tap(page, "Seat 2")  # Bob's 3 is the low card: he starts
    page.locator(".offline-take").fill("2")
    offline_tap(page, "Take")
    offline_tap(page, "6")
    offline_tap(page, "7")

    expect(page.locator(".offline-queue li")).to_have_text(
        ["the 8 to seat 3", "seat 2: take 2", "the 6 to seat 2", "the 7 to seat 2"]
    )


def test_steps_kept_while_the_session_ended_are_sent_once_the_dealer_signs_in_again(two_seat_hand):
    # found trying the tablet: the queue's post was redirected to the sign-in page, whose 200 the
    # tablet took for "every step recorded": it forgot the steps, and none was recorded
    page, hand = two_seat_hand
    page.context.set_offline(True)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="4", exact=True).click()
    offline_tap(page, "6")
    Session.objects.all().delete()  # idle too long while the network was down: signed out

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert len(stored_queue(page)["steps"]) == 2 and not CardEvent.objects.filter(hand=hand).exists()
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password]", "dana-password")
    page.click("button[type=submit]")
    expect(page.locator(".prompt")).to_have_text("Next card: the dealer (deal).")
    assert [(c.rank, c.seat) for c in CardEvent.objects.filter(hand=hand).order_by("seq")] == [(4, 1), (6, 2)]


def test_steps_answered_503_while_the_database_restarts_are_sent_again(two_seat_hand):
    # found trying the tablet: a 503 ("nothing was done. Try again.") marked the queue refused for
    # good ("call the pit"), and it was never sent again, even after a reload
    page, hand = two_seat_hand
    page.context.set_offline(True)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="4", exact=True).click()
    offline_tap(page, "6")
    unavailable = []

    def restarting(route):
        if unavailable:
            route.continue_()
        else:
            unavailable.append(route.request.url)
            route.fulfill(status=503, content_type="text/plain",
                          body="The database is unavailable; nothing was done. Try again.")

    page.route(re.compile(r"/queue/$"), restarting)
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    expect(page.locator(".prompt")).to_have_text("Next card: the dealer (deal).")
    assert unavailable
    assert [(c.rank, c.seat) for c in CardEvent.objects.filter(hand=hand).order_by("seq")] == [(4, 1), (6, 2)]


def test_a_tap_answered_503_is_kept_on_the_offline_keypad_and_recorded_when_the_server_is_back(two_seat_hand):
    # found trying the tablet: a card answered 503 (the database restarting) replaced the hand
    # screen with that bare sentence: no keys, no poll, and the tap was lost
    page, hand = two_seat_hand
    restarting = []

    def card(route):
        if restarting:
            route.continue_()
        else:
            restarting.append(route.request.url)
            route.fulfill(status=503, content_type="text/plain",
                          body="The database is unavailable; nothing was done. Try again.")

    page.route(re.compile(r"/card/$"), card)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="4", exact=True).click()

    expect(page.locator(".offline-keypad")).to_be_visible()
    expect(page.locator(".offline-queue li")).to_have_text(["the 4 to seat 1"])
    offline_tap(page, "6")
    assert restarting and not CardEvent.objects.filter(hand=hand).exists()

    page.evaluate("window.dispatchEvent(new Event('online'))")  # or the next try, three seconds on
    expect(page.locator(".prompt")).to_have_text("Next card: the dealer (deal).")
    assert [(c.rank, c.seat) for c in CardEvent.objects.filter(hand=hand).order_by("seq")] == [(4, 1), (6, 2)]


def test_steps_kept_for_a_hand_voided_meanwhile_are_sent_and_held_for_the_pit(two_seat_hand, people):
    # found trying the tablet: a tablet closed with steps kept, the hand finished meanwhile on
    # another tablet, then opened again: no keypad is drawn on a finished hand, so the steps were
    # never sent nor named, and the pit never saw them
    from tables.services import approval_decide, hand_void_request
    from tests.tables.conftest import key

    page, hand = two_seat_hand
    key_card(page, 4)
    page.context.set_offline(True)
    page.locator(".keypad:not(.offline-ranks)").get_by_role("button", name="6", exact=True).click()
    offline_tap(page, "8")
    page.close()
    hand.refresh_from_db()
    dana, pete = people["dana"], people["pete"]
    void = hand_void_request(hand=hand, by=dana, reason="Misdeal.", expected_seq=hand.seq, key=key())
    approval_decide(request=void, by=pete, approve=True, key=key())

    page.context.set_offline(False)
    again = page.context.new_page()
    again.goto(f"/tablet/hands/{hand.pk}/")

    expect(again.locator(".banner.error")).to_contain_text("The steps from there on wait for the pit.")
    assert HeldQueue.objects.get(hand=hand).steps[0]["rank"] == 6
    assert CardEvent.objects.filter(hand=hand).count() == 1
    assert again.evaluate("Object.keys(localStorage).length") == 0
