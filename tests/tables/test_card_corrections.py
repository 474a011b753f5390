"""A mis-keyed card (RULINGS): the most recent card of a hand, while nothing was recorded after it,
corrected by the dealer with a pit manager's signature; a new record, the hand replays with it."""

import re

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction

from casino.errors import Conflict, NotAllowed
from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from tables.games import DecisionDue
from tables.models import CardCorrection, CardEvent, Game, Hand, Shoe
from tables.services import (
    HandError,
    SignatureGiven,
    SignatureRefused,
    hand_correct_card,
    hand_decide,
    hand_start,
    hand_void_request,
    shift_start,
)
from tables.services.engine import engine_for, hand_records
from tables.services.shoes import shoe_known_remaining

from .conftest import card, deal_at, decide, key, open_table, person, play, seat
from .test_hands import chips, settle

pytestmark = pytest.mark.django_db

PETE_SIGNS = SignatureGiven("pete", "pete-password")
OUR_APPS = ("tables", "ledger", "casino")


@pytest.fixture
def on_shift(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    return rocket


@pytest.fixture
def dealer_pair(on_shift, dana):
    """Seat 1 bets 10; the dealer's second card was keyed a 9, pairing the dealer's 9."""
    player = seat(on_shift, 1, 200, dana)
    hand = hand_start(table=on_shift, bets={1: 10}, by=dana, key=key())
    return player, play(hand, [5, 9, 4, 9], [("hit",)], dana)


def correct(hand, rank, by, *, signer=PETE_SIGNS, card_seq=None, reason="Keyed 9, the card is a 6", **extra):
    last = max(c.seq for c in CardEvent.objects.filter(hand=hand))
    return hand_correct_card(
        hand=hand,
        card_seq=last if card_seq is None else card_seq,
        rank=rank,
        reason=reason,
        signer=signer,
        by=by,
        device="tablet-1",
        expected_seq=extra.pop("expected_seq", hand.seq),
        key=extra.pop("key", None) or key(),
    )


def records() -> dict[str, int]:
    """Rows of every model of ours, and each hand's step: equal before and after a refusal."""
    ours = [model for app in OUR_APPS for model in apps.get_app_config(app).get_models()]
    counts = {model._meta.label: model.objects.count() for model in ours}
    return {**counts, "steps": list(Hand.objects.order_by("pk").values_list("seq", flat=True))}


def refused(error, match, call):
    before = records()
    with pytest.raises(error, match=match):
        call()
    assert records() == before


# The correction and the replay


def test_a_corrected_dealer_card_undoes_the_dealer_pair_and_the_hand_plays_on(dealer_pair, dana, pete):
    # given the dealer's second card keyed a 9: a dealer pair would pay seat 1
    player, hand = dealer_pair
    assert engine_for(hand).finished

    # when the dealer corrects it to a 6, pete signing
    hand = correct(hand, 6, dana)

    # then the hand replays with the 6: no pair, seat 1 acts again, and folds for the lowest card, a 4
    assert isinstance(engine_for(hand).next, DecisionDue)
    hand = settle(decide(hand, ("fold",), dana), dana)
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["deltas"]["1"] == -4
    assert chips(player) == 196  # the dealer pair would have left 209


def test_the_correction_is_a_new_record_and_the_card_stays_as_keyed(dealer_pair, dana, pete):
    _, hand = dealer_pair
    keyed = CardEvent.objects.get(hand=hand, seq=hand.seq)

    hand = correct(hand, 6, dana)

    correction = CardCorrection.objects.get()
    assert (correction.card, correction.rank, correction.by, correction.signed_by) == (keyed, 6, dana, pete)
    assert (correction.seq, correction.method, correction.device) == (hand.seq, "password", "tablet-1")
    assert correction.reason == "Keyed 9, the card is a 6"
    assert CardEvent.objects.get(pk=keyed.pk).rank == 9
    dealt = CardEvent.objects.as_dealt().get(pk=keyed.pk)
    assert (dealt.rank, dealt.keyed_rank) == (6, 9)


def test_the_correction_advances_the_step_so_a_stale_tablet_is_refused(dealer_pair, dana):
    _, hand = dealer_pair
    seen = hand.seq

    corrected = correct(hand, 6, dana)

    assert corrected.seq == seen + 1
    with pytest.raises(Conflict, match="moved on"):
        hand_decide(hand=hand, action=("hit",), by=dana, expected_seq=seen, key=key())


def test_the_answer_shows_the_corrected_card_without_reading_again(dealer_pair, dana):
    _, hand = dealer_pair

    hand = correct(hand, 6, dana)

    assert hand.card_list[-1].rank == 6
    fresh = hand_records(Hand.objects.get(pk=hand.pk))
    assert [c.rank for c in fresh.card_list] == [c.rank for c in hand.card_list]


def test_a_retry_with_the_same_key_corrects_once(dealer_pair, dana):
    _, hand = dealer_pair
    retry = key()

    first = correct(hand, 6, dana, key=retry)
    again = correct(hand, 6, dana, key=retry, expected_seq=hand.seq)

    assert CardCorrection.objects.count() == 1
    assert again.seq == first.seq


def test_the_shoe_gives_back_the_keyed_rank_and_counts_the_corrected_one(pit, pete, dana):
    # given a one-deck Rocket shoe (one 1) where the dealer's card was keyed the 1
    table = open_table(pit, pete, Game.ROCKET, "Single", 10, 500, decks=1)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 200, dana)
    hand = card(card(hand_start(table=table, bets={1: 10}, by=dana, key=key()), 5, dana), 1, dana)
    shoe = table.shoes.get()
    assert shoe_known_remaining(shoe)[1] == 0

    # when it is corrected to a 6
    hand = correct(hand, 6, dana)

    # then the 1 is back in the shoe and one 6 fewer, and the seat may be dealt the 1
    remaining = shoe_known_remaining(shoe)
    assert (remaining[1], remaining[6]) == (1, 5)
    hand = card(decide(hand, ("hit",), dana), 1, dana)
    assert CardEvent.objects.get(hand=hand, seq=hand.seq).rank == 1


