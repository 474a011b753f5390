"""Shifts run from the pit: pete, on shift in Pit 1, puts dana and olga on its tables, rotates them,
sends them on a break and ends their shifts, through the services and the pit's rota page. Every
start and end is in the audit log with who made it; every refusal is a 4xx with a sentence and writes
nothing. paul runs another pit; ada audits."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from casino.roles import ADMIN, PIT_MANAGER
from reports.selectors import with_shift
from tables.models import Game, Hand, Pit, Shift
from tables.pit.selectors import dealers_off_table
from tables.selectors import user_can_deal
from tables.services import ShiftError, hand_start, shift_end, shift_rotate, shift_start

from .conftest import COUNT_TEAM, card, key, open_table, person, seat, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def pit_on_duty(pit, pete):
    """pete on shift in Pit 1."""
    return shift_start(user=pete, pit=pit, by=pete)


@pytest.fixture
def paul(pit, pete):
    """A pit manager on shift in Pit 2 of the same casino, which has a table of its own."""
    other = Pit.objects.create(casino=pit.casino, name="Pit 2")
    open_table(other, pete, Game.BLACKSTONE, "Blackstone 9", 5, 500)
    paul = person("paul", PIT_MANAGER)
    shift_start(user=paul, pit=other, by=paul)
    return paul


def written() -> tuple[int, int]:
    """Shifts and audit events: the same before and after a refusal."""
    return Shift.objects.count(), AuditEvent.objects.count()


def audited(action) -> list[tuple]:
    # the count team that opened the test tables went on and off shift too: not the test's people
    events = AuditEvent.objects.filter(action=action).exclude(user__username__in=COUNT_TEAM).order_by("pk")
    return [(e.user.username, e.detail["person"], e.detail.get("reason")) for e in events]


# The services


def test_a_pit_manager_puts_a_dealer_on_a_table_of_their_pit_and_the_log_says_who(
    rocket, dana, pete, pit_on_duty
):
    shift = shift_start(user=dana, table=rocket, by=pete, key=key())

    assert (shift.table, shift.started_by, shift.ended_at) == (rocket, pete, None)
    assert user_can_deal(dana, rocket)
    event = AuditEvent.objects.filter(action=AuditEvent.Action.SHIFT_START, detail__person="dana").get()
    assert (event.user, event.detail["table"], event.detail["shift"]) == (pete, rocket.pk, shift.pk)


def test_a_rotation_ends_the_old_shift_and_starts_the_next_at_the_same_moment(
    rocket, blackstone, dana, pete, pit_on_duty
):
    first = shift_start(user=dana, table=rocket, by=pete)

    second = shift_rotate(shift=first, table=blackstone, by=pete, key=key())

    first.refresh_from_db()
    assert (first.ended_reason, first.ended_by, first.ended_at) == ("rotated", pete, second.started_at)
    assert (second.table, second.ended_at) == (blackstone, None)
    assert user_can_deal(dana, blackstone) and not user_can_deal(dana, rocket)
    assert audited(AuditEvent.Action.SHIFT_END) == [("pete", "dana", "rotated")]
    assert audited(AuditEvent.Action.SHIFT_START)[-2:] == [("pete", "dana", None), ("pete", "dana", None)]


def test_a_break_is_recorded_as_a_break_and_the_dealer_is_off_table(rocket, dana, olga, pete, pit_on_duty):
    shift = shift_start(user=dana, table=rocket, by=pete)

    ended = shift_end(shift=shift, reason=Shift.Ended.BREAK, by=pete, key=key())

    assert (ended.ended_reason, ended.ended_by) == ("break", pete)
    assert not user_can_deal(dana, rocket)
    off = {dealer.username: dealer.last_reason for dealer in dealers_off_table(rocket.pit)}
    assert off == {"dana": "break", "olga": None}  # olga never started
    assert audited(AuditEvent.Action.SHIFT_END) == [("pete", "dana", "break")]


def test_a_pit_manager_starts_and_ends_their_own_shift_in_a_pit(pit, pete):
    shift = shift_start(user=pete, pit=pit, by=pete, key=key())
    ended = shift_end(shift=shift, by=pete, key=key())

    assert ended.ended_reason == "end"
    assert audited(AuditEvent.Action.SHIFT_START) == [("pete", "pete", None)]
    assert audited(AuditEvent.Action.SHIFT_END) == [("pete", "pete", "end")]


def test_a_retried_change_is_applied_once(rocket, dana, pete, pit_on_duty):
    first = shift_start(user=dana, table=rocket, by=pete, key="assign-dana")
    again = shift_start(user=dana, table=rocket, by=pete, key="assign-dana")

    assert again.pk == first.pk
    assert len(audited(AuditEvent.Action.SHIFT_START)) == 2  # pete's own, and dana's once
    with pytest.raises(DomainError, match="already used for a different request"):
        shift_end(shift=first, by=pete, key="assign-dana")


def a_dealer_on_two_tables(rocket, blackstone, dana, pete, olga):
    shift_start(user=dana, table=blackstone, by=pete, key=key())


def a_start_in_the_future(rocket, blackstone, dana, pete, olga):
    shift_start(user=olga, table=rocket, at=timezone.now() + timedelta(minutes=2), by=pete, key=key())


def an_end_before_the_start(rocket, blackstone, dana, pete, olga):
    shift = Shift.objects.get(user=dana, ended_at=None)
    shift_end(shift=shift, at=shift.started_at - timedelta(minutes=5), by=pete, key=key())


def a_start_before_the_last_shift_ended(rocket, blackstone, dana, pete, olga):
    earlier = Shift.objects.get(user=olga).ended_at - timedelta(minutes=1)
    shift_start(user=olga, table=blackstone, at=earlier, by=pete, key=key())


def a_pit_manager_on_a_table(rocket, blackstone, dana, pete, olga):
    shift_start(user=person("pam", PIT_MANAGER), table=rocket, by=pete, key=key())


def a_dealer_in_a_pit(rocket, blackstone, dana, pete, olga):
    shift_start(user=olga, pit=rocket.pit, by=pete, key=key())


def a_rotation_to_the_same_table(rocket, blackstone, dana, pete, olga):
    shift_rotate(shift=Shift.objects.get(user=dana, ended_at=None), table=rocket, by=pete, key=key())


def a_break_as_a_rotation(rocket, blackstone, dana, pete, olga):
    shift_end(shift=Shift.objects.get(user=dana, ended_at=None), reason="rotated", by=pete, key=key())


@pytest.mark.parametrize(
    "refused, sentence",
    [
        (a_dealer_on_two_tables, "dana is already on shift at Rocket 1: rotate them"),
        (a_start_in_the_future, "cannot be in the future"),
        (an_end_before_the_start, "A shift cannot end before it started"),
        (a_start_before_the_last_shift_ended, "a new one cannot start before that"),
        (a_pit_manager_on_a_table, "pam is not a dealer: only dealers go on shift at a table"),
        (a_dealer_in_a_pit, "olga is not a pit manager: only pit managers go on shift in a pit"),
        (a_rotation_to_the_same_table, "dana already deals at"),
        (a_break_as_a_rotation, "a move to another table is a rotation"),
    ],
)
def test_a_refused_change_says_why_and_writes_nothing(
    refused, sentence, rocket, blackstone, dana, pete, olga, pit_on_duty
):
    shift_start(user=dana, table=rocket, by=pete)
    shift_end(shift=shift_start(user=olga, table=blackstone, by=pete), by=pete)
    before = written()

    with pytest.raises(ShiftError, match=sentence) as error:
        refused(rocket, blackstone, dana, pete, olga)

    assert error.value.status == 400
    assert written() == before


def test_a_start_a_little_ahead_of_the_clock_is_taken(rocket, olga, pete, pit_on_duty):
    shift = shift_start(user=olga, table=rocket, at=timezone.now() + timedelta(seconds=30), by=pete)
    assert shift.started_at > timezone.now()


def test_only_a_pit_manager_on_shift_in_the_tables_pit_changes_its_shifts(rocket, dana, olga, pete, paul):
    before = written()
    with pytest.raises(NotAllowed, match="Only a pit manager on shift in that pit"):
        shift_start(user=dana, table=rocket, by=paul, key=key())  # paul runs Pit 2
    with pytest.raises(NotAllowed):
        shift_start(user=dana, table=rocket, by=pete, key=key())  # pete is not on shift
    with pytest.raises(NotAllowed):
        shift_start(user=pete, pit=rocket.pit, by=paul, key=key())  # nor puts a colleague in a pit
    assert written() == before


def test_a_shift_ends_once(rocket, dana, pete, pit_on_duty):
    shift = shift_start(user=dana, table=rocket, by=pete)
    shift_end(shift=shift, by=pete, key=key())
    before = written()

    with pytest.raises(Conflict, match="already ended"):
        shift_end(shift=shift, reason=Shift.Ended.BREAK, by=pete, key=key())
    assert written() == before


def test_the_database_refuses_an_end_before_the_start_or_without_a_reason(rocket, dana, pete, pit_on_duty):
    shift = shift_start(user=dana, table=rocket, by=pete)
    shifts = Shift.objects.filter(pk=shift.pk)

    with pytest.raises(IntegrityError), transaction.atomic():
        shifts.update(ended_at=shift.started_at - timedelta(hours=1), ended_reason="end")
    with pytest.raises(IntegrityError), transaction.atomic():
        shifts.update(ended_at=shift.started_at)


def test_a_dealer_rotated_mid_hand_leaves_the_hand_to_the_next_dealer(
    rocket, blackstone, dana, olga, pete, pit_on_duty
):
    # The hand belongs to the table: dana goes to Blackstone mid-hand and olga, put on Rocket, deals on.
    dealing = shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, 100, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())

    shift_rotate(shift=dealing, table=blackstone, by=pete, key=key())
    shift_start(user=olga, table=rocket, by=pete, key=key())
    hand = card(Hand.objects.get(pk=hand.pk), 5, olga)

    assert hand.status == Hand.Status.IN_PROGRESS
    assert hand.cards.get().keyed_by == olga


def test_reports_count_each_hand_in_the_shift_on_duty_when_it_started(
    rocket, blackstone, dana, olga, pete, pit_on_duty
):
    # A rotation is two shifts: Rocket's first hand is dana's, its next one olga's.
    dealing = shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, 100, dana)
    first = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    Hand.objects.filter(pk=first.pk).update(status=Hand.Status.VOIDED)  # out of the way of the next
    rotated = shift_rotate(shift=dealing, table=blackstone, by=pete, key=key())
    relief = shift_start(user=olga, table=rocket, by=pete, key=key())
    second = hand_start(table=rocket, bets={1: 10}, by=olga, key=key())

    shifts = dict(with_shift(Hand.objects.filter(table=rocket)).values_list("pk", "shift_id"))

    assert shifts == {first.pk: dealing.pk, second.pk: relief.pk}
    assert rotated.table == blackstone


# The pit's rota page


@pytest.fixture
def as_pete(rocket, blackstone, dana, pete, pit_on_duty):
    """pete on shift in Pit 1, dana dealing at Rocket 1, olga off."""
    shift_start(user=dana, table=rocket, by=pete)
    return signed_in(pete)


def test_the_rota_shows_each_table_with_its_dealer_and_the_dealers_off_table(as_pete, rocket, olga):
    page = as_pete.get("/pit/shifts/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "Rocket 1" in text and "Blackstone 1" in text
    assert 'id="off-olga"' in text and "not started" in text
    assert "/pit/shifts/" in as_pete.get("/pit/").content.decode()  # linked from the floor


def test_the_rota_assigns_rotates_sends_on_break_and_ends_shifts(as_pete, rocket, blackstone, dana, olga):
    dana_shift = Shift.objects.get(user=dana, ended_at=None)

    assigned = as_pete.post(f"/pit/tables/{blackstone.pk}/shifts/", {"dealer": "olga", "key": key()})
    rotated = as_pete.post(f"/pit/shifts/{dana_shift.pk}/rotate/", {"table": blackstone.pk, "key": key()})
    dana_now = Shift.objects.get(user=dana, ended_at=None)
    on_break = as_pete.post(f"/pit/shifts/{dana_now.pk}/break/", {"key": key()})
    olga_shift = Shift.objects.get(user=olga, ended_at=None)
    ended = as_pete.post(f"/pit/shifts/{olga_shift.pk}/end/", {"key": key()})

    assert [r.status_code for r in (assigned, rotated, on_break, ended)] == [302] * 4
    endings = Shift.objects.filter(user__in=[dana, olga]).order_by("pk")
    assert [(s.user.username, s.table.name, s.ended_reason) for s in endings] == [
        ("dana", "Rocket 1", "rotated"),
        ("olga", "Blackstone 1", "end"),
        ("dana", "Blackstone 1", "break"),
    ]
    assert len(audited(AuditEvent.Action.SHIFT_END)) == 3


def test_the_rota_refuses_a_dealer_already_on_a_table_with_a_sentence(as_pete, blackstone, dana):
    before = written()

    page = as_pete.post(f"/pit/tables/{blackstone.pk}/shifts/", {"dealer": "dana", "key": key()})

    assert page.status_code == 400
    assert "dana is already on shift at" in page.content.decode()
    assert written() == before


def test_the_rota_answers_404_for_a_table_or_shift_of_another_pit(as_pete, paul):
    other_table = Shift.objects.get(user=paul).pit.tables.get()
    paul_shift = Shift.objects.get(user=paul)
    before = written()

    assigned = as_pete.post(f"/pit/tables/{other_table.pk}/shifts/", {"dealer": "olga", "key": key()})
    ended = as_pete.post(f"/pit/shifts/{paul_shift.pk}/end/", {"key": key()})

    assert (assigned.status_code, ended.status_code) == (404, 404)
    assert written() == before


def test_an_auditor_reads_the_rota_and_changes_nothing(as_pete, ada, rocket, dana):
    shift = Shift.objects.get(user=dana, ended_at=None)
    auditor = signed_in(ada)
    before = written()

    assert auditor.get("/pit/shifts/").status_code == 200
    refused = auditor.post(f"/pit/shifts/{shift.pk}/end/", {"key": key()})

    assert refused.status_code == 403
    assert written() == before


def test_a_dealer_has_no_rota(as_pete, dana):
    assert signed_in(dana).get("/pit/shifts/").status_code == 403


# The admin


def test_the_admin_shows_shifts_and_refuses_every_edit(as_pete, dana):
    admin = person("root", ADMIN)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    Group.objects.get(name=ADMIN)
    client = signed_in(admin)
    shift = Shift.objects.get(user=dana, ended_at=None)
    before = written()

    assert client.get("/admin/tables/shift/").status_code == 200
    assert client.get("/admin/tables/shift/add/").status_code == 403
    assert (
        client.post(f"/admin/tables/shift/{shift.pk}/change/", {"ended_at_0": "2026-01-01"}).status_code
        == 403
    )
    assert client.post(f"/admin/tables/shift/{shift.pk}/delete/", {"post": "yes"}).status_code == 403
    assert written() == before


@pytest.mark.django_db(transaction=True)
def test_two_pages_putting_one_dealer_on_two_tables_at_once_make_one_shift(
    rocket, blackstone, dana, pete, pit_on_duty
):
    from .test_races import race

    def act(i):
        try:
            shift_start(user=dana, table=[rocket, blackstone][i], by=pete, key=f"page-{i}")
        except ShiftError as error:
            return error.message.split(":")[0]
        return "started"

    outcomes = race(2, act)

    assert sorted(outcomes)[1] == "started" and sorted(outcomes)[0].startswith("dana is already on shift at")
    assert Shift.objects.filter(user=dana, ended_at=None).count() == 1


def test_a_dealer_on_shift_in_another_pit_is_refused_without_naming_that_table(
    rocket, dana, pete, paul, pit_on_duty
):
    far = Shift.objects.get(user=paul).pit.tables.get()
    shift_start(user=dana, table=far, by=paul)
    before = written()

    with pytest.raises(ShiftError) as error:
        shift_start(user=dana, table=rocket, by=pete, key=key())

    assert error.value.message == (
        "dana is already on shift in another pit: that pit ends the shift first."
    )
    assert far.name not in error.value.message
    assert written() == before


def test_a_time_on_another_day_is_named_with_its_date(rocket, olga, pete, pit_on_duty):
    # found trying the API: a start a year ahead was refused as "00:00 is over a minute ahead"
    from datetime import timedelta

    from django.utils import timezone

    ahead = timezone.localtime() + timedelta(days=365)

    with pytest.raises(ShiftError, match=f"{ahead:%Y-%m-%d %H:%M} is over a minute ahead"):
        shift_start(user=olga, table=rocket, by=pete, at=ahead, key=key())
