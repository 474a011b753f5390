"""A dealer plays whole hands on the tablet by tapping the screen, in a real Chromium; then the ledger
and the card records are checked."""

import re

import pytest
from django.db import transaction
from playwright.sync_api import Page, expect

from casino.roles import DEALER
from ledger.models import Account
from ledger.services import account_get
from tables.models import CardEvent, Decision, Hand, Receiver, SeatSession
from tables.services import hand_settle, hand_start, seat_close, seat_open
from tables.services.players import player_create
from tests.tables.conftest import TRAY_OPENING, deal_at, key, person, play, seat

from .conftest import PORTRAIT

pytestmark = pytest.mark.django_db(transaction=True)


# Tapping


# The hand screen has moved on from step `seq` and is drawn: htmx has settled it (a tap on a screen
# still settling is one made while it changed, which tablet.js does not send).
MOVED_ON = """seq => {
    const hand = document.querySelector('#hand');
    return hand && hand.dataset.seq !== seq && !hand.classList.contains('htmx-settling');
}"""


def tap(page: Page, button) -> None:
    """Tap a button on the hand screen and wait until the hand moves on (its sequence number changes).

    The tablet's polls are answered "nothing changed" (see the `tablet` fixture), so only the tap's
    own answer can move the screen on: the next tap goes as soon as that answer is drawn."""
    seq = page.get_attribute("#hand", "data-seq")
    button.click()
    page.wait_for_function(MOVED_ON, arg=seq)


def key_card(page: Page, rank: int) -> None:
    tap(page, page.locator(".keypad").get_by_role("button", name=str(rank), exact=True))


def press(page: Page, label: str) -> None:
    """Tap the decision button whose label starts with `label` ("Hit", "Fold", "Take 2", "Draw", "Lock")."""
    tap(page, page.locator(".decisions").get_by_role("button", name=re.compile(f"^{label}")))


def seat_player(page: Page, number: int, name: str, buy_in: int) -> None:
    seat = page.locator(f'article[aria-label="Seat {number}"]')
    seat.locator("summary", has_text="Seat a player").click()
    seat.get_by_label("Or a description").fill(name)  # no player card: anonymous
    seat.get_by_label("Buy-in").fill(str(buy_in))
    seat.get_by_role("button", name=f"Seat at {number}").click()
    expect(page.locator(f'article[aria-label="Seat {number}"] .player')).to_have_text(name)


def open_table(page: Page, name: str) -> None:
    page.get_by_role("link", name=re.compile(name)).click()
    expect(page.locator("#table h1")).to_contain_text(name)


def start_hand(page: Page) -> Hand:
    page.get_by_role("button", name="Start the hand").click()
    page.wait_for_url(re.compile(r"/tablet/hands/\d+/$"))
    return Hand.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def three_seated(table, people, tablet, buy_in: int) -> Page:
    """Dana dealing at `table` on her tablet, with Ann, Bob and Cy seated with `buy_in` each."""
    deal_at(table, people["dana"], people["pete"])
    page = tablet("dana")
    open_table(page, table.name)
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat_player(page, number, name, buy_in)
    return page


def confirm_settlement(page: Page) -> None:
    tap(page, page.get_by_role("button", name="Confirm settlement"))
    expect(page.locator(".prompt")).to_contain_text("is settled")


# What the ledger and the records say


def chips(table, number: int) -> int:
    session = SeatSession.objects.get(seat__table=table, seat__number=number)
    return account_get(kind=Account.Kind.PLAYER, table=table, ref=session.pk).balance


def tray(table) -> int:
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def recorded_cards(hand) -> list[tuple]:
    return [
        (card.rank, card.receiver, card.seat)
        for card in CardEvent.objects.filter(hand=hand).exclude(receiver=Receiver.DISCARD).order_by("seq")
    ]


# The three games


