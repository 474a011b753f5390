"""A dealer runs a carded player's rating slip from the seat's Rating control, in a real Chromium:
start it, play a Rocket hand, close it; the slip's figures are the hand's."""

import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tables.models import CashIn, RatingSlip
from tables.services.players import player_create
from tables.services.rating_slips import slip_figures, slip_state
from tests.tables.conftest import deal_at

from .test_tablet import confirm_settlement, key_card, open_table, press, seat_player, start_hand

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_dealer_starts_a_slip_plays_a_hand_and_closes_it(floor, people, tablet):
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    player_create(casino=rocket.pit.casino, name="Bruno Keller", card_number="1002", by=people["pete"])
    page = tablet("dana")
    open_table(page, "Rocket 1")

    # given Bruno Keller seated by his card at seat 1, a stranger at seat 2, and Bruno's slip started
    seat = page.locator('article[aria-label="Seat 1"]')
    seat.locator("summary", has_text="Seat a player").click()
    seat.get_by_label("Player card").fill("1002")
    seat.get_by_label("Buy-in").fill("200")
    seat.get_by_role("button", name="Seat at 1").click()
    expect(seat.locator(".player")).to_have_text("Bruno Keller")
    seat_player(page, 2, "Stranger", 200)
    stranger = page.locator('article[aria-label="Seat 2"]')
    expect(stranger.get_by_role("button", name="Start rating")).to_have_count(0)  # not carded
    seat.get_by_role("button", name="Start rating").click()
    expect(seat.locator(".rating-state")).to_have_text(re.compile(r"Rating slip \d+ running"))

    # when seat 1 bets 20 and hits a 4 after a 5, seat 2 bets 50 and folds a 6, the dealer pairs 9s
    page.get_by_label("Seat 1 bet", exact=True).fill("20")
    page.get_by_label("Seat 2 bet", exact=True).fill("50")
    start_hand(page)
    for rank in (5, 6, 9):
        key_card(page, rank)
    press(page, "Hit")
    key_card(page, 4)
    press(page, "Fold")
    key_card(page, 9)
    confirm_settlement(page)
    page.get_by_role("link", name="Next hand").click()
    seat = page.locator('article[aria-label="Seat 1"]')
    seat.get_by_role("button", name="Close rating").click()
    expect(seat.get_by_role("button", name="Start rating")).to_be_visible()

    # then the slip is closed, by dana, with the hand's figures: paid 9 tenths of 20
    slip = RatingSlip.objects.get()
    assert list(slip.events.values_list("kind", "by__username")) == [("started", "dana"), ("closed", "dana")]
    figures = slip_figures(slip)
    assert (figures.hands, figures.total_bet, figures.result) == (1, 20, 18)
    # 20 units x the exact 8-deck Rocket edge
    assert (figures.average_bet, figures.theoretical_win) == (Decimal("20.00"), Decimal("0.68"))


def test_a_player_changes_seats_with_their_chips_and_the_slip_follows(floor, people, tablet):
    # found on the tablet: a seat change was a cash-out and a new cash buy-in (the same chips twice
    # in the player's cash in and in the expected drop), and the slip could not follow to the seat
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    player_create(casino=rocket.pit.casino, name="Bruno Keller", card_number="1002", by=people["pete"])
    page = tablet("dana")
    open_table(page, "Rocket 1")
    old = page.locator('article[aria-label="Seat 1"]')
    old.locator("summary", has_text="Seat a player").click()
    old.get_by_label("Player card").fill("1002")
    old.get_by_label("Buy-in").fill("200")
    old.get_by_role("button", name="Seat at 1").click()
    old.get_by_role("button", name="Start rating").click()
    expect(old.locator(".rating-state")).to_have_text(re.compile(r"Rating slip \d+ running"))

    # when Bruno moves to seat 4: cashed out at seat 1, seated at 4 with the 200 he carries
    old.locator("summary", has_text="Cash out").click()
    old.get_by_role("button", name="Pay out 200 and free seat 1").click()
    expect(old.locator("summary", has_text="Seat a player")).to_be_visible()
    new = page.locator('article[aria-label="Seat 4"]')
    new.locator("summary", has_text="Seat a player").click()
    new.get_by_label("Player card").fill("1002")
    new.get_by_label("Chips brought").fill("200")
    new.get_by_role("button", name="Seat at 4").click()
    expect(new.locator(".chips")).to_have_text("200 chips")
    new.get_by_role("button", name="Move rating slip here").click()

    # then the slip runs at seat 4, and his cash in is the one buy-in
    expect(new.locator(".rating-state")).to_have_text(re.compile(r"Rating slip \d+ running"))
    assert slip_state(RatingSlip.objects.get()).session.seat.number == 4
    assert list(CashIn.objects.values_list("units", flat=True)) == [200]
