"""Taps per hand, measured in a real Chromium: the table "Taps per hand" in docs/tablet.md comes from here.

For each game, at a physical and at a system-shuffled shoe, three players play a first hand through
the services; the dealer confirms its settlement on the tablet, and from that answer plays the next
hand the way a dealer would, tapping only what the screen asks for, up to and including the next
"Confirm settlement". Every click is counted. The taps that are neither a card nor a decision are the
hand's overhead (setting bets, a shoe, starting, confirming, going back to the table): what the
tablet can save. The walk adapts to what the screen offers (a "Same bets" button, bets already in
the steppers, a round that starts the next one), so the same test measured the "before" column on
the code before the change and checks the "after" column now.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tables.games import CardDue
from tables.models import Casino, Game, Hand, Pit, Shoe
from tables.services import hand_start
from tables.services.engine import engine_for
from tests.tables.conftest import card, deal_at, decide, key, open_table, seat

pytestmark = pytest.mark.django_db(transaction=True)

DOC = Path(__file__).resolve().parents[2] / "docs" / "tablet.md"
BETS = {1: 10, 2: 20, 3: 10}  # Rocket: tapped with the steppers, 10 a tap
BUY_IN = 200
# Per game: its name on the tablet, its limits, its decks, the move every player makes (so each
# hand ends in a few steps), the ranks keyed at a physical shoe for the first and the measured hand.
GAMES = {
    Game.ROCKET: ("Rocket, 3 players", 10, 500, 8, "fold", [5, 6, 2, 9], [5, 6, 2, 9]),
    Game.BLACKSTONE: ("Blackstone", 5, 500, 1, "fold", [3, 5, 7], [3, 5, 7]),
    Game.STARBOARD: ("Starboard", 1, 100, 1, "lock", [3, 8], [4, 9]),
    Game.PAIRS: ("Pairs round", 1, 100, 1, "fold", [4, 6, 8], [5, 7, 9]),
}


def documented_overhead() -> dict[tuple[str, str], int]:
    """(game, shoe) -> the "after" column of the table in docs/tablet.md."""
    rows = re.findall(r"^\| ([^|]+?) \| (physical|system) \| (\d+) \| (\d+) \|", DOC.read_text(), re.M)
    return {(name, shoe): int(after) for name, shoe, _before, after in rows}


@pytest.mark.parametrize("kind", [Shoe.Kind.PHYSICAL, Shoe.Kind.SYSTEM])
@pytest.mark.parametrize("game", list(GAMES))
def test_the_taps_of_a_hand_besides_its_cards_and_decisions_are_as_documented(game, kind, people, tablet):
    name, low, high, decks, move, first, measured = GAMES[game]
    table = open_table(pit(), people["pete"], game, name, low, high, decks=decks, kind=kind, **options(game))
    dana = people["dana"]
    deal_at(table, dana, people["pete"])
    for number in BETS:
        seat(table, number, BUY_IN, dana)
    hand = play_by_services(table, dana, move, first if kind == Shoe.Kind.PHYSICAL else None)
    page = tablet("dana")
    page.goto(f"/tablet/hands/{hand.pk}/")
    tap(page, page.get_by_role("button", name="Confirm settlement"))

    taps = play_on_the_tablet(page, game, kind, move, measured)

    assert Hand.objects.get(table=table, number=2).status == Hand.Status.SETTLED
    overhead = taps["overhead"]
    print(f"\n{name} | {kind}: {overhead} taps besides {taps['card']} cards and {taps['decision']} decisions")
    assert overhead == documented_overhead()[(name, kind)]


def pit() -> Pit:
    return Pit.objects.create(casino=Casino.objects.create(name="Test Casino"), name="Pit 1")


def options(game) -> dict:
    return {"options": {"ending": "cutchfeld"}} if game == Game.PAIRS else {}


def play_by_services(table, dana, move: str, ranks: list[int] | None) -> Hand:
    """The first hand, through the services, up to its settlement (not confirmed)."""
    ranks = list(ranks) if ranks else None
    bets = BETS if table.game == Game.ROCKET else None
    hand = hand_start(table=table, bets=bets, by=dana, key=key())
    while not engine_for(hand).finished:
        if isinstance(engine_for(hand).next, CardDue):
            hand = card(hand, ranks.pop(0) if ranks else None, dana)
        else:
            hand = decide(hand, (move,), dana)
    return hand


def play_on_the_tablet(page: Page, game, kind, move: str, ranks: list[int]) -> dict[str, int]:
    """From the answer to a confirmed settlement, tap the next hand through to its confirmed
    settlement; the taps counted as "card", "decision" and "overhead"."""
    taps = {"card": 0, "decision": 0, "overhead": 0}
    ranks = list(ranks)
    if page.locator("#hand.status-settled").count():
        taps["overhead"] += 1
        page.get_by_role("link", name="Next hand").click()
        expect(page.locator("#table")).to_be_visible()
    if page.locator("#table").count():
        taps["overhead"] += start_from_the_table(page, game, kind)
    while not next_control(page).filter(has_text="Confirm settlement").count():
        if page.locator(".decisions").count():
            taps["decision"] += 1
            decisions = page.locator(".decisions")
            tap(page, decisions.get_by_role("button", name=re.compile(f"^{move.capitalize()}")))
        elif page.locator(".keypad").count():
            taps["card"] += 1
            tap(page, page.locator(".keypad").get_by_role("button", name=str(ranks.pop(0)), exact=True))
        else:
            taps["card"] += 1
            tap(page, page.get_by_role("button", name=re.compile("^Placed")))
    taps["overhead"] += 1
    tap(page, page.get_by_role("button", name="Confirm settlement"))
    return taps


def tap(page: Page, button) -> None:
    """Tap, and wait until the screen shows what the database holds: the hand the answer sent the
    tablet to, at the step it is at (a screen drawn before the tap was recorded is redrawn by the poll)."""
    with page.expect_response(lambda response: response.request.method == "POST") as answer:
        button.click()
    going = answer.value.headers.get("hx-redirect")
    if going:
        page.wait_for_url(f"**{going}")
    page.wait_for_load_state("networkidle")
    shown = re.search(r"/tablet/hands/(\d+)/$", page.url)
    if shown:
        seq = Hand.objects.get(pk=shown[1]).seq
        expect(page.locator("#hand")).to_have_attribute("data-seq", str(seq))


def next_control(page: Page):
    """What the hand screen asks the dealer to tap next."""
    control = page.locator(".settlement form, .decisions, .keypad, form.place")
    control.first.wait_for()
    return control


def start_from_the_table(page: Page, game, kind) -> int:
    """Shuffle a shoe if the table asks for one, set the bets, start the hand: the taps it took."""
    taps = 0
    note = page.locator(".shoe-panel .note")
    if note.count():
        radio = page.get_by_label("System-shuffled" if kind == Shoe.Kind.SYSTEM else "Physical")
        if not radio.is_checked():
            taps += 1
            radio.click()
        taps += 1
        tap(page, page.get_by_role("button", name="Shuffle and burn"))
        expect(note).to_have_count(0)
    same = page.get_by_role("button", name=re.compile("^Same bets"))
    if game == Game.ROCKET and same.count():
        tap(page, same)
    else:
        taps += set_bets(page) if game == Game.ROCKET else 0
        tap(page, page.get_by_role("button", name="Start the hand"))
    expect(page.locator("#hand")).to_be_visible()
    return taps + 1


def set_bets(page: Page) -> int:
    """Tap each seat's stepper from what it shows to its bet: the taps it took."""
    taps = 0
    for number, bet in BETS.items():
        shown = int(page.get_by_label(f"Seat {number} bet", exact=True).input_value() or 0)
        direction = "up" if bet > shown else "down"
        for _ in range(abs(bet - shown) // 10):
            taps += 1
            page.get_by_role("button", name=f"Seat {number} bet {direction}").click()
    return taps