def test_a_dealer_plays_a_rocket_hand_with_three_players_by_tapping(floor, people, tablet, screenshot):
    rocket, dana = floor["rocket"], people["dana"]
    deal_at(rocket, dana, people["pete"])
    page = tablet("dana")

    # given three players seated with 200 each, betting 20 (two taps of +), 50 (keyed) and 10
    open_table(page, "Rocket 1")
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat_player(page, number, name, 200)
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.get_by_label("Seat 2 bet", exact=True).fill("50")
    page.get_by_role("button", name="Seat 3 bet up").click()
    screenshot(page, "rocket-table")
    hand = start_hand(page)

    # when the deal gives 5, 6, 2 and the dealer 9; Ann hits a 4, Bob folds (5 tenths x 6 = 30),
    # Cy hits a 7, and the dealer's second 9 pairs: she pays Ann 2 x 9 and Cy 1 x 9
    expect(page.locator(".prompt")).to_have_text("Next card: seat 1 (deal).")
    key_card(page, 5)
    key_card(page, 6)
    screenshot(page, "rocket-keypad")
    key_card(page, 2)
    key_card(page, 9)
    press(page, "Hit")
    key_card(page, 4)
    expect(page.locator(".decisions")).to_contain_text("Fold · pays 30")
    screenshot(page, "rocket-hand")
    screenshot(page, "rocket-hand-portrait", viewport=PORTRAIT)
    press(page, "Fold")
    press(page, "Hit")
    key_card(page, 7)
    key_card(page, 9)
    expect(page.locator(".settlement")).to_contain_text("Seat 2 (Bob)")
    screenshot(page, "rocket-settlement")
    confirm_settlement(page)

    # then the ledger and the records
    assert [chips(rocket, n) for n in (1, 2, 3)] == [218, 170, 209]
    assert tray(rocket) == TRAY_OPENING - 600 + 30 - 18 - 9
    assert recorded_cards(hand) == [
        (5, Receiver.SEAT, 1),
        (6, Receiver.SEAT, 2),
        (2, Receiver.SEAT, 3),
        (9, Receiver.DEALER, None),
        (4, Receiver.SEAT, 1),
        (7, Receiver.SEAT, 3),
        (9, Receiver.DEALER, None),
    ]
    assert [d.action for d in Decision.objects.filter(hand=hand).order_by("seq")] == [
        ["hit"],
        ["fold"],
        ["hit"],
    ]
    assert {card.keyed_by for card in CardEvent.objects.filter(hand=hand)} == {dana}
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED


def test_a_dealer_plays_a_blackstone_game_by_tapping(floor, people, tablet, screenshot):
    blackstone = floor["blackstone"]
    page = three_seated(blackstone, people, tablet, 100)
    expect(page.locator(".start-hand")).to_contain_text("Ante 5 from every seated player.")
    hand = start_hand(page)

    # the deal: 3, 5, 7 (Ann's 3 starts; W = 3); Ann takes 2 on the stepper: 4 and 6 (W = 5)
    for rank in (3, 5, 7):
        key_card(page, rank)
    expect(page.get_by_label("Cards to take")).to_have_value("1")
    page.get_by_role("button", name="More cards").click()
    press(page, "Take 2")
    key_card(page, 4)
    key_card(page, 6)
    # Bob must take at least 2 or fold for 5 + half of 5 rounded up = 8
    expect(page.get_by_label("Cards to take")).to_have_value("2")
    expect(page.locator(".decisions")).to_contain_text("Fold · pays 8")
    screenshot(page, "blackstone-game")
    press(page, "Fold")
    # Cy takes 2: a 10 (his black stone) and a 2 (W = 6); Ann takes 2: a 10, then a second 10
    press(page, "Take 2")
    key_card(page, 10)
    key_card(page, 2)
    press(page, "Take 2")
    key_card(page, 10)
    key_card(page, 10)
    # Ann pays 5 + W = 11; the pot of 8 + 11 goes to Cy, the only survivor
    expect(page.locator(".settlement")).to_contain_text("second black stone")
    confirm_settlement(page)

    assert [chips(blackstone, n) for n in (1, 2, 3)] == [89, 92, 119]
    assert tray(blackstone) == TRAY_OPENING - 300
    assert [rank for rank, _, _ in recorded_cards(hand)] == [3, 5, 7, 4, 6, 10, 2, 10, 10]
    assert [d.action for d in Decision.objects.filter(hand=hand).order_by("seq")] == [
        ["take", 2],
        ["fold"],
        ["take", 2],
        ["take", 2],
    ]


