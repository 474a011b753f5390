"""A dealer keys whole games of points games on the tablet by tapping (issue 21.2), at a physical
table: Port (cards face up, hit or lock), Pickup (hands face down, a pool, secret plays, picks) and
Five Cards (targets, draws placed on columns) and Sweep (captures taken into face-down hands, said in
words), round after round until a round ends the game. The players' game is the mirror engine of
tests/browser/test_secret_hands.py."""

import random
import re

import pytest
from playwright.sync_api import expect

from ledger.models import Transaction
from tables.games import CardDue
from tables.games.rounds import WHOLE_DECK
from tables.models import Casino, Game, Hand, Pit
from tables.review import hand_replay_check
from tables.services.engine import plain
from tests.tables.conftest import deal_at
from tests.tables.conftest import open_table as table_with_shoe

from .test_secret_hands import Players, deal, decide
from .test_tablet import confirm_settlement, open_table, seat_player, start_hand

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = {
    Game.PORT: (3, {"target": 5}),
    Game.PICKUP: (2, {}),
    Game.FIVE_CARDS: (2, {"target": 25}),
    Game.SWEEP: (3, {}),
}
MOST_ROUNDS = 12


@pytest.mark.parametrize("game", list(GAMES))
def test_a_dealer_scores_a_whole_points_game_by_tapping(people, tablet, game):
    pete, (players, options) = people["pete"], GAMES[game]
    pit = Pit.objects.create(casino=Casino.objects.create(name="Test Casino"), name="Pit 1")
    name = f"{Game(game).label} 1"
    burn = 0 if game in WHOLE_DECK else 5
    table = table_with_shoe(pit, pete, game, name, 1, 100, options=options, burn=burn)
    deal_at(table, people["dana"], pete)
    page = tablet("dana")
    open_table(page, name)
    for number in range(1, players + 1):
        seat_player(page, number, f"Player {number}", 50)
    rng, rounds = random.Random(game), []

    for _ in range(MOST_ROUNDS):
        if rounds and game in WHOLE_DECK:  # a fresh deck every round, dealt whole
            page.get_by_role("button", name="Shuffle and burn").click()
            expect(page.locator("#table")).not_to_contain_text("Start a new shoe")
        hand = start_hand(page)
        mirror = Players(hand, rng)
        while not mirror.game.finished:
            due = mirror.game.next
            if isinstance(due, CardDue):
                deal(page, mirror, due)
            else:
                decide(page, mirror, mirror.choose(due))
                if game == Game.FIVE_CARDS:  # each target's column, both players' cards beside it
                    expect_columns(page, mirror.game)
                if game == Game.SWEEP:  # who takes what into a hand the screen shows face down
                    expect_last_round(page, mirror.game)
        expect(page.locator(".settlement")).to_be_visible()
        confirm_settlement(page)
        hand.refresh_from_db()
        rounds.append(hand)
        if hand.settlement["result"]["game_over"]:
            break
        page.get_by_role("link", name="Table", exact=True).click()
        expect(page.locator("#table h1")).to_contain_text(name)

    assert rounds[-1].settlement["result"]["game_over"] is True
    assert rounds[-1].settlement["result"] == plain(mirror.game.settlement().result)
    for hand in rounds:
        assert hand.status == Hand.Status.SETTLED and hand_replay_check(hand)["matches"] is True
    assert not Transaction.objects.filter(table=table, kind="settlement").exists()  # points, no money
    assert re.search(r"\d+ points", page.locator(".seats").inner_text())


def expect_columns(page, game) -> None:
    """The tablet shows each Five Cards target with the cards each seat played beside it and their
    total, as the players' own game has them."""
    for target, sides in game.columns.items():
        row = page.locator(f'.columns tr[data-target="{target}"]')
        for cell, ranks in zip(row.locator("td").all(), sides.values(), strict=True):
            expect(cell.locator(".card")).to_have_text([str(rank) for rank in ranks])
            expect(cell.locator(".total")).to_have_text(str(sum(ranks)))


def expect_last_round(page, game) -> None:
    """Once a Sweep round has fired, the tablet says who takes which cards and what to discard."""
    if game.players or not game.rounds:
        expect(page.locator(".last-round")).to_have_count(0)
        return
    record = game.rounds[-1]
    line = page.locator(".last-round")
    for seat, cards in record["captures"]:
        expect(line).to_contain_text(f"seat {seat} takes {', '.join(map(str, cards))}")
    if record["discarded"]:
        expect(line).to_contain_text(f"discard the {', '.join(map(str, record['discarded']))} left")
