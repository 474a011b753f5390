"""The pit manager's screens in a real Chromium: the pit view following a hand, an approval by a
second person, a table closed 25 short, and a hand review whose replay matches."""

import re

import pytest
from playwright.sync_api import Page, expect

from casino.roles import DEALER, PIT_MANAGER
from ledger.models import Account
from ledger.services import account_get
from tables.models import ApprovalRequest, Game, TableCount
from tables.services import fill_request, hand_start, shift_start
from tests.tables.conftest import TRAY_OPENING, card, key, person, play, seat
from tests.tables.conftest import open_table as new_table
from tests.tables.test_hands import settle

pytestmark = pytest.mark.django_db(transaction=True)

POLL_WAIT_MS = 10_000  # the pit view polls every 3 seconds


@pytest.fixture
def pit_floor(floor, people):
    """dana deals at Rocket 1; pete runs the pit."""
    shift_start(user=people["pete"], pit=floor["rocket"].pit, by=people["pete"])
    shift_start(user=people["dana"], table=floor["rocket"], by=people["pete"])
    return floor


def tray(table) -> int:
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def settled_hand(table, dana):
    """Seat 1 is paid 18 on the dealer's 9s; seat 2 folds for 30."""
    seat(table, 1, 200, dana, "Ann"), seat(table, 2, 200, dana, "Bo")
    hand = hand_start(table=table, bets={1: 20, 2: 50}, by=dana, key=key())
    return settle(play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana), dana)


def table_card(page: Page, name: str):
    return page.locator(f'.table-card[aria-label="{name}"]')


def test_the_pit_view_follows_a_hand_as_it_changes(tablet, pit_floor, people, screenshot):
    dana, pete = people["dana"], people["pete"]
    rocket, blackstone = pit_floor["rocket"], pit_floor["blackstone"]
    bea = person("bea", DEALER)
    shift_start(user=bea, table=blackstone, by=pete)
    new_table(rocket.pit, pete, Game.ROCKET, "Rocket 9", 10, 500, opened=False)  # no count yet: closed
    settled_hand(rocket, dana)
    page = tablet("pete")
    refused = []  # the content security policy's refusals (and any script error) land in the console
    page.on("console", lambda message: message.type == "error" and refused.append(message.text))
    page.goto("/pit/")
    rocket_card = table_card(page, "Rocket 1")
    expect(rocket_card).to_contain_text("No hand in progress")
    expect(rocket_card.locator(".badge")).to_have_text("Open")
    expect(table_card(page, "Rocket 9").locator(".badge")).to_have_text("Closed")
    expect(rocket_card).to_contain_text("+12")

    # when dana starts a hand at her tablet, then keys the first card
    hand = hand_start(table=rocket, bets={1: 10, 2: 30}, by=dana, key=key())
    expect(rocket_card).to_contain_text("Hand 2 · In progress", timeout=POLL_WAIT_MS)
    expect(rocket_card.locator(".turn")).to_have_text("Card due: for seat 1 (deal)")
    card(hand, 7, dana)

    # then the pit sees whose turn it is now, without reloading
    expect(rocket_card.locator(".turn")).to_have_text("Card due: for seat 2 (deal)", timeout=POLL_WAIT_MS)
    fill_request(table=rocket, denominations={"25": 8}, by=dana, secret="dana-password", key=key())
    expect(rocket_card.locator(".figures .waiting")).to_have_text("1", timeout=POLL_WAIT_MS)
    screenshot(page, "pit-view")

    rocket_card.click()
    expect(page.locator("h1")).to_contain_text("Rocket 1")
    expect(page.locator("#hands-title")).to_be_visible()
    screenshot(page, "pit-history")
    assert refused == []


def test_a_fill_filed_by_dana_is_approved_by_pete_with_his_password(tablet, pit_floor, people, screenshot):
    rocket = pit_floor["rocket"]
    at_table = tablet("dana")
    at_table.goto(f"/pit/tables/{rocket.pk}/tray/")
    at_table.get_by_label("Fill: chips from the cage").check()
    at_table.locator("input[name=chip_25]").fill("8")
    at_table.locator("input[name=chip_5]").fill("10")
    at_table.locator("input[name=secret]").fill("dana-password")
    at_table.get_by_role("button", name="Sign and send to the pit").click()
    expect(at_table.locator(".banner.success")).to_have_text(
        "Fill of 250 units asked for: it waits for the pit."
    )

    pit = tablet("pete")
    pit.goto("/pit/approvals/")
    request = pit.locator("article.request").filter(has_text="Fill")
    expect(request).to_contain_text("8 x 25, 10 x 5")
    expect(request).to_contain_text("dana")
    screenshot(pit, "pit-approvals")

    # a click alone does not sign: the password is asked for afresh (and not counted as a wrong one)
    request.get_by_role("button", name="Approve").click()
    expect(pit.locator(".banner.error")).to_contain_text("Type your password or PIN to sign")
    assert tray(rocket) == TRAY_OPENING

    request = pit.locator("article.request").filter(has_text="Fill")
    request.locator("input[name=secret]").fill("pete-password")
    request.get_by_role("button", name="Approve").click()
    expect(pit.locator(".banner.success")).to_have_text("Approved: fill at Rocket 1.")
    expect(pit.locator(".note")).to_have_text("Nothing waits for approval.")
    assert tray(rocket) == TRAY_OPENING + 250
    assert ApprovalRequest.objects.get().decided_by == people["pete"]


