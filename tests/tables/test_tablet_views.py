"""The dealer's tablet through the Django test client: every page, every action, and the refusals
(400, 403, 409) that write nothing."""

import json
import re

import pytest
from django.contrib.auth.models import Group

from casino.errors import DomainError
from casino.roles import ROLES, grant_role_permissions
from ledger.models import Account, Transaction
from ledger.services import account_get
from tables.models import (
    ApprovalRequest,
    CardEvent,
    Decision,
    Game,
    Hand,
    IdempotentRequest,
    Incident,
    SeatSession,
    Shift,
    Shoe,
)
from tables.screens import hand_screen, table_screen
from tables.selectors import open_shifts
from tables.services import (
    approval_decide,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_close,
    shift_start,
    shoe_start,
)
from tables.services.shifts import shift_end
from tables.services.shoes import shoe_retire

from .conftest import card, deal_at, decide, key, open_table, play, seat

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def roles(db):
    """Role groups with their permissions (a transactional test elsewhere may have flushed them)."""
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()


@pytest.fixture
def dealing(client, rocket, dana, pete):
    """Dana on shift at Rocket 1 and signed in on the tablet; Pete running the pit."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    client.force_login(dana)
    return rocket


@pytest.fixture
def rocket_hand(dealing, dana):
    """Three players at Rocket 1, bets taken, hand 1 started."""
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat(dealing, number, 200, dana, name)
    return hand_start(table=dealing, bets={1: 20, 2: 50, 3: 10}, by=dana, key=key())


def written():
    """Counts of everything a tablet action can write."""
    models = (CardEvent, Decision, Transaction, Hand, SeatSession, Shoe, IdempotentRequest, ApprovalRequest)
    return tuple(model.objects.count() for model in models)


def chips(session):
    return account_get(kind=Account.Kind.PLAYER, table=session.seat.table, ref=session.pk).balance


def step(hand, **fields):
    """A hand form as the page rendered it: a fresh key and the hand's sequence number."""
    return {"key": key(), "seq": hand.seq, **fields}


def hand_url(hand, action=""):
    return f"/tablet/hands/{hand.pk}/" + (f"{action}/" if action else "")


def page(response) -> str:
    return response.content.decode()


# Pages


def test_a_dealer_sees_only_the_tables_she_is_on_shift_at(client, dealing, blackstone):
    html = page(client.get("/tablet/"))

    assert f'href="/tablet/{dealing.pk}/"' in html
    assert "Blackstone 1" not in html


def test_the_home_page_links_each_visible_table_to_its_tablet(client, dealing, blackstone):
    html = page(client.get("/"))

    assert f'href="/tablet/{dealing.pk}/"' in html and "Blackstone 1" not in html


def test_the_table_screen_offers_seats_the_shoe_and_bets(client, dealing, dana):
    seat(dealing, 2, 300, dana, "Bob")

    html = page(client.get(f"/tablet/{dealing.pk}/"))

    assert "Bob" in html and "300" in html
    assert 'name="bet_2"' in html and 'step="10"' in html
    assert "New shoe" in html and "cards left" in html
    assert html.count('name="key"') >= 5  # every form carries its own idempotency key


def test_every_form_on_a_page_gets_its_own_idempotency_key(client, rocket_hand):
    keys = re.findall(r'name="key" value="([0-9a-f]{32})"', page(client.get(hand_url(rocket_hand))))

    assert len(keys) >= 10 and len(set(keys)) == len(keys)


def test_the_hand_screen_shows_the_keypad_for_a_physical_shoe(client, rocket_hand):
    html = page(client.get(hand_url(rocket_hand)))

    assert "Next card: seat 1 (deal)." in html
    assert all(f'name="rank" value="{rank}"' in html for rank in range(1, 11))
    assert "Ann" in html and "Misdeal" in html


def test_a_system_shoe_shows_the_card_to_place_and_records_it(client, dealing, dana):
    shuffle = {"key": key(), "decks": 2, "kind": "system", "burn": 3, "reason": "Test"}
    client.post(f"/tablet/{dealing.pk}/shoe/", shuffle)
    seat(dealing, 1, 100, dana)
    hand = hand_start(table=dealing, bets={1: 10}, by=dana, key=key())
    shoe = Shoe.objects.get(table=dealing, state=Shoe.State.IN_PLAY)
    placed = shoe.order[shoe.cards_out]

    html = page(client.get(hand_url(hand)))
    assert f"Placed the {placed} for seat 1" in html and '<div class="keypad">' not in html

    client.post(hand_url(hand, "card"), step(hand, rank=""))
    assert CardEvent.objects.get(hand=hand).rank == placed


# Actions at the table


def test_seating_buying_more_and_cashing_out_move_chips(client, dealing):
    response = client.post(
        f"/tablet/{dealing.pk}/seats/", {"key": key(), "seat": 4, "buy_in": 150, "player_name": "Dee"}
    )
    assert response.status_code == 302
    session = SeatSession.objects.get(seat__number=4, ended_at=None)
    assert (session.player_name, chips(session)) == ("Dee", 150)

    client.post(f"/tablet/{dealing.pk}/seats/{session.pk}/buy/", {"key": key(), "amount": 50})
    assert chips(session) == 200

    client.post(f"/tablet/{dealing.pk}/seats/{session.pk}/leave/", {"key": key()})
    session.refresh_from_db()
    assert session.ended_at is not None and chips(session) == 0


def test_a_new_shoe_is_shuffled_with_the_decks_kind_and_burn_asked(client, dealing):
    shuffle = {"key": key(), "decks": 6, "kind": "physical", "burn": 2, "reason": "Test"}
    client.post(f"/tablet/{dealing.pk}/shoe/", shuffle)

    shoe = Shoe.objects.get(table=dealing, state=Shoe.State.IN_PLAY)
    assert (shoe.decks, shoe.kind, shoe.burn, shoe.cards_out) == (6, "physical", 2, 2)