def test_a_dealer_plays_a_starboard_game_by_tapping(floor, people, tablet, screenshot):
    starboard = floor["starboard"]
    page = three_seated(starboard, people, tablet, 50)
    hand = start_hand(page)

    # the common hand opens 3, 8; Ann draws a 5 (fee 1); Bob locks at 3; Cy draws a 5 and busts;
    # Ann draws a 9 and locks at 4, knocking Bob out: she takes the pot of 3 antes and 3 fees
    key_card(page, 3)
    key_card(page, 8)
    press(page, "Draw · fee 1")
    key_card(page, 5)
    expect(page.locator(".decisions")).to_contain_text("Lock at 3")
    screenshot(page, "starboard-game")
    press(page, "Lock")
    press(page, "Draw")
    key_card(page, 5)
    press(page, "Draw")
    key_card(page, 9)
    press(page, "Lock")
    expect(page.locator(".settlement")).to_contain_text("pot share")
    confirm_settlement(page)

    assert [chips(starboard, n) for n in (1, 2, 3)] == [53, 49, 48]
    assert tray(starboard) == TRAY_OPENING - 150
    assert recorded_cards(hand) == [
        (3, Receiver.COMMON, None),
        (8, Receiver.COMMON, None),
        (5, Receiver.COMMON, None),
        (5, Receiver.COMMON, None),
        (9, Receiver.COMMON, None),
    ]


# Two tablets and flaky Wi-Fi


@pytest.fixture
def rocket_hand_page(floor, people, tablet):
    """Dana at Rocket 1 with one player betting 10; the hand is open on her tablet."""
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana")
    open_table(page, "Rocket 1")
    seat_player(page, 1, "Ann", 100)
    page.get_by_role("button", name="Seat 1 bet up").click()
    return page, start_hand(page)


def test_a_second_tablet_sees_the_new_state_and_a_stale_one_is_told_to_refresh(rocket_hand_page, tablet):
    page, hand = rocket_hand_page
    second = tablet("dana", polls=True)
    second.goto(f"/tablet/hands/{hand.pk}/")
    stale = tablet("dana")  # its polls never bring news, as when the Wi-Fi drops them
    stale.goto(f"/tablet/hands/{hand.pk}/")

    key_card(page, 5)

    expect(second.locator(".prompt")).to_have_text("Next card: the dealer (deal).")  # by polling
    stale.locator(".keypad").get_by_role("button", name="6", exact=True).click()
    expect(stale.locator(".banner.stale")).to_contain_text("The hand has moved on. Refresh")
    expect(stale.locator(".prompt")).to_have_text("Next card: the dealer (deal).")
    assert recorded_cards(hand) == [(5, Receiver.SEAT, 1)]


def test_a_dealer_rotated_mid_hand_is_told_on_her_tablet_and_the_next_dealer_goes_on(floor, people, tablet):
    # found rotating a dealer mid-shoe: dana's next poll was answered 404 (the table is no longer
    # hers to see) and htmx drew Django's "Not Found" page in place of the hand screen
    rocket, dana, pete = floor["rocket"], people["dana"], people["pete"]
    deal_at(rocket, dana, pete)
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat_player(page, 1, "Ann", 100)
    page.get_by_role("button", name="Seat 1 bet up").click()
    hand = start_hand(page)
    key_card(page, 4)
    dev = person("dev", DEALER)

    deal_at(floor["blackstone"], dana, pete)  # rotated
    deal_at(rocket, dev, pete)

    expect(page.locator("#refused")).to_contain_text("a table leaves your screen when your shift there ends")
    expect(page.get_by_text("Not Found")).to_have_count(0)
    page.locator("#refused").get_by_role("link", name="Your tables").click()
    expect(page.get_by_role("link", name=re.compile("Blackstone 1"))).to_be_visible()
    relief = tablet("dev")
    relief.goto(f"/tablet/hands/{hand.pk}/")
    key_card(relief, 7)  # the dealer's card: the hand goes on from where dana left it
    keyed = CardEvent.objects.filter(hand=hand).exclude(receiver=Receiver.DISCARD).order_by("seq")
    assert [(card.rank, card.keyed_by.username) for card in keyed] == [(4, "dana"), (7, "dev")]


def test_a_tap_whose_answer_was_lost_is_sent_again_by_the_tablet_and_recorded_once(rocket_hand_page):
    page, hand = rocket_hand_page
    lost = []

    def lose_the_first_answer(route):
        if lost:
            route.continue_()
            return
        lost.append(route.fetch())  # the server applies the card; the answer never reaches the tablet
        route.abort()

    page.route("**/card/", lose_the_first_answer)
    page.locator(".keypad").get_by_role("button", name="7", exact=True).click()
    expect(page.locator(".offline")).to_be_visible()

    # The tap is kept on the offline keypad with its key, and sent again once the server answers
    # (docs/tablet.md "When the network fails"): the service answers it again without a second card.
    expect(page.locator(".prompt")).to_have_text("Next card: the dealer (deal).")
    expect(page.locator(".offline-keypad")).to_be_hidden()
    assert recorded_cards(hand) == [(7, Receiver.SEAT, 1)]


