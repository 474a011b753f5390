"""The answer to a hand's step is drawn from the records the step read and wrote, not read again
(`tables.services.engine.hand_records`): it must be exactly the screen a fresh read gives."""

from collections import Counter

import pytest
from django.test import Client

from benchmarks.load import Answer, pit_manager_create, table_open
from tables.models import Hand, Table

pytestmark = pytest.mark.django_db

GAMES = ["rocket", "blackstone", "starboard", "pairs"]


def tables_open(games: list[str]) -> list:
    """Open tables with three players bought in and a dealer on shift, as the load benchmark does."""
    pete = pit_manager_create()
    return [table_open(number, game, pete) for number, game in enumerate(games)]


def step(client: Client, tablet) -> dict:
    label, path, body, key = tablet.next_request()
    headers = {"Authorization": f"Token {tablet.token}", "Idempotency-Key": key}
    response = client.post(path, body, content_type="application/json", headers=headers)
    assert response.status_code < 400 or tablet.needs_shoe or label == "start hand", response.content
    tablet.absorb(Answer(label, key, response.status_code, 0.0, response.json()))
    return {"label": label, "status": response.status_code, "body": response.json(), "headers": headers}


def test_every_answer_is_the_screen_a_fresh_read_gives():
    tablets = tables_open(GAMES * 2)
    client = Client(HTTP_HOST="127.0.0.1")
    answers = Counter()
    # Rounds until buy-ins are among the answers: a tablet buys in after every fourth settled hand,
    # and how many hands settle in a round depends on the shoes' shuffles.
    for _ in range(120):
        if answers["buy-in"] > 4 and answers.total() > 400:
            break
        for tablet in tablets:
            sent = step(client, tablet)
            if sent["label"] == "shuffle" or sent["status"] >= 400:
                continue
            if sent["label"] == "buy-in":  # the seat session, with the chips the ledger now holds
                path = f"/api/seat-sessions/{sent['body']['id']}/"
            else:
                path = f"/api/hands/{sent['body']['hand']}/"
            assert sent["body"] == client.get(path, headers=sent["headers"]).json(), sent["label"]
            answers[sent["label"]] += 1
    assert answers["buy-in"] > 4 and answers.total() > 400


def test_a_payout_left_for_the_pit_is_in_the_answer_as_in_a_fresh_read():
    (tablet,) = tables_open(["rocket"])
    Table.objects.filter(pk=tablet.table).update(payout_approval_threshold=0)
    client = Client(HTTP_HOST="127.0.0.1")
    sent = step(client, tablet)
    while sent["label"] != "settle" or sent["body"]["status"] == Hand.Status.SETTLED:
        sent = step(client, tablet)  # a hand where nobody is paid settles at once

    fresh = client.get(f"/api/hands/{sent['body']['hand']}/", headers=sent["headers"])
    assert sent["body"]["waiting_for"] == "payout" and sent["body"] == fresh.json()