def test_starting_a_rocket_hand_takes_each_seats_bet_and_opens_the_hand(client, dealing, dana):
    ann, bob = seat(dealing, 1, 200, dana), seat(dealing, 2, 200, dana)

    response = client.post(f"/tablet/{dealing.pk}/hands/", {"key": key(), "bet_1": "30", "bet_2": "0"})

    hand = Hand.objects.get(table=dealing)
    assert response.status_code == 302 and response["Location"] == hand_url(hand)
    assert hand.seats == [1] and hand.committed == {"1": 30}
    assert (chips(ann), chips(bob)) == (170, 200)


def test_a_bet_that_is_not_a_multiple_of_ten_is_refused_with_the_rule(client, dealing, dana):
    seat(dealing, 1, 200, dana)
    before = written()

    response = client.post(f"/tablet/{dealing.pk}/hands/", {"key": key(), "bet_1": "25"})

    assert response.status_code == 400
    assert "must be a multiple of 10" in page(response)
    assert written() == before


def test_a_pot_game_starts_with_every_seated_players_ante(client, blackstone, dana, pete):
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)

    assert "Ante 5 from every seated player." in page(client.get(f"/tablet/{blackstone.pk}/"))
    client.post(f"/tablet/{blackstone.pk}/hands/", {"key": key()})

    assert Hand.objects.get(table=blackstone).committed == {"1": 5, "2": 5}


# Actions on a hand


def test_a_keyed_card_and_a_decision_are_recorded_against_the_screens_step(client, rocket_hand):
    hand = rocket_hand
    for rank in (5, 6, 2, 9):  # seats 1, 2, 3, then the dealer
        client.post(hand_url(hand, "card"), step(hand, rank=rank))
        hand.refresh_from_db()

    html = page(client.get(hand_url(hand)))
    assert "Seat 1 decides" in html and "Fold · pays 10" in html  # 2 tenths x the lower of 5 and 9

    client.post(hand_url(hand, "decide"), step(hand, move="hit"))

    assert Decision.objects.get(hand=hand).action == ["hit"]
    card = CardEvent.objects.filter(hand=hand).order_by("seq").first()
    assert (card.rank, card.seat, card.keyed_by.username) == (5, 1, "dana")
    assert card.device.startswith("tablet")


def test_a_finished_hand_lists_who_pays_and_who_is_paid_then_settles(client, rocket_hand, dana):
    hand = rocket_hand
    for rank in (5, 6, 2, 9):
        hand = card(hand, rank, dana)
    for action, rank in ((("fold",), None), (("fold",), None), (("hit",), 4)):
        hand = decide(hand, action, dana)
        if rank:
            hand = card(hand, rank, dana)
    hand = card(hand, 9, dana)  # the dealer pairs her 9s: pays seat 3 one tenth x 9

    html = page(client.get(hand_url(hand)))
    assert "Confirm settlement" in html
    assert "Seat 1 (Ann)" in html and "fold price" in html and "dealer pair" in html

    response = client.post(hand_url(hand, "settle"), step(hand))

    hand.refresh_from_db()
    assert response.status_code == 302 and hand.status == Hand.Status.SETTLED
    sessions = {s.seat.number: s for s in SeatSession.objects.select_related("seat__table")}
    assert [chips(sessions[n]) for n in (1, 2, 3)] == [190, 170, 209]
    assert "Next hand" in page(client.get(hand_url(hand)))


def test_blackstone_take_starts_at_the_minimum_and_fold_shows_its_price(client, blackstone, dana, pete):
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    hand = card(card(hand, 3, dana), 5, dana)  # seat 1 has the low card

    html = page(client.get(hand_url(hand)))
    assert 'name="count" min="1"' in html and "Fold · pays 6" in html  # ante 5 + half of W=2
    assert "white stones (W)" in html

    client.post(hand_url(hand, "decide"), step(hand, move="take", count=2))
    assert Decision.objects.get(hand=hand).action == ["take", 2]