def test_a_card_may_be_corrected_again_and_its_latest_correction_plays(dealer_pair, dana):
    _, hand = dealer_pair

    hand = correct(correct(hand, 6, dana), 7, dana)

    assert [c.rank for c in hand_records(Hand.objects.get(pk=hand.pk)).card_list][-1] == 7


# Refusals: each writes nothing


def test_a_card_with_a_decision_after_it_is_put_right_by_the_void(on_shift, dana):
    seat(on_shift, 1, 200, dana)
    hand = card(card(hand_start(table=on_shift, bets={1: 10}, by=dana, key=key()), 5, dana), 9, dana)
    hand = decide(hand, ("hit",), dana)

    refused(HandError, "a decision .* void the hand", lambda: correct(hand, 6, dana, card_seq=hand.seq - 1))


def test_a_card_with_another_card_after_it_is_refused(dealer_pair, dana):
    _, hand = dealer_pair

    refused(HandError, "another card", lambda: correct(hand, 6, dana, card_seq=hand.seq - 1))


def test_a_hand_that_is_settled_is_not_corrected(dealer_pair, dana):
    _, hand = dealer_pair
    hand = settle(hand, dana)

    refused(Conflict, "settled; nothing more", lambda: correct(hand, 6, dana))


def test_a_hand_waiting_for_a_void_is_not_corrected(dealer_pair, dana):
    _, hand = dealer_pair
    hand_void_request(hand=hand, by=dana, reason="Misdeal", expected_seq=hand.seq, key=key())
    hand.refresh_from_db()

    refused(HandError, "void request", lambda: correct(hand, 6, dana))