# At a dealer's pace: each tap goes as soon as the answer to the last one is drawn


SAYS_RECEIVER = re.compile(r"Next card: (?:seat (?P<seat>\d+)|the (?P<other>dealer|common hand)) \(")


def key_named_card(page: Page, rank: int) -> tuple:
    """Key `rank` for whoever the prompt names now; the card's (rank, receiver, seat) as named."""
    named = SAYS_RECEIVER.match(page.locator(".prompt").inner_text().strip())
    assert named, page.locator(".prompt").inner_text()
    key_card(page, rank)
    if named["seat"]:
        return rank, Receiver.SEAT, int(named["seat"])
    return rank, Receiver.DEALER if named["other"] == "dealer" else Receiver.COMMON, None


def test_at_a_dealers_pace_every_rocket_card_lands_on_the_seat_the_page_named(three_at_rocket):
    page, hand = three_at_rocket

    # the deal 5, 6, 2 and the dealer 9; Ann hits a 4, Bob an 8, Cy folds, the dealer draws a 7;
    # Ann hits a 4 and pairs, Bob hits a 1, the dealer's 9 pairs
    named = [key_named_card(page, rank) for rank in (5, 6, 2, 9)]
    for move, rank in (("Hit", 4), ("Hit", 8), ("Fold", None), (None, 7), ("Hit", 4), ("Hit", 1), (None, 9)):
        if move:
            press(page, move)
        if rank:
            named.append(key_named_card(page, rank))

    assert [(receiver, seat) for _, receiver, seat in named] == [
        (Receiver.SEAT, 1),
        (Receiver.SEAT, 2),
        (Receiver.SEAT, 3),
        (Receiver.DEALER, None),
        (Receiver.SEAT, 1),
        (Receiver.SEAT, 2),
        (Receiver.DEALER, None),
        (Receiver.SEAT, 1),
        (Receiver.SEAT, 2),
        (Receiver.DEALER, None),
    ]
    assert recorded_cards(hand) == named
    assert Decision.objects.filter(hand=hand).count() == 5
    expect(page.locator(".settlement")).to_contain_text("Seat 2 (Bob)")


def test_at_a_dealers_pace_every_pairs_card_lands_on_the_seat_the_page_named(floor, people, tablet):
    page = three_seated(floor["pairs"], people, tablet, 50)
    hand = start_hand(page)

    # the deal 4, 6, 7: Ann's 4 is lowest and starts; she hits a 9, Bob hits a 6 and pairs
    named = [key_named_card(page, rank) for rank in (4, 6, 7)]
    press(page, "Hit")
    named.append(key_named_card(page, 9))
    press(page, "Hit")
    named.append(key_named_card(page, 6))

    assert [seat for _, _, seat in named] == [1, 2, 3, 1, 2]
    assert recorded_cards(hand) == named
    expect(page.locator(".settlement")).to_contain_text("seat 2 scores 6")


@pytest.fixture
def three_at_rocket(floor, people, tablet):
    """Dana at Rocket 1 with Ann, Bob and Cy betting 10 each; the hand is open on her tablet."""
    page = three_seated(floor["rocket"], people, tablet, 200)
    for number in (1, 2, 3):
        page.get_by_role("button", name=f"Seat {number} bet up").click()
    return page, start_hand(page)


def slow_network(page: Page, latency_ms: int) -> None:
    """Every request and answer takes `latency_ms` more (Chromium's own emulation), as on a busy floor."""
    page.context.new_cdp_session(page).send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def keypad_spots(page: Page) -> dict[int, tuple[float, float]]:
    """Where each rank's key is on the screen now: a dealer's finger goes back to these spots, at
    once, whatever the screen shows there by then (a Playwright click would wait for the key)."""
    spots = {}
    for rank in range(1, 11):
        box = page.locator(".keypad").get_by_role("button", name=str(rank), exact=True).bounding_box()
        spots[rank] = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    return spots