def test_a_draw_with_no_fee_names_none(client, pit, dana, pete):
    # Regent's draw is free: the button says Draw, not "Draw · fee None".
    table = open_table(pit, pete, Game.REGENT, "Regent 1", 1, 100)
    deal_at(table, dana, pete)
    client.force_login(dana)
    seat(table, 1, 50, dana), seat(table, 2, 50, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in (None, None, None, None, 3, 5):
        hand = card(hand, rank, dana)

    html = page(client.get(hand_url(hand)))
    assert re.search(r">\s*Draw\s*<", html) and "fee None" not in html


def test_starboard_offers_draw_with_its_fee_and_lock(client, starboard, dana, pete):
    deal_at(starboard, dana, pete)
    client.force_login(dana)
    seat(starboard, 1, 50, dana), seat(starboard, 2, 50, dana)
    hand = card(card(hand_start(table=starboard, by=dana, key=key()), 3, dana), 8, dana)

    html = page(client.get(hand_url(hand)))
    assert "Draw · fee 1" in html and "Lock at 2" in html and "Common hand" in html

    client.post(hand_url(hand, "decide"), step(hand, move="lock"))
    assert Decision.objects.get(hand=hand).action == ["lock"]


def test_pairs_fold_names_the_card_it_takes(client, pairs, dana, pete):
    deal_at(pairs, dana, pete)
    client.force_login(dana)
    seat(pairs, 1, 50, dana), seat(pairs, 2, 50, dana)
    hand = card(card(hand_start(table=pairs, by=dana, key=key()), 4, dana), 6, dana)

    html = page(client.get(hand_url(hand)))
    assert "Hit" in html and "Fold · takes the 4" in html

    client.post(hand_url(hand, "decide"), step(hand, move="fold"))
    assert "seat 1 scores 4" in page(client.get(hand_url(hand)))


def pairs_variant(client, pit, dana, pete, options, first, second):
    """A Pairs table with `options`, two players dealt `first` and `second`; dana signed in."""
    table = open_table(pit, pete, Game.PAIRS, "Pairs 2", 1, 100, options={"ending": "cutchfeld", **options})
    deal_at(table, dana, pete)
    client.force_login(dana)
    seat(table, 1, 50, dana), seat(table, 2, 50, dana)
    return card(card(hand_start(table=table, by=dana, key=key()), first, dana), second, dana)


def test_pieces_of_eight_offers_to_trade_the_eight(client, pit, dana, pete):
    hand = pairs_variant(client, pit, dana, pete, {"pieces_of_eight": True}, 8, 9)

    assert "Trade the 8 for two cards" in page(client.get(hand_url(hand)))

    client.post(hand_url(hand, "decide"), step(hand, move="eight"))
    assert Decision.objects.get(hand=hand).action == ["eight"]


def test_a_continuous_pairs_fold_picks_the_card_it_takes(client, pit, dana, pete):
    hand = pairs_variant(client, pit, dana, pete, {"continuous": True}, 4, 6)

    html = page(client.get(hand_url(hand)))
    assert "Fold: take the 4 of seat 1" in html and "Fold: take the 6 of seat 2" in html

    client.post(hand_url(hand, "decide"), step(hand, move="fold", card_seat=2, card_rank=6))
    assert Decision.objects.get(hand=hand).action == ["fold", 2, 6]


# Refusals write nothing


def test_a_rank_the_shoe_cannot_hold_is_refused_with_the_engines_sentence(client, blackstone, dana, pete):
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = card(hand_start(table=blackstone, by=dana, key=key()), 1, dana)  # the deck's only 1
    before = written()

    response = client.post(hand_url(hand, "card"), step(hand, rank=1))

    assert response.status_code == 400
    assert "The shoe cannot hold another 1" in page(response)
    assert written() == before
    assert Incident.objects.get(hand=hand).kind == Incident.Kind.RANK_REFUSED


def test_a_stale_screen_gets_409_the_fresh_state_and_writes_nothing(client, rocket_hand, dana):
    stale = rocket_hand.seq
    hand = card(rocket_hand, 5, dana)  # a second tablet keyed seat 1's card
    before = written()

    response = client.post(hand_url(hand, "card"), {"key": key(), "seq": stale, "rank": 5})

    assert response.status_code == 409
    html = page(response)
    assert "The hand has moved on. Refresh" in html
    assert "Next card: seat 2 (deal)." in html  # the fresh state
    assert written() == before


def test_a_hand_voided_since_gets_409_with_its_sentence_and_a_refresh(client, rocket_hand, dana, pete):
    # The pit voided the hand while this tablet showed it: the hand moved on (409, as a stale
    # screen), and the screen says how, with the Refresh a stale screen has.
    asked = hand_void_request(hand=rocket_hand, by=dana, reason="Misdeal", expected_seq=0, key=key())
    approval_decide(request=asked, by=pete, approve=True, reason="Seen on camera", key=key())
    rocket_hand.refresh_from_db()
    before = written()

    response = client.post(hand_url(rocket_hand, "card"), {"key": key(), "seq": rocket_hand.seq, "rank": 5})

    assert response.status_code == 409
    html = page(response)
    assert "Hand 1 is voided; nothing more can be recorded." in html and ">Refresh</a>" in html
    assert written() == before


def test_a_dealer_at_another_table_gets_404_and_writes_nothing(client, rocket_hand, olga, blackstone, pete):
    deal_at(blackstone, olga, pete)
    client.force_login(olga)
    before = written()

    responses = [
        client.get(hand_url(rocket_hand)),
        client.get(f"/tablet/{rocket_hand.table_id}/"),
        client.post(hand_url(rocket_hand, "card"), step(rocket_hand, rank=5)),
        client.post(f"/tablet/{rocket_hand.table_id}/seats/", {"key": key(), "seat": 5, "buy_in": 10}),
    ]

    # Rocket 1 is not olga's to see: its hand and the table itself are answered as if they did not exist
    assert [r.status_code for r in responses] == [404, 404, 404, 404]
    assert "Rocket 1" not in page(responses[0]) and "Ann" not in page(responses[0])
    assert written() == before


def test_a_tablet_whose_dealer_is_on_a_break_says_so_in_place_of_the_screen(client, rocket_hand, dana, pete):
    # found rotating a dealer mid-shoe: her tablet's next poll got the 404 page and htmx drew it in
    # place of the hand screen (Django's "Not Found", or its debug page), with no way back
    shift_end(shift=open_shifts(dana).get(), by=pete, reason=Shift.Ended.BREAK)
    before = written()

    polled = client.get(hand_url(rocket_hand, "poll") + "?seq=0", HTTP_HX_REQUEST="true")
    tapped = client.post(hand_url(rocket_hand, "card"), step(rocket_hand, rank=5), HTTP_HX_REQUEST="true")

    for answer in (polled, tapped):
        assert answer.status_code == 404
        assert page(answer).strip().startswith('<section id="refused"')  # a fragment for the screen's place
        assert "a table leaves your screen when your shift there ends" in page(answer)
        assert "Rocket 1" not in page(answer) and "Ann" not in page(answer)
    assert written() == before
    assert "<html" in client.get(hand_url(rocket_hand)).content.decode()  # a page opened: the whole 404


def test_an_auditor_may_look_but_not_deal(client, rocket_hand, ada):
    client.force_login(ada)

    html = page(client.get(hand_url(rocket_hand)))

    assert "Next card: seat 1 (deal)." in html and 'name="rank"' not in html
    assert client.post(hand_url(rocket_hand, "card"), step(rocket_hand, rank=5)).status_code == 403


def test_a_form_without_its_key_is_refused_and_writes_nothing(client, rocket_hand):
    before = written()

    response = client.post(hand_url(rocket_hand, "card"), {"seq": rocket_hand.seq, "rank": 5})

    assert response.status_code == 400 and "This field is required" in page(response)
    assert written() == before


def test_a_retried_form_with_the_same_key_is_applied_once(client, rocket_hand):
    form = step(rocket_hand, rank=5)

    first = client.post(hand_url(rocket_hand, "card"), form)
    again = client.post(hand_url(rocket_hand, "card"), form)  # the response was lost; the tablet retries

    assert (first.status_code, again.status_code) == (302, 302)
    assert CardEvent.objects.filter(hand=rocket_hand).count() == 1


def test_a_retried_seating_with_the_same_key_seats_once(client, dealing):
    form = {"key": key(), "seat": 4, "buy_in": 150}

    client.post(f"/tablet/{dealing.pk}/seats/", form)
    client.post(f"/tablet/{dealing.pk}/seats/", form)

    assert SeatSession.objects.filter(seat__number=4).count() == 1
    assert Transaction.objects.filter(kind="buy_in").count() == 1


# htmx: fragments, errors swapped in, polling


def test_an_htmx_tap_gets_the_fresh_fragment_back(client, rocket_hand):
    response = client.post(hand_url(rocket_hand, "card"), step(rocket_hand, rank=5), HTTP_HX_REQUEST="true")

    html = page(response)
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="hand"') and "Next card: seat 2 (deal)." in html


def test_an_htmx_refusal_comes_back_as_the_fragment_with_its_message(client, rocket_hand):
    response = client.post(
        hand_url(rocket_hand, "decide"), step(rocket_hand, move="hit"), HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 400
    assert 'id="hand"' in page(response) and "No decision is due" in page(response)


def test_a_second_tablet_polls_and_sees_the_new_state(client, rocket_hand, dana):
    seq = rocket_hand.seq
    poll = hand_url(rocket_hand, "poll") + f"?seq={seq}"

    assert client.get(poll, HTTP_HX_REQUEST="true").status_code == 204
    card(rocket_hand, 5, dana)
    response = client.get(poll, HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and "Next card: seat 2 (deal)." in page(response)


def test_the_table_screen_polls_for_a_new_hand(client, dealing, dana):
    seat(dealing, 1, 100, dana)
    version = re.search(r"poll/\?v=([0-9a-f]+)", page(client.get(f"/tablet/{dealing.pk}/"))).group(1)
    poll = f"/tablet/{dealing.pk}/poll/?v={version}"

    assert client.get(poll).status_code == 204
    hand_start(table=dealing, bets={1: 10}, by=dana, key=key())
    assert "Open hand 1" in page(client.get(poll))


# Waiting for the pit


def test_a_large_payout_waits_for_the_pit_and_the_tablet_says_so(client, dealing, dana, pete):
    dealing.payout_approval_threshold = 100
    dealing.save()
    seat(dealing, 1, 500, dana)
    hand = hand_start(table=dealing, bets={1: 500}, by=dana, key=key())
    for rank in (5, 9):
        hand = card(hand, rank, dana)
    hand = card(decide(hand, ("hit",), dana), 4, dana)
    hand = card(hand, 9, dana)  # the dealer pairs her 9s: pays 450

    client.post(hand_url(hand, "settle"), step(hand))
    hand.refresh_from_db()
    html = page(client.get(hand_url(hand)))
    assert "Waiting for the pit manager to approve the payout" in html and "Confirm settlement" not in html

    request = ApprovalRequest.objects.get(hand=hand)
    approval_decide(request=request, by=pete, approve=True, key=key())
    response = client.get(hand_url(hand, "poll") + f"?seq={hand.seq}", HTTP_HX_REQUEST="true")
    assert "is settled" in page(response)


def test_a_misdeal_asks_for_a_reason_and_files_a_void_request(client, rocket_hand, pete):
    response = client.post(hand_url(rocket_hand, "void"), step(rocket_hand, reason=""))
    assert response.status_code == 400 and not ApprovalRequest.objects.exists()

    reason = "Two cards came out together"
    client.post(hand_url(rocket_hand, "void"), step(rocket_hand, reason=reason))

    request = ApprovalRequest.objects.get(hand=rocket_hand)
    assert (request.kind, request.status, request.reason) == ("void", "pending", reason)
    html = page(client.get(hand_url(rocket_hand)))
    assert "Waiting for the pit manager to decide the misdeal" in html and 'name="rank"' not in html

    approval_decide(request=request, by=pete, approve=True, key=key())
    rocket_hand.refresh_from_db()
    assert rocket_hand.status == Hand.Status.VOIDED
    assert "was voided" in page(client.get(hand_url(rocket_hand)))


def test_the_dealer_takes_a_misdeal_request_back_from_the_tablet(client, rocket_hand, pete, dana):
    client.post(hand_url(rocket_hand, "void"), step(rocket_hand, reason="Two cards came out together"))
    rocket_hand.refresh_from_db()
    assert "Withdraw the request: void (misdeal)" in page(client.get(hand_url(rocket_hand)))

    response = client.post(hand_url(rocket_hand, "withdraw"), {"key": key(), "reason": ""})
    request = ApprovalRequest.objects.get(hand=rocket_hand)
    assert response.status_code == 400 and request.status == "pending"

    taken_back = {"key": key(), "reason": "Only one card came out"}
    response = client.post(hand_url(rocket_hand, "withdraw"), taken_back)
    request.refresh_from_db()
    rocket_hand.refresh_from_db()
    assert (request.status, request.decision_reason) == ("withdrawn", "Only one card came out")
    assert rocket_hand.status == Hand.Status.IN_PROGRESS
    html = page(client.get(hand_url(rocket_hand)))
    assert "Waiting for the pit" not in html and "Withdraw the request" not in html and 'name="rank"' in html

    response = client.post(hand_url(rocket_hand, "withdraw"), {"key": key(), "reason": "again"})
    assert response.status_code == 400 and "Nothing on this hand is waiting" in page(response)


def test_only_the_one_who_asked_sees_and_may_take_a_request_back(client, rocket_hand, pete, dana):
    client.post(hand_url(rocket_hand, "void"), step(rocket_hand, reason="Two cards came out together"))
    client.force_login(pete)  # the pit manager deals here too, but did not ask
    assert "Withdraw the request" not in page(client.get(hand_url(rocket_hand)))
    response = client.post(hand_url(rocket_hand, "withdraw"), {"key": key(), "reason": "not mine"})
    assert response.status_code == 403
    assert ApprovalRequest.objects.get(hand=rocket_hand).status == "pending"


# The screen itself


def read_afresh(hand: Hand) -> Hand:
    return Hand.objects.select_related("table", "shoe").get(pk=hand.pk)


def test_the_hand_screen_costs_the_same_queries_however_long_the_hand(
    rocket_hand, dana, django_assert_num_queries
):
    start = read_afresh(rocket_hand)
    with django_assert_num_queries(5):  # cards, decisions, recycles, approvals, players' names and chips
        hand_screen(start)
    hand = rocket_hand
    for rank in (5, 6, 2, 9):
        hand = card(hand, rank, dana)
    hand = decide(hand, ("hit",), dana)
    later = read_afresh(hand)

    with django_assert_num_queries(5):
        screen = hand_screen(later)
    assert screen["next"] == {
        "kind": "card",
        "to": "seat",
        "seat": 1,
        "why": "hit",
        "says": "Next card: seat 1 (hit).",
        "place": None,
        "face_down": False,
        "pile": False,
        "reshuffle": False,
    }
    assert [s["cards"][0]["rank"] for s in screen["seats"]] == [5, 6, 2] and screen["dealer"] == [9]


def test_the_answer_to_a_step_reads_nothing_again(rocket_hand, dana, django_assert_num_queries):
    # the hand as the step left it, with what it read and wrote, and its players' names and chips
    # read with its writes (issue 17)
    hand = card(rocket_hand, 5, dana)

    with django_assert_num_queries(0):
        answer = hand_screen(hand)

    assert answer == hand_screen(read_afresh(hand))


def test_the_screen_of_a_finished_hand_is_plain_json(client, blackstone, dana):
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = card(card(hand_start(table=blackstone, by=dana, key=key()), 3, dana), 5, dana)
    hand = card(card(decide(hand, ("take", 2), dana), 10, dana), 10, dana)  # seat 1's second 10

    screen = hand_screen(hand)

    assert json.loads(json.dumps(screen)) == screen  # no tuples, no integer keys, nothing else
    assert screen["next"]["kind"] == "finished" and screen["actions"] is None
    assert screen["settlement"]["pays"] == [
        {"party": "1", "who": "Seat 1", "amount": 7, "reason": "second black stone: ante plus W"}
    ]
    assert screen["settlement"]["paid"][0]["who"] == "Seat 2" and screen["pot"] == 7


# Every answer shows the state its own tap left (issue 13: the answer was drawn from the hand as read
# before the service ran, so a quick second tap was refused and landed on the wrong seat)


def tap(client, hand_id, action, form):
    return client.post(f"/tablet/hands/{hand_id}/{action}/", form, HTTP_HX_REQUEST="true")


def answered_seq(response) -> int:
    return int(re.search(r'data-seq="(\d+)"', page(response)).group(1))


def answered_card_seat(response) -> int:
    return int(re.search(r"Tap the card for seat (\d+)", page(response)).group(1))


def test_a_taps_answer_shows_the_step_and_next_card_a_fresh_read_shows(client, rocket_hand):
    response = tap(client, rocket_hand.pk, "card", step(rocket_hand, rank=5))

    fresh = hand_screen(read_afresh(rocket_hand))
    assert response.status_code == 200
    assert answered_seq(response) == fresh["seq"] == rocket_hand.seq + 1
    assert answered_card_seat(response) == fresh["next"]["seat"] == 2


def test_a_second_tap_straight_after_the_answer_is_recorded_for_the_seat_it_named(client, rocket_hand):
    first = tap(client, rocket_hand.pk, "card", step(rocket_hand, rank=5))
    named = answered_card_seat(first)

    second = tap(client, rocket_hand.pk, "card", {"key": key(), "seq": answered_seq(first), "rank": 7})

    assert second.status_code == 200 and "moved on" not in page(second)
    recorded = CardEvent.objects.filter(hand=rocket_hand).order_by("seq").last()
    assert (recorded.rank, recorded.seat) == (7, named)
    assert answered_card_seat(second) == 3


def test_confirming_the_settlement_answers_with_the_settled_hand(client, rocket_hand, dana):
    hand = rocket_hand
    for rank in (5, 6, 2, 9):
        hand = card(hand, rank, dana)
    for action in (("fold",), ("fold",), ("fold",)):
        hand = decide(hand, action, dana)

    response = tap(client, hand.pk, "settle", step(hand))

    html = page(response)
    assert response.status_code == 200
    assert f"Hand {hand.number} is settled." in html and "Confirm settlement" not in html
    assert "in progress" not in html and answered_seq(response) == read_afresh(hand).seq


def test_a_misdeal_answers_with_the_hand_waiting_for_the_pit(client, rocket_hand):
    response = tap(client, rocket_hand.pk, "void", step(rocket_hand, reason="Two cards stuck"))

    assert "Waiting for the pit manager to decide the misdeal" in page(response)
    assert answered_seq(response) == read_afresh(rocket_hand).seq and 'name="rank"' not in page(response)


def test_a_seat_opened_shows_in_the_tables_answer(client, dealing):
    form = {"key": key(), "seat": 4, "buy_in": 150, "player_name": "Dee"}

    response = client.post(f"/tablet/{dealing.pk}/seats/", form, HTTP_HX_REQUEST="true")

    seat_4 = page(response).split('aria-label="Seat 4"')[1].split("</article>")[0]
    assert response.status_code == 200 and "Dee" in seat_4 and ">150</b> chips" in seat_4


def test_the_poll_interval_is_the_tablet_poll_setting(client, rocket_hand, settings):
    settings.TABLET_POLL_SECONDS = 600

    assert 'hx-trigger="every 600s"' in page(client.get(hand_url(rocket_hand)))
    assert 'hx-trigger="every 600s"' in page(client.get(f"/tablet/{rocket_hand.table_id}/"))


# What the screens show is what happened (issue 13, point 7)


def test_a_voided_hand_loses_its_in_and_card_marks(client, rocket_hand, dana, pete):
    # given: a card is due for seat 1 and every seat is in
    hand = card(rocket_hand, 5, dana)
    assert hand_screen(hand)["seats"][1]["card_due"]
    client.post(hand_url(hand, "void"), step(hand, reason="Two cards came out together"))

    # when: the pit voids the hand
    approval_decide(request=ApprovalRequest.objects.get(hand=hand), by=pete, approve=True, key=key())

    # then: no seat is in, due a card or to act, and nothing is due
    screen = hand_screen(read_afresh(hand))
    assert [s["status"] for s in screen["seats"]] == ["hand voided"] * 3
    assert not any(s["card_due"] or s["to_act"] for s in screen["seats"])
    assert (screen["turn"], screen["next"]["kind"]) == (None, "voided")
    html = page(client.get(hand_url(hand)))
    assert "card-due" not in html and '<span class="tag">' not in html and ">in<" not in html


def test_replacing_a_shoe_that_can_still_deal_asks_why_and_keeps_the_answer(client, dealing):
    # given: the shoe in play has burned 5 and can deal
    old = dealing.shoes.get(state=Shoe.State.IN_PLAY)
    assert 'name="reason"' in page(client.get(f"/tablet/{dealing.pk}/"))
    before = written()
    shuffle = {"key": key(), "decks": 8, "kind": "physical", "burn": 5}

    # when: the dealer shuffles a new one without saying why
    refused = client.post(f"/tablet/{dealing.pk}/shoe/", {**shuffle, "reason": "  "})

    # then: refused with a sentence asking why, nothing written
    assert refused.status_code == 400 and "say why you are replacing it" in page(refused)
    assert written() == before

    # when: with a reason, the old shoe retires and keeps it
    client.post(f"/tablet/{dealing.pk}/shoe/", {**shuffle, "key": key(), "reason": "Cards were flashed"})
    old.refresh_from_db()
    assert (old.state, old.retire_reason) == (Shoe.State.RETIRED, "Cards were flashed")


def test_a_spent_shoe_is_replaced_without_a_reason(client, blackstone, dana, pete):
    # given: a Blackstone game was dealt from the shoe (a fresh deck every game)
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = card(card(hand_start(table=blackstone, by=dana, key=key()), 3, dana), 5, dana)
    hand = card(card(decide(hand, ("take", 2), dana), 10, dana), 10, dana)  # seat 1's second 10
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    assert 'name="reason"' not in page(client.get(f"/tablet/{blackstone.pk}/"))

    # when: a new shoe is shuffled with no reason
    shuffle = {"key": key(), "decks": 1, "kind": "physical", "burn": 5}
    response = client.post(f"/tablet/{blackstone.pk}/shoe/", shuffle)

    # then: accepted (the page reloads the table), and the old shoe retired with no reason asked
    assert response.status_code == 302
    assert blackstone.shoes.get(state=Shoe.State.RETIRED).retire_reason == ""


# Fewer taps a hand (issue 13, point 4): same bets, a refused bet kept, Pairs rounds that go on,
# the shoe shuffled as the last one was


def settled_rocket_hand(table, bets, dana):
    """A Rocket hand with `bets` where every seat folds, settled."""
    hand = hand_start(table=table, bets=bets, by=dana, key=key())
    hand = play(hand, [5, 6, 2, 9][: len(bets) + 1], [("fold",)] * len(bets), dana)
    return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())


def hidden_fields(html: str, form_class: str) -> dict[str, str]:
    """The hidden fields of the form with this class, as the browser would post them."""
    form = re.search(rf'<form class="[^"]*\b{form_class}\b.*?</form>', html, re.S).group(0)
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))