def test_a_system_shoes_card_is_not_corrected_its_order_is_committed(pit, pete, dana):
    table = open_table(pit, pete, Game.ROCKET, "Electronic", 10, 500, decks=2, kind=Shoe.Kind.SYSTEM)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 200, dana)
    hand = card(hand_start(table=table, bets={1: 10}, by=dana, key=key()), None, dana)
    wrong = 1 if CardEvent.objects.get(hand=hand).rank != 1 else 2

    refused(HandError, "system-shuffled shoe, whose order is committed", lambda: correct(hand, wrong, dana))


def test_a_rank_the_shoe_cannot_hold_is_refused(pit, pete, dana):
    table = open_table(pit, pete, Game.ROCKET, "Single", 10, 500, decks=1)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 200, dana)
    hand = card(card(hand_start(table=table, bets={1: 10}, by=dana, key=key()), 1, dana), 5, dana)

    refused(HandError, "cannot hold another 1", lambda: correct(hand, 1, dana))


@pytest.mark.parametrize("rank", [0, 11])
def test_a_rank_off_the_cards_is_refused(dealer_pair, dana, rank):
    _, hand = dealer_pair

    refused(HandError, "rank from 1 to 10", lambda: correct(hand, rank, dana))


def test_the_same_rank_is_nothing_to_correct(dealer_pair, dana):
    _, hand = dealer_pair

    refused(HandError, "already a 9", lambda: correct(hand, 9, dana))


def test_a_correction_needs_a_reason(dealer_pair, dana):
    _, hand = dealer_pair

    refused(HandError, "needs a reason", lambda: correct(hand, 6, dana, reason="  "))


def test_an_empty_password_asks_for_it_and_counts_no_failed_signature(dealer_pair, dana):
    _, hand = dealer_pair

    refused(HandError, "password or PIN", lambda: correct(hand, 6, dana, signer=SignatureGiven("pete", "")))


def test_a_wrong_password_is_refused_and_kept_on_file_for_the_lockout(dealer_pair, dana):
    _, hand = dealer_pair
    before = records()

    with pytest.raises(SignatureRefused, match="not right"):
        correct(hand, 6, dana, signer=SignatureGiven("pete", "guess"))

    failed = AuditEvent.objects.get(action=AuditEvent.Action.SIGNATURE_FAILED)
    assert failed.username == "pete"
    assert records() == {**before, "casino.AuditEvent": before["casino.AuditEvent"] + 1}


def test_a_locked_out_pit_manager_cannot_sign_even_with_the_right_password(dealer_pair, dana, settings):
    _, hand = dealer_pair
    for _ in range(settings.AXES_FAILURE_LIMIT):
        with pytest.raises(SignatureRefused):
            correct(hand, 6, dana, signer=SignatureGiven("pete", "guess"))

    with pytest.raises(SignatureRefused, match="Too many"):
        correct(hand, 6, dana)
    assert not CardCorrection.objects.exists()


def test_a_dealer_cannot_sign_as_the_pit_manager(dealer_pair, dana, olga):
    _, hand = dealer_pair

    with pytest.raises(SignatureRefused, match="cannot sign as pit manager"):
        correct(hand, 6, dana, signer=SignatureGiven("olga", "olga-password"))
    assert not CardCorrection.objects.exists()


def test_a_pit_manager_off_shift_cannot_sign(dealer_pair, dana):
    _, hand = dealer_pair
    person("paula", PIT_MANAGER)  # a pit manager, but not on shift in this pit

    with pytest.raises(SignatureRefused, match="cannot sign as pit manager"):
        correct(hand, 6, dana, signer=SignatureGiven("paula", "paula-password"))
    assert not CardCorrection.objects.exists()


def test_nobody_signs_their_own_correction(dealer_pair, pete):
    _, hand = dealer_pair

    refused(NotAllowed, "another member of staff", lambda: correct(hand, 6, pete))


# The record cannot be changed