def test_ranks_keyed_ahead_of_the_screen_are_recorded_in_order_for_whoever_is_due(three_at_rocket):
    # issue found trying the tablet at a dealer's pace: a rank tapped before the last one's answer
    # was drawn carried the old step and was refused unseen, and the next rank went to its seat
    page, hand = three_at_rocket
    slow_network(page, 300)
    spots = keypad_spots(page)

    for rank in (7, 7, 6, 2, 4):  # the deal (a key twice is two cards), and a 4 no one is due yet
        page.mouse.click(*spots[rank])
        page.wait_for_timeout(40)

    expect(page.locator(".prompt")).to_have_text("Seat 1 to act.", timeout=15_000)
    expect(page.locator("#ahead-refused")).to_have_text(
        "Not recorded: the 4 keyed ahead, because the hand no longer waits for a card. "
        "Key each again when the screen asks for it."
    )
    assert recorded_cards(hand) == [
        (7, Receiver.SEAT, 1), (7, Receiver.SEAT, 2), (6, Receiver.SEAT, 3), (2, Receiver.DEALER, None)
    ]


def test_a_burst_of_ranks_on_a_fast_network_is_recorded_in_order_without_leaving_the_page(three_at_rocket):
    # found retrying the tablet: a key tapped in the moment between an answer being drawn and htmx
    # wiring its forms was posted by the browser itself, the page reloaded and the taps after it were lost
    page, hand = three_at_rocket
    page.evaluate("window.stayed = true")  # gone if the page is reloaded
    spots = keypad_spots(page)

    for rank in (7, 7, 7, 8):
        page.mouse.click(*spots[rank])
        page.wait_for_timeout(30)

    expect(page.locator(".prompt")).to_have_text("Seat 1 to act.")
    assert page.evaluate("window.stayed === true")
    assert recorded_cards(hand) == [
        (7, Receiver.SEAT, 1), (7, Receiver.SEAT, 2), (7, Receiver.SEAT, 3), (8, Receiver.DEALER, None)
    ]


def test_a_key_tapped_as_a_refusal_is_drawn_is_not_sent_and_the_dealer_is_told(floor, people, tablet):
    # found retrying the tablet: the refusal's red sentence pushed the keypad down, and the next tap
    # keyed the rank that had moved under the finger
    page = three_seated(floor["blackstone"], people, tablet, 100)
    hand = start_hand(page)
    key_card(page, 1)  # a one-deck Blackstone shoe holds one 1
    spots = keypad_spots(page)

    page.mouse.click(*spots[1])
    page.mouse.click(*spots[9])  # at once, where the 9 was: the refusal's sentence may move a key there

    # kept while the 1 was on its way and dropped with it, or tapped as its refusal was drawn
    expect(page.locator("#ahead-refused")).to_contain_text(re.compile("refused|refusal"))
    expect(page.locator("#hand .banner.error")).to_contain_text("The shoe cannot hold another 1")
    page.wait_for_timeout(1500)
    assert recorded_cards(hand) == [(1, Receiver.SEAT, 1)]


def test_a_double_tap_on_hit_does_not_key_the_card_drawn_under_it(three_at_rocket):
    page, hand = three_at_rocket
    for rank in (6, 7, 8, 9):
        key_card(page, rank)
    hit = page.locator(".decisions").get_by_role("button", name=re.compile("^Hit")).bounding_box()
    x, y = hit["x"] + hit["width"] / 2, hit["y"] + hit["height"] / 2

    seq = page.get_attribute("#hand", "data-seq")
    page.mouse.click(x, y)
    page.wait_for_function(MOVED_ON, arg=seq)
    page.mouse.click(x, y)  # the second tap of a double tap, landing on what replaced Hit
    page.wait_for_timeout(500)

    expect(page.locator(".prompt")).to_have_text("Next card: seat 1 (hit).")
    assert Decision.objects.filter(hand=hand).count() == 1
    assert len(recorded_cards(hand)) == 4


def test_a_double_tapped_rank_does_not_decide_on_the_button_drawn_under_it(floor, people, tablet):
    # found trying the tablet: the second tap of a rank keyed twice landed on the Hit drawn in its
    # place and hit for the player due
    page = three_seated(floor["pairs"], people, tablet, 50)
    hand = start_hand(page)
    key_card(page, 4)
    key_card(page, 6)
    x, y = keypad_spots(page)[2]

    seq = page.get_attribute("#hand", "data-seq")
    page.mouse.click(x, y)  # the 2: the lowest card, seat 3 starts
    page.wait_for_function(MOVED_ON, arg=seq)
    hit = page.locator(".decisions").get_by_role("button", name=re.compile("^Hit")).bounding_box()
    assert hit["x"] < x < hit["x"] + hit["width"] and hit["y"] < y < hit["y"] + hit["height"]
    page.mouse.click(x, y)  # the second tap of the double tap, landing on Hit
    page.wait_for_timeout(500)

    expect(page.locator("#ahead-refused")).to_contain_text("Not sent: a second tap on the same spot")
    expect(page.locator(".prompt")).to_have_text("Seat 3 to act.")
    assert not Decision.objects.filter(hand=hand).exists()
    assert len(recorded_cards(hand)) == 3