def test_the_table_between_hands_offers_the_last_hands_bets_and_same_bets_starts_with_them(
    client, rocket_hand, dana
):
    table = rocket_hand.table
    hand = play(rocket_hand, [5, 6, 2, 9], [("fold",)] * 3, dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    html = page(client.get(f"/tablet/{table.pk}/"))
    assert re.search(r'name="bet_2"[^>]*value="50"', html)  # the stepper starts at the last bet
    same = hidden_fields(html, "same-bets")
    assert {name: value for name, value in same.items() if name.startswith("bet_")} == {
        "bet_1": "20",
        "bet_2": "50",
        "bet_3": "10",
    }

    response = client.post(f"/tablet/{table.pk}/hands/", same)  # one tap

    second = Hand.objects.get(table=table, number=2)
    assert response.status_code == 302 and response["Location"] == hand_url(second)
    assert second.committed == {"1": 20, "2": 50, "3": 10}


def test_same_bets_leaves_out_a_bet_over_the_limit_and_a_new_players_seat(dealing, dana):
    seat(dealing, 1, 200, dana), seat(dealing, 2, 200, dana)
    cy = seat(dealing, 3, 200, dana)
    settled_rocket_hand(dealing, {1: 20, 2: 50, 3: 30}, dana)
    dealing.max_bet = 40  # the pit lowered the limit: Bob's 50 is out
    dealing.save()
    seat_close(session=cy, by=dana, key=key())
    seat(dealing, 3, 200, dana, "Dee")  # someone else sits at seat 3: Cy's 30 is not hers

    screen = table_screen(dealing)

    assert screen["same_bets"] == [{"seat": 1, "bet": 20}]
    assert [seat["bet"] for seat in screen["seats"][:3]] == [20, 0, 0]


def test_same_bets_leaves_out_a_bet_above_the_chips_in_front(dealing, dana):
    ann = seat(dealing, 1, 60, dana)
    settled_rocket_hand(dealing, {1: 50}, dana)  # the fold costs seat 1 more than the 10 it kept back

    assert chips(ann) < 50
    assert table_screen(dealing)["same_bets"] == []


def test_a_refused_bet_keeps_every_seats_bet_as_typed_and_names_the_seat(client, dealing, dana):
    for number, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        seat(dealing, number, 200, dana, name)
    shown = re.search(r"poll/\?v=([0-9a-f]+)", page(client.get(f"/tablet/{dealing.pk}/"))).group(1)
    before = written()

    response = client.post(
        f"/tablet/{dealing.pk}/hands/", {"key": key(), "bet_1": "20", "bet_2": "25", "bet_3": "40"}
    )

    html = page(response)
    assert response.status_code == 400
    assert "Seat 2 (Bob): a Rocket bet must be a multiple of 10 units, not 25." in html
    assert [re.search(rf'name="bet_{n}"[^>]*value="(\w*)"', html).group(1) for n in (1, 2, 3)] == [
        "20",
        "25",
        "40",
    ]
    assert written() == before
    # the refusal is drawn from the table as it is, so the poll leaves the typed bets alone
    assert re.search(r"poll/\?v=([0-9a-f]+)", html).group(1) == shown


def test_every_refused_bet_is_named_in_one_sentence(dealing, dana):
    seat(dealing, 1, 200, dana, "Ann"), seat(dealing, 2, 30, dana, "Bob")

    with pytest.raises(DomainError) as refused:
        hand_start(table=dealing, bets={1: 15, 2: 40, 4: 10}, by=dana, key=key())

    assert refused.value.message == (
        "Seat 1 (Ann): a Rocket bet must be a multiple of 10 units, not 15."
        " Seat 2 (Bob) has 30 units in front; a bet of 40 is more than that."
        " Nobody is seated at seat 4."
    )


@pytest.fixture
def pairs_round(client, pairs, dana, pete):
    """Two players at Pairs 1, dana signed in; round 1 dealt 4 and 6, seat 1 folds and scores 4:
    the game goes on, no chips move."""
    deal_at(pairs, dana, pete)
    client.force_login(dana)
    seat(pairs, 1, 50, dana), seat(pairs, 2, 50, dana)
    return play(hand_start(table=pairs, by=dana, key=key()), [4, 6], [("fold",)], dana)


def test_confirming_a_pairs_round_that_moves_no_chips_starts_the_next_round(client, pairs_round):
    before = Transaction.objects.count()

    response = client.post(hand_url(pairs_round, "settle"), step(pairs_round), follow=True)

    pairs_round.refresh_from_db()
    second = Hand.objects.get(table=pairs_round.table, number=2)
    assert pairs_round.status == Hand.Status.SETTLED and second.status == Hand.Status.IN_PROGRESS
    assert second.stakes == {"1": 4, "2": 0}  # the scores go on
    assert response.redirect_chain == [(hand_url(second), 302)]
    assert "Next card: seat 1 (deal)." in page(response) and "hand 2" in page(response)
    assert Transaction.objects.count() == before


def test_an_htmx_confirmation_of_a_pairs_round_sends_the_tablet_to_the_next_round(client, pairs_round):
    response = client.post(hand_url(pairs_round, "settle"), step(pairs_round), HTTP_HX_REQUEST="true")

    assert response["HX-Redirect"] == hand_url(Hand.objects.get(number=2))


def test_a_retried_pairs_confirmation_settles_once_and_starts_one_round(client, pairs_round):
    form = step(pairs_round)

    first = client.post(hand_url(pairs_round, "settle"), form)
    again = client.post(hand_url(pairs_round, "settle"), form)  # the answer was lost; the tablet retries

    second = Hand.objects.get(table=pairs_round.table, number=2)
    assert first["Location"] == again["Location"] == hand_url(second)
    assert Hand.objects.filter(table=pairs_round.table).count() == 2


def test_the_round_that_ends_a_pairs_game_moves_chips_and_goes_back_to_the_table(client, pit, dana, pete):
    table = open_table(pit, pete, Game.PAIRS, "Pairs 2", 1, 100, options={"ending": "cutchfeld", "target": 4})
    deal_at(table, dana, pete)
    client.force_login(dana)
    seat(table, 1, 50, dana), seat(table, 2, 50, dana)
    hand = play(hand_start(table=table, by=dana, key=key()), [4, 6], [("fold",)], dana)  # 4 points: out

    response = client.post(hand_url(hand, "settle"), step(hand))

    hand.refresh_from_db()
    assert response["Location"] == hand_url(hand) and hand.status == Hand.Status.SETTLED
    assert hand.settlement["result"]["game_over"] and Transaction.objects.filter(hand_id=hand.pk).exists()
    assert Hand.objects.filter(table=table).count() == 1
    assert "Next hand" in page(client.get(hand_url(hand)))


def test_a_loser_short_of_the_settlement_is_named_and_buys_more_at_the_table(client, pit, dana, pete):
    options = {"ending": "cutchfeld", "target": 4, "collection": "none"}
    table = open_table(pit, pete, Game.PAIRS, "Pairs 2", 1, 100, options=options)
    deal_at(table, dana, pete)
    client.force_login(dana)
    seat(table, 1, 50, dana, "Ann"), seat(table, 2, 2, dana, "Bob")
    hand = play(hand_start(table=table, by=dana, key=key()), [6, 4, 4], [("hit",)], dana)  # Bob pairs 4s
    bob = SeatSession.objects.get(seat__table=table, seat__number=2, ended_at=None)

    refused = client.post(hand_url(hand, "settle"), step(hand))

    assert refused.status_code == 400
    assert "Seat 2 has 2 units in front; paying 4 is more than that: the player buys more first." in (
        page(refused)
    )
    buy = f"/tablet/{table.pk}/seats/{bob.pk}/buy/"
    assert f'action="{buy}"' in page(client.get(f"/tablet/{table.pk}/"))  # the hand is still open
    client.post(buy, {"key": key(), "amount": 10})
    hand.refresh_from_db()
    settled = client.post(hand_url(hand, "settle"), step(hand))
    hand.refresh_from_db()
    assert settled.status_code == 302 and hand.status == Hand.Status.SETTLED and chips(bob) == 8


def test_a_pairs_round_goes_on_with_the_games_players_while_a_new_player_waits(client, pairs_round, dana):
    seat(pairs_round.table, 3, 50, dana)  # a player sat down during the round: they wait for the next game

    response = client.post(hand_url(pairs_round, "settle"), step(pairs_round))

    second = Hand.objects.get(table=pairs_round.table, number=2)
    assert response["Location"] == hand_url(second)
    assert second.seats == [1, 2] and second.stakes == {"1": 4, "2": 0}


def test_the_new_shoe_panel_offers_the_last_shoes_kind_decks_and_burn(client, blackstone, dana, pete):
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    shoe_start(
        table=blackstone, decks=1, kind=Shoe.Kind.SYSTEM, burn=3, reason="System shoe", by=pete, key=key()
    )

    html = page(client.get(f"/tablet/{blackstone.pk}/"))

    assert 'value="system" checked' in html and 'value="physical" checked' not in html
    assert re.search(r'name="burn"[^>]*value="3"', html)


@pytest.mark.parametrize(("game", "burn"), [(Game.FIVE_CARDS, "0"), (Game.SWEEP, "0"), (Game.PORT, "5")])
def test_the_new_shoe_panel_offers_no_burn_for_a_game_dealt_whole_from_the_deck(
    client, pit, dana, pete, game, burn
):
    # given a table whose last shoe is out of play (a whole-deck game retires it after each round)
    table = open_table(pit, pete, game, "Points 1", 1, 100, burn=0)
    shoe_retire(shoe=table.shoes.get(), by=pete, key=key())
    deal_at(table, dana, pete)
    client.force_login(dana)

    html = page(client.get(f"/tablet/{table.pk}/"))

    assert re.search(rf'name="burn"[^>]*value="{burn}"', html)  # what the shoe service accepts


def test_a_pairs_round_whose_next_cannot_start_still_settles(client, pairs_round):
    table = pairs_round.table
    table.options = {"ending": "no such ending"}  # changed mid-game: the engine refuses the next round
    table.save()

    response = client.post(hand_url(pairs_round, "settle"), step(pairs_round))

    pairs_round.refresh_from_db()
    assert response["Location"] == hand_url(pairs_round) and pairs_round.status == Hand.Status.SETTLED
    assert Hand.objects.filter(table=table).count() == 1


def test_a_continuous_pairs_round_goes_on_with_the_stacks_still_in_play(client, pit, dana, pete):
    hand = pairs_variant(client, pit, dana, pete, {"continuous": True}, 4, 6)
    hand = decide(hand, ("fold", 1, 4), dana)  # seat 1 takes its own 4: seat 2's 6 stays in play

    client.post(hand_url(hand, "settle"), step(hand))

    second = Hand.objects.get(table=hand.table, number=2)
    seats = hand_screen(second)["seats"]
    assert second.status == Hand.Status.IN_PROGRESS
    assert [seat["cards"] for seat in seats] == [[], [{"rank": 6, "why": "in play", "discarded": False}]]


def test_port_offers_lock_without_a_common_hand_to_count(client, pit, pete, dana):
    port = open_table(pit, pete, Game.PORT, "Port 1", 1, 100)
    deal_at(port, dana, pete)
    client.force_login(dana)
    seat(port, 1, 50, dana), seat(port, 2, 50, dana)
    hand = hand_start(table=port, by=dana, key=key())
    for rank in (6, 3, 8, 2):
        if hand_screen(hand)["next"]["kind"] != "card":
            break
        hand = card(hand, rank, dana)

    html = page(client.get(hand_url(hand)))
    assert re.search(r">\s*Lock\s*</button>", html) and "Lock at" not in html
    # no offline keypad at a points game (only its inert template, to send steps kept earlier): the
    # banner for a lost answer does not point to one
    assert 'data-keypad=""' in html and "This game's steps are not kept on the tablet" in html


def test_between_points_rounds_the_table_names_the_seats_the_next_round_deals(client, pit, pete, dana):
    port = open_table(pit, pete, Game.PORT, "Port 1", 1, 100)
    deal_at(port, dana, pete)
    client.force_login(dana)
    seat(port, 1, 50, dana), seat(port, 2, 50, dana)
    hand = play(hand_start(table=port, by=dana, key=key()), [6, 3], [("lock",), ("lock",)], dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    seat(port, 3, 50, dana)  # seated during the game: waits for the next one

    html = page(client.get(f"/tablet/{port.pk}/"))

    assert "The game's players play the next round: seat 1, 2." in html
    assert "Every seated player plays." not in html


def test_blackstone_tells_the_dealer_to_put_extra_tens_back_and_counts_them_in_the_shoe(
    client, blackstone, dana, pete
):
    # RULINGS.md (Blackstone): after the tie-break a player holding more than one 10 returns the
    # extra 10s to the undealt cards, which are reshuffled
    deal_at(blackstone, dana, pete)
    client.force_login(dana)
    for number in (1, 2, 3):
        seat(blackstone, number, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    for rank in (10, 10, 10, 10, 10, 3):  # the deal ties at 10; the tie-break gives seat 3 the low 3
        hand = card(hand, rank, dana)

    html = page(client.get(hand_url(hand)))
    assert "Seat 1 holds 2 10s and keeps one: put 1 back with the undealt cards" in html
    assert "Seat 2 holds 2 10s and keeps one" in html and "Seat 3 holds" not in html
    assert re.search(r"<b class=\"num\">46</b> cards left", html)  # 55 - 5 burnt - 6 dealt + 2 put back
    assert "Correct the last card: the 3 to Seat 3" in html

    hand = decide(hand, ("take", 1), dana)
    assert "keeps one" not in page(client.get(hand_url(hand)))  # done before the first decision


def test_a_rocket_hand_points_a_lost_answer_to_its_offline_keypad(client, rocket_hand, dana):
    client.force_login(dana)

    html = page(client.get(hand_url(rocket_hand)))

    assert 'id="offline-keypad"' in html and "Keep keying on the offline keypad below." in html


def test_the_dealer_takes_the_shoe_out_of_play_so_the_pit_may_change_the_game(client, dealing, pete):
    # The settings page refuses a change of game while a shoe is in play: "retire the shoe first".
    shoe = dealing.shoes.get(state=Shoe.State.IN_PLAY)
    assert f'action="/tablet/{dealing.pk}/shoe/retire/"' in page(client.get(f"/tablet/{dealing.pk}/"))

    answer = client.post(f"/tablet/{dealing.pk}/shoe/retire/", {"key": key()})

    shoe.refresh_from_db()
    assert answer.status_code == 302 and shoe.state == Shoe.State.RETIRED
    assert "No shoe in play" in page(client.get(f"/tablet/{dealing.pk}/"))
    refused = client.post(f"/tablet/{dealing.pk}/shoe/retire/", {"key": key()})
    assert refused.status_code == 400 and "has no shoe in play" in page(refused)


def test_a_shoe_is_not_taken_out_of_play_under_an_open_hand(client, rocket_hand):
    table = rocket_hand.table
    refused = client.post(f"/tablet/{table.pk}/shoe/retire/", {"key": key()})
    assert refused.status_code == 400
    assert "settle or void it before retiring the shoe" in page(refused)
    assert table.shoes.get(pk=rocket_hand.shoe_id).state == Shoe.State.IN_PLAY