@pytest.mark.parametrize("sql", ["UPDATE {table} SET rank = 7", "DELETE FROM {table}"])
def test_raw_sql_cannot_edit_or_remove_a_correction(dealer_pair, dana, sql):
    _, hand = dealer_pair
    correct(hand, 6, dana)

    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql.format(table=CardCorrection._meta.db_table))
    assert CardCorrection.objects.get().rank == 6


def test_the_orm_refuses_to_edit_a_correction(dealer_pair, dana):
    _, hand = dealer_pair
    correct(hand, 6, dana)
    correction = CardCorrection.objects.get()

    correction.rank = 7
    with pytest.raises(Exception, match="append-only"):
        correction.save()
    with pytest.raises(Exception, match="append-only"):
        CardCorrection.objects.all().delete()


def test_a_corrected_card_is_never_saved_with_its_corrected_rank(dealer_pair, dana):
    _, hand = dealer_pair
    hand = correct(hand, 6, dana)

    with pytest.raises(Exception, match="append-only"):
        hand.card_list[-1].save()


# The tablet


def form(hand, **fields):
    """The correction form as the hand screen renders it."""
    return {
        "key": key(),
        "seq": hand.seq,
        "card_seq": hand_records(Hand.objects.get(pk=hand.pk)).card_list[-1].seq,
        "rank": 6,
        "reason": "Keyed 9, the card is a 6",
        "signer": "pete",
        "secret": "pete-password",
        **fields,
    }


def test_the_tablet_offers_the_correction_only_while_the_last_record_is_a_physical_card(
    client, on_shift, dana
):
    client.force_login(dana)
    seat(on_shift, 1, 200, dana)
    hand = card(card(hand_start(table=on_shift, bets={1: 10}, by=dana, key=key()), 5, dana), 9, dana)
    url = f"/tablet/hands/{hand.pk}/"

    assert "Correct the last card: the 9 to Dealer" in client.get(url).content.decode()
    decide(hand, ("hit",), dana)
    assert "Correct the last card" not in client.get(url).content.decode()


def test_a_system_shoes_card_has_no_correction_on_the_tablet(client, pit, pete, dana):
    table = open_table(pit, pete, Game.ROCKET, "Electronic", 10, 500, decks=2, kind=Shoe.Kind.SYSTEM)
    deal_at(table, dana, pete)
    client.force_login(dana)
    seat(table, 1, 200, dana)
    hand = card(hand_start(table=table, bets={1: 10}, by=dana, key=key()), None, dana)

    assert "Correct the last card" not in client.get(f"/tablet/hands/{hand.pk}/").content.decode()


def test_the_tablet_corrects_the_card_and_the_hand_replays_with_it(client, dealer_pair, dana):
    _, hand = dealer_pair
    client.force_login(dana)

    response = client.post(f"/tablet/hands/{hand.pk}/correct-card/", form(hand), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert CardCorrection.objects.get().rank == 6
    # The answer's own state is issue 13's first point (hand_action, changed elsewhere): read afresh.
    html = client.get(f"/tablet/hands/{hand.pk}/").content.decode()
    assert "Seat 1 to act." in html and f'data-seq="{hand.seq + 1}"' in html
    assert "Correct the last card: the 6 to Dealer" in html


def test_a_wrong_pin_on_the_tablet_keeps_the_hand_on_screen_with_the_sentence(client, dealer_pair, dana):
    _, hand = dealer_pair
    client.force_login(dana)

    response = client.post(
        f"/tablet/hands/{hand.pk}/correct-card/", form(hand, secret="1234"), HTTP_HX_REQUEST="true"
    )

    html = response.content.decode()
    assert response.status_code == 400
    assert 'id="hand"' in html and "is not right; nothing was signed" in html
    assert not CardCorrection.objects.exists()


def test_an_empty_password_on_the_tablet_is_asked_for_and_not_counted(client, dealer_pair, dana):
    _, hand = dealer_pair
    client.force_login(dana)

    response = client.post(f"/tablet/hands/{hand.pk}/correct-card/", form(hand, secret=""))

    assert response.status_code == 400 and "Password or PIN" in response.content.decode()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.SIGNATURE_FAILED).exists()
    assert not CardCorrection.objects.exists()