def test_the_answer_to_confirm_settlement_is_the_settled_hand(rocket_hand_page):
    page, hand = rocket_hand_page
    key_card(page, 5)
    key_card(page, 9)
    press(page, "Hit")
    key_card(page, 5)  # Ann pairs her 5s: the hand is over

    confirm_settlement(page)  # no poll can redraw it: the answer itself says settled

    expect(page.locator("#hand h1")).to_contain_text("settled")
    expect(page.get_by_role("button", name="Confirm settlement")).to_have_count(0)
    expect(page.locator(".keypad")).to_have_count(0)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED


# Fewer taps: the same bets again, a refused bet kept, a Pairs round that starts the next


def test_the_next_rocket_hand_starts_with_the_same_bets_in_one_tap(floor, people, tablet):
    rocket, dana = floor["rocket"], people["dana"]
    deal_at(rocket, dana, people["pete"])
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat(rocket, number, 200, dana, name)
    first = hand_start(table=rocket, bets={1: 20, 2: 50, 3: 10}, by=dana, key=key())
    first = play(first, [5, 6, 2, 9], [("fold",)] * 3, dana)
    hand_settle(hand=first, by=dana, expected_seq=first.seq, key=key())
    page = tablet("dana")
    open_table(page, "Rocket 1")
    for number, bet in ((1, "20"), (2, "50"), (3, "10")):
        expect(page.get_by_label(f"Seat {number} bet", exact=True)).to_have_value(bet)

    # a bet above the chips in front is refused by name, and every other bet stays as it was
    page.get_by_label("Seat 2 bet", exact=True).fill("300")
    page.get_by_role("button", name="Start the hand").click()
    expect(page.locator(".banner.error")).to_contain_text("Seat 2 (Bob) has")
    expect(page.get_by_label("Seat 2 bet", exact=True)).to_have_value("300")
    expect(page.get_by_label("Seat 1 bet", exact=True)).to_have_value("20")

    page.get_by_role("button", name=re.compile("^Same bets")).click()

    page.wait_for_url(re.compile(r"/tablet/hands/\d+/$"))
    second = Hand.objects.get(table=rocket, number=2)
    assert page.url.endswith(f"/tablet/hands/{second.pk}/")
    assert second.committed == {"1": 20, "2": 50, "3": 10}


def test_confirming_a_pairs_round_opens_the_next_round(floor, people, tablet):
    dana = people["dana"]
    pairs = floor["pairs"]
    deal_at(pairs, dana, people["pete"])
    seat(pairs, 1, 50, dana, "Ann"), seat(pairs, 2, 50, dana, "Bob")
    page = tablet("dana")
    open_table(page, "Pairs 1")
    first = start_hand(page)

    key_card(page, 4)
    key_card(page, 6)
    press(page, "Fold")  # Ann folds and takes her 4: 4 points, the game goes on
    expect(page.locator(".settlement")).to_contain_text("No chips move this hand: seat 1 scores 4")
    tap(page, page.get_by_role("button", name="Confirm settlement"))

    second = Hand.objects.get(table=pairs, number=2)
    page.wait_for_url(f"**/tablet/hands/{second.pk}/")
    expect(page.locator("#hand h1")).to_contain_text("hand 2")
    expect(page.locator(".prompt")).to_have_text("Next card: seat 1 (deal).")
    expect(page.locator('article[aria-label="Seat 1"] .status')).to_have_text("4 of 31 points")
    first.refresh_from_db()
    assert first.status == Hand.Status.SETTLED and second.status == Hand.Status.IN_PROGRESS


def test_a_carded_player_is_seated_by_the_number_on_their_card(floor, people, tablet):
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    player_create(casino=rocket.pit.casino, name="Bruno Keller", card_number="1002", by=people["pete"])
    page = tablet("dana")
    open_table(page, "Rocket 1")

    seat = page.locator('article[aria-label="Seat 1"]')
    seat.locator("summary", has_text="Seat a player").click()
    seat.get_by_label("Player card").fill("1002")
    seat.get_by_label("Buy-in").fill("100")
    seat.get_by_role("button", name="Seat at 1").click()

    expect(seat.locator(".player")).to_have_text("Bruno Keller")
    assert SeatSession.objects.get(ended_at=None).player.card_number == "1002"


