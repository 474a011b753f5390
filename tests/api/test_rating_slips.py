"""Rating slips through the API: the floor runs the lifecycle; refusals are 4xx and write nothing."""

import pytest

from tables.models import RatingSlip, RatingSlipEvent
from tables.services import seat_open
from tables.services.players import player_create
from tables.services.rating_slips import rating_slip_move

from .conftest import new_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann_seated(floor, dana, pete):
    ann = player_create(casino=floor.pit.casino, name="Ann Smith", card_number="1001", by=pete)
    return seat_open(table=floor, seat=1, buy_in=100, player=ann, by=dana, key=new_key())


def test_the_dealer_starts_pauses_resumes_and_closes_a_slip(ann_seated, as_dana):
    started = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}, HTTP_X_DEVICE="tablet-1")
    assert started.status_code == 201
    slip = started.json()
    assert (slip["state"], slip["session"], slip["hands"]) == ("started", ann_seated.pk, 0)

    for step, state in (("pause", "paused"), ("resume", "resumed"), ("close", "closed")):
        answer = as_dana.change(f"/api/rating-slips/{slip['id']}/{step}/")
        assert (answer.status_code, answer.json()["state"]) == (200, state)
    assert RatingSlipEvent.objects.filter(slip_id=slip["id"]).first().device == "tablet-1"


def test_a_dealer_at_another_table_finds_no_such_seat_and_nothing_is_written(ann_seated, as_olga):
    answer = as_olga.change("/api/rating-slips/", {"session": ann_seated.pk})
    assert answer.status_code == 404  # olga sees only her own table: nothing outside is revealed
    assert not RatingSlip.objects.exists()


def test_a_slip_running_at_a_table_the_dealer_does_not_see_is_not_named(ann_seated, as_dana, as_olga):
    """Ann plays at Rocket 1 and at olga's Blackstone 1 at once; her slip runs at Rocket 1. olga's
    refusal said "already has rating slip 1": a record she cannot read (404) named by its number."""
    slip = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}).json()
    there = seat_open(
        table=ann_seated.seat.table.pit.tables.get(name="Blackstone 1"),
        seat=1,
        buy_in=100,
        player=ann_seated.player,
        by=ann_seated.started_by,
        key=new_key(),
    )

    answer = as_olga.change("/api/rating-slips/", {"session": there.pk})

    assert answer.status_code == 400
    said = "Ann Smith (1001) already has an open rating slip; close or move it first."
    assert answer.json() == {"detail": said}
    assert as_olga.get(f"/api/rating-slips/{slip['id']}/").status_code == 404
    assert RatingSlip.objects.count() == 1


def test_a_refusal_at_the_table_a_slip_moved_to_does_not_name_it(ann_seated, as_dana, pete):
    """The slip moves from dana's Rocket 1 to Blackstone 1, a table she does not see; she still reads
    the slip (it ran at her table), but her refused pause named "Blackstone 1"."""
    slip = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}).json()
    blackstone = ann_seated.seat.table.pit.tables.get(name="Blackstone 1")
    there = seat_open(table=blackstone, seat=1, buy_in=100, player=ann_seated.player, by=pete, key=new_key())
    rating_slip_move(slip=RatingSlip.objects.get(pk=slip["id"]), to=there, by=pete, key=new_key())
    events = RatingSlipEvent.objects.count()

    answer = as_dana.change(f"/api/rating-slips/{slip['id']}/pause/")

    assert answer.status_code == 403
    assert "Blackstone" not in answer.json()["detail"]
    assert answer.json()["detail"] == (
        "You may not rate players at that table: only its dealer on shift or the pit manager may."
    )
    assert RatingSlipEvent.objects.count() == events


def test_a_slip_moved_to_a_table_the_dealer_does_not_see_is_read_without_where_it_went(
    ann_seated, as_dana, as_pete, pete
):
    """dana reads the slip (it ran at her Rocket 1), but its body gave the table and seat session it
    moved to: Blackstone 1's id, a table she does not see, and so where the player went."""
    slip = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}).json()
    blackstone = ann_seated.seat.table.pit.tables.get(name="Blackstone 1")
    there = seat_open(table=blackstone, seat=1, buy_in=100, player=ann_seated.player, by=pete, key=new_key())
    rating_slip_move(slip=RatingSlip.objects.get(pk=slip["id"]), to=there, by=pete, key=new_key())

    read = as_dana.get(f"/api/rating-slips/{slip['id']}/").json()

    assert (read["state"], read["table"], read["session"]) == ("moved", None, None)
    seen = as_pete.get(f"/api/rating-slips/{slip['id']}/").json()  # the pit sees both tables
    assert (seen["table"], seen["session"]) == (blackstone.pk, there.pk)


def test_a_step_out_of_order_is_a_409_and_writes_nothing(ann_seated, as_dana):
    # The slip is running: it went past "paused" (or never was), a conflict with its state.
    slip = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}).json()
    answer = as_dana.change(f"/api/rating-slips/{slip['id']}/resume/")
    assert answer.status_code == 409 and "paused" in answer.json()["detail"]
    assert RatingSlipEvent.objects.count() == 1


def test_a_missing_session_is_a_404(floor, as_dana):
    assert as_dana.change("/api/rating-slips/", {"session": 999999}).status_code == 404
    assert not RatingSlip.objects.exists()


def test_a_retried_step_is_applied_once_and_answered_as_the_first(ann_seated, as_dana):
    slip = as_dana.change("/api/rating-slips/", {"session": ann_seated.pk}).json()
    first = as_dana.change(f"/api/rating-slips/{slip['id']}/pause/", key="pause-1")
    again = as_dana.change(f"/api/rating-slips/{slip['id']}/pause/", key="pause-1")
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["state"] == "paused"
    assert RatingSlipEvent.objects.filter(slip_id=slip["id"]).count() == 2  # started, paused: once


def test_a_step_without_an_idempotency_key_is_a_400_and_writes_nothing(ann_seated, as_dana):
    answer = as_dana.post("/api/rating-slips/", {"session": ann_seated.pk}, format="json")
    assert answer.status_code == 400 and "Idempotency-Key" in answer.json()
    assert not RatingSlip.objects.exists()