def test_a_dealer_at_another_table_cannot_correct_its_card(client, dealer_pair, olga):
    _, hand = dealer_pair
    client.force_login(olga)

    response = client.post(f"/tablet/hands/{hand.pk}/correct-card/", form(hand))

    assert response.status_code == 404 and not CardCorrection.objects.exists()  # not her table to see


# The API


def api_correct(client, hand, key_=None, **fields):
    body = {k: v for k, v in form(hand, **fields).items() if k not in ("key", "seq")}
    body["expected_seq"] = hand.seq
    return client.post(
        f"/api/hands/{hand.pk}/card-corrections/",
        body,
        format="json",
        HTTP_IDEMPOTENCY_KEY=key_ or key(),
        HTTP_X_DEVICE="tablet-7",
    )


@pytest.fixture
def api(dana):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(dana)
    return client


def test_the_api_offers_the_last_card_and_corrects_it_once_per_key(api, dealer_pair):
    _, hand = dealer_pair
    offered = api.get(f"/api/hands/{hand.pk}/").json()["correctable"]
    assert offered == {"seq": hand.seq, "rank": 9, "to": "Dealer"}
    retry = key()

    first = api_correct(api, hand, retry)
    again = api_correct(api, hand, retry)

    assert first.status_code == 201 and again.status_code == 201
    assert first.json() == again.json()
    assert first.json()["next"]["says"] == "Seat 1 to act."
    assert first.json()["correctable"] == {**offered, "rank": 6}  # still the last card: correctable again
    assert CardCorrection.objects.get().device == "tablet-7"


def test_the_api_refuses_a_wrong_password_with_403_and_writes_no_correction(api, dealer_pair):
    _, hand = dealer_pair

    response = api_correct(api, hand, secret="guess")

    assert response.status_code == 403 and "not right" in response.json()["detail"]
    assert not CardCorrection.objects.exists() and Hand.objects.get(pk=hand.pk).seq == hand.seq


def test_the_api_names_a_missing_field(api, dealer_pair):
    _, hand = dealer_pair

    response = api_correct(api, hand, rank=None)

    assert response.status_code == 400 and "rank" in response.json()
    assert not CardCorrection.objects.exists()


# The pit's review and the reconciliation


def test_the_pits_review_shows_the_card_as_keyed_and_its_correction(client, dealer_pair, dana, pete):
    _, hand = dealer_pair
    hand = settle(decide(correct(hand, 6, dana), ("fold",), dana), dana)
    client.force_login(pete)

    html = client.get(f"/pit/hands/{hand.pk}/").content.decode()

    assert "Mis-keyed cards, corrected" in html
    [row] = re.findall(r'<tr class="step-correction">(.*?)</tr>', html, re.S)
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    assert cells[1:7] == [
        "step 5 · Dealer · shoe card 9",
        "9",
        "6",
        "Keyed 9, the card is a 6",
        "dana",
        "pete (password)",
    ]
    assert "Replay matches what was posted." in html


def test_the_reconciliation_counts_the_corrected_rank(pit, pete, dana):
    from tests.reports.test_reconciliation import reconcile

    # given a one-deck shoe whose only 1 was keyed for the dealer, corrected to a 6, then dealt to seat 1
    table = open_table(pit, pete, Game.ROCKET, "Single", 10, 500, decks=1)
    shift_start(user=pete, pit=pit, by=pete)
    seat(table, 1, 200, dana)
    hand = correct(
        card(card(hand_start(table=table, bets={1: 10}, by=dana, key=key()), 5, dana), 1, dana), 6, dana
    )
    hand = play(hand, [1, 2], [("hit",), ("fold",)], dana)
    settle(hand, dana)

    result = reconcile(table=table.pk)

    # then no rank was dealt more often than the shoe holds, and the hand replays to what was posted
    assert result["findings"] == []
    assert result["hands"]["replayed"] == 1