def count(page: Page, table, chips: dict[int, int], witness: str = "pete", before_signing=None) -> None:
    page.goto(f"/pit/tables/{table.pk}/count/")
    expect(page.locator("body")).not_to_contain_text(str(tray(table)))  # blind: no figure to copy
    for value, number in chips.items():
        page.locator(f"input[name=chip_{value}]").fill(str(number))
    page.locator("input[name=counter_secret]").fill("dana-password")
    page.locator("input[name=witness]").fill(witness)
    page.locator("input[name=witness_secret]").fill(f"{witness}-password")
    if before_signing:
        before_signing(page)
    page.get_by_role("button", name=re.compile("^Sign the")).click()
    page.wait_for_url(re.compile(r"/pit/counts/\d+/$"))


def test_a_table_closed_25_short_shows_the_difference(tablet, pit_floor, screenshot):
    rocket = pit_floor["rocket"]
    page = tablet("dana")

    # Rocket 1 was opened with a count of its full tray (the floor's tables all are)
    count(page, rocket, {100: 99, 25: 3}, before_signing=lambda form: screenshot(form, "pit-count-form"))

    expect(page.locator("h1")).to_contain_text("Closing count")
    expect(page.locator("#counted")).to_have_text("9975")
    expect(page.locator("#expected")).to_have_text(str(TRAY_OPENING))
    expect(page.locator("#difference")).to_have_text("-25")
    screenshot(page, "pit-count")
    closer = TableCount.objects.get(kind="closer")
    assert closer.difference == -25 and closer.slip.signatures.count() == 2


def test_a_hand_review_shows_the_replay_matches(tablet, pit_floor, people, screenshot):
    hand = settled_hand(pit_floor["rocket"], people["dana"])
    page = tablet("ada")
    page.goto(f"/pit/hands/{hand.pk}/")

    expect(page.locator("#replay")).to_have_text("Replay matches what was posted.")
    expect(page.locator("#replay")).to_have_css("background-color", "rgb(11, 93, 59)")
    expect(page.locator("h1")).to_contain_text("Hand 1")
    expect(page.locator(".step-decision")).to_have_count(2)
    expect(page.locator(".step-card")).to_have_count(5)
    screenshot(page, "pit-hand")


def test_a_fill_asked_by_mistake_is_withdrawn_at_the_table_and_leaves_the_queue(tablet, pit_floor):
    rocket = pit_floor["rocket"]
    at_table = tablet("dana")
    at_table.goto(f"/tablet/{rocket.pk}/")
    at_table.get_by_role("link", name="Fill or credit").click()
    at_table.get_by_label("Fill: chips from the cage").check()
    at_table.locator("input[name=chip_25]").fill("4")
    at_table.locator("input[name=secret]").fill("dana-password")
    at_table.get_by_role("button", name="Sign and send to the pit").click()
    at_table.get_by_role("link", name="Back to the table").click()

    waiting = at_table.locator("section.tray-request")
    expect(waiting).to_contain_text("Fill of 100 units asked for: it waits for the pit.")
    waiting.get_by_text("Withdraw", exact=True).click()
    waiting.locator("input[name=reason]").fill("Wrong chips: meant 5s.")
    waiting.get_by_role("button", name="Withdraw the fill of 100").click()

    expect(at_table.locator("section.tray-request")).to_have_count(0)
    pit = tablet("pete")
    pit.goto("/pit/approvals/")
    expect(pit.locator(".note")).to_have_text("Nothing waits for approval.")
    expect(pit.locator("table")).to_contain_text("Withdrawn by the one who asked: Wrong chips: meant 5s.")
    assert tray(rocket) == TRAY_OPENING


def test_pete_adds_a_table_from_the_pit_and_opens_it_with_a_count(tablet, pit_floor, people):
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=pit_floor["rocket"].pit, by=pam)  # the count's witness
    page = tablet("pete")
    page.goto("/pit/")
    page.get_by_role("link", name="New table").click()
    page.locator("input[name=name]").fill("Rocket 3")
    page.locator("input[name=max_bet]").fill("505")
    page.get_by_role("button", name="Add the table").click()
    expect(page.locator(".banner.error")).to_contain_text("Rocket limits must be multiples of 10 units")
    expect(page.locator("input[name=name]")).to_have_value("Rocket 3")  # kept as typed

    page.locator("input[name=max_bet]").fill("500")
    page.get_by_role("button", name="Add the table").click()
    added = page.locator(".banner.success")
    expect(added).to_contain_text("Rocket 3 is added to Test Casino / Pit 1, closed")
    page.get_by_role("link", name="Count the tray").click()
    page.locator("input[name=counter_secret]").fill("pete-password")
    page.locator("input[name=witness]").fill("pam")
    page.locator("input[name=witness_secret]").fill("pam-password")
    page.get_by_role("button", name=re.compile("^Sign the")).click()
    page.wait_for_url(re.compile(r"/pit/counts/\d+/$"))

    page.goto("/pit/")
    expect(table_card(page, "Rocket 3").locator(".badge")).to_have_text("Open")
