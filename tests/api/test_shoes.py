"""Shoes: start one (the old one retires), read what is left and the cut card, retire it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables.models import CardEvent, Game, IdempotentRequest, Shoe
from tables.services.shoes import shoe_commitment
from tests.tables.conftest import deal_at, open_table

from .conftest import records, signed_in

pytestmark = pytest.mark.django_db


def test_a_new_shoe_retires_the_one_in_play_and_burns_its_cards(as_dana, rocket):
    old = rocket.shoes.get(state="in_play")

    response = as_dana.change(
        f"/api/tables/{rocket.pk}/shoes/",
        {"decks": 6, "kind": "physical", "burn": 3, "reason": "Test"},
        HTTP_X_DEVICE="tablet-7",
    )

    assert response.status_code == 201
    shoe = response.json()
    assert (shoe["decks"], shoe["state"], shoe["burn"], shoe["cards_out"]) == (6, "in_play", 3, 3)
    assert shoe["cards_left"] == 6 * 55 - 3
    assert shoe["cut_position"] == 264 and shoe["cut_card_out"] is False  # 0.8 x 330
    assert set(Shoe.objects.get(pk=shoe["id"]).cards.values_list("device", flat=True)) == {"tablet-7"}
    old.refresh_from_db()
    assert old.state == "retired"
    assert as_dana.get(f"/api/tables/{rocket.pk}/").json()["shoe"] == shoe["id"]


def test_a_new_shoes_burns_go_to_its_tables_chain_in_one_insert(as_dana, rocket):
    # issue 17: the burn cards of a shuffle (and of a recycle) are chained together, one insert
    with CaptureQueriesContext(connection) as captured:
        shuffle = {"decks": 6, "kind": "system", "burn": 4, "reason": "Test"}
        response = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", shuffle)

    assert response.status_code == 201
    assert len([q for q in captured if q["sql"].startswith('INSERT INTO "tables_cardevent"')]) == 1
    burns = list(CardEvent.objects.filter(shoe_id=response.json()["id"]).order_by("position"))
    assert [card.shoe_position for card in burns] == [1, 2, 3, 4]
    assert [card.receiver for card in burns] == ["burn"] * 4
    assert [card.position for card in burns] == list(range(burns[0].position, burns[0].position + 4))
    assert [card.prev_hash for card in burns[1:]] == [card.hash for card in burns[:-1]]


def test_a_system_shoe_shows_its_commitment_and_only_once_retired_its_order_and_salt(as_dana, rocket):
    shuffle = {"decks": 2, "kind": "system", "reason": "Test"}
    started = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", shuffle).json()
    assert started["commitment"] and started["order"] is None and started["salt"] is None
    assert as_dana.get(f"/api/shoes/{started['id']}/").json()["order"] is None

    retired = as_dana.change(f"/api/shoes/{started['id']}/retire/")

    assert retired.status_code == 200
    shoe = retired.json()
    assert shoe["state"] == "retired" and len(shoe["order"]) == 110
    assert shoe_commitment(shoe["order"], shoe["salt"]) == started["commitment"]


@pytest.mark.parametrize(("game", "burned"), [(Game.SWEEP, 0), (Game.PORT, 5), (Game.ROCKET, 5)])
def test_a_shoe_started_without_a_burn_takes_its_games(game, burned, pit, pete, dana):
    # RULINGS, "Points and bidding games": Port burns 5, the others deal the whole deck with none
    # (their hands must come out even); a shoe started through the API once burned 5 at every game
    table = open_table(pit, pete, game, "Table 9", 10, 500, burn=burned)
    deal_at(table, dana, pete)

    response = signed_in(dana).change(f"/api/tables/{table.pk}/shoes/", {"decks": 1, "reason": "Test"})

    assert response.status_code == 201, response.json()
    assert (response.json()["burn"], response.json()["cards_out"]) == (burned, burned)


def test_a_shoe_of_nine_decks_is_refused_by_field(as_dana, rocket):
    before = records()

    response = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 9, "kind": "magic"})

    assert response.status_code == 400
    assert response.json() == {
        "decks": ["Ensure this value is less than or equal to 8."],
        "kind": ['"magic" is not a valid choice.'],
    }
    assert records() == before


def test_a_single_deck_game_refuses_a_bigger_shoe_with_the_reason(as_olga, blackstone):
    before = records()

    response = as_olga.change(f"/api/tables/{blackstone.pk}/shoes/", {"decks": 2})

    assert response.status_code == 400
    assert response.json() == {"detail": "Blackstone is dealt from a single deck."}
    assert records() == before


@pytest.mark.parametrize(("who", "status"), [("as_olga", 404), ("as_ada", 403)])
def test_only_the_tables_dealer_starts_or_retires_its_shoe(who, status, request, rocket):
    client, shoe = request.getfixturevalue(who), rocket.shoes.get(state="in_play")
    before = records()

    assert client.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8}).status_code == status
    assert client.change(f"/api/shoes/{shoe.pk}/retire/").status_code == status
    assert records() == before


def test_a_retried_shoe_start_answers_the_same_shoe(as_dana, rocket):
    first = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8, "reason": "Test"}, key="shuffle-1")
    again = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8, "reason": "Test"}, key="shuffle-1")

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert Shoe.objects.filter(table=rocket).count() == 2


def test_a_new_shoe_while_the_one_in_play_can_deal_needs_a_reason(as_dana, rocket):
    old = rocket.shoes.get(state="in_play")

    refused = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8})
    assert refused.status_code == 400 and "say why" in refused.json()["detail"]
    assert Shoe.objects.filter(table=rocket).count() == 1

    started = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8, "reason": "Shoe dropped"})
    assert started.status_code == 201
    assert as_dana.get(f"/api/shoes/{old.pk}/").json()["retire_reason"] == "Shoe dropped"


CLAIMED, ANSWERED = 'INSERT INTO "tables_idempotentrequest"', 'UPDATE "tables_idempotentrequest"'


def test_a_shuffle_answers_the_shoe_as_stored(as_dana, rocket):
    # issue 17: the answer is the shoe the step made, not a read after the commit
    shuffle = {"decks": 6, "kind": "system", "reason": "Test"}
    with CaptureQueriesContext(connection) as captured:
        started = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", shuffle)
    statements = [q["sql"] for q in captured]

    assert started.status_code == 201
    assert started.json() == as_dana.get(f"/api/shoes/{started.json()['id']}/").json()
    answer = next(at for at, sql in enumerate(statements) if ANSWERED in sql)  # alone, or last of a WITH
    assert not [sql for sql in statements[answer + 1 :] if '"tables_shoe"' in sql or "recycle" in sql]


def test_a_shuffle_reads_the_table_and_the_shoe_in_play_in_the_keys_round_trip(as_dana, rocket):
    # issue 17: the permission is checked on the table as the shuffle locks it, not on a read before;
    # the table, its open hand, its shoe in play and its chain are sent with the key's claim
    with CaptureQueriesContext(connection) as captured:
        response = as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8, "reason": "Test"})
    statements = [q["sql"] for q in captured]
    claim = next(at for at, sql in enumerate(statements) if sql.startswith(CLAIMED))

    assert response.status_code == 201
    assert not [sql for sql in statements[:claim] if 'FROM "tables_table"' in sql]
    first_reads = [sql.split(" FROM ")[1].split()[0] for sql in statements[claim + 1 : claim + 5]]
    assert first_reads == ['"tables_table"', '"tables_hand"', '"tables_shoe"', '"ledger_chain"']
    if connection.features.has_select_for_no_key_update:  # the table, the shoe in play, the chain
        locked = ["FOR NO KEY UPDATE" in sql for sql in statements[claim + 1 : claim + 5]]
        assert locked == [True, False, True, True]


def test_a_shuffle_at_a_table_that_does_not_exist_is_404_and_claims_no_key(as_dana, rocket):
    before, keys = records(), IdempotentRequest.objects.count()

    response = as_dana.change(f"/api/tables/{rocket.pk + 1000}/shoes/", {"decks": 8, "reason": "Test"})

    assert response.status_code == 404
    assert (records(), IdempotentRequest.objects.count()) == (before, keys)
