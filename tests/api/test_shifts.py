"""Shifts through the API: pete, on shift in the pit, moves dana and olga between Rocket 1 and
Blackstone 1; each refusal is a 4xx with a sentence and writes nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from casino.models import AuditEvent
from casino.roles import DEALER, PIT_MANAGER
from tables.models import Game, Pit, Shift
from tests.tables.conftest import open_table, person

from .conftest import records, signed_in

pytestmark = pytest.mark.django_db


def open_shift(username: str) -> Shift:
    return Shift.objects.get(user__username=username, ended_at=None)


def test_a_pit_manager_assigns_rotates_sends_on_break_and_ends_through_the_api(as_pete, rocket, blackstone):
    dora = person("dora", DEALER)

    assigned = as_pete.change("/api/shifts/", {"user": "dora", "table": rocket.pk})
    rotated = as_pete.change(f"/api/shifts/{open_shift('dana').pk}/rotate/", {"table": blackstone.pk})
    on_break = as_pete.change(f"/api/shifts/{open_shift('olga').pk}/break/")
    ended = as_pete.change(f"/api/shifts/{open_shift('dora').pk}/end/")

    assert [r.status_code for r in (assigned, rotated, on_break, ended)] == [201, 201, 200, 200]
    assert assigned.json()["user"] == "dora" and assigned.json()["table"] == rocket.pk
    assert rotated.json()["table"] == blackstone.pk and rotated.json()["ended_at"] is None
    assert (on_break.json()["ended_reason"], ended.json()["ended_reason"]) == ("break", "end")
    assert ended.json()["ended_by"] == "pete"
    assert Shift.objects.get(user=dora).ended_reason == "end"
    ends = AuditEvent.objects.filter(action=AuditEvent.Action.SHIFT_END, user__username="pete")
    assert sorted(e.detail["reason"] for e in ends) == ["break", "end", "rotated"]


def test_the_open_shifts_list_shows_who_is_on_duty_where(as_pete, rocket):
    shifts = as_pete.get("/api/shifts/").json()

    assert sorted(shift["user"] for shift in shifts) == ["dana", "olga", "pete"]


def test_a_retry_with_the_same_key_is_applied_once(as_pete, rocket):
    person("dora", DEALER)
    first = as_pete.change("/api/shifts/", {"user": "dora", "table": rocket.pk}, key="dora-on")
    again = as_pete.change("/api/shifts/", {"user": "dora", "table": rocket.pk}, key="dora-on")

    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json()["id"] == again.json()["id"]
    assert Shift.objects.filter(user__username="dora").count() == 1


@pytest.mark.parametrize(
    "body, status, sentence",
    [
        ({"user": "dana", "table": "blackstone"}, 400, "already on shift at Rocket 1: rotate them"),
        ({"user": "olga", "table": "rocket", "at": "future"}, 400, "cannot be in the future"),
        ({"user": "pete", "table": "rocket"}, 400, "pete is not a dealer"),
        ({"user": "nobody", "table": "rocket"}, 400, "There is no active staff account 'nobody'"),
        ({"user": "dana"}, 400, "Give a table (for a dealer) or a pit"),
        ({"user": "olga", "table": "rocket", "at": "2026-11-29T21:00:00"}, 400, "with its time zone"),
        ({"user": "olga", "table": "rocket", "at": "2026-11-29T21:00:00\u0000Z"}, 400, "with its time zone"),
    ],
)
def test_a_refused_start_says_why_and_writes_nothing(as_pete, rocket, blackstone, body, status, sentence):
    tables = {"rocket": rocket.pk, "blackstone": blackstone.pk}
    if "table" in body:
        body["table"] = tables[body["table"]]
    if body.get("at") == "future":
        body["at"] = (timezone.now() + timedelta(minutes=5)).isoformat()
    before = records()

    answer = as_pete.change("/api/shifts/", body)

    assert answer.status_code == status
    assert sentence in str(answer.json())
    assert records() == before


def test_an_end_before_the_start_is_refused(as_pete):
    shift = open_shift("dana")
    before = records()

    answer = as_pete.change(
        f"/api/shifts/{shift.pk}/end/", {"at": (shift.started_at - timedelta(hours=1)).isoformat()}
    )

    assert answer.status_code == 400
    assert "A shift cannot end before it started" in answer.json()["detail"]
    assert records() == before


def test_a_shift_or_table_of_another_pit_is_not_there(as_pete, rocket, pete):
    other = Pit.objects.create(casino=rocket.pit.casino, name="Pit 2")
    far = open_table(other, pete, Game.BLACKSTONE, "Blackstone 9", 5, 500)
    paul = person("paul", PIT_MANAGER)
    signed_in(paul).change("/api/shifts/", {"user": "paul", "pit": other.pk})
    person("dora", DEALER)
    before = records()

    ended = as_pete.change(f"/api/shifts/{open_shift('paul').pk}/end/")
    assigned = as_pete.change("/api/shifts/", {"user": "dora", "table": far.pk})

    assert ended.status_code == 404
    assert assigned.status_code == 400
    assert assigned.json() == {"table": [f"There is no table {far.pk} among your tables."]}
    assert records() == before


def test_a_dealer_or_auditor_changes_no_shift(as_dana, as_ada):
    shift = open_shift("olga")
    before = records()

    assert as_dana.change(f"/api/shifts/{shift.pk}/end/").status_code == 404  # not her table
    answer = as_ada.change(f"/api/shifts/{shift.pk}/end/")

    assert answer.status_code == 403
    assert "Only a pit manager on shift in that pit" in answer.json()["detail"]
    assert records() == before


def test_a_change_without_an_idempotency_key_is_refused(as_pete):
    answer = as_pete.post(f"/api/shifts/{open_shift('dana').pk}/break/", {}, format="json")

    assert answer.status_code == 400
    assert "Idempotency-Key" in answer.json()


def test_the_device_command_rotates_a_device_to_its_new_table(floor, rocket, blackstone):
    from django.core.management import CommandError, call_command

    call_command("device_token", "shoe-1", "--create", "--table", str(rocket.pk), "--by", "pete", stdout=None)
    call_command("device_token", "shoe-1", "--table", str(blackstone.pk), "--by", "pete", stdout=None)

    shifts = Shift.objects.filter(user__username="shoe-1").order_by("pk")
    assert [(s.table, s.ended_reason) for s in shifts] == [(rocket, "rotated"), (blackstone, "")]
    with pytest.raises(CommandError, match="already deals at"):
        call_command("device_token", "shoe-1", "--table", str(blackstone.pk), "--by", "pete", stdout=None)