TABLE_NEWS = re.compile(r"/tablet/\d+/poll/")


def redrawn_by_poll(page: Page, change) -> None:
    """Make `change` elsewhere and wait for the tablet's poll to bring the table with it."""
    with page.expect_response(lambda answer: TABLE_NEWS.search(answer.url) and answer.status == 200):
        change()


def test_a_poll_redraws_the_table_around_the_form_the_dealer_is_typing_in(floor, people, tablet):
    # found seating at a dealer's pace: a change from elsewhere (another tablet, the pit starting a
    # slip) redrew the table by its poll while dana typed a buy-in, closing the form and dropping it;
    # then the redraw waited while anything was typed, so a form left half typed kept the whole
    # table from following the other devices. Now the table is redrawn and the form carried over.
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat = page.locator('article[aria-label="Seat 4"]')
    seat.locator("summary", has_text="Seat a player").click()
    seat.get_by_label("Buy-in").fill("150")
    seat.get_by_label("Or a description").fill("green hat")

    redrawn_by_poll(page, lambda: seat_open(
        table=rocket, seat=6, buy_in=40, player_name="Cy", by=people["dana"], key=key()))

    expect(page.locator('article[aria-label="Seat 6"] .player')).to_have_text("Cy")  # followed at once
    expect(seat.get_by_label("Buy-in")).to_have_value("150")  # still open, as typed
    page.keyboard.type(" and scarf")  # the field typed in keeps the focus and the caret
    expect(seat.get_by_label("Or a description")).to_have_value("green hat and scarf")
    seat.get_by_role("button", name="Seat at 4").click()
    expect(page.locator('article[aria-label="Seat 4"] .player')).to_have_text("green hat and scarf")
    assert SeatSession.objects.get(seat__number=4, ended_at=None).player_name == "green hat and scarf"


def test_a_bet_stepped_and_left_does_not_stop_the_table_following_other_devices(floor, people, tablet):
    # found leaving a half-made form: a bet stepped up (or a buy-in typed) and left alone held the
    # poll's redraw until the dealer's next tap, so a player seated from another tablet never showed
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat_player(page, 1, "Ann", 100)
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.locator('article[aria-label="Seat 2"] summary', has_text="Seat a player").click()
    page.locator('article[aria-label="Seat 2"]').get_by_label("Buy-in").fill("70")

    redrawn_by_poll(page, lambda: seat_open(
        table=rocket, seat=5, buy_in=40, player_name="Eve", by=people["dana"], key=key()))
    redrawn_by_poll(page, lambda: seat_open(
        table=rocket, seat=6, buy_in=40, player_name="Flo", by=people["dana"], key=key()))

    expect(page.locator('article[aria-label="Seat 6"] .player')).to_have_text("Flo")
    expect(page.get_by_label("Seat 1 bet", exact=True)).to_have_value("20")
    expect(page.locator('article[aria-label="Seat 2"]').get_by_label("Buy-in")).to_have_value("70")
    hand = start_hand(page)
    assert hand.committed == {"1": 20}


def test_a_form_whose_seat_was_taken_elsewhere_is_dropped_and_the_dealer_told(floor, people, tablet):
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat = page.locator('article[aria-label="Seat 4"]')
    seat.locator("summary", has_text="Seat a player").click()
    seat.get_by_label("Buy-in").fill("150")

    redrawn_by_poll(page, lambda: seat_open(
        table=rocket, seat=4, buy_in=40, player_name="Cy", by=people["dana"], key=key()))

    expect(seat.locator(".player")).to_have_text("Cy")
    expect(page.locator("#ahead-refused")).to_have_text(
        "Not kept: Seat 4 buy-in 150. The table changed and that form is gone: "
        "type it again if it still applies."
    )


def test_the_answer_to_seating_a_player_keeps_the_next_seat_being_typed_and_the_bets(floor, people, tablet):
    # found seating at a dealer's pace: the answer to "Seat at 2" redrew the table while dana was
    # already typing at seat 3 (the form closed, what was typed gone) and put the bet she had
    # stepped up for seat 1 back to 0
    rocket = floor["rocket"]
    deal_at(rocket, people["dana"], people["pete"])
    page = tablet("dana")
    open_table(page, "Rocket 1")
    seat_player(page, 1, "Ann", 100)
    page.get_by_role("button", name="Seat 1 bet up").click()
    page.get_by_role("button", name="Seat 1 bet up").click()
    held = []
    page.route(re.compile(r"/tablet/\d+/seats/$"), lambda route: held.append(route))  # on its way
    second = page.locator('article[aria-label="Seat 2"]')
    second.locator("summary", has_text="Seat a player").click()
    second.get_by_label("Or a description").fill("Bob")
    second.get_by_label("Buy-in").fill("100")
    second.get_by_role("button", name="Seat at 2").click()
    while not held:
        page.wait_for_timeout(20)
    third = page.locator('article[aria-label="Seat 3"]')
    third.locator("summary", has_text="Seat a player").click()
    third.get_by_label("Or a description").fill("Cy")

    with page.expect_response(re.compile(r"/tablet/\d+/seats/$")):
        held[0].continue_()

    expect(second.locator(".player")).to_have_text("Bob")
    page.keyboard.type("rus")
    expect(third.get_by_label("Or a description")).to_have_value("Cyrus")
    expect(page.get_by_label("Seat 1 bet", exact=True)).to_have_value("20")
    expect(page.locator("#ahead-refused")).to_have_count(0)


def test_a_cash_out_left_open_stays_open_for_its_player_and_not_for_the_next_one(floor, people, tablet):
    # a fold-out is carried over a redraw by its form, whose address names the seat's player: a Cash
    # out left open for Ann must not be open, one tap from paying out, for Bob seated there since
    rocket, dana = floor["rocket"], people["dana"]
    deal_at(rocket, dana, people["pete"])
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat_player(page, 2, "Ann", 100)
    seat = page.locator('article[aria-label="Seat 2"]')
    seat.locator("summary", has_text="Cash out").click()
    pay_out = seat.get_by_role("button", name=re.compile("^Pay out"))

    redrawn_by_poll(page, lambda: seat_open(
        table=rocket, seat=6, buy_in=40, player_name="Cy", by=dana, key=key()))
    expect(page.locator('article[aria-label="Seat 6"] .player')).to_have_text("Cy")
    expect(pay_out).to_be_visible()  # still Ann's

    ann = SeatSession.objects.get(seat__table=rocket, seat__number=2, ended_at=None)
    seat_close(session=ann, by=dana, key=key())
    seat_open(table=rocket, seat=2, buy_in=40, player_name="Bob", by=dana, key=key())
    expect(seat.locator(".player")).to_have_text("Bob")
    expect(pay_out).to_be_hidden()


def test_a_bet_typed_for_a_player_who_left_is_not_carried_onto_the_next_one_at_that_seat(
    floor, people, tablet
):
    # found on the floor: a bet typed for Ann (not yet sent) was kept by the seat's number when Ann
    # cashed out at the pit and Bob sat down there, so one tap on Start the hand staked it for Bob
    rocket, dana = floor["rocket"], people["dana"]
    deal_at(rocket, dana, people["pete"])
    page = tablet("dana", polls=True)
    open_table(page, "Rocket 1")
    seat_player(page, 3, "Ann", 100)
    seat_player(page, 4, "Cy", 100)
    page.get_by_label("Seat 3 bet", exact=True).fill("50")
    page.get_by_label("Seat 4 bet", exact=True).fill("30")

    def ann_leaves_and_bob_sits_down():  # at once: no poll draws seat 3 empty between the two
        ann = SeatSession.objects.get(seat__table=rocket, seat__number=3, ended_at=None)
        with transaction.atomic():
            seat_close(session=ann, by=dana, key=key())
            seat_open(table=rocket, seat=3, buy_in=40, player_name="Bob", by=dana, key=key())

    redrawn_by_poll(page, ann_leaves_and_bob_sits_down)

    expect(page.locator('article[aria-label="Seat 3"] .player')).to_have_text("Bob")
    expect(page.get_by_label("Seat 3 bet", exact=True)).to_have_value("0")  # Bob's own: nothing typed
    expect(page.get_by_label("Seat 4 bet", exact=True)).to_have_value("30")  # still Cy's, as typed
    expect(page.locator("#ahead-refused")).to_have_text(
        "Not kept: Seat 3 bet 50. The table changed and that form is gone: type it again if it still applies."
    )
    hand = start_hand(page)
    assert hand.committed == {"4": 30}
